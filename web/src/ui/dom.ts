// Tiny DOM builders. Text always goes in as text nodes, never as HTML, and inline style attributes
// are never written (a strict CSP blocks them): per-element values go through CSS custom
// properties set with style.setProperty, which CSP allows.
export type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

function apply(node: Element, attributes: Attributes | undefined): void {
  if (!attributes) return;
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'style') throw new Error('inline style attributes are blocked by a strict CSP: use setVar()');
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
}

function append(node: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes?: Attributes, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  apply(node, attributes);
  append(node, children);
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes?: Attributes, ...children: Child[]): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  apply(node, attributes);
  append(node, children);
  return node;
}

/** Sets a CSS custom property (e.g. a heatmap cell's colour position) without an inline style attribute. */
export function setVar(node: HTMLElement | SVGElement, name: `--${string}`, value: string | number): void {
  if (node.style.getPropertyValue(name) !== String(value)) node.style.setProperty(name, String(value));
}

export function replaceChildren(node: Element, ...children: Child[]): void {
  node.textContent = '';
  append(node, children);
}

/**
 * replaceChildren for a block redrawn on every change (a worked sum, a reading): when the node already
 * holds equal children (same elements, attributes and text), it is left alone. An unchanged block then
 * costs no restyle, layout or repaint of its section, and the reader keeps a scroll position or focus
 * inside it. For plain markup only: listeners on the new children, and references the caller keeps
 * to them, do not carry over to the children kept.
 */
export function showChildren(node: Element, ...children: Child[]): void {
  const next = document.createDocumentFragment();
  append(next, children);
  const same =
    node.childNodes.length === next.childNodes.length &&
    Array.prototype.every.call(node.childNodes, (child: Node, i: number) => child.isEqualNode(next.childNodes[i]));
  if (!same) node.replaceChildren(next);
}

/**
 * Sets a node's text only when it differs: writing the same text still replaces the text node and
 * relays it out. A node holding one text node keeps it and gets new data: replacing it would remove
 * and rebuild its layout object and restyle it, where new data only relays out the text.
 */
export function setText(node: Node, text: string): void {
  if (node.textContent === text) return;
  const only = node.firstChild;
  if (only instanceof Text && only === node.lastChild && text !== '') only.data = text;
  else node.textContent = text;
}

// The value each field was last given by showField, to tell "the setting changed" from "a render with
// the same settings" (step 1's flips arrive in a second snapshot and every step renders it again).
const lastShown = new WeakMap<HTMLInputElement | HTMLSelectElement, string>();

/**
 * Writes a setting's value into its field. A field the reader is in (focused) keeps its text while the
 * setting stays what it was: a render between typing and the change event would otherwise put the old
 * value back under the reader's fingers. A new value, or a field not in focus, shows the setting in force.
 */
export function showField(field: HTMLInputElement | HTMLSelectElement, value: string | number): void {
  const text = String(value);
  const focused = (field.getRootNode() as Document | ShadowRoot).activeElement === field;
  if (!focused || lastShown.get(field) !== text) field.value = text;
  lastShown.set(field, text);
}

/**
 * A form around a figure's own controls. Chromium's autofill re-reads every form field that belongs
 * to no form after each change on the page, forcing a style and layout pass for each off-screen
 * section holding one (about 13 ms a change on this page); fields inside a form are left alone.
 * There is nothing to submit, and Enter in a lone number field would, so submitting is cancelled.
 */
export function controlForm(attributes: Attributes, ...children: Child[]): HTMLFormElement {
  const form = el('form', attributes, ...children);
  form.addEventListener('submit', (event) => event.preventDefault());
  return form;
}

/** Calls done once, when the pointer that is down now is released or cancelled anywhere on the page (a painting drag ends). */
export function whenPointerReleased(done: () => void): void {
  const stop = () => {
    window.removeEventListener('pointerup', stop);
    window.removeEventListener('pointercancel', stop);
    done();
  };
  window.addEventListener('pointerup', stop);
  window.addEventListener('pointercancel', stop);
}

const waitingToPaint = new WeakSet<object>();

/**
 * Calls `paint(target)` in the next animation frame, once per frame however often it is asked (several
 * updates in one frame paint once; reading the theme there costs no extra style recalculation, the
 * frame computes styles right after). A figure drawn before it was attached (a step rendered off the
 * page) waits up to 120 frames for `attached(target)`, as the theme is unknown until then. Between
 * frames the target is held weakly, so a figure a step has dropped meanwhile is collected rather than
 * kept by the wait (tests/browser/memory.test.ts): `paint` and `attached` must use only their argument.
 */
export function paintInNextFrame<T extends object>(target: T, attached: (target: T) => boolean, paint: (target: T) => void): void {
  if (typeof requestAnimationFrame !== 'function') return paint(target);
  if (waitingToPaint.has(target)) return;
  waitingToPaint.add(target);
  const weak = new WeakRef(target);
  let frames = 0;
  const frame = () => {
    const live = weak.deref();
    if (!live) return;
    if (!attached(live) && ++frames < 120) {
      requestAnimationFrame(frame);
      return;
    }
    waitingToPaint.delete(live);
    if (attached(live)) paint(live);
  };
  requestAnimationFrame(frame);
}
