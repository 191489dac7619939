// A horizontal bar chart as a real <table>: one row per bar, the label as the row header, the bar
// itself decorative (aria-hidden) and the value as text, so a screen reader reads "animal, 42%".
// Bar lengths go through the --w custom property (no inline style attributes: strict CSP).
// Saved as SVG (barChartSvg), the chart is drawn from the same rows, not read back from the table.
import { columnHeads } from './data-table';
import { el, replaceChildren, setText, setVar } from './dom';
import { esc, svgOpening, textWidth, wrap, type SvgFile } from './export-svg';
import { percent } from './format';
import { hex, LIGHT_PALETTE, mixOklab, type Palette } from './palette';
import { scrollRegion } from './scroll-region';

export interface Bar {
  label: string;
  value: number;
  /** Shown instead of the formatted value, e.g. "masked". */
  text?: string;
  /** Drawn in the emphasis colour, e.g. the largest weight. */
  emphasis?: boolean;
  /** Drawn faintly, e.g. a masked key or an "all the others" row. */
  muted?: boolean;
  /** Tooltip for the row. */
  title?: string;
  /** false: show the value without a bar, and leave it out of the scale (e.g. a total of the rest that would dwarf the others). */
  bar?: boolean;
}

export interface BarChartOptions {
  /** Visible caption: what the bars measure. */
  caption: string;
  /** Column headers, read by screen readers; visually hidden. */
  labelHeader?: string;
  valueHeader?: string;
  /** Value of a full-length bar; default: the largest value shown (or 1 when all are 0). */
  max?: number;
  /** Default: a percentage. */
  format?: (value: number) => string;
  className?: string;
}

/** Fraction of the track a bar fills, in [0, 1]; non-finite or negative values draw nothing. */
export function barFraction(value: number, max: number): number {
  if (!Number.isFinite(value) || value <= 0 || !(max > 0)) return 0;
  return Math.min(1, value / max);
}

/** One drawn row: what the table shows, and what a file needs to draw it again. */
interface DrawnBar {
  label: string;
  /** The value as text. */
  value: string;
  /** Bar length in [0, 1] of the track. */
  fraction: number;
  strong: boolean;
  muted: boolean;
  bar: boolean;
}

/** The rows of a chart as they are drawn: formatted values, and lengths against the largest bar. */
function drawnBars(bars: readonly Bar[], options: Pick<BarChartOptions, 'max' | 'format'>): DrawnBar[] {
  const format = options.format ?? ((v: number) => percent(v));
  let max = options.max ?? 0;
  if (options.max === undefined)
    for (const bar of bars) if (bar.bar !== false && Number.isFinite(bar.value)) max = Math.max(max, bar.value);
  if (!(max > 0)) max = 1;
  return bars.map((bar) => ({
    label: bar.label,
    value: bar.text ?? format(bar.value),
    fraction: bar.bar === false ? 0 : barFraction(bar.value, max),
    strong: Boolean(bar.emphasis),
    muted: Boolean(bar.muted),
    bar: bar.bar !== false,
  }));
}

/** The name of a chart's scroll region: its caption (some charts have none until their first update). */
const barChartLabel = (caption: string) => caption || 'Bar chart';

export class BarChart {
  readonly element: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly caption: HTMLTableCaptionElement;
  private readonly body: HTMLTableSectionElement;
  private rows: { row: HTMLTableRowElement; label: HTMLTableCellElement; fill: HTMLElement; value: HTMLTableCellElement }[] = [];
  private drawn: { caption: string; bars: DrawnBar[] };

  constructor(private readonly options: BarChartOptions) {
    this.caption = el('caption', {}, options.caption);
    this.drawn = { caption: options.caption, bars: [] };
    this.body = el('tbody');
    this.table = el(
      'table',
      { class: `bar-chart ${options.className ?? ''}`.trim() },
      this.caption,
      // Headers for screen readers only: the text is hidden, the cells stay real table headers.
      columnHeads(
        [options.labelHeader ?? 'item', 'bar', options.valueHeader ?? 'value'].map((text) =>
          el('span', { class: 'visually-hidden' }, text),
        ),
      ),
      this.body,
    );
    this.element = scrollRegion({ label: barChartLabel(options.caption), className: 'bar-chart-scroll' }, this.table);
  }

  update(bars: readonly Bar[], caption = this.options.caption): void {
    setText(this.caption, caption);
    const label = barChartLabel(caption);
    if (this.element.getAttribute('aria-label') !== label) this.element.setAttribute('aria-label', label);
    const drawn = drawnBars(bars, this.options);
    this.drawn = { caption, bars: drawn };
    if (bars.length !== this.rows.length) this.build(bars.length);
    bars.forEach((bar, i) => {
      const { row, label, fill, value } = this.rows[i];
      const shown = drawn[i];
      setText(label, shown.label);
      setText(value, shown.value);
      setVar(fill, '--w', shown.bar ? shown.fraction.toFixed(4) : '0');
      row.classList.toggle('no-bar', !shown.bar);
      row.classList.toggle('emphasis', shown.strong);
      row.classList.toggle('muted', shown.muted);
      if (bar.title) {
        if (row.title !== bar.title) row.title = bar.title;
      } else row.removeAttribute('title');
    });
  }

  /** The chart as it was last drawn, as an SVG file in the palette's colours. */
  svgFile(palette: Palette = LIGHT_PALETTE): SvgFile {
    return barChartSvg(this.drawn.caption, this.drawn.bars, palette);
  }

  private build(count: number): void {
    this.rows = [];
    const rows: HTMLTableRowElement[] = [];
    for (let i = 0; i < count; i++) {
      const label = el('th', { scope: 'row' });
      const fill = el('div', { class: 'bar-fill' });
      const value = el('td', { class: 'bar-value' });
      const row = el(
        'tr',
        {},
        label,
        el('td', { class: 'bar-cell' }, el('div', { class: 'bar-track', 'aria-hidden': 'true' }, fill)),
        value,
      );
      this.rows.push({ row, label, fill, value });
      rows.push(row);
    }
    replaceChildren(this.body, ...rows);
  }
}

/** A bar chart as SVG: the caption, then each row's label, its bar on a track and its value. */
function barChartSvg(caption: string, rows: readonly DrawnBar[], palette: Palette = LIGHT_PALETTE): SvgFile {
  const pad = 12;
  const labelW = Math.ceil(Math.max(40, ...rows.map((r) => textWidth(r.label, 12)))) + 10;
  const valueW = Math.ceil(Math.max(40, ...rows.map((r) => textWidth(r.value, 12)))) + 10;
  const barW = 320;
  const width = pad * 2 + labelW + barW + valueW;
  const captionLines = caption ? wrap(caption, width - 2 * pad, 13) : [];
  const top = pad + captionLines.length * 18 + (captionLines.length ? 6 : 0);
  const rowH = 22;
  const height = top + rows.length * rowH + pad;
  const ink = hex(palette.ink);
  const muted = hex(palette.muted);
  const accent = hex(mixOklab(palette.seq1, 0.75, palette.surface2));
  const parts = [
    svgOpening(width, height, caption, palette),
    `<rect width="${width}" height="${height}" fill="${hex(palette.surface)}"/>`,
    ...captionLines.map((line, i) => `<text x="${pad}" y="${pad + 13 + i * 18}" font-size="13" fill="${muted}">${esc(line)}</text>`),
  ];
  rows.forEach((row, i) => {
    const y = top + i * rowH;
    const weight = row.strong ? ' font-weight="700"' : '';
    parts.push(
      `<text x="${pad + labelW - 8}" y="${y + 15}" font-size="12" fill="${row.muted ? muted : ink}" text-anchor="end"${weight}>${esc(row.label)}</text>`,
    );
    if (row.bar) {
      parts.push(`<rect x="${pad + labelW}" y="${y + 4}" width="${barW}" height="14" rx="3" fill="${hex(palette.surface2)}"/>`);
      parts.push(
        `<rect x="${pad + labelW}" y="${y + 4}" width="${(barW * row.fraction).toFixed(1)}" height="14" rx="3" fill="${row.muted ? hex(palette.rule) : row.strong ? hex(palette.seq1) : accent}"/>`,
      );
    }
    parts.push(
      `<text x="${width - pad}" y="${y + 15}" font-family="${esc(palette.mono)}" font-size="12" fill="${row.muted ? muted : ink}" text-anchor="end"${weight}>${esc(row.value)}</text>`,
    );
  });
  parts.push('</svg>');
  return { svg: parts.join(''), width, height };
}
