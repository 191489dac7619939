// A horizontal bar chart as a real <table>: one row per bar, the label as the row header, the bar
// itself decorative (aria-hidden) and the value as text, so a screen reader reads "animal, 42%".
// Bar lengths go through the --w custom property (no inline style attributes: strict CSP).
import { el, replaceChildren, setText, setVar } from './dom';
import { percent } from './format';

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

export class BarChart {
  readonly element: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly caption: HTMLTableCaptionElement;
  private readonly body: HTMLTableSectionElement;
  private rows: { row: HTMLTableRowElement; label: HTMLTableCellElement; fill: HTMLElement; value: HTMLTableCellElement }[] = [];

  constructor(private readonly options: BarChartOptions) {
    this.caption = el('caption', {}, options.caption);
    this.body = el('tbody');
    this.table = el('table', { class: `bar-chart ${options.className ?? ''}`.trim() },
      this.caption,
      // Headers for screen readers only: the text is hidden, the cells stay real table headers.
      el('thead', {},
        el('tr', {}, ...[options.labelHeader ?? 'item', 'bar', options.valueHeader ?? 'value'].map((text) =>
          el('th', { scope: 'col' }, el('span', { class: 'visually-hidden' }, text))))),
      this.body);
    this.element = el('div', { class: 'bar-chart-scroll' }, this.table);
  }

  update(bars: readonly Bar[], caption = this.options.caption): void {
    setText(this.caption, caption);
    const format = this.options.format ?? ((v: number) => percent(v));
    let max = this.options.max ?? 0;
    if (this.options.max === undefined) for (const bar of bars) if (bar.bar !== false && Number.isFinite(bar.value)) max = Math.max(max, bar.value);
    if (!(max > 0)) max = 1;
    if (bars.length !== this.rows.length) this.build(bars.length);
    bars.forEach((bar, i) => {
      const { row, label, fill, value } = this.rows[i];
      setText(label, bar.label);
      setText(value, bar.text ?? format(bar.value));
      setVar(fill, '--w', bar.bar === false ? '0' : barFraction(bar.value, max).toFixed(4));
      row.classList.toggle('no-bar', bar.bar === false);
      row.classList.toggle('emphasis', Boolean(bar.emphasis));
      row.classList.toggle('muted', Boolean(bar.muted));
      if (bar.title) {
        if (row.title !== bar.title) row.title = bar.title;
      } else row.removeAttribute('title');
    });
  }

  private build(count: number): void {
    this.rows = [];
    const rows: HTMLTableRowElement[] = [];
    for (let i = 0; i < count; i++) {
      const label = el('th', { scope: 'row' });
      const fill = el('div', { class: 'bar-fill' });
      const value = el('td', { class: 'bar-value' });
      const row = el('tr', {}, label, el('td', { class: 'bar-cell' }, el('div', { class: 'bar-track', 'aria-hidden': 'true' }, fill)), value);
      this.rows.push({ row, label, fill, value });
      rows.push(row);
    }
    replaceChildren(this.body, ...rows);
  }
}
