// A matrix as a real <table>: row and column headers for screen readers, numbers as text, and a
// heatmap colour behind each number. Every table is a keyboard grid (arrow keys, Home/End move the
// focus; one cell is in the tab order), and hovering or focusing a cell reads it out in words in a
// line under the table. Optionally:
//   - onSelect: focusing or clicking a cell selects it (Enter/Space too);
//   - edit:     cells are editable numbers (Enter to edit, type or nudge with ↑/↓, drag sideways);
//   - paint:    cells are 1/0 switches (click or drag to paint, Space to toggle);
//   - baseline: cells that moved since the reader's edits are outlined, with the change in a corner.
// A large matrix without numbers (drawnAsPicture: over 4,096 cells, e.g. the weights of 65 or more
// tokens) is drawn as a picture instead of a table (figures/matrix-picture.ts), with the same readout,
// selection, highlights, painting and exports.
// Under every table, "Copy or save": CSV, a NumPy literal, PNG and SVG files of exactly what is shown.
import { el, replaceChildren, setText, whenPointerReleased } from './dom';
import { exportToolbar, readPalette, tableCsv, tableNumpy, tableSvg, type TableData } from './export';
import { fmt } from './format';
import { drawnAsPicture, MatrixPicture } from './matrix-picture';
import { colourPosition, colourStep, extentOf, type ColourScale } from './palette';

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
  /**
   * The same cells before the reader's edits, laid out like `data` (same offset): cells whose value
   * moved are marked, with how much, so the reader sees where an edit reached. Null or absent: no marks.
   */
  baseline?: ArrayLike<number> | null;
}

export interface RowTotals {
  label: string;
  text: (row: number) => string;
  /** Extra class for a row's total cell (e.g. to flag a sum that is not 100%). */
  className?: (row: number) => string | undefined;
}

/** Editable numbers. MatrixTable handles the keys and the pointer; the owner keeps the values. */
export interface MatrixEdit {
  /** Words for the edit box, e.g. "X, row 3 (“sat”), column 2". */
  label(row: number, col: number): string;
  /** An edit of this cell begins (edit mode entered, or a drag started). */
  start?(row: number, col: number): void;
  /** The value as it is now (every nudge, drag step and readable keystroke). */
  change(row: number, col: number, value: number): void;
  /** The edit ends: keep the value, or put back what was there at start(). */
  end(row: number, col: number, keep: boolean): void;
}

/** 0/1 cells painted with the pointer or toggled with Space (a mask). */
export interface MatrixPaint {
  /** Set these cells to 1 (on) or 0. */
  paint(cells: [number, number][], on: boolean): void;
}

export interface MatrixTableOptions {
  /** Visible caption: what the matrix is and its shape. */
  caption: string;
  /** Top-left header cell, e.g. "query ↓ key →". */
  corner?: string;
  scale: ColourScale;
  digits?: number;
  format?: (value: number) => string;
  /** Words for a cell: its tooltip and the readout under the table ("“it” attends to “animal”: 0.42"). */
  describe?: (row: number, col: number, value: number) => string;
  /** Makes cells selectable; called when a cell is focused or clicked. */
  onSelect?: (row: number, col: number) => void;
  className?: string;
  edit?: MatrixEdit;
  paint?: MatrixPaint;
  /** Show the Copy or save toolbar (default true). */
  tools?: boolean;
  /** How a change since the reader's edits is written (default: signed, 2 or 3 decimals). */
  formatDelta?: (delta: number) => string;
}

/** Above this many cells a table's per-cell words are written when a cell is pointed at or focused. */
export const LARGE_TABLE_CELLS = 4096;

/**
 * Above this many cells a table's tooltips are written when a cell is pointed at or focused. A
 * 64 × 64 table spent 30 ms of each change composing 4,096 tooltip sentences nobody was reading.
 */
export const EAGER_TITLE_CELLS = 1024;

/** A change smaller than this is float rounding, not a consequence of an edit. */
export const CHANGE_THRESHOLD = 5e-4;

const MINUS = '\u2212';

export function formatDelta(delta: number): string {
  const size = Math.abs(delta);
  return `${delta < 0 ? MINUS : '+'}${size >= 0.01 ? size.toFixed(2) : size.toFixed(3)}`;
}

/** Signed change of a probability, in percentage points: "+3%" ("+0.4%" below one point). */
export function formatPercentDelta(delta: number): string {
  const points = Math.abs(delta) * 100;
  return `${delta < 0 ? MINUS : '+'}${points >= 1 ? points.toFixed(0) : points.toFixed(1)}%`;
}

/** A typed number: "0.5", "-1", "−2.25", ".5", "1e-2"; null when it is not one (yet). */
export function parseTyped(text: string): number | null {
  const clean = text.trim().replace(/\u2212/g, '-').replace(/,/g, '.');
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(clean)) return null;
  const value = Number(clean);
  return Number.isFinite(value) ? value : null;
}

const round3 = (v: number) => {
  const r = Math.round(v * 1000) / 1000;
  return Object.is(r, -0) ? 0 : r;
};

interface EditSession {
  row: number;
  col: number;
  input: HTMLInputElement;
}

interface DragSession {
  row: number;
  col: number;
  x: number;
  value: number;
  pointer: number;
  moved: boolean;
}

export class MatrixTable {
  readonly element: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly scroller: HTMLElement;
  private readonly readout: HTMLElement;
  private cells: HTMLTableCellElement[] = [];
  private totals: HTMLTableCellElement[] = [];
  private shapeKey = '';
  private captionElement: HTMLTableCaptionElement | null = null;
  private captionText = '';
  private rows = 0;
  private cols = 0;
  private selected: [number, number] | null = null;
  /** The one cell in the tab order. */
  private cursor: [number, number] = [0, 0];
  private view: MatrixView | null = null;
  private changedCount = 0;
  private pointed: [number, number] | null = null;
  private editing: EditSession | null = null;
  private drag: DragSession | null = null;
  private painting: { on: boolean; seen: Set<number> } | null = null;
  /** Painted cells not yet back from the owner's next update(). */
  private pendingPaint = new Map<number, boolean>();
  /** Editing is on (options.edit given, and not switched off with setEditable). */
  private editOn: boolean;
  /** What each cell shows now (colour position, text, title, blocked | changed bits): writes that would change nothing are skipped. */
  private shownT: (string | undefined)[] = [];
  private shownText: (string | undefined)[] = [];
  private shownTitle: (string | undefined)[] = [];
  private shownFlags: number[] = [];
  private hadDeltas = true;
  /** Cells carrying a class set by markCells (highlight), per class. */
  private selectedCell: HTMLTableCellElement | null = null;
  /** Cells of a large table that got an aria-label when focused or pointed at. */
  private labelled = new Set<number>();
  private marked = new Map<string, Set<HTMLTableCellElement>>();
  /** Over EAGER_TITLE_CELLS: cells get their tooltip (and, over LARGE_TABLE_CELLS without numbers, their name) when pointed at or focused. */
  private lazyWords = false;
  /** The matrix as a picture, while drawnAsPicture() says so. */
  private picture: MatrixPicture | null = null;
  private pictureCaption: HTMLElement | null = null;
  /** A picture's row totals (e.g. the row sums of a weights map) as a two-column table under it. */
  private pictureTotals: HTMLElement | null = null;

  constructor(private readonly options: MatrixTableOptions) {
    this.editOn = Boolean(options.edit);
    const grid = Boolean(options.onSelect || options.edit || options.paint);
    const modes = `${options.edit ? ' editable' : ''}${options.paint ? ' paintable' : ''}`;
    this.table = el('table', { class: `matrix ${options.scale === 'sequential' ? 'sequential' : ''} ${options.className ?? ''}${modes}`.replace(/\s+/g, ' ').trim(), role: grid ? 'grid' : null });
    this.scroller = el('div', { class: 'matrix-scroll', role: 'region', 'aria-label': options.caption }, this.table);
    this.readout = el('p', { class: 'matrix-readout', 'aria-live': 'polite' });
    const foot = el('div', { class: 'matrix-foot' }, this.readout);
    if (options.tools !== false) {
      foot.appendChild(exportToolbar({
        label: () => this.captionText || this.options.caption,
        csv: () => tableCsv(this.exportData()),
        numpy: () => tableNumpy(this.exportData()),
        svg: () => tableSvg(this.exportData(), readPalette(this.element)),
      }));
    }
    this.element = el('div', { class: 'matrix-figure' }, this.scroller, foot);
    this.table.addEventListener('keydown', (event) => this.onKey(event));
    this.table.addEventListener('focusin', (event) => this.onFocus(event));
    this.table.addEventListener('click', (event) => this.onClick(event));
    this.table.addEventListener('pointerover', (event) => this.onPointerOver(event));
    this.table.addEventListener('pointerleave', () => {
      this.pointed = null;
      this.showReadout();
    });
    if (options.edit || options.paint) this.table.addEventListener('pointerdown', (event) => this.onPointerDown(event));
    if (options.edit) {
      this.table.addEventListener('pointermove', (event) => this.onPointerMove(event));
      this.table.addEventListener('pointerup', (event) => this.onPointerUp(event, true));
      this.table.addEventListener('pointercancel', (event) => this.onPointerUp(event, false));
    }
  }

  /** Switches editing on or off (e.g. off when the example is too large to edit). */
  setEditable(on: boolean): void {
    const next = on && Boolean(this.options.edit);
    if (next === this.editOn) return;
    if (!next && this.editing) this.finishEdit(false, false);
    this.editOn = next;
    this.table.classList.toggle('editable', next);
    const grid = Boolean(this.options.onSelect || next || this.options.paint);
    if (grid) this.table.setAttribute('role', 'grid');
    else this.table.removeAttribute('role');
  }

  get editable(): boolean {
    return this.editOn;
  }

  get selection(): [number, number] | null {
    return this.selected;
  }

  update(view: MatrixView, caption = this.options.caption): void {
    this.view = view;
    this.pendingPaint.clear();
    if (drawnAsPicture(view.rows, view.cols, view.showNumbers ?? true)) {
      this.updatePicture(view, caption);
      return;
    }
    if (this.picture?.element.isConnected) this.leavePicture();
    // The caption is not part of the shape: a new caption (e.g. another head) keeps the cells.
    const key = `${view.rows}x${view.cols}|${view.rowLabels.join('\u0001')}|${view.colLabels.join('\u0001')}|${view.rowTotals?.label ?? ''}`;
    if (key !== this.shapeKey) this.build(view, caption, key);
    else if (this.captionText !== caption) this.setCaption(caption);
    const offset = view.offset ?? 0;
    const showNumbers = view.showNumbers ?? true;
    const extent = this.extent(view);
    const base = view.baseline ?? null;
    const delta = this.options.formatDelta ?? formatDelta;
    this.changedCount = 0;
    // Tables over EAGER_TITLE_CELLS get their tooltips, and over LARGE_TABLE_CELLS without numbers
    // their names, when a cell is pointed at or focused (lazyWords), not thousands of sentences on
    // every change.
    const large = view.rows * view.cols > LARGE_TABLE_CELLS;
    const lazyTitles = view.rows * view.cols > EAGER_TITLE_CELLS;
    this.lazyWords = lazyTitles;
    // Every write is compared with what the cell already shows (the caches below), so cells whose
    // number did not change cost no DOM work: a settings change touches only what it changed.
    for (let r = 0; r < view.rows; r++) {
      for (let c = 0; c < view.cols; c++) {
        const i = r * view.cols + c;
        const cell = this.cells[i];
        const value = view.data[offset + i];
        const blocked = view.blocked?.(r, c) ?? false;
        const step = String(blocked ? 0 : colourStep(colourPosition(value, this.options.scale, extent)));
        if (this.shownT[i] !== step) {
          cell.dataset.t = step;
          this.shownT[i] = step;
        }
        const flags = blocked ? 1 : 0;
        const text = this.cellText(view, r, c);
        const beingEdited = this.editing?.row === r && this.editing.col === c;
        if (!beingEdited) {
          if (showNumbers) this.writeCellText(i, text);
          else {
            this.writeCellText(i, '');
            if (!large) cell.setAttribute('aria-label', text);
            else if (this.labelled.has(i)) {
              cell.removeAttribute('aria-label');
              this.labelled.delete(i);
            }
          }
        }
        const moved = base ? value - base[offset + i] : 0;
        const changed = Boolean(base) && !blocked && Number.isFinite(moved) && Math.abs(moved) >= CHANGE_THRESHOLD;
        const nextFlags = flags | (changed ? 2 : 0);
        if (this.shownFlags[i] !== nextFlags) {
          cell.classList.toggle('blocked', blocked);
          cell.classList.toggle('changed', changed);
          this.shownFlags[i] = nextFlags;
        }
        if (changed) {
          cell.dataset.delta = delta(moved);
          this.changedCount++;
        } else if (this.hadDeltas) delete cell.dataset.delta;
        if (lazyTitles) {
          if (this.shownTitle[i] !== '') {
            cell.removeAttribute('title');
            this.shownTitle[i] = '';
          }
          continue;
        }
        const title = this.titleOf(r, c, value, blocked, changed ? delta(moved) : '');
        if (this.shownTitle[i] !== title) {
          if (title) cell.title = title;
          else cell.removeAttribute('title');
          this.shownTitle[i] = title;
        }
      }
    }
    this.hadDeltas = this.changedCount > 0;
    if (lazyTitles && this.pointed) this.wordsOnCell(this.pointed[0], this.pointed[1]);
    if (view.rowTotals) {
      const totals = view.rowTotals;
      this.totals.forEach((cell, r) => {
        setText(cell, totals.text(r));
        cell.className = `row-total ${totals.className?.(r) ?? ''}`.trim();
      });
    }
    this.table.classList.toggle('no-numbers', !showNumbers);
    this.table.classList.toggle('has-changes', this.changedCount > 0);
    if (this.selected) this.markSelection();
    this.showReadout();
  }

  /** Selects a cell programmatically (and tells onSelect). */
  select(row: number, col: number, focus = false): void {
    if (!this.view) return;
    const r = Math.max(0, Math.min(this.rows - 1, row));
    const c = Math.max(0, Math.min(this.cols - 1, col));
    this.selected = [r, c];
    this.markSelection();
    if (this.picture?.element.isConnected) this.picture.showSelection(this.selected, focus);
    else if (focus) this.cells[r * this.cols + c]?.focus();
    this.options.onSelect?.(r, c);
    this.showReadout();
  }

  /** Emphasises rows/columns that feed the selected cell elsewhere (e.g. the row of Q). */
  highlight(rows: number[], cols: number[]): void {
    this.markCells('hl', rows, cols);
  }

  /**
   * Puts `className` on the cells of these rows and columns and takes it off every other cell. It goes
   * through the table's own list of cells (no selector scan of a 16 384-cell table) and touches only
   * cells whose class changes.
   */
  markCells(className: string, rows: Iterable<number>, cols: Iterable<number>): void {
    if (this.picture?.element.isConnected) {
      this.picture.mark(className, rows, cols);
      return;
    }
    const next = new Set<HTMLTableCellElement>();
    for (const r of rows) for (let c = 0; c < this.cols; c++) { const cell = this.cells[r * this.cols + c]; if (cell) next.add(cell); }
    for (const c of cols) {
      if (c < 0 || c >= this.cols) continue;
      for (let r = 0; r < this.rows; r++) { const cell = this.cells[r * this.cols + c]; if (cell) next.add(cell); }
    }
    const before = this.marked.get(className);
    if (before) for (const cell of before) if (!next.has(cell)) cell.classList.remove(className);
    for (const cell of next) if (!before?.has(cell)) cell.classList.add(className);
    this.marked.set(className, next);
  }

  extentOfView(): number {
    return this.view ? extentOf(this.view.data) : 0;
  }

  /** How many cells moved since the reader's edits, at the last update. */
  get changes(): number {
    return this.changedCount;
  }

  /** Exactly what the table shows, for CSV, NumPy and image files. */
  exportData(): TableData {
    const view = this.view;
    if (!view) return { caption: this.captionText, corner: '', rows: 0, cols: 0, rowLabels: [], colLabels: [], values: [], texts: [], blocked: [], positions: [], scale: this.options.scale, showNumbers: true };
    const offset = view.offset ?? 0;
    const extent = this.extent(view);
    const values: number[] = [];
    const texts: string[] = [];
    const blocked: boolean[] = [];
    const positions: number[] = [];
    const minusInfinity = (view.blockedText ?? '−∞').includes('∞');
    for (let r = 0; r < view.rows; r++) {
      for (let c = 0; c < view.cols; c++) {
        const value = view.data[offset + r * view.cols + c];
        const isBlocked = view.blocked?.(r, c) ?? false;
        values.push(isBlocked && minusInfinity ? -Infinity : value);
        texts.push(this.cellText(view, r, c));
        blocked.push(isBlocked);
        positions.push(isBlocked ? 0 : colourPosition(value, this.options.scale, extent));
      }
    }
    return {
      caption: this.captionText, corner: this.options.corner ?? '', rows: view.rows, cols: view.cols,
      rowLabels: view.rowLabels.map((label, r) => label ?? String(r + 1)), colLabels: view.colLabels,
      values, texts, blocked, positions, scale: this.options.scale, showNumbers: view.showNumbers ?? true,
      totals: view.rowTotals ? { label: view.rowTotals.label, texts: Array.from({ length: view.rows }, (_, r) => view.rowTotals!.text(r)) } : undefined,
    };
  }

  private extent(view: MatrixView): number {
    if (view.extent !== undefined) return view.extent;
    const offset = view.offset ?? 0;
    let extent = 0;
    for (let r = 0; r < view.rows; r++)
      for (let c = 0; c < view.cols; c++) if (!view.blocked?.(r, c)) extent = Math.max(extent, Math.abs(view.data[offset + r * view.cols + c]));
    return extent;
  }

  /** The cell's tooltip: the owner's words, blocked or not, and the change since the reader's edits. */
  private titleOf(r: number, c: number, value: number, blocked: boolean, since: string): string {
    const words = this.options.describe?.(r, c, value);
    const change = since ? `${since} since your edits` : '';
    return words || change ? [blocked && words ? `${words} (blocked)` : words, change].filter(Boolean).join('; ') : '';
  }

  /** Writes a cell's text unless it already shows it. */
  private writeCellText(i: number, text: string): void {
    if (this.shownText[i] === text) return;
    setText(this.cells[i], text);
    this.shownText[i] = text;
  }

  /** A large table's cell gets its tooltip (and, without numbers, its name) when pointed at or focused. */
  private wordsOnCell(r: number, c: number): void {
    const view = this.view;
    const i = r * this.cols + c;
    const cell = this.cells[i];
    if (!this.lazyWords || !view || !cell || r >= view.rows || c >= view.cols) return;
    const value = view.data[(view.offset ?? 0) + i];
    const blocked = view.blocked?.(r, c) ?? false;
    const title = this.titleOf(r, c, value, blocked, cell.dataset.delta ?? '');
    if (title) cell.title = title;
    this.shownTitle[i] = title || undefined;
    if (!(view.showNumbers ?? true)) {
      cell.setAttribute('aria-label', this.cellText(view, r, c));
      this.labelled.add(i);
    }
  }

  private cellText(view: MatrixView, r: number, c: number): string {
    const digits = this.options.digits ?? 2;
    const format = this.options.format ?? ((v: number) => fmt(v, digits));
    const blocked = view.blocked?.(r, c) ?? false;
    return blocked ? (view.blockedText ?? '−∞') : format(view.data[(view.offset ?? 0) + r * view.cols + c]);
  }

  /** A cell in words: the owner's describe(), or its row and column labels. */
  private words(r: number, c: number): string {
    const view = this.view;
    if (!view) return '';
    const value = view.data[(view.offset ?? 0) + r * view.cols + c];
    const blocked = view.blocked?.(r, c) ?? false;
    const text = this.cellText(view, r, c);
    let words = this.options.describe?.(r, c, value) || `Row ${view.rowLabels[r] ?? r + 1}, column ${view.colLabels[c] ?? c + 1}: ${text}`;
    if (blocked) words += ` (blocked: ${text})`;
    const delta = this.cells[r * view.cols + c]?.dataset.delta;
    if (delta) words += `; ${delta} since your edits`;
    return words;
  }

  private showReadout(): void {
    const at = this.pointed ?? (this.focusedCell() || this.selected);
    const text = at && this.view && at[0] < this.rows && at[1] < this.cols
      ? this.words(at[0], at[1])
      : this.changedCount > 0 ? `${this.changedCount} of ${this.rows * this.cols} numbers moved since your edits (dashed outline, change in the corner).` : '';
    // Unchanged text is not written again, so the live region does not repeat itself on every redraw.
    setText(this.readout, text);
  }

  private focusedCell(): [number, number] | null {
    if (this.picture?.element.isConnected) return this.picture.focusedCell();
    const root = this.table.getRootNode() as Document | ShadowRoot;
    const active = root.activeElement;
    return active && this.table.contains(active) ? this.cellOf(active) : null;
  }

  private setCaption(caption: string): void {
    this.captionText = caption;
    if (this.captionElement) setText(this.captionElement, caption);
    this.scroller.setAttribute('aria-label', caption);
  }

  /** Draws the matrix as a picture, dropping the table's cells. */
  private updatePicture(view: MatrixView, caption: string): void {
    if (this.editing) this.finishEdit(false, false);
    if (!this.picture) {
      this.picture = new MatrixPicture({
        scale: this.options.scale,
        point: (at) => {
          this.pointed = at;
          this.showReadout();
        },
        activate: (r, c) => {
          if (this.options.onSelect) this.select(r, c);
        },
        paint: this.options.paint ? { isOn: (r, c) => this.isOn(r, c), set: (r, c, on) => this.paintCell(r, c, on) } : undefined,
      });
      this.pictureCaption = el('p', { class: 'matrix-picture-caption', 'aria-hidden': 'true' });
    }
    const key = `picture|${view.rows}x${view.cols}`;
    if (this.shapeKey !== key) {
      // The table's cells would be up to 65,536 elements per figure: let them go.
      replaceChildren(this.table);
      this.forgetCells();
      this.captionElement = null;
      this.shapeKey = key;
      this.rows = view.rows;
      this.cols = view.cols;
      if (this.selected && (this.selected[0] >= view.rows || this.selected[1] >= view.cols)) this.selected = null;
      this.scroller.hidden = true;
      this.scroller.after(this.pictureCaption!, this.picture.element);
    }
    this.captionText = caption;
    setText(this.pictureCaption!, caption);
    const offset = view.offset ?? 0;
    const extent = this.extent(view);
    const blocked = view.blocked;
    this.showPictureTotals(view);
    this.picture.update({
      rows: view.rows,
      cols: view.cols,
      position: (i) => colourPosition(view.data[offset + i], this.options.scale, extent),
      blocked: blocked ? (i) => blocked(Math.floor(i / view.cols), i % view.cols) : () => false,
    }, `${caption}: a ${view.rows} × ${view.cols} heatmap, too large to print as a table. The arrow keys move through it one cell at a time and the line below reads the cell out; Copy or save has every number.`);
    this.changedCount = 0;
    this.markSelection();
    this.showReadout();
  }

  /** The row totals a table shows in its last column, as their own small table under the picture. */
  private showPictureTotals(view: MatrixView): void {
    const totals = view.rowTotals;
    if (!totals) {
      this.pictureTotals?.remove();
      this.pictureTotals = null;
      return;
    }
    const key = `${totals.label}|${view.rowLabels.join('\u0001')}`;
    if (this.pictureTotals?.dataset.key !== key) {
      const rows = view.rowLabels.map((label, r) => el('tr', {}, el('th', { scope: 'row' }, label ?? String(r + 1)), el('td', { class: 'row-total' })));
      const table = el('table', { class: 'data-table picture-totals-table' },
        el('caption', {}, `${totals.label}, every row`),
        el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, this.options.corner?.split(/\s/)[0] ?? 'row'), el('th', { scope: 'col' }, totals.label))),
        el('tbody', {}, ...rows));
      const box = el('div', { class: 'picture-totals matrix-scroll', role: 'region', 'aria-label': `${totals.label}, every row`, tabindex: 0, 'data-key': key }, table);
      if (this.pictureTotals) this.pictureTotals.replaceWith(box);
      else this.picture!.element.after(box);
      this.pictureTotals = box;
    }
    // Written in place: a settings change rewrites only the sums that changed, and focus stays in the box.
    this.pictureTotals.querySelectorAll('td.row-total').forEach((cell, r) => {
      const text = totals.text(r);
      const className = `row-total ${totals.className?.(r) ?? ''}`.trim();
      setText(cell, text);
      if (cell.className !== className) cell.className = className;
    });
  }

  /** Drops every per-cell list and cache: the cells are about to be rebuilt, or replaced by a picture. */
  private forgetCells(): void {
    this.cells = [];
    this.totals = [];
    this.shownT = [];
    this.shownText = [];
    this.shownTitle = [];
    this.shownFlags = [];
    this.hadDeltas = false;
    this.marked.clear();
    this.selectedCell = null;
    this.labelled.clear();
  }

  private leavePicture(): void {
    this.picture?.element.remove();
    this.pictureCaption?.remove();
    this.pictureTotals?.remove();
    this.pictureTotals = null;
    this.scroller.hidden = false;
    this.shapeKey = '';
  }

  private build(view: MatrixView, caption: string, key: string): void {
    if (this.editing) this.finishEdit(false, false);
    this.shapeKey = key;
    this.rows = view.rows;
    this.cols = view.cols;
    if (this.selected && (this.selected[0] >= view.rows || this.selected[1] >= view.cols)) this.selected = null;
    if (this.cursor[0] >= view.rows || this.cursor[1] >= view.cols) this.cursor = [0, 0];
    const head = el('tr', {}, el('th', { scope: 'col', class: 'corner' }, this.options.corner ?? ''));
    view.colLabels.forEach((label) => head.appendChild(el('th', { scope: 'col' }, label)));
    if (view.rowTotals) head.appendChild(el('th', { scope: 'col', class: 'row-total-head' }, view.rowTotals.label));
    const body = el('tbody');
    this.forgetCells();
    for (let r = 0; r < view.rows; r++) {
      const row = el('tr', { 'data-row': r }, el('th', { scope: 'row' }, view.rowLabels[r] ?? String(r + 1)));
      for (let c = 0; c < view.cols; c++) {
        const cell = el('td', { 'data-row': r, 'data-col': c, tabindex: -1 });
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
    if (this.cells.length > 0) {
      const [r, c] = this.selected ?? this.cursor;
      this.cursor = [r, c];
      this.cells[r * this.cols + c].tabIndex = 0;
    }
  }

  /** Moves the one tab stop to (r, c). */
  private setCursor(r: number, c: number): void {
    const old = this.cells[this.cursor[0] * this.cols + this.cursor[1]];
    const cell = this.cells[r * this.cols + c];
    if (old && old !== cell) old.tabIndex = -1;
    this.cursor = [r, c];
    if (cell && cell.tabIndex !== 0) cell.tabIndex = 0;
  }

  // Every settings change re-marks the selection: marking the cell already marked writes nothing,
  // so the table is not restyled and repainted for it.
  private markSelection(): void {
    if (this.picture?.element.isConnected) {
      this.picture.showSelection(this.selected, false);
      return;
    }
    const cell = this.selected ? this.cells[this.selected[0] * this.cols + this.selected[1]] : undefined;
    if (this.selectedCell && this.selectedCell !== cell) {
      this.selectedCell.classList.remove('selected');
      this.selectedCell.removeAttribute('aria-selected');
      this.selectedCell = null;
    }
    if (!this.selected || !cell) return;
    if (cell === this.selectedCell) {
      this.setCursor(this.selected[0], this.selected[1]);
      return;
    }
    cell.classList.add('selected');
    cell.setAttribute('aria-selected', 'true');
    this.selectedCell = cell;
    this.setCursor(this.selected[0], this.selected[1]);
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
    this.setCursor(at[0], at[1]);
    this.wordsOnCell(at[0], at[1]);
    this.showReadout();
    if (!this.options.onSelect) return;
    if (this.selected && this.selected[0] === at[0] && this.selected[1] === at[1]) return;
    this.select(at[0], at[1]);
  }

  private onClick(event: MouseEvent): void {
    const at = this.cellOf(event.target);
    if (!at) return;
    // A click without a pointer (a screen reader's activation, detail 0) toggles a paintable cell.
    if (this.options.paint && event.detail === 0) this.togglePaint(at[0], at[1]);
    if (!this.options.onSelect) return;
    this.select(at[0], at[1]);
  }

  private onPointerOver(event: PointerEvent): void {
    const at = this.cellOf(event.target);
    if (!at) return;
    this.pointed = at;
    this.wordsOnCell(at[0], at[1]);
    this.showReadout();
    if (this.painting && (event.buttons & 1 || event.pointerType !== 'mouse')) this.paintCell(at[0], at[1], this.painting.on);
  }

  private onKey(event: KeyboardEvent): void {
    if (this.editing && event.target === this.editing.input) return;
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
      case 'F2':
        if (!this.editOn) return;
        event.preventDefault();
        this.startEdit(r, c);
        return;
      case 'Enter':
      case ' ':
        event.preventDefault();
        if (this.editOn && event.key === 'Enter') this.startEdit(r, c);
        else if (this.options.paint) this.togglePaint(r, c);
        else if (this.options.onSelect) this.select(r, c);
        return;
      default:
        // Typing a number on a focused editable cell starts editing with it, as in a spreadsheet.
        if (this.editOn && !event.ctrlKey && !event.metaKey && !event.altKey && /^[\d.\-−]$/.test(event.key)) {
          event.preventDefault();
          this.startEdit(r, c, event.key);
        }
        return;
    }
    event.preventDefault();
    r = Math.max(0, Math.min(this.rows - 1, r));
    c = Math.max(0, Math.min(this.cols - 1, c));
    if (this.options.onSelect) this.select(r, c, true);
    else {
      this.setCursor(r, c);
      this.cells[r * this.cols + c]?.focus();
    }
  }

  // ---- editing --------------------------------------------------------------------------------

  private valueAt(r: number, c: number): number {
    const view = this.view!;
    return view.data[(view.offset ?? 0) + r * view.cols + c];
  }

  /** Edit mode on one cell: a text box in place of the number. */
  private startEdit(r: number, c: number, typed?: string): void {
    const edit = this.options.edit;
    const cell = this.cells[r * this.cols + c];
    if (!edit || !this.editOn || !cell || !this.view) return;
    if (this.editing) this.finishEdit(true, false);
    const input = el('input', {
      type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', class: 'matrix-edit-input',
      'aria-label': `${edit.label(r, c)}. Type a number, or nudge it with the Up and Down arrows (Shift: steps of 1). Enter keeps it, Escape puts back the old value.`,
    });
    input.value = typed ?? String(round3(this.valueAt(r, c)));
    this.editing = { row: r, col: c, input };
    cell.classList.add('editing');
    cell.textContent = '';
    this.shownText[r * this.cols + c] = undefined;
    cell.appendChild(input);
    edit.start?.(r, c);
    input.focus();
    if (typed === undefined) input.select();
    else if (parseTyped(typed) !== null) edit.change(r, c, parseTyped(typed)!);
    input.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
        event.preventDefault();
        const now = parseTyped(input.value) ?? this.valueAt(r, c);
        const next = round3(now + (event.key === 'ArrowUp' ? 1 : -1) * (event.shiftKey ? 1 : 0.1));
        input.value = String(next);
        edit.change(r, c, next);
      } else if (event.key === 'Enter') {
        event.preventDefault();
        this.finishEdit(true, true);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        this.finishEdit(false, true);
      } else if (event.key === 'Tab') {
        // Keep the number; focus goes back to the cell first, so Tab moves on from the table.
        this.finishEdit(true, true);
      }
    });
    input.addEventListener('input', () => {
      const value = parseTyped(input.value);
      if (value !== null) edit.change(r, c, round3(value));
    });
    input.addEventListener('blur', () => {
      if (this.editing?.input === input) this.finishEdit(true, false);
    });
  }

  private finishEdit(keep: boolean, focusCell: boolean): void {
    const session = this.editing;
    if (!session) return;
    this.editing = null;
    const { row, col, input } = session;
    const edit = this.options.edit!;
    const value = parseTyped(input.value);
    if (keep && value !== null) edit.change(row, col, round3(value));
    edit.end(row, col, keep && value !== null);
    const cell = this.cells[row * this.cols + col];
    input.remove();
    if (cell && this.view) {
      cell.classList.remove('editing');
      setText(cell, this.cellText(this.view, row, col));
      this.shownText[row * this.cols + col] = cell.textContent;
      if (focusCell) cell.focus();
    }
  }

  private onPointerDown(event: PointerEvent): void {
    const at = this.cellOf(event.target);
    if (!at || event.button !== 0 || !this.view) return;
    if (this.options.paint) {
      const on = !this.isOn(at[0], at[1]);
      this.painting = { on, seen: new Set() };
      // Touch pointers are captured by the first cell; release it so the cells under the finger report.
      const target = event.target as Element;
      if (target.hasPointerCapture?.(event.pointerId)) target.releasePointerCapture(event.pointerId);
      this.paintCell(at[0], at[1], on);
      whenPointerReleased(() => {
        this.painting = null;
      });
      return;
    }
    if (this.editing?.input === event.target || !this.editOn) return;
    this.drag = { row: at[0], col: at[1], x: event.clientX, value: this.valueAt(at[0], at[1]), pointer: event.pointerId, moved: false };
    const cell = this.cells[at[0] * this.cols + at[1]];
    try {
      cell?.setPointerCapture?.(event.pointerId);
    } catch {
      // Not capturable (a synthetic event): the drag still works while the pointer stays on the table.
    }
  }

  private onPointerMove(event: PointerEvent): void {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointer || !this.options.edit) return;
    const dx = event.clientX - drag.x;
    if (!drag.moved) {
      if (Math.abs(dx) < 4) return;
      drag.moved = true;
      if (this.editing) this.finishEdit(true, false);
      this.options.edit.start?.(drag.row, drag.col);
      this.cells[drag.row * this.cols + drag.col]?.classList.add('dragging');
    }
    const value = round3(drag.value + Math.round(dx) * (event.shiftKey ? 0.1 : 0.01));
    const cell = this.cells[drag.row * this.cols + drag.col];
    if (cell) {
      setText(cell, fmt(value, this.options.digits ?? 2));
      this.shownText[drag.row * this.cols + drag.col] = undefined;
    }
    this.options.edit.change(drag.row, drag.col, value);
  }

  private onPointerUp(event: PointerEvent, keep: boolean): void {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointer) return;
    this.drag = null;
    if (!drag.moved) return;
    this.cells[drag.row * this.cols + drag.col]?.classList.remove('dragging');
    this.options.edit!.end(drag.row, drag.col, keep);
  }

  // ---- painting -------------------------------------------------------------------------------

  private isOn(r: number, c: number): boolean {
    const pending = this.pendingPaint.get(r * this.cols + c);
    if (pending !== undefined) return pending;
    return !(this.view?.blocked?.(r, c) ?? false) && this.valueAt(r, c) !== 0;
  }

  private togglePaint(r: number, c: number): void {
    this.paintCell(r, c, !this.isOn(r, c));
  }

  private paintCell(r: number, c: number, on: boolean): void {
    const index = r * this.cols + c;
    if (this.painting) {
      if (this.painting.seen.has(index)) return;
      this.painting.seen.add(index);
    }
    if (this.isOn(r, c) === on) return;
    this.pendingPaint.set(index, on);
    // Shown at once; the owner's next update() confirms it.
    const cell = this.cells[index];
    if (cell) {
      cell.classList.toggle('blocked', !on);
      this.shownFlags[index] = -1;
      if (this.view?.showNumbers ?? true) {
        setText(cell, on ? '1' : (this.view?.blockedText ?? '0'));
        this.shownText[index] = undefined;
      }
    }
    this.options.paint!.paint([[r, c]], on);
  }
}
