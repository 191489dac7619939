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

/**
 * The attribute by which a prerendered copy's per-element values (bar lengths, colour positions) are
 * rules of its stylesheet instead of style attributes (web/tooling/walkthrough-markup.ts).
 */
export const COPY_STYLE_ATTRIBUTE = 'data-prerender-style';

/**
 * Gives a shadow root the shared sheet. A prerendered root's inline <style> (the shared rules its copy
 * uses, plus the copy's own per-element rules) goes in the same task, so no restyle matches both, and
 * its own rules stay in a small sheet of their own: the sections not drawn live yet keep their bar
 * lengths and colours (dropping the <style> at the first drawing took those from them).
 */
export function adoptElementStyles(root: ShadowRoot): void {
  const inline = [...root.children].filter((child): child is HTMLStyleElement => child.localName === 'style');
  const copyRules = inline.flatMap((style) =>
    [...(style.sheet?.cssRules ?? [])].filter(
      (rule) => rule instanceof CSSStyleRule && rule.selectorText.includes(`[${COPY_STYLE_ATTRIBUTE}`),
    ),
  );
  const sheets = [sharedStyleSheet()];
  if (copyRules.length > 0) {
    const copySheet = new CSSStyleSheet();
    copySheet.replaceSync(copyRules.map((rule) => rule.cssText).join('\n'));
    sheets.push(copySheet);
  }
  root.adoptedStyleSheets = sheets;
  for (const style of inline) style.remove();
}

export function sharedStyleSheet(): CSSStyleSheet {
  if (!shared) {
    shared = new CSSStyleSheet();
    shared.replaceSync(ELEMENT_CSS);
  }
  return shared;
}
