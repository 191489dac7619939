// Step 1's numbers: the mixture one token gets, from the trained model's head that resolves "it" or,
// with random weights, from the shown head.
import type { Bar } from '../../ui/bars';
import { percent, quoted } from '../../ui/format';
import { tokenLabels } from '../../ui/labels';
import { trainedRow } from '../../features/trained-model/trained-words';
import type { Snapshot } from '../../snapshot';
import { argmax, headRow } from '../shared/head-view';

/** Above this many tokens the bar chart lists only the largest weights. */
const ALL_BARS_UP_TO = 16;
const TOP_BARS = 10;

/**
 * The weights step 1 shows for one token: with trained weights, the model's own attention in the head
 * that resolves "it" (whatever the steps below show); with random weights, the shown head's.
 */
export function shownRow(snapshot: Snapshot, focus: number): Float32Array {
  const { trained } = snapshot;
  return trained
    ? trainedRow(trained, trained.resolving, focus)
    : headRow(snapshot.pipeline.weights.data, snapshot.pipeline.n, snapshot.settings.head, focus);
}

/** The bars for one token's mixture: every token in order, or the largest few plus the rest. */
export function mixtureBars(snapshot: Snapshot, focus: number): Bar[] {
  const { pipeline: p, tokens } = snapshot;
  const row = shownRow(snapshot, focus);
  const labels = tokenLabels(tokens);
  const top = argmax(row);
  // The trained model reads its sentences without a mask (an encoder), whatever the steps below try.
  const allowed = (j: number) => snapshot.trained !== null || p.mask.data[focus * p.n + j] === 1;
  const bar = (j: number): Bar => ({
    label: j === focus ? `${labels[j]} (itself)` : labels[j],
    value: row[j],
    text: allowed(j) ? undefined : 'masked',
    emphasis: j === top && row[j] > 0,
    muted: !allowed(j),
    title: `${quoted(labels[focus])} draws ${percent(row[j], 1)} from ${quoted(labels[j])}`,
  });
  if (p.n <= ALL_BARS_UP_TO) return Array.from(row, (_, j) => bar(j));
  const order = Array.from(row, (_, j) => j).sort((a, b) => row[b] - row[a] || a - b);
  const shown = order.slice(0, TOP_BARS);
  let rest = 0;
  for (const j of order.slice(TOP_BARS)) rest += row[j];
  return [...shown.map(bar), { label: `the other ${p.n - TOP_BARS} tokens together`, value: rest, muted: true, bar: false }];
}
