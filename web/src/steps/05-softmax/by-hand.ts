// Step 5's by-hand box: the chosen cell's softmax worked out over its row (subtract the row's max,
// exponentiate, divide by the sum), or why a row with every key masked draws nothing.
import { columnHeads } from '../../ui/data-table';
import { el } from '../../ui/dom';
import { fmt, percent, quoted } from '../../ui/format';
import { tokenLabels } from '../../ui/labels';
import { scrollRegion } from '../../ui/scroll-region';
import type { Snapshot } from '../../snapshot';
import { headRow } from '../shared/head-view';

/** The box's contents for cell (row, col) of the shown head. */
export function softmaxByHand(snapshot: Snapshot, row: number, col: number): HTMLElement[] {
  const { pipeline: p, tokens, settings } = snapshot;
  const h = settings.head;
  if (p.fullyMaskedRows[row])
    return [
      el('p', { class: 'by-hand-title' }, `Row ${row + 1} (${quoted(tokens[row])}): every key is masked`),
      el(
        'p',
        {},
        'All its scores are −∞, so every exponential is 0 and the sum is 0 as well. Rather than divide 0 by 0, the engine gives the row all-zero weights: it draws nothing, and its sum is 0%.',
      ),
    ];
  const scores = headRow(p.scoresScaled.data, p.n, h, row);
  const weights = headRow(p.weights.data, p.n, h, row);
  const allowed = (j: number) => p.mask.data[row * p.n + j] === 1;
  let max = -Infinity;
  for (let j = 0; j < p.n; j++) if (allowed(j)) max = Math.max(max, scores[j]);
  const exps = Array.from(scores, (s, j) => (allowed(j) ? Math.exp(s - max) : 0));
  const total = exps.reduce((a, b) => a + b, 0);
  const labels = tokenLabels(tokens);
  const rows = Array.from(scores, (s, j) =>
    el(
      'tr',
      { class: j === col ? 'chosen' : null, 'data-col': j },
      el('th', { scope: 'row' }, labels[j]),
      el('td', {}, allowed(j) ? fmt(s) : '−∞'),
      el('td', {}, allowed(j) ? fmt(s - max) : '−∞'),
      el('td', { class: 'softmax-exp', 'data-value': exps[j] }, fmt(exps[j], 3)),
      el('td', { 'data-value': weights[j] }, percent(weights[j], 1)),
    ),
  );
  const long = p.n > 12;
  const scoreName = settings.scale ? 'the scaled scores s (score / √dₖ)' : 'the scores s (unscaled: scaling is off)';
  return [
    el('p', { class: 'by-hand-title' }, `Cell (${row + 1}, ${col + 1}): how much ${quoted(labels[row])} draws from ${quoted(labels[col])}`),
    el('p', {}, `Row ${row + 1} of ${scoreName}, minus its largest (${fmt(max)}), exponentiated and divided by the total:`),
    scrollRegion(
      {
        label: `Softmax of row ${row + 1}, step by step`,
        className: long ? 'matrix-scroll softmax-steps long' : 'matrix-scroll softmax-steps',
      },
      el(
        'table',
        { class: 'data-table' },
        el('caption', {}, `Softmax of row ${row + 1} (${quoted(labels[row])}), step by step`),
        columnHeads(['key', 's', `s − ${fmt(max)}`, 'e^(s − max)', 'weight']),
        el('tbody', {}, ...rows),
        el(
          'tfoot',
          {},
          el(
            'tr',
            {},
            el('th', { scope: 'row' }, 'sum'),
            el('td', {}),
            el('td', {}),
            el('td', { class: 'softmax-total', 'data-value': total }, fmt(total, 3)),
            el(
              'td',
              {},
              percent(
                weights.reduce((a, b) => a + b, 0),
                1,
              ),
            ),
          ),
        ),
      ),
    ),
    el(
      'p',
      { class: 'by-hand softmax-line' },
      el('span', { class: 'by-hand-label' }, `w[${row + 1}, ${col + 1}]`),
      ' = ',
      allowed(col)
        ? `e^(${fmt(scores[col])} − ${fmt(max)}) / ${fmt(total, 3)} = ${fmt(exps[col], 3)} / ${fmt(total, 3)} = `
        : 'e^(−∞) / … = 0 = ',
      el('strong', { class: 'by-hand-result', 'data-value': weights[col] }, percent(weights[col], 1)),
    ),
  ];
}
