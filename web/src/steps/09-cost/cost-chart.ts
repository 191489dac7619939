// Step 9's chart: one layer's score memory against n on log-log axes, a straight line of slope 2,
// with a line growing like n for comparison and this page's n marked. Counted from the shapes.
import { el } from '../../ui/dom';
import { bytes } from '../../ui/format';
import { chartTools } from '../../ui/export-toolbar';
import { LogLogChart, type ChartTick } from '../../ui/line-chart';
import { tokenCountLabel } from '../../features/cost/cost-model';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import type { Figure } from '../shared/figure';
import { costLengths, costRow } from './cost-rows';

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

function powerTicks(lo: number, hi: number, base: number, label: (v: number) => string): ChartTick[] {
  const ticks: ChartTick[] = [];
  for (let v = 1; v <= hi; v *= base) if (v >= lo) ticks.push({ value: v, label: label(v) });
  return ticks;
}

export class CostChart implements Figure {
  readonly element: HTMLElement;
  private readonly chart = new LogLogChart({ xLabel: 'tokens n (log scale)', yLabel: 'bytes (log scale)' });

  constructor(embed: EmbedCode | undefined) {
    const chart = this.chart;
    this.element = el(
      'figure',
      { class: 'figure cost-chart' },
      chart.element,
      chartTools(chart, 'Memory of the score matrices against n (log-log)', embed),
      el('figcaption', {}, 'One layer’s score memory against n, log-log: n² is twice as steep as n.'),
    );
  }

  render({ pipeline: p }: Snapshot): void {
    const n = p.n;
    const here = costRow(n, p.dModel, p.heads);
    const rows = costLengths(n).map((length) => costRow(length, p.dModel, p.heads));
    const first = rows[0];
    const last = rows[rows.length - 1];
    const heads = `${p.heads} head${p.heads === 1 ? '' : 's'}`;
    this.chart.update({
      series: [
        {
          label: `score matrices, ${heads}: grows like n²`,
          className: 'series-quad',
          points: rows.map((row) => [row.n, row.bytesPerLayer]),
          markers: true,
        },
        {
          label: 'for comparison, growing like n',
          className: 'series-lin',
          points: [
            [first.n, first.bytesPerLayer],
            [last.n, (first.bytesPerLayer * last.n) / first.n],
          ],
        },
      ],
      xTicks: powerTicks(first.n, last.n, 4, tokenCountLabel),
      yTicks: powerTicks(first.bytesPerLayer, last.bytesPerLayer, 1024, (v) => `1 ${BYTE_UNITS[Math.round(Math.log(v) / Math.log(1024))]}`),
      highlight: { x: n, y: here.bytesPerLayer, text: `this page: n = ${n}, ${bytes(here.bytesPerLayer)}` },
      description:
        `Log-log chart: memory of the score matrices of one layer with ${heads}, from ${bytes(first.bytesPerLayer)} at ${tokenCountLabel(first.n)} tokens ` +
        `to ${bytes(last.bytesPerLayer)} at ${tokenCountLabel(last.n)} tokens, a straight line of slope 2 (×4 per doubling); a line growing like n is drawn for comparison.`,
    });
  }
}
