// Runs inside the build (web/tooling/prerender-walkthrough.ts loads it through Vite, with happy-dom's
// window as the global scope): the real <attention-walkthrough> element, started on the real engine
// and the shipped weights, draws every step at the default settings; what its shadow root then holds
// is the page's prerendered walkthrough. Nothing here is shipped.
import { transform } from 'lightningcss';
import { loadEngine } from '../src/engine/engine';
import { WALKTHROUGH_ELEMENT } from '../src/elements/registry';
import { STEP_REGISTRY } from '../src/elements/step-registry';
import { COPY_STYLE_ATTRIBUTE, ELEMENT_CSS } from '../src/elements/styles';
import { provideTrainedWeights } from '../src/features/trained-model/trained';
import { provideReaderModel } from '../src/features/reader/model';
import { READER_MODELS } from '../src/model/reader';
import '../src/elements/index';

export interface WalkthroughMarkup {
  /** The shadow root's children, serialised (with no style attribute: see below). */
  html: string;
  /** The element's stylesheet, then one rule per distinct inline style the drawing set. */
  css: string;
}

type Drawn = HTMLElement & { updateComplete: Promise<void> };

/**
 * What a table cell of the copy can do without: the live figure's keyboard grid (tabindex, the grid
 * role, the selected cell, the row and column a cursor moves by) and its hover titles, which repeat
 * the cell's number in a sentence. They were most of the page's bytes (~180 KB of 530 KB); the copy is
 * read, not explored, and the live drawing, which has them all, replaces it at the reader's first reach.
 */
const LIVE_ONLY_CELL_ATTRIBUTES = ['tabindex', 'title', 'data-row', 'data-col', 'aria-selected'];

/**
 * A matrix with more cells than this (the trained model's 9 × 9 maps, its 9 × 32 output, the tiled
 * walk's and the long-context maps) becomes one sentence in the copy and is drawn when its step goes
 * live. The article's example's matrices (at most 4 × 8) stay: the prose reads from them.
 */
const HEAVY_MATRIX_CELLS = 64;

/** The one line of the copy that stands for a figure drawn only by the live page; it keeps the figure's id (a link's target). */
function liveOnly(figure: Element, what: string): void {
  const line = document.createElement('p');
  line.className = 'prerender-summary';
  if (figure.id) line.id = figure.id;
  line.textContent = `${what}, drawn when the live page starts (it needs JavaScript).`;
  figure.replaceWith(line);
}

function compactTables(root: ShadowRoot): void {
  for (const table of root.querySelectorAll('table.matrix')) {
    if (table.querySelectorAll('td').length <= HEAVY_MATRIX_CELLS) continue;
    const rows = table.querySelectorAll('tbody tr');
    const columns = rows[0]?.querySelectorAll('td').length ?? 0;
    const caption = table.querySelector('caption')?.textContent?.trim() ?? 'A matrix';
    liveOnly(table, `${caption}: ${rows.length} × ${columns} numbers`);
  }
  for (const cell of root.querySelectorAll('table td, table th, table tr')) {
    for (const name of LIVE_ONLY_CELL_ATTRIBUTES) cell.removeAttribute(name);
    if (cell.getAttribute('class') === '') cell.removeAttribute('class');
  }
  for (const grid of root.querySelectorAll('table[role="grid"]')) grid.removeAttribute('role');
}

/**
 * The registry's `figuresNamedInCopy` steps (the cost, FlashAttention, long context, training, the
 * questions) keep their prose in the copy, and each figure becomes the line that names it: far down the
 * page, they are drawn live before a reader gets there, and their figures were a sixth of the copy's
 * gzipped bytes (`npm run bench`'s throttled walk measures it).
 */
const FIGURES = 'figure, .scroll-region:not(.formula), .colour-legend, svg';

function nameFarFigures(root: ShadowRoot): void {
  for (const { id } of STEP_REGISTRY.filter((entry) => 'figuresNamedInCopy' in entry && entry.figuresNamedInCopy)) {
    const section = root.querySelector(`section[data-step="${id}"]`);
    if (!section) throw new Error(`the copy has no section for the step ${id}`);
    for (const figure of section.querySelectorAll(FIGURES)) {
      if (figure.parentElement?.closest(FIGURES)) continue; // goes with the figure holding it
      const name =
        figure.querySelector('figcaption')?.textContent ??
        figure.querySelector('caption')?.textContent ??
        (figure.getAttribute('aria-label') || figure.querySelector('[aria-label]')?.getAttribute('aria-label')) ??
        'A figure';
      liveOnly(figure, name.trim().replace(/[.:]$/, ''));
    }
  }
}

/**
 * What no reader of the copy can see or use, left out of it: an element the drawing hid (closed menus,
 * empty notes, the other model's panel; without the script nothing can show it, and with it the live
 * section replaces the whole copy), a formula's TeX source (MathML shows the formula; the TeX is for
 * copying, which the live page offers), the live figures' memo keys and their announcements (the copy
 * never changes, so an aria-live region in it has nothing to announce). A reference left pointing at a
 * removed element is dropped with it.
 */
const LIVE_ONLY_ATTRIBUTES = ['data-key', 'aria-live'];
const ID_REFERENCES = ['aria-controls', 'aria-labelledby', 'aria-describedby', 'for'];

function dropUnseen(root: ShadowRoot): void {
  for (const node of root.querySelectorAll('[hidden], math annotation')) node.remove();
  for (const name of LIVE_ONLY_ATTRIBUTES) for (const node of root.querySelectorAll(`[${name}]`)) node.removeAttribute(name);
  const ids = new Set([...root.querySelectorAll('[id]')].map((node) => node.id));
  for (const name of ID_REFERENCES) {
    for (const node of root.querySelectorAll(`[${name}]`)) {
      const kept = node
        .getAttribute(name)!
        .split(/\s+/)
        .filter((id) => ids.has(id));
      if (kept.length) node.setAttribute(name, kept.join(' '));
      else node.removeAttribute(name);
    }
  }
}

/**
 * The CSS rules that can style something in the copy. The copy changes only by the reader opening a
 * <details>, hovering or focusing, so a selector is tried with its pseudo-classes, pseudo-elements and
 * [open] taken out (which can only widen it); :host rules and at-rules other than conditional groups
 * stay. A rule whose every selector matches nothing is left out: the live element adopts the whole
 * stylesheet (elements/styles.ts) before it draws anything of its own.
 */
function usedCss(css: string, root: ShadowRoot): string {
  const matches = (selector: string): boolean => {
    if (/:host|:root/.test(selector)) return true;
    let plain = selector;
    for (let before = ''; before !== plain;) {
      before = plain;
      plain = plain.replace(/::?[\w-]+(\([^()]*\))?/g, '').replace(/\[open\]/g, '');
    }
    plain = plain.replace(/([>+~]\s*)+$/, '').trim();
    if (!plain || /^[>+~]/.test(plain)) return true;
    try {
      return root.querySelector(plain) !== null;
    } catch {
      return true; // a selector happy-dom cannot read: kept
    }
  };
  // Top-level blocks `prelude{body}` of minified CSS, with nested groups walked into.
  const prune = (text: string): string => {
    let out = '';
    let i = 0;
    while (i < text.length) {
      const open = text.indexOf('{', i);
      if (open < 0) break;
      let depth = 1;
      let close = open + 1;
      for (; close < text.length && depth > 0; ++close) depth += text[close] === '{' ? 1 : text[close] === '}' ? -1 : 0;
      const prelude = text.slice(i, open).trim();
      const body = text.slice(open + 1, close - 1);
      i = close;
      if (/^@(media|supports|container|layer)\b/.test(prelude)) {
        const inner = prune(body);
        if (inner) out += `${prelude}{${inner}}`;
      } else if (prelude.startsWith('@') || splitSelectors(prelude).some(matches)) out += `${prelude}{${body}}`;
    }
    return out;
  };
  return prune(css);
}

/** A selector list split at its top-level commas (not those inside :is(), :not() or :where()). */
function splitSelectors(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; ++i) {
    if (list[i] === '(') ++depth;
    else if (list[i] === ')') --depth;
    else if (list[i] === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  return [...parts, list.slice(start)];
}

/**
 * The stylesheet minified as the bundle's is (Vite builds CSS with Lightning CSS, which Vite depends
 * on): the build loads the element's modules unbundled, so its CSS arrives with every comment.
 */
function minifiedCss(css: string): string {
  return transform({ filename: 'walkthrough.css', code: Buffer.from(css), minify: true }).code.toString();
}

/**
 * The copy holds no form and no form field. Chromium's autofill reads every form and field of a page at
 * DOMContentLoaded and at load, and each read lays out the `content-visibility: auto` section around it,
 * so the copy's 10 forms and 34 fields (all disabled) cost the load a layout of most of the page
 * (tests/bench/README.md, "Main thread, eighth pass"; a form with no field left is still read). Each
 * field becomes a stand-in (`.field-stand-in`, ui/widgets.css) with the field's box that shows the
 * setting it was drawn with, greyed; each form a block (a named one keeps its landmark role). The live
 * drawing replaces them with the real ones.
 */
const STAND_IN_CLASS = 'field-stand-in';

function replaceForms(root: ShadowRoot): void {
  for (const field of root.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('input, select, textarea')) {
    const standIn = document.createElement('span');
    standIn.className = [STAND_IN_CLASS, field.className].filter(Boolean).join(' ');
    const kind = field instanceof HTMLInputElement ? field.type : field.localName;
    standIn.dataset.field = kind;
    const name = field.getAttribute('name');
    if (name) standIn.dataset.name = name;
    const title = field.getAttribute('title');
    if (title) standIn.title = title;
    if (field instanceof HTMLSelectElement) {
      // Every choice in one grid cell, the chosen one seen: the stand-in is as wide as the widest, as the select is.
      for (const option of field.options) {
        const label = document.createElement('span');
        label.textContent = option.textContent;
        if (!option.selected) label.className = 'unchosen';
        standIn.append(label);
      }
    } else if (field instanceof HTMLInputElement && (kind === 'checkbox' || kind === 'radio')) {
      if (field.checked) standIn.dataset.checked = '';
    } else if (kind === 'range') {
      const input = field as HTMLInputElement;
      const [min, max, value] = [input.min || '0', input.max || '100', input.value].map(Number) as [number, number, number];
      standIn.style.setProperty('--at', `${max > min ? ((value - min) / (max - min)) * 100 : 0}%`);
    } else {
      // A text field is as wide as its `size` characters (20 unless set), as the field is.
      const size = field.getAttribute('size');
      if (size) standIn.style.setProperty('--size', size);
      standIn.textContent = field.value;
    }
    field.replaceWith(standIn);
  }
  for (const form of root.querySelectorAll('form')) {
    const block = document.createElement('div');
    for (const { name, value } of form.attributes) block.setAttribute(name, value);
    if (form.hasAttribute('aria-label') || form.hasAttribute('aria-labelledby')) block.setAttribute('role', 'form');
    block.append(...form.childNodes);
    form.replaceWith(block);
  }
}

/** The element's shadow content once every step is drawn, for `attributes` (those of the page's element). */
export async function walkthroughMarkup(
  attributes: Record<string, string>,
  engineBytes: { wasmBinary: Uint8Array; laterWasmBinary: Uint8Array },
  shippedWeights: Uint8Array,
  readerWeights: Uint8Array,
  readerAliases: Uint8Array,
): Promise<WalkthroughMarkup> {
  // The element shares the page's one engine (loadEngine) and finds the weights already given to it,
  // so nothing is downloaded: the build passes in the bytes the page would fetch.
  const engine = await loadEngine(engineBytes);
  provideTrainedWeights(engine, shippedWeights);
  provideReaderModel(engine, false, readerWeights, READER_MODELS.bidirectional, 'at once', readerAliases);
  const element = document.createElement(WALKTHROUGH_ELEMENT) as Drawn;
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  document.body.append(element);
  await element.updateComplete;
  if (element.dataset.ready !== 'true') throw new Error(`the walkthrough did not draw (data-ready=${element.dataset.ready})`);
  const root = element.shadowRoot!;
  // Before the style attributes become rules: a slider's stand-in marks its value with one.
  replaceForms(root);

  // Per-element values (bar lengths, colour positions) are CSS custom properties set through the CSSOM,
  // which serialises as style attributes, and a strict CSP blocks those in markup. Each distinct one
  // becomes a rule on a data attribute instead, in the prerendered stylesheet.
  const rules = new Map<string, number>();
  for (const node of root.querySelectorAll('[style]')) {
    const declarations = node.getAttribute('style')!.trim();
    node.removeAttribute('style');
    if (!declarations) continue;
    if (!rules.has(declarations)) rules.set(declarations, rules.size);
    node.setAttribute(COPY_STYLE_ATTRIBUTE, String(rules.get(declarations)));
  }
  // A prediction hides its answer until the reader guesses, which takes the script; without it the
  // answer shows (no-script.css lifts the blur), so it must not stay inert and hidden from assistive
  // technology. With the script, the live drawing puts the prediction back at once.
  for (const cover of root.querySelectorAll('.predict-cover')) {
    cover.removeAttribute('inert');
    cover.removeAttribute('aria-hidden');
  }
  // The copy's buttons do nothing until the live part has loaded, which the page starts at the reader's
  // first reach (web/src/main.ts). Disabled, they say so, and a press on one is not taken for a change
  // that the live drawing would then drop with the copy. Without the script they are hidden (no-script.css).
  for (const button of root.querySelectorAll('button')) button.setAttribute('disabled', '');
  nameFarFigures(root);
  compactTables(root);
  dropUnseen(root);
  const css = [ELEMENT_CSS, ...[...rules].map(([declarations, id]) => `[${COPY_STYLE_ATTRIBUTE}='${id}']{${declarations}}`)].join('\n');
  return { html: root.innerHTML, css: usedCss(minifiedCss(css), root) };
}
