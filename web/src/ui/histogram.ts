// A histogram as SVG, one panel per series stacked over a shared x axis, so spreads compare at a
// glance even when one series is far taller than another (each panel has its own y scale). The
// SVG is role="img" with a summary supplied by the caller, and the same bins are available as a
// real table in a <details> underneath: nothing is only in the picture.
// Saved as a file (svgFile), the chart is this same drawing with its computed styles written in as
// attributes: its colours live in widgets.css alone, not in a second copy here.
import { columnHeads } from './data-table';
import { el, showChildren, svg } from './dom';
import { serializeSvg, type SvgFile } from './export-svg';
import { fmt, percent } from './format';
import { LIGHT_PALETTE, type Palette } from './palette';
import { scrollRegion } from './scroll-region';

export interface HistogramMarker {
  /** x position in data units. */
  at: number;
  /** Short label drawn at the top of the line, e.g. "+σ". */
  label: string;
}

export interface HistogramSeries {
  /** Panel title and table column header, e.g. "raw q · k". */
  label: string;
  values: ArrayLike<number>;
  /** Bar colour class from widgets.css: 'series-a' or 'series-b'. */
  className: string;
  markers?: HistogramMarker[];
}

export interface HistogramOptions {
  /** Caption of the table equivalent. */
  title: string;
  /** Axis title under the shared x axis. */
  xLabel: string;
  /** Default 31: odd, so one bin is centred on 0 of a symmetric domain. */
  bins?: number;
  /** Tick and table number format. */
  format?: (value: number) => string;
  className?: string;
}

export interface Bins {
  /** counts[b] = values in [lo + b w, lo + (b + 1) w); values outside the domain go to the end bins. */
  counts: number[];
  /** How many of the counted values were outside [lo, hi] and were put in an end bin. */
  clamped: number;
  /** Non-finite values, not counted. */
  skipped: number;
  total: number;
}

export function binCounts(values: ArrayLike<number>, lo: number, hi: number, bins: number): Bins {
  const counts = new Array<number>(bins).fill(0);
  const width = (hi - lo) / bins;
  let clamped = 0;
  let skipped = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) {
      skipped++;
      continue;
    }
    let b = Math.floor((v - lo) / width);
    if (v < lo || v > hi) clamped++;
    b = Math.max(0, Math.min(bins - 1, b));
    counts[b]++;
  }
  return { counts, clamped, skipped, total: values.length - skipped };
}

/** Round tick positions covering [lo, hi]: steps of 1, 2 or 5 times a power of ten. */
export function niceTicks(lo: number, hi: number, target = 6): number[] {
  if (!(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  const raw = (hi - lo) / target;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

const WIDTH = 400;
const LEFT = 52;
const RIGHT = 14;
const PANEL = 84;
const TITLE = 24;
const BOTTOM = 44;

export class Histogram {
  readonly element: HTMLElement;
  private readonly chart: SVGSVGElement;
  private readonly table: HTMLTableElement;

  constructor(private readonly options: HistogramOptions) {
    this.chart = svg('svg', { class: 'chart histogram-chart', role: 'img', viewBox: `0 0 ${WIDTH} 100`, 'aria-label': options.title });
    this.table = el('table', { class: 'data-table histogram-table' });
    this.element = el(
      'div',
      { class: `histogram ${options.className ?? ''}`.trim() },
      this.chart,
      el(
        'details',
        { class: 'histogram-details' },
        el('summary', {}, 'The same histogram as a table'),
        scrollRegion({ label: `${options.title}: table`, className: 'matrix-scroll' }, this.table),
      ),
    );
  }

  /**
   * Draws the series over the domain [lo, hi] (values beyond it are counted in the end bins).
   * `summary` is the chart's accessible name: say what the picture shows in words.
   */
  update(series: readonly HistogramSeries[], domain: readonly [number, number], summary: string): Bins[] {
    const [lo, hi] = domain;
    const bins = this.options.bins ?? 31;
    const ticks = niceTicks(lo, hi);
    // Whole-number ticks print without decimals; bin edges in the table get two.
    const format = this.options.format ?? ((v: number) => fmt(v, ticks.every(Number.isInteger) ? 0 : 1));
    const edgeFormat = this.options.format ?? ((v: number) => fmt(v, 2));
    const binned = series.map((s) => binCounts(s.values, lo, hi, bins));
    const height = series.length * (TITLE + PANEL) + BOTTOM;
    const plotWidth = WIDTH - LEFT - RIGHT;
    const x = (v: number) => LEFT + ((v - lo) / (hi - lo)) * plotWidth;
    const binWidth = plotWidth / bins;
    const nodes: SVGElement[] = [];

    series.forEach((s, k) => {
      const { counts, total } = binned[k];
      const top = k * (TITLE + PANEL) + TITLE;
      const base = top + PANEL;
      const peak = Math.max(1, ...counts);
      nodes.push(svg('text', { x: LEFT, y: top - 8, class: 'panel-title' }, s.label));
      const bars = svg('g', { class: s.className });
      counts.forEach((count, b) => {
        if (count === 0) return;
        const h = (count / peak) * (PANEL - 4);
        bars.appendChild(
          svg('rect', {
            x: (LEFT + b * binWidth + 0.5).toFixed(2),
            y: (base - h).toFixed(2),
            width: Math.max(0.5, binWidth - 1).toFixed(2),
            height: h.toFixed(2),
          }),
        );
      });
      nodes.push(bars);
      nodes.push(svg('line', { class: 'axis', x1: LEFT, x2: WIDTH - RIGHT, y1: base, y2: base }));
      nodes.push(svg('line', { class: 'axis', x1: LEFT, x2: LEFT, y1: top, y2: base }));
      // The y scale: the tallest bin's share of all samples, and zero.
      nodes.push(svg('text', { x: LEFT - 5, y: top + 9, 'text-anchor': 'end' }, percent(total > 0 ? peak / total : 0)));
      nodes.push(svg('text', { x: LEFT - 5, y: base, 'text-anchor': 'end' }, '0'));
      for (const marker of s.markers ?? []) {
        if (!(marker.at >= lo && marker.at <= hi)) continue;
        const mx = x(marker.at).toFixed(2);
        nodes.push(svg('line', { class: 'marker', x1: mx, x2: mx, y1: top, y2: base }));
        // Labels sit just inside the panel's top, beside their line, clear of the panel title.
        nodes.push(
          svg(
            'text',
            {
              class: 'marker-label',
              x: (x(marker.at) + (marker.at < 0 ? -4 : 4)).toFixed(2),
              y: top + 10,
              'text-anchor': marker.at < 0 ? 'end' : 'start',
            },
            marker.label,
          ),
        );
      }
    });

    const axisY = series.length * (TITLE + PANEL);
    for (const tick of ticks) {
      const tx = x(tick).toFixed(2);
      nodes.push(svg('line', { class: 'axis', x1: tx, x2: tx, y1: axisY, y2: axisY + 4 }));
      nodes.push(svg('text', { x: tx, y: axisY + 16, 'text-anchor': 'middle' }, format(tick)));
    }
    nodes.push(svg('text', { x: LEFT + plotWidth / 2, y: height - 6, 'text-anchor': 'middle', class: 'axis-title' }, this.options.xLabel));
    nodes.push(
      svg(
        'text',
        { x: 12, y: axisY / 2, 'text-anchor': 'middle', class: 'axis-title', transform: `rotate(-90 12 ${(axisY / 2).toFixed(1)})` },
        'share of samples',
      ),
    );

    this.chart.setAttribute('viewBox', `0 0 ${WIDTH} ${height}`);
    this.chart.setAttribute('aria-label', summary);
    showChildren(this.chart, ...nodes);
    this.fillTable(series, binned, lo, hi, bins, edgeFormat);
    return binned;
  }

  /** The chart as drawn, as an SVG file that stands alone. */
  svgFile(palette: Palette = LIGHT_PALETTE): SvgFile {
    return serializeSvg(this.chart, palette);
  }

  private fillTable(
    series: readonly HistogramSeries[],
    binned: Bins[],
    lo: number,
    hi: number,
    bins: number,
    format: (v: number) => string,
  ): void {
    const width = (hi - lo) / bins;
    const head = columnHeads(['from', 'to', ...series.map((s) => `${s.label} (samples)`)]);
    const rows =
      binned[0]?.counts.map((_, b) => {
        // The end bins also hold the values beyond the axis.
        const from = b === 0 ? fmt(-Infinity) : format(lo + b * width);
        const to = b === bins - 1 ? fmt(Infinity) : format(lo + (b + 1) * width);
        return el('tr', {}, el('td', {}, from), el('td', {}, to), ...binned.map((bin) => el('td', {}, String(bin.counts[b]))));
      }) ?? [];
    showChildren(this.table, el('caption', {}, this.options.title), head, el('tbody', {}, ...rows));
  }
}
