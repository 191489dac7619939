// Pieces of prose several steps build the same way: a link to another section of the page, and a
// part of a step opened by its heading and a lead paragraph.
import { el, type Child } from '../../ui/dom';

export function link(href: string, text: string): HTMLAnchorElement {
  return el('a', { href }, text);
}

/** A part of a step: its heading, then the paragraph that says what follows. */
export function subheading(title: string, ...lead: Child[]): HTMLElement[] {
  return [el('h3', {}, title), el('p', {}, ...lead)];
}
