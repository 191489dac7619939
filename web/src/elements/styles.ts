// One constructed stylesheet shared by every element's shadow root: parsed once however many
// elements a page has, and allowed under a strict CSP (no <style> element, no inline style).
import longContext from '../features/long-context/long-context.css?inline';
import figures from '../styles/figures.css?inline';
import handsOn from '../styles/hands-on.css?inline';
import noScript from '../styles/no-script.css?inline';
import steps from '../styles/steps.css?inline';
import tokens from '../styles/tokens.css?inline';
import walkthrough from '../styles/walkthrough.css?inline';
import reader from '../features/reader/reader.css?inline';

/** Every element's CSS: the live elements adopt it, and the build inlines it in the prerendered page. */
export const ELEMENT_CSS = [tokens, walkthrough, figures, steps, reader, longContext, handsOn, noScript].join('\n');

let shared: CSSStyleSheet | null = null;

export function sharedStyleSheet(): CSSStyleSheet {
  if (!shared) {
    shared = new CSSStyleSheet();
    shared.replaceSync(ELEMENT_CSS);
  }
  return shared;
}
