// Step 1's numbers: the mixture one token gets, from the reader model's head measured to resolve
// pronouns (whenever step 1 shows a model: trained weights, or the article's example settings) or,
// with random weights, from the random pipeline's shown head. One model for the whole step.
import type { Bar } from '../../ui/bars';
import { percent, quoted } from '../../ui/format';
import { focusTokenIndex, tokenLabels } from '../../ui/labels';
import { resolvingRow } from '../../features/reader/figure';
import type { ReaderSnapshot } from '../../features/reader/model';
import type { Snapshot } from '../../snapshot';
import { argmax, headRow } from '../shared/head-view';

/** Above this many tokens the bar chart lists only the largest weights. */
const ALL_BARS_UP_TO = 16;
const TOP_BARS = 10;

/** The reader model's reading, when step 1 shows it and it is ready (null: random weights, or loading, or failed). */
export function shownReader(snapshot: Snapshot): ReaderSnapshot | null {
  return snapshot.reader?.status === 'ready' ? snapshot.reader : null;
}

/** The words step 1 shows: as the reader model read them, else the sentence's tokens. */
export function shownWords(snapshot: Snapshot): string[] {
  return shownReader(snapshot)?.words ?? snapshot.tokens;
}

/** The token followed unless the reader picks another: the reader model's pronoun, else “it”, else the last token. */
export function defaultFocus(snapshot: Snapshot): number {
  return shownReader(snapshot)?.answer?.pronoun ?? focusTokenIndex(shownWords(snapshot));
}

/** The weights step 1 shows for one token: the reader model's resolving head, or (random weights) the shown head. */
export function shownRow(snapshot: Snapshot, focus: number): Float32Array {
  const reader = shownReader(snapshot);
  return reader ? resolvingRow(reader, focus) : headRow(snapshot.pipeline.weights.data, snapshot.pipeline.n, snapshot.settings.head, focus);
}

/** Whether `focus` may draw from token j: the causal reader model (or a causal mask) hides the later tokens. */
function allowed(snapshot: Snapshot, focus: number, j: number): boolean {
  const reader = shownReader(snapshot);
  if (reader) return !reader.causal || j <= focus;
  const { pipeline: p } = snapshot;
  return p.mask.data[focus * p.n + j] === 1;
}

/** Whether every token is hidden from `focus` (a custom mask with random weights): its mixture is empty. */
export function nothingToDrawFrom(snapshot: Snapshot, focus: number): boolean {
  return snapshot.reader === null && Boolean(snapshot.pipeline.fullyMaskedRows[focus]);
}

/** The rows mixtureBars will give for these words, empty (no value yet): the figure's shape while the model loads. */
export function loadingBars(words: readonly string[]): Bar[] {
  const labels = tokenLabels([...words]);
  const empty = (label: string): Bar => ({ label, value: 0, text: '…', muted: true });
  if (words.length <= ALL_BARS_UP_TO) return labels.map(empty);
  return [...labels.slice(0, TOP_BARS).map(empty), { ...empty(`the other ${words.length - TOP_BARS} tokens together`), bar: false }];
}

/** The bars for one token's mixture: every token in order, or the largest few plus the rest. */
export function mixtureBars(snapshot: Snapshot, focus: number): Bar[] {
  const words = shownWords(snapshot);
  const n = words.length;
  const row = shownRow(snapshot, focus);
  const labels = tokenLabels(words);
  const top = argmax(row);
  const bar = (j: number): Bar => {
    const open = allowed(snapshot, focus, j);
    return {
      label: j === focus ? `${labels[j]} (itself)` : labels[j],
      value: row[j],
      text: open ? undefined : 'masked',
      emphasis: j === top && row[j] > 0,
      muted: !open,
      title: `${quoted(labels[focus])} draws ${percent(row[j], 1)} from ${quoted(labels[j])}`,
    };
  };
  if (n <= ALL_BARS_UP_TO) return Array.from(row, (_, j) => bar(j));
  const order = Array.from(row, (_, j) => j).sort((a, b) => row[b] - row[a] || a - b);
  const shown = order.slice(0, TOP_BARS);
  let rest = 0;
  for (const j of order.slice(TOP_BARS)) rest += row[j];
  return [...shown.map(bar), { label: `the other ${n - TOP_BARS} tokens together`, value: rest, muted: true, bar: false }];
}
