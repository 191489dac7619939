// One constructed stylesheet shared by every element's shadow root: parsed once however many
// elements a page has, and allowed under a strict CSP (no <style> element, no inline style).
// Each widget, step and figure keeps its rules beside its code; they are joined here in one fixed
// order, because rules of equal specificity in different sheets are settled by that order. The sheets
// in the steps' folders (each step's own, then its figures') are found by the generator from the step
// registry (elements/step-registry.ts) and come in step order after the widgets'; the components that
// several steps share follow them.
import tokens from '../styles/tokens.css?inline';
import walkthrough from '../styles/walkthrough.css?inline';
import layout from '../ui/layout.css?inline';
import figureModel from '../steps/shared/figure.css?inline';
import matrixTable from '../ui/matrix-table/matrix-table.css?inline';
import widgets from '../ui/widgets.css?inline';
import matrixPicture from '../ui/matrix-table/picture.css?inline';
import headGrid from '../ui/head-grid.css?inline';
import costRun from '../features/cost/cost-run.css?inline';
import trainedModel from '../features/trained-model/trained-model.css?inline';
import reader from '../features/reader/reader.css?inline';
import matrixMenu from '../ui/matrix-table/menu.css?inline';
import matrixEditing from '../ui/matrix-table/editing.css?inline';
import predict from '../ui/predict.css?inline';
import numpyScript from '../features/hands-on/numpy-script.css?inline';
import noScript from '../styles/no-script.css?inline';
import { STEP_CSS } from './generated/step-styles';

/** Every element's CSS: the live elements adopt it, and the build inlines it in the prerendered page. */
export const ELEMENT_CSS = [
  tokens,
  walkthrough,
  layout,
  figureModel,
  matrixTable,
  widgets,
  matrixPicture,
  headGrid,
  ...STEP_CSS,
  costRun,
  trainedModel,
  reader,
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
