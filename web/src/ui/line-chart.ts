// A log-log line chart in SVG: on log axes a power law is a straight line, so "grows like n²" and
// "grows like n" are two straight lines of slope 2 and 1. The SVG is role="img" with a label that
// states what it shows; the numbers it plots are always in a table next to it (the step's job).
// It lays itself out for its real width (ResizeObserver), so text stays readable on a phone, and
// thins out x labels that would crowd.
// Saved as a file (svgFile), the chart is this same drawing with its computed styles written in as
// attributes: its colours and dash patterns live in widgets.css alone, not in a second copy here.
import { el, showChildren, svg } from './dom';
import { serializeSvg, type SvgFile } from './export-svg';
import { LIGHT_PALETTE, type Palette } from './palette';

export interface ChartSeries {
  label: string;
  /** CSS class for colour and dash pattern (colour-blind safe pairs live in widgets.css). */
  className: string;
  points: [number, number][];
  markers?: boolean;
}

export interface ChartTick {
  value: number;
  label: string;
}

export interface ChartAnnotation {
  x: number;
  y: number;
  text: string;
}

export interface LogLogData {
  series: ChartSeries[];
  xTicks: ChartTick[];
  yTicks: ChartTick[];
  /** One point to ring and label (e.g. "this page"). */
  highlight?: ChartAnnotation;
  /** The full description for assistive technology. */
  description: string;
}

export interface LogLogChartOptions {
  xLabel: string;
  yLabel: string;
}

/** Height over width, clamped to 220–360 px; widgets.css sizes the box by the same rule (svg.line-chart). */
const HEIGHT_RATIO = 0.56;

export class LogLogChart {
  readonly element: HTMLElement;
  private readonly svgRoot: SVGSVGElement;
  private readonly legend: HTMLElement;
  private data: LogLogData | null = null;
  private width = 600;

  constructor(private readonly options: LogLogChartOptions) {
    this.svgRoot = svg('svg', { class: 'chart line-chart', role: 'img', xmlns: 'http://www.w3.org/2000/svg' });
    this.legend = el('div', { class: 'legend' });
    this.element = el('div', { class: 'line-chart-wrap' }, this.svgRoot, this.legend);
    if (typeof ResizeObserver !== 'undefined') {
      new ResizeObserver((entries) => {
        const width = Math.round(entries[0]?.contentRect.width ?? 0);
        if (width > 0 && Math.abs(width - this.width) > 4) {
          this.width = width;
          this.draw();
        }
      }).observe(this.element);
    }
  }

  /** Never reads layout (that would force a reflow of the whole page): the observer reports the width. */
  update(data: LogLogData): void {
    this.data = data;
    this.draw();
  }

  /** The chart as drawn, as an SVG file that stands alone. */
  svgFile(palette: Palette = LIGHT_PALETTE): SvgFile {
    return serializeSvg(this.svgRoot, palette);
  }

  private draw(): void {
    const data = this.data;
    if (!data) return;
    const W = Math.max(280, Math.min(900, this.width));
    const H = Math.round(Math.max(220, Math.min(360, W * HEIGHT_RATIO)));
    // Room on the left for the longest y label (about 6.5 px a character at 12 px) and the rotated axis title.
    const longest = Math.max(0, ...data.yTicks.map((tick) => tick.label.length));
    const m = { left: Math.max(W < 420 ? 58 : 68, Math.round(longest * 6.5 + 28)), right: 14, top: 14, bottom: 44 };
    const xs = [...data.series.flatMap((s) => s.points.map((p) => p[0])), ...data.xTicks.map((t) => t.value)].filter(
      (v) => v > 0 && Number.isFinite(v),
    );
    const ys = [...data.series.flatMap((s) => s.points.map((p) => p[1])), ...data.yTicks.map((t) => t.value)].filter(
      (v) => v > 0 && Number.isFinite(v),
    );
    if (xs.length === 0 || ys.length === 0) return;
    // A little room around the data (4% of each log range) so end points and labels clear the axes.
    const pad = (lo: number, hi: number) => {
      const margin = Math.max(0.04 * (hi - lo), 0.05);
      return [lo - margin, hi + margin];
    };
    const lx = pad(Math.log10(Math.min(...xs)), Math.log10(Math.max(...xs)));
    const ly = pad(Math.log10(Math.min(...ys)), Math.log10(Math.max(...ys)));
    const span = (d: number[]) => (d[1] - d[0] > 0 ? d[1] - d[0] : 1);
    const X = (v: number) => m.left + ((Math.log10(v) - lx[0]) / span(lx)) * (W - m.left - m.right);
    const Y = (v: number) => H - m.bottom - ((Math.log10(v) - ly[0]) / span(ly)) * (H - m.top - m.bottom);
    const r = (v: number) => v.toFixed(1);

    this.svgRoot.setAttribute('viewBox', `0 0 ${W} ${H}`);
    this.svgRoot.setAttribute('width', String(W));
    this.svgRoot.setAttribute('height', String(H));
    this.svgRoot.setAttribute('aria-label', data.description);
    const parts: SVGElement[] = [svg('title', {}, data.description)];
    // Thin the labels out when they would crowd (a phone): keep every k-th tick.
    const gap = data.xTicks.length > 1 ? Math.abs(X(data.xTicks[1].value) - X(data.xTicks[0].value)) : Infinity;
    const stride = Math.max(1, Math.ceil(44 / gap));
    data.xTicks.forEach((tick, i) => {
      if (i % stride !== 0) return;
      const x = r(X(tick.value));
      parts.push(svg('line', { class: 'grid', x1: x, x2: x, y1: m.top, y2: H - m.bottom }));
      parts.push(svg('text', { x, y: H - m.bottom + 15, 'text-anchor': 'middle' }, tick.label));
    });
    for (const tick of data.yTicks) {
      const y = r(Y(tick.value));
      parts.push(svg('line', { class: 'grid', x1: m.left, x2: W - m.right, y1: y, y2: y }));
      parts.push(svg('text', { x: m.left - 6, y: Number(y) + 4, 'text-anchor': 'end' }, tick.label));
    }
    parts.push(svg('line', { class: 'axis', x1: m.left, x2: W - m.right, y1: H - m.bottom, y2: H - m.bottom }));
    parts.push(svg('line', { class: 'axis', x1: m.left, x2: m.left, y1: m.top, y2: H - m.bottom }));
    parts.push(svg('text', { class: 'axis-title', x: (m.left + W - m.right) / 2, y: H - 8, 'text-anchor': 'middle' }, this.options.xLabel));
    parts.push(
      svg(
        'text',
        {
          class: 'axis-title',
          x: 12,
          y: (m.top + H - m.bottom) / 2,
          'text-anchor': 'middle',
          transform: `rotate(-90 12 ${r((m.top + H - m.bottom) / 2)})`,
        },
        this.options.yLabel,
      ),
    );
    for (const series of data.series) {
      const points = series.points.filter(([x, y]) => x > 0 && y > 0 && Number.isFinite(x) && Number.isFinite(y));
      if (points.length === 0) continue;
      parts.push(
        svg('polyline', { class: `series-line ${series.className}`, points: points.map(([x, y]) => `${r(X(x))},${r(Y(y))}`).join(' ') }),
      );
      if (series.markers)
        for (const [x, y] of points) parts.push(svg('circle', { class: `series-dot ${series.className}`, cx: r(X(x)), cy: r(Y(y)), r: 3 }));
    }
    if (data.highlight && data.highlight.x > 0 && data.highlight.y > 0) {
      const hx = X(data.highlight.x);
      const hy = Y(data.highlight.y);
      parts.push(svg('circle', { class: 'chart-highlight', cx: r(hx), cy: r(hy), r: 7 }));
    }
    showChildren(this.svgRoot, ...parts);
    // The ringed point is named in the legend, where its label cannot collide with the lines.
    showChildren(
      this.legend,
      ...data.series.map((s) =>
        el('span', { class: 'legend-item' }, el('span', { class: `legend-line ${s.className}`, 'aria-hidden': 'true' }), s.label),
      ),
      data.highlight
        ? el('span', { class: 'legend-item' }, el('span', { class: 'legend-ring', 'aria-hidden': 'true' }), data.highlight.text)
        : null,
    );
  }
}
