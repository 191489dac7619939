// Step 5's words: the fixed text around the figure, and the sentences made from the snapshot it drew.
import { el } from '../../ui/dom';
import { percent, quoted } from '../../ui/format';
import { tokenLabels } from '../../ui/labels';
import type { Snapshot } from '../../snapshot';
import { headRow } from '../shared/head-view';

/** How many tokens the row sentence names before summing up the rest. */
const NAMED = 4;

function joinParts(parts: string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** "“it” draws 31% from itself, 26% from “animal”, … and 9% from the other 5 tokens together." */
export function rowSentence(snapshot: Snapshot, row: number): string {
  const { pipeline: p, tokens, settings } = snapshot;
  const labels = tokenLabels(tokens);
  const who = quoted(labels[row]);
  if (p.fullyMaskedRows[row])
    return `Row ${row + 1}: every key is masked for ${who}, so it has nothing to draw from. Its weights are all 0%.`;
  const weights = headRow(p.weights.data, p.n, settings.head, row);
  const allowed = Array.from(weights, (_, j) => j).filter((j) => p.mask.data[row * p.n + j] === 1);
  const order = [...allowed].sort((a, b) => weights[b] - weights[a] || a - b);
  const from = (j: number) => (j === row ? 'itself' : quoted(labels[j]));
  const parts = order.slice(0, order.length <= NAMED + 1 ? order.length : NAMED).map((j) => `${percent(weights[j])} from ${from(j)}`);
  const rest = order.slice(parts.length);
  if (rest.length > 0) {
    let share = 0;
    for (const j of rest) share += weights[j];
    parts.push(`${percent(share)} from the other ${rest.length} tokens together`);
  }
  const masked = p.n - allowed.length;
  const maskNote = masked > 0 ? ` The ${masked} masked token${masked === 1 ? ' gets' : 's get'} exactly 0%.` : '';
  return `Row ${row + 1}: ${who} draws ${joinParts(parts)}.${maskNote}`;
}

export function intro(): HTMLElement[] {
  return [
    el(
      'p',
      {},
      'Softmax raises e to every score of a row and divides by the row’s total: positive weights that add up to 100%. One point more of score earns 2.7 times the weight.',
    ),
    el(
      'p',
      {},
      'Subtracting the row’s largest score first changes nothing (e',
      el('sup', {}, '−max'),
      ' cancels above and below the line) but keeps e',
      el('sup', {}, 'x'),
      ' from overflowing.',
    ),
  ];
}

export function aside(): HTMLElement {
  return el(
    'p',
    { class: 'aside' },
    'This is what attention maps draw: where each token’s information came from, not what was computed with it.',
  );
}

/** The map's legend: the strongest share, and what hatched cells are when there are any. */
export function legendText({ pipeline: p, settings }: Snapshot, peak: number): string {
  return (
    `A stronger blue means a larger share; the strongest cell is ${percent(peak)}.` +
    (settings.causal || p.mask.data.includes(0) ? ' Hatched cells are masked (step 7): they get exactly 0%.' : '')
  );
}

/** Which rows have every key masked, and why they sum to 0%; empty when none has. */
export function emptyRowsText(empty: readonly number[]): string {
  return empty.length === 0
    ? ''
    : `${empty.length === 1 ? 'Row' : 'Rows'} ${empty.map((r) => r + 1).join(', ')} ${empty.length === 1 ? 'has' : 'have'} every key masked, so there is nothing to share out: ` +
        'the weights are all 0 and the row sums to 0%, not 100%. Softmax would divide 0 by 0 here; the engine returns zeros instead.';
}
