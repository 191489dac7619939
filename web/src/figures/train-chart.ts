// A small live line chart for a training run: one series (the training loss, or the held-out
// accuracy) against the step, on linear axes from 0 to the run's length. An SVG with a text
// summary as its accessible name, redrawn from the points each time (a run has at most a few
// hundred of them).
import { setText, svg } from './dom';
import { fmt } from './format';

const WIDTH = 320;
const HEIGHT = 150;
const PAD = { left: 40, right: 10, top: 10, bottom: 28 };

export interface TrainChartOptions {
  /** What the y axis measures, e.g. "training loss". */
  label: string;
  /** Fixed top of the y axis (accuracy: 1); default the largest point. */
  yMax?: number;
  format: (value: number) => string;
  className: string;
}

export class TrainChart {
  readonly element: SVGSVGElement;
  private readonly line = svg('polyline', { class: 'train-line', fill: 'none' });
  private readonly yTop = svg('text', { x: PAD.left - 4, y: PAD.top + 4, 'text-anchor': 'end', class: 'train-tick' });
  private readonly xEnd = svg('text', { x: WIDTH - PAD.right, y: HEIGHT - 8, 'text-anchor': 'end', class: 'train-tick' });
  private readonly title = svg('title');

  constructor(private readonly options: TrainChartOptions) {
    const bottom = HEIGHT - PAD.bottom;
    this.element = svg(
      'svg',
      { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: `train-chart ${options.className}`, role: 'img' },
      this.title,
      svg('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: bottom, class: 'train-axis' }),
      svg('line', { x1: PAD.left, y1: bottom, x2: WIDTH - PAD.right, y2: bottom, class: 'train-axis' }),
      svg('text', { x: PAD.left - 4, y: bottom, 'text-anchor': 'end', class: 'train-tick' }, '0'),
      svg('text', { x: PAD.left, y: HEIGHT - 8, class: 'train-tick' }, 'step 0'),
      this.yTop,
      this.xEnd,
      svg('text', { x: PAD.left + 6, y: PAD.top + 4, class: 'train-label' }, options.label),
      this.line,
    );
  }

  /** Points are [step, value]; non-finite values are left out (they never reach the screen as NaN). */
  update(points: readonly [number, number][], steps: number): void {
    const finite = points.filter(([, v]) => Number.isFinite(v));
    const top = this.options.yMax ?? Math.max(1e-6, ...finite.map(([, v]) => v));
    const x = (step: number) => PAD.left + ((WIDTH - PAD.left - PAD.right) * step) / Math.max(1, steps);
    const y = (value: number) => HEIGHT - PAD.bottom - ((HEIGHT - PAD.top - PAD.bottom) * Math.min(value, top)) / top;
    this.line.setAttribute('points', finite.map(([s, v]) => `${x(s).toFixed(1)},${y(v).toFixed(1)}`).join(' '));
    setText(this.yTop, this.options.format(top));
    setText(this.xEnd, `step ${steps}`);
    const last = finite.at(-1);
    const summary = last
      ? `${this.options.label}: ${this.options.format(last[1])} at step ${last[0]} of ${steps}` +
        (finite.length > 1 ? `, from ${this.options.format(finite[0][1])} at step ${finite[0][0]}` : '')
      : `${this.options.label}: no steps yet`;
    this.element.setAttribute('aria-label', summary);
    setText(this.title, summary);
  }
}

export const formatLoss = (value: number) => fmt(value, 3);
