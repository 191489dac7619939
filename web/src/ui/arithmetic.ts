// "Worked out by hand": a sum of products written term by term, the way the article writes
// q₁ · k₁ = 1.0(1.1) + 0.5(0.4) = 1.30. Each term is its own element so tests (and readers) can
// check that the shown terms add up to the shown result.
import { el } from './dom';
import { fmt } from './format';

export interface ProductTerm {
  a: number;
  b: number;
  /** Shown instead of the number when the term is blocked (e.g. a masked weight). */
  note?: string;
}

export function byHandSum(label: Node | string, terms: ProductTerm[], result: number, digits = 2): HTMLElement {
  const line = el('p', { class: 'by-hand' }, el('span', { class: 'by-hand-label' }, label), ' = ');
  terms.forEach((term, index) => {
    const a = fmt(term.a, digits);
    // The sign as printed: a tiny negative that rounds to 0.00 still needs its plus.
    if (index > 0) line.appendChild(document.createTextNode(a.startsWith('\u2212') ? ' ' : ' + '));
    line.appendChild(el('span', { class: 'term', 'data-a': term.a, 'data-b': term.b }, `${a}(${fmt(term.b, digits)})`));
  });
  line.append(' = ', el('strong', { class: 'by-hand-result', 'data-value': result }, fmt(result, digits)));
  return line;
}
