// One constructed stylesheet shared by every element's shadow root: parsed once however many
// elements a page has, and allowed under a strict CSP (no <style> element, no inline style).
// Each widget, step and feature keeps its rules beside its code; they are joined here in one fixed
// order, because rules of equal specificity in different sheets are settled by that order.
import tokens from '../styles/tokens.css?inline';
import walkthrough from '../styles/walkthrough.css?inline';
import layout from '../ui/layout.css?inline';
import matrixTable from '../ui/matrix-table/matrix-table.css?inline';
import widgets from '../ui/widgets.css?inline';
import matrixPicture from '../ui/matrix-table/picture.css?inline';
import headGrid from '../ui/head-grid.css?inline';
import problem from '../steps/01-problem.css?inline';
import qkv from '../steps/02-qkv.css?inline';
import scale from '../steps/04-scale.css?inline';
import softmax from '../steps/05-softmax.css?inline';
import causal from '../steps/07-causal.css?inline';
import multiHead from '../steps/08-multi-head.css?inline';
import cost from '../steps/09-cost.css?inline';
import flash from '../features/flash/flash.css?inline';
import faq from '../steps/12-faq.css?inline';
import trainedModel from '../features/trained-model/trained-model.css?inline';
import training from '../features/training/training.css?inline';
import reader from '../features/reader/reader.css?inline';
import longContext from '../features/long-context/long-context.css?inline';
import matrixMenu from '../ui/matrix-table/menu.css?inline';
import matrixEditing from '../ui/matrix-table/editing.css?inline';
import predict from '../ui/predict.css?inline';
import numpyScript from '../features/hands-on/numpy-script.css?inline';
import noScript from '../styles/no-script.css?inline';

/** Every element's CSS: the live elements adopt it, and the build inlines it in the prerendered page. */
export const ELEMENT_CSS = [
  tokens,
  walkthrough,
  layout,
  matrixTable,
  widgets,
  matrixPicture,
  headGrid,
  problem,
  qkv,
  scale,
  softmax,
  causal,
  multiHead,
  cost,
  flash,
  faq,
  trainedModel,
  training,
  reader,
  longContext,
  matrixMenu,
  matrixEditing,
  predict,
  numpyScript,
  noScript,
].join('\n');

let shared: CSSStyleSheet | null = null;

export function sharedStyleSheet(): CSSStyleSheet {
  if (!shared) {
    shared = new CSSStyleSheet();
    shared.replaceSync(ELEMENT_CSS);
  }
  return shared;
}
