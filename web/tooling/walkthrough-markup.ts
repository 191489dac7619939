// Runs inside the build (web/tooling/prerender-walkthrough.ts loads it through Vite, with happy-dom's
// window as the global scope): the real <attention-walkthrough> element, started on the real engine
// and the shipped weights, draws every step at the default settings; what its shadow root then holds
// is the page's prerendered walkthrough. Nothing here is shipped.
import { loadEngine } from '../src/engine/engine';
import { WALKTHROUGH_ELEMENT } from '../src/elements/registry';
import { ELEMENT_CSS } from '../src/elements/styles';
import { provideTrainedWeights } from '../src/trained';
import { provideReaderModel } from '../src/features/reader/model';
import '../src/elements/index';

export interface WalkthroughMarkup {
  /** The shadow root's children, serialised (with no style attribute: see below). */
  html: string;
  /** The element's stylesheet, then one rule per distinct inline style the drawing set. */
  css: string;
}

type Drawn = HTMLElement & { updateComplete: Promise<void> };

/** The element's shadow content once every step is drawn, for `attributes` (those of the page's element). */
export async function walkthroughMarkup(
  attributes: Record<string, string>,
  wasmBinary: Uint8Array,
  shippedWeights: Uint8Array,
  readerWeights: Uint8Array,
): Promise<WalkthroughMarkup> {
  // The element shares the page's one engine (loadEngine) and finds the weights already given to it,
  // so nothing is downloaded: the build passes in the bytes the page would fetch.
  const engine = await loadEngine({ wasmBinary });
  provideTrainedWeights(engine, shippedWeights);
  provideReaderModel(engine, false, readerWeights);
  const element = document.createElement(WALKTHROUGH_ELEMENT) as Drawn;
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  document.body.append(element);
  await element.updateComplete;
  if (element.dataset.ready !== 'true') throw new Error(`the walkthrough did not draw (data-ready=${element.dataset.ready})`);
  const root = element.shadowRoot!;

  // Per-element values (bar lengths, colour positions) are CSS custom properties set through the CSSOM,
  // which serialises as style attributes, and a strict CSP blocks those in markup. Each distinct one
  // becomes a rule on a data attribute instead, in the prerendered stylesheet.
  const rules = new Map<string, number>();
  for (const node of root.querySelectorAll('[style]')) {
    const declarations = node.getAttribute('style')!.trim();
    node.removeAttribute('style');
    if (!declarations) continue;
    if (!rules.has(declarations)) rules.set(declarations, rules.size);
    node.setAttribute('data-prerender-style', String(rules.get(declarations)));
  }
  // A prediction hides its answer until the reader guesses, which takes the script; without it the
  // answer shows (no-script.css lifts the blur), so it must not stay inert and hidden from assistive
  // technology. With the script, the live drawing puts the prediction back at once.
  for (const cover of root.querySelectorAll('.predict-cover')) {
    cover.removeAttribute('inert');
    cover.removeAttribute('aria-hidden');
  }
  // The copy's controls do nothing until the live part has loaded, which the page starts at the reader's
  // first reach (web/src/main.ts). Disabled, they say so, and a press on one is not taken for a change
  // that the live drawing would then drop with the copy. Without the script they are hidden (no-script.css).
  for (const control of root.querySelectorAll('button, input, select, textarea')) control.setAttribute('disabled', '');
  // A control's current value is a property, which markup does not keep: written back as the attribute
  // it starts from, the copy shows the settings it was drawn with (not an empty sentence or d_model 2).
  for (const input of root.querySelectorAll('input')) {
    if (input.type === 'checkbox' || input.type === 'radio') input.toggleAttribute('checked', input.checked);
    else input.setAttribute('value', input.value);
  }
  for (const option of root.querySelectorAll('option')) option.toggleAttribute('selected', option.selected);
  for (const area of root.querySelectorAll('textarea')) area.textContent = area.value;
  const css = [ELEMENT_CSS, ...[...rules].map(([declarations, id]) => `[data-prerender-style='${id}']{${declarations}}`)].join('\n');
  return { html: root.innerHTML, css };
}
