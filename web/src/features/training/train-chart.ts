// A small live line chart for a training run: one series or a few (the training loss, held-out
// accuracy, a head's score; scaled and unscaled side by side) against the step, on linear axes from 0
// to the run's length. An SVG with a text summary as its accessible name and, with several series, a
// legend; redrawn from the points each time (a run has at most a few hundred of them).
import { setText, svg } from '../../ui/dom';
import { fmt } from '../../ui/format';

const WIDTH = 320;
const HEIGHT = 150;
const PAD = { left: 40, right: 10, top: 10, bottom: 28 };
/** Width of one legend character at the ticks' 10px font, for laying the legend out without measuring. */
const LEGEND_CHAR = 4.6;

export interface TrainChartOptions {
  /** What the y axis measures, e.g. "training loss". */
  label: string;
  /** Fixed top of the y axis (accuracy: 1); default the largest point. */
  yMax?: number;
  format: (value: number) => string;
  className: string;
  /**
   * A logarithmic y axis between the powers of ten around the points (gradient norms, which span
   * several decades and spike); zero and negative values are left out.
   */
  log?: boolean;
}

/** One line: its name (legend, summary), its points [step, value], and its CSS class (colour, dashes). */
export interface TrainSeries {
  name: string;
  points: readonly [number, number][];
  className?: string;
}

export class TrainChart {
  readonly element: SVGSVGElement;
  private readonly lines: SVGPolylineElement[] = [];
  private readonly legend = svg('g', { class: 'train-legend' });
  private readonly yBottom = svg('text', { x: PAD.left - 4, y: HEIGHT - PAD.bottom, 'text-anchor': 'end', class: 'train-tick' }, '0');
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
      this.yBottom,
      svg('text', { x: PAD.left, y: HEIGHT - 8, class: 'train-tick' }, 'step 0'),
      this.yTop,
      this.xEnd,
      svg('text', { x: PAD.left + 6, y: PAD.top + 4, class: 'train-label' }, options.label),
      this.legend,
    );
  }

  /** Points are [step, value]; non-finite values are left out (they never reach the screen as NaN). */
  update(points: readonly [number, number][], steps: number): void {
    this.updateSeries([{ name: this.options.label, points }], steps);
  }

  /** Several lines on one pair of axes (the y axis fits the largest of them). */
  updateSeries(series: readonly TrainSeries[], steps: number): void {
    const log = this.options.log === true;
    const finite = series.map((line) => ({
      ...line,
      points: line.points.filter(([, v]) => Number.isFinite(v) && (!log || v > 0)),
    }));
    const values = finite.flatMap((line) => line.points.map(([, v]) => v));
    const top = this.options.yMax ?? Math.max(1e-6, ...values);
    // Log axis: whole decades from below the smallest point to above the largest.
    const lo = log ? Math.floor(Math.log10(Math.min(top, ...values))) : 0;
    const hi = log ? Math.max(lo + 1, Math.ceil(Math.log10(top))) : 0;
    const x = (step: number) => PAD.left + ((WIDTH - PAD.left - PAD.right) * step) / Math.max(1, steps);
    const height = HEIGHT - PAD.top - PAD.bottom;
    const y = (value: number) =>
      HEIGHT - PAD.bottom - (log ? (height * (Math.log10(value) - lo)) / (hi - lo) : (height * Math.min(value, top)) / top);
    while (this.lines.length < finite.length) {
      const line = svg('polyline', { fill: 'none' });
      this.lines.push(line);
      this.element.insertBefore(line, this.legend);
    }
    this.lines.forEach((line, i) => {
      const points = finite[i]?.points ?? [];
      line.setAttribute('class', `train-line ${finite[i]?.className ?? `train-series-${i}`}`);
      line.setAttribute('points', points.map(([s, v]) => `${x(s).toFixed(1)},${y(v).toFixed(1)}`).join(' '));
    });
    // A legend only where there is more than one line: a sample of each line's stroke and its name, in
    // the bottom row between "step 0" and the last step (the plot's corners hold lines and labels).
    const items = finite.length > 1 ? finite : [];
    const width = (name: string) => 18 + name.length * LEGEND_CHAR;
    let at = (WIDTH - items.reduce((sum, line) => sum + width(line.name) + 8, -8)) / 2 + 14;
    this.legend.replaceChildren(
      ...items.map((line, i) => {
        const cls = line.className ?? `train-series-${i}`;
        const item = svg(
          'g',
          { class: 'train-legend-item' },
          svg('line', { x1: at, x2: at + 14, y1: HEIGHT - 11, y2: HEIGHT - 11, class: `train-line ${cls}` }),
          svg('text', { x: at + 17, y: HEIGHT - 8, class: 'train-tick' }, line.name),
        );
        at += width(line.name) + 8;
        return item;
      }),
    );
    setText(this.yTop, log ? `1e${hi}` : this.options.format(top));
    setText(this.yBottom, log ? `1e${lo}` : '0');
    setText(this.xEnd, `step ${steps}`);
    const described = finite.map((line) => {
      const last = line.points.at(-1);
      const name = finite.length > 1 ? `${line.name}, ` : '';
      return last
        ? `${name}${this.options.format(last[1])} at step ${last[0]}` +
            (line.points.length > 1 ? `, from ${this.options.format(line.points[0][1])} at step ${line.points[0][0]}` : '')
        : `${name}no steps yet`;
    });
    const summary = finite.some((line) => line.points.length > 0)
      ? `${this.options.label} over ${steps} steps: ${described.join('; ')}`
      : `${this.options.label}: no steps yet`;
    this.element.setAttribute('aria-label', summary);
    setText(this.title, summary);
  }
}

export const formatLoss = (value: number) => fmt(value, 3);
