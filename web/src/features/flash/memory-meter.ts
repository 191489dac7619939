// "What each method keeps in memory": the floats the naive and the tiled method hold, for this
// sentence and extrapolated to 8k tokens, as two bar charts and a sentence made from the same numbers.
import { tokenCountLabel } from '../cost/cost-model';
import { BarChart } from '../../ui/bars';
import { el, setText } from '../../ui/dom';
import { bytes, count } from '../../ui/format';
import type { Snapshot } from '../../snapshot';
import { tiledScratchFloats } from '../cost/cost-plan';
import { memoryMeter, METER_LONG_N, type MemoryMeterRow } from './trace';

/** One of the meter's two charts: the floats each method holds at one length. */
function meterBars(caption: string, className: string): BarChart {
  return new BarChart({ caption, labelHeader: 'method', valueHeader: 'floats held', className });
}

export class MemoryMeter {
  private readonly here = meterBars('this sentence', 'flash-meter-here');
  private readonly long = meterBars('8k tokens', 'flash-meter-long');
  private readonly reading = el('p', { class: 'reading flash-meter-reading' });

  /** The charts' row and the sentence under it, in the order the step places them. */
  readonly elements: HTMLElement[] = [
    el(
      'div',
      { class: 'figure-row flash-meter' },
      el('figure', { class: 'figure' }, this.here.element),
      el('figure', { class: 'figure' }, this.long.element),
    ),
    this.reading,
  ];

  render(s: Snapshot): void {
    const { n } = s.pipeline;
    const here = memoryMeter(n, s.settings.block);
    const long = memoryMeter(METER_LONG_N, s.settings.block);
    const text = (floats: number) => `${count(floats)} floats (${bytes(4 * floats)})`;
    const bars = (row: MemoryMeterRow) => [
      {
        label: 'naive: n × n matrix',
        value: row.naiveFloats,
        text: text(row.naiveFloats),
        title: `the whole (${row.n}, ${row.n}) weight matrix of one head`,
      },
      {
        label: `tiled: ${row.block} × ${row.block} + 3 × ${row.block}`,
        value: row.tiledFloats,
        text: text(row.tiledFloats),
        emphasis: true,
        title: `one ${row.block} × ${row.block} tile of scores, and m, l and the rescale factor for its ${row.block} rows`,
      },
    ];
    this.here.update(bars(here), `This sentence, n = ${count(n)}, block ${here.block}`);
    this.long.update(bars(long), `Extrapolated to n = ${count(METER_LONG_N)} (${tokenCountLabel(METER_LONG_N)}), block ${long.block}`);
    const times = (a: number, b: number) => (a / b >= 10 ? count(Math.round(a / b)) : (a / b).toFixed(1));
    setText(
      this.reading,
      `Here the naive method holds ${count(here.naiveFloats)} floats and the tiled one ${count(here.tiledFloats)}` +
        `${here.naiveFloats > here.tiledFloats ? ` (${times(here.naiveFloats, here.tiledFloats)} times less)` : here.naiveFloats < here.tiledFloats ? ': at this size the tile is larger than the whole table' : ': the same'}. ` +
        `At ${tokenCountLabel(METER_LONG_N)} tokens: ${bytes(4 * long.naiveFloats)} per head against ${bytes(4 * long.tiledFloats)}, ` +
        `${times(long.naiveFloats, long.tiledFloats)} times less; a GPU’s 128 × 128 tile is ${bytes(4 * tiledScratchFloats(METER_LONG_N, 128))}.`,
    );
  }
}
