// Step 3's words: the fixed introduction, and the sentences made from the snapshot the figures drew.
import { el } from '../../ui/dom';
import { fmt, quoted } from '../../ui/format';
import type { Snapshot } from '../../snapshot';
import { argmax, headRow } from '../shared/head-view';

export function intro(): HTMLElement[] {
  return [
    el(
      'p',
      {},
      'How well does token ',
      el('em', {}, 'i'),
      '’s query match token ',
      el('em', {}, 'j'),
      '’s key? Take their dot product: multiply component by component and add up. Every pair gives one score, a square table.',
    ),
    el('p', {}, 'Row ', el('em', {}, 'i'), ' is how strongly token ', el('em', {}, 'i'), ' is drawn to each token, itself included.'),
  ];
}

export function aside(): HTMLElement {
  return el('p', { class: 'aside' }, 'One row and one column per token: n × n numbers. The quadratic cost of step 9 starts here.');
}

/** The title of the by-hand box for cell (row, col). */
export function cellTitle({ tokens }: Snapshot, row: number, col: number): string {
  return `Cell (${row + 1}, ${col + 1}): how much ${quoted(tokens[row])} attends to ${quoted(tokens[col])}`;
}

/** Which key the selected row's query matches best, from the shown head's scores. */
export function rowReading({ pipeline: p, tokens, settings }: Snapshot, row: number): string {
  const scores = headRow(p.scores.data, p.n, settings.head, row);
  const best = argmax(scores);
  return (
    `Row ${row + 1} (${quoted(tokens[row])}) scores highest against ${quoted(tokens[best])} ` +
    `(${fmt(scores[best])}). Scores can be negative and need not add up to anything yet.`
  );
}
