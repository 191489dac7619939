// A matrix as a real <table>: row and column headers for screen readers, numbers as text, and a
// heatmap colour behind each number. Optionally interactive: cells are a keyboard grid (arrow
// keys, Home/End, Enter), and focusing or clicking a cell selects it.
import { el, replaceChildren, setVar } from './dom';
import { fmt } from './format';
import { colourPosition, extentOf, type ColourScale } from './palette';

export interface MatrixView {
  data: ArrayLike<number>;
  rows: number;
  cols: number;
  /** Offset into data of element (0, 0), e.g. one head of a Tensor3. */
  offset?: number;
  rowLabels: string[];
  colLabels: string[];
  /** Blocked cells (mask = 0) show this text instead of a number, e.g. "−∞". */
  blocked?: (row: number, col: number) => boolean;
  blockedText?: string;
  /** Override the colour extent (e.g. 1 for probabilities). */
  extent?: number;
  /** Cells show colour only (large matrices). */
  showNumbers?: boolean;
  /** An extra last column of plain text per row (e.g. row sums), with its own column header. */
  rowTotals?: RowTotals;
}

export interface RowTotals {
  label: string;
  text: (row: number) => string;
  /** Extra class for a row's total cell (e.g. to flag a sum that is not 100%). */
  className?: (row: number) => string | undefined;
}

export interface MatrixTableOptions {
  /** Visible caption: what the matrix is and its shape. */
  caption: string;
  /** Top-left header cell, e.g. "query ↓ key →". */
  corner?: string;
  scale: ColourScale;
  digits?: number;
  format?: (value: number) => string;
  /** Words for a cell, used as its accessible description and tooltip ("“it” attends to “animal”: 0.42"). */
  describe?: (row: number, col: number, value: number) => string;
  /** Makes cells a keyboard grid; called when a cell is focused or clicked. */
  onSelect?: (row: number, col: number) => void;
  className?: string;
}

export class MatrixTable {
  readonly element: HTMLElement;
  private readonly table: HTMLTableElement;
  private cells: HTMLTableCellElement[] = [];
  private totals: HTMLTableCellElement[] = [];
  private shapeKey = '';
  private captionElement: HTMLTableCaptionElement | null = null;
  private captionText = '';
  private rows = 0;
  private cols = 0;
  private selected: [number, number] | null = null;
  private view: MatrixView | null = null;

  constructor(private readonly options: MatrixTableOptions) {
    // An interactive matrix is an ARIA grid (arrow keys move, the chosen cell is aria-selected).
    this.table = el('table', { class: `matrix ${options.scale === 'sequential' ? 'sequential' : ''} ${options.className ?? ''}`.replace(/\s+/g, ' ').trim(), role: options.onSelect ? 'grid' : null });
    this.element = el('div', { class: 'matrix-scroll', role: 'region', 'aria-label': options.caption, tabindex: 0 }, this.table);
    if (options.onSelect) {
      this.table.addEventListener('keydown', (event) => this.onKey(event));
      this.table.addEventListener('focusin', (event) => this.onFocus(event));
      this.table.addEventListener('click', (event) => this.onFocus(event));
    }
  }

  get selection(): [number, number] | null {
    return this.selected;
  }

  update(view: MatrixView, caption = this.options.caption): void {
    this.view = view;
    // The caption is not part of the shape: a new caption (e.g. another head) keeps the cells.
    const key = `${view.rows}x${view.cols}|${view.rowLabels.join('\u0001')}|${view.colLabels.join('\u0001')}|${view.rowTotals?.label ?? ''}`;
    if (key !== this.shapeKey) this.build(view, caption, key);
    else if (this.captionText !== caption) this.setCaption(caption);
    const offset = view.offset ?? 0;
    const showNumbers = view.showNumbers ?? true;
    const digits = this.options.digits ?? 2;
    const format = this.options.format ?? ((v: number) => fmt(v, digits));
    let extent = view.extent;
    if (extent === undefined) {
      extent = 0;
      for (let r = 0; r < view.rows; r++)
        for (let c = 0; c < view.cols; c++) if (!view.blocked?.(r, c)) extent = Math.max(extent, Math.abs(view.data[offset + r * view.cols + c]));
    }
    for (let r = 0; r < view.rows; r++) {
      for (let c = 0; c < view.cols; c++) {
        const cell = this.cells[r * view.cols + c];
        const value = view.data[offset + r * view.cols + c];
        const blocked = view.blocked?.(r, c) ?? false;
        const position = blocked ? 0 : colourPosition(value, this.options.scale, extent);
        setVar(cell, '--t', position.toFixed(3));
        cell.classList.toggle('blocked', blocked);
        const text = blocked ? (view.blockedText ?? '−∞') : format(value);
        if (showNumbers) cell.textContent = text;
        else {
          cell.textContent = '';
          cell.setAttribute('aria-label', text);
        }
        const words = this.options.describe?.(r, c, value);
        if (words) cell.title = blocked ? `${words} (blocked)` : words;
      }
    }
    if (view.rowTotals) {
      const totals = view.rowTotals;
      this.totals.forEach((cell, r) => {
        cell.textContent = totals.text(r);
        cell.className = `row-total ${totals.className?.(r) ?? ''}`.trim();
      });
    }
    this.table.classList.toggle('no-numbers', !showNumbers);
    if (this.selected) this.markSelection();
  }

  /** Selects a cell programmatically (and tells onSelect). */
  select(row: number, col: number, focus = false): void {
    if (!this.view) return;
    const r = Math.max(0, Math.min(this.rows - 1, row));
    const c = Math.max(0, Math.min(this.cols - 1, col));
    this.selected = [r, c];
    this.markSelection();
    if (focus) this.cells[r * this.cols + c]?.focus();
    this.options.onSelect?.(r, c);
  }

  /** Emphasises rows/columns that feed the selected cell elsewhere (e.g. the row of Q). */
  highlight(rows: number[], cols: number[]): void {
    this.table.querySelectorAll('.hl').forEach((node) => node.classList.remove('hl'));
    for (const r of rows) this.table.querySelectorAll(`tr[data-row="${r}"] > td[data-col]`).forEach((node) => node.classList.add('hl'));
    for (const c of cols) this.table.querySelectorAll(`td[data-col="${c}"]`).forEach((node) => node.classList.add('hl'));
  }

  extentOfView(): number {
    return this.view ? extentOf(this.view.data) : 0;
  }

  private setCaption(caption: string): void {
    this.captionText = caption;
    if (this.captionElement) this.captionElement.textContent = caption;
    this.element.setAttribute('aria-label', caption);
  }

  private build(view: MatrixView, caption: string, key: string): void {
    this.shapeKey = key;
    this.rows = view.rows;
    this.cols = view.cols;
    if (this.selected && (this.selected[0] >= view.rows || this.selected[1] >= view.cols)) this.selected = null;
    const interactive = Boolean(this.options.onSelect);
    const head = el('tr', {}, el('th', { scope: 'col', class: 'corner' }, this.options.corner ?? ''));
    view.colLabels.forEach((label) => head.appendChild(el('th', { scope: 'col' }, label)));
    if (view.rowTotals) head.appendChild(el('th', { scope: 'col', class: 'row-total-head' }, view.rowTotals.label));
    const body = el('tbody');
    this.cells = [];
    this.totals = [];
    for (let r = 0; r < view.rows; r++) {
      const row = el('tr', { 'data-row': r }, el('th', { scope: 'row' }, view.rowLabels[r] ?? String(r + 1)));
      for (let c = 0; c < view.cols; c++) {
        const cell = el('td', { 'data-row': r, 'data-col': c, tabindex: interactive ? -1 : null });
        this.cells.push(cell);
        row.appendChild(cell);
      }
      if (view.rowTotals) {
        const total = el('td', { class: 'row-total' });
        this.totals.push(total);
        row.appendChild(total);
      }
      body.appendChild(row);
    }
    this.captionElement = el('caption');
    replaceChildren(this.table, this.captionElement, el('thead', {}, head), body);
    this.setCaption(caption);
    if (interactive && this.cells.length > 0) {
      const [r, c] = this.selected ?? [0, 0];
      this.cells[r * this.cols + c].tabIndex = 0;
    }
  }

  private markSelection(): void {
    this.cells.forEach((cell) => {
      cell.classList.remove('selected');
      cell.removeAttribute('aria-selected');
      if (this.options.onSelect) cell.tabIndex = -1;
    });
    if (!this.selected) return;
    const cell = this.cells[this.selected[0] * this.cols + this.selected[1]];
    if (!cell) return;
    cell.classList.add('selected');
    cell.setAttribute('aria-selected', 'true');
    cell.tabIndex = 0;
  }

  private cellOf(target: EventTarget | null): [number, number] | null {
    const cell = (target as HTMLElement | null)?.closest?.('td');
    // Row-total cells have no data-col: they are not part of the grid.
    if (!cell || !this.table.contains(cell) || cell.dataset.col === undefined) return null;
    return [Number(cell.dataset.row), Number(cell.dataset.col)];
  }

  private onFocus(event: Event): void {
    const at = this.cellOf(event.target);
    if (!at) return;
    if (this.selected && this.selected[0] === at[0] && this.selected[1] === at[1] && event.type === 'focusin') return;
    this.select(at[0], at[1]);
  }

  private onKey(event: KeyboardEvent): void {
    const at = this.cellOf(event.target);
    if (!at) return;
    let [r, c] = at;
    switch (event.key) {
      case 'ArrowUp': r--; break;
      case 'ArrowDown': r++; break;
      case 'ArrowLeft': c--; break;
      case 'ArrowRight': c++; break;
      case 'Home': c = 0; if (event.ctrlKey) r = 0; break;
      case 'End': c = this.cols - 1; if (event.ctrlKey) r = this.rows - 1; break;
      case 'Enter':
      case ' ': this.select(r, c); event.preventDefault(); return;
      default: return;
    }
    event.preventDefault();
    this.select(r, c, true);
  }
}
