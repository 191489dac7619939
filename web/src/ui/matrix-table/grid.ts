// The cells of a matrix table: builds the <table> for a shape (row and column headers, one <td> per
// number, an optional row-total column) and writes a view into it. Every write is compared with what
// the cell already shows, so cells whose number did not change cost no DOM work: a settings change
// touches only what it changed. The grid also carries the cell-level marks (selection, highlights)
// and, for large tables, the words written only when a cell is pointed at or focused.
import { columnHeads } from '../data-table';
import { el, replaceChildren, setText } from '../dom';
import { cellText, type CellFormat, type MatrixView } from './view';
import { colourPosition, colourStep, type ColourScale } from '../palette';

/** Above this many cells a table without numbers names a cell only when it is pointed at or focused. */
const LARGE_TABLE_CELLS = 4096;

/**
 * Above this many cells a table's tooltips are written when a cell is pointed at or focused. A
 * 64 × 64 table spent 30 ms of each change composing 4,096 tooltip sentences nobody was reading.
 */
const EAGER_TITLE_CELLS = 1024;

/** A change smaller than this is float rounding, not a consequence of an edit. */
const CHANGE_THRESHOLD = 5e-4;

/** shownFlags bits: what a cell's classes say now. */
const BLOCKED = 1;
const CHANGED = 2;

export interface GridOptions {
  corner?: string;
  scale: ColourScale;
  format: CellFormat;
  /** The owner's words for a cell (its tooltip), if any. */
  describe?: (row: number, col: number, value: number) => string;
  /** How a change since the reader's edits is written. */
  formatDelta: (delta: number) => string;
}

export class CellGrid {
  rows = 0;
  cols = 0;
  private cells: HTMLTableCellElement[] = [];
  private totals: HTMLTableCellElement[] = [];
  private captionElement: HTMLTableCaptionElement | null = null;
  /** What each cell shows now (colour step, text, title, BLOCKED | CHANGED): writes that would change nothing are skipped. */
  private shownT: (string | undefined)[] = [];
  private shownText: (string | undefined)[] = [];
  private shownTitle: (string | undefined)[] = [];
  private shownFlags: number[] = [];
  private hadDeltas = true;
  private selectedCell: HTMLTableCellElement | null = null;
  /** Cells of a large table that got an aria-label when focused or pointed at. */
  private labelled = new Set<number>();
  /** Cells carrying a class set by mark (highlight), per class. */
  private marked = new Map<string, Set<HTMLTableCellElement>>();
  /** Over EAGER_TITLE_CELLS: cells get their tooltip (and, over LARGE_TABLE_CELLS without numbers, their name) when pointed at or focused. */
  private lazyWords = false;

  constructor(
    readonly table: HTMLTableElement,
    private readonly options: GridOptions,
  ) {}

  /** The cell at (r, c), if the grid has one there. */
  cell(r: number, c: number): HTMLTableCellElement | undefined {
    return this.cells[r * this.cols + c];
  }

  get size(): number {
    return this.cells.length;
  }

  /** New cells for the view's shape and labels, in place of the old ones (the caption is written by setCaption). */
  build(view: MatrixView): void {
    this.rows = view.rows;
    this.cols = view.cols;
    const head = columnHeads([
      { content: this.options.corner ?? '', className: 'corner' },
      ...view.colLabels,
      view.rowTotals && { content: view.rowTotals.label, className: 'row-total-head' },
    ]);
    const body = el('tbody');
    this.forget();
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
    replaceChildren(this.table, this.captionElement, head, body);
  }

  /** Lets every cell go (the matrix is drawn as a picture instead): up to 65,536 elements a figure. */
  clear(rows: number, cols: number): void {
    replaceChildren(this.table);
    this.forget();
    this.captionElement = null;
    this.rows = rows;
    this.cols = cols;
  }

  setCaption(caption: string): void {
    if (this.captionElement) setText(this.captionElement, caption);
  }

  /**
   * Writes the view into cells of its shape: colour step, text (except the cell `skip` says is being
   * edited), blocked and changed marks, the change in a corner, tooltips, row totals. Returns how many
   * cells moved since the reader's edits.
   */
  write(view: MatrixView, extent: number, skip: (r: number, c: number) => boolean): number {
    const offset = view.offset ?? 0;
    const showNumbers = view.showNumbers ?? true;
    const base = view.baseline ?? null;
    const delta = this.options.formatDelta;
    let changedCount = 0;
    const large = view.rows * view.cols > LARGE_TABLE_CELLS;
    const lazyTitles = view.rows * view.cols > EAGER_TITLE_CELLS;
    this.lazyWords = lazyTitles;
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
        const text = cellText(view, r, c, this.options.format);
        if (!skip(r, c)) {
          if (showNumbers) this.writeText(i, text);
          else {
            this.writeText(i, '');
            if (!large) cell.setAttribute('aria-label', text);
            else if (this.labelled.has(i)) {
              cell.removeAttribute('aria-label');
              this.labelled.delete(i);
            }
          }
        }
        const moved = base ? value - base[offset + i] : 0;
        const changed = Boolean(base) && !blocked && Number.isFinite(moved) && Math.abs(moved) >= CHANGE_THRESHOLD;
        const flags = (blocked ? BLOCKED : 0) | (changed ? CHANGED : 0);
        if (this.shownFlags[i] !== flags) {
          cell.classList.toggle('blocked', blocked);
          cell.classList.toggle('changed', changed);
          this.shownFlags[i] = flags;
        }
        if (changed) {
          cell.dataset.delta = delta(moved);
          changedCount++;
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
    this.hadDeltas = changedCount > 0;
    if (view.rowTotals) {
      const totals = view.rowTotals;
      this.totals.forEach((cell, r) => {
        setText(cell, totals.text(r));
        cell.className = `row-total ${totals.className?.(r) ?? ''}`.trim();
      });
    }
    this.table.classList.toggle('no-numbers', !showNumbers);
    this.table.classList.toggle('has-changes', changedCount > 0);
    return changedCount;
  }

  /** Shows this text in the cell now, and remembers it as shown (an edit box just left the cell). */
  showText(r: number, c: number, text: string): void {
    const cell = this.cell(r, c);
    if (!cell) return;
    setText(cell, text);
    this.shownText[r * this.cols + c] = cell.textContent ?? '';
  }

  /** Shows this text in the cell for now (a value being dragged): the next write rewrites it. */
  showPassing(r: number, c: number, text: string): void {
    const cell = this.cell(r, c);
    if (!cell) return;
    setText(cell, text);
    this.forgetText(r, c);
  }

  /** The cell's text was changed behind the grid's back (an edit box took its place): the next write rewrites it. */
  forgetText(r: number, c: number): void {
    this.shownText[r * this.cols + c] = undefined;
  }

  /** A painted cell shows its new state at once (and its text, unless null); the owner's next update confirms it. */
  showPainted(r: number, c: number, on: boolean, text: string | null): void {
    const index = r * this.cols + c;
    const cell = this.cells[index];
    if (!cell) return;
    cell.classList.toggle('blocked', !on);
    this.shownFlags[index] = -1;
    if (text !== null) {
      setText(cell, text);
      this.shownText[index] = undefined;
    }
  }

  /** The change since the reader's edits the cell shows in its corner, if any. */
  deltaOf(r: number, c: number): string | undefined {
    return this.cell(r, c)?.dataset.delta;
  }

  /**
   * Marks the selected cell (null: none); false when there is no such cell. Re-marking the cell already
   * marked writes nothing, so the table is not restyled and repainted on every settings change.
   */
  showSelected(at: [number, number] | null): boolean {
    const cell = at ? this.cell(at[0], at[1]) : undefined;
    if (this.selectedCell && this.selectedCell !== cell) {
      this.selectedCell.classList.remove('selected');
      this.selectedCell.removeAttribute('aria-selected');
      this.selectedCell = null;
    }
    if (!at || !cell) return false;
    if (cell === this.selectedCell) return true;
    cell.classList.add('selected');
    cell.setAttribute('aria-selected', 'true');
    this.selectedCell = cell;
    return true;
  }

  /**
   * Puts `className` on the cells of these rows and columns and takes it off every other cell. It goes
   * through the grid's own list of cells (no selector scan of a 16 384-cell table) and touches only
   * cells whose class changes.
   */
  mark(className: string, rows: Iterable<number>, cols: Iterable<number>): void {
    const next = new Set<HTMLTableCellElement>();
    for (const r of rows)
      for (let c = 0; c < this.cols; c++) {
        const cell = this.cells[r * this.cols + c];
        if (cell) next.add(cell);
      }
    for (const c of cols) {
      if (c < 0 || c >= this.cols) continue;
      for (let r = 0; r < this.rows; r++) {
        const cell = this.cells[r * this.cols + c];
        if (cell) next.add(cell);
      }
    }
    const before = this.marked.get(className);
    if (before) for (const cell of before) if (!next.has(cell)) cell.classList.remove(className);
    for (const cell of next) if (!before?.has(cell)) cell.classList.add(className);
    this.marked.set(className, next);
  }

  /** A large table's cell gets its tooltip (and, without numbers, its name) when pointed at or focused. */
  wordsOn(view: MatrixView, r: number, c: number): void {
    const i = r * this.cols + c;
    const cell = this.cells[i];
    if (!this.lazyWords || !cell || r >= view.rows || c >= view.cols) return;
    const value = view.data[(view.offset ?? 0) + i];
    const blocked = view.blocked?.(r, c) ?? false;
    const title = this.titleOf(r, c, value, blocked, cell.dataset.delta ?? '');
    if (title) cell.title = title;
    this.shownTitle[i] = title || undefined;
    if (!(view.showNumbers ?? true)) {
      cell.setAttribute('aria-label', cellText(view, r, c, this.options.format));
      this.labelled.add(i);
    }
  }

  /** The grid cell an event happened in; row-total cells have no data-col and are not part of the grid. */
  cellOf(target: EventTarget | null): [number, number] | null {
    const cell = (target as HTMLElement | null)?.closest?.('td');
    if (!cell || !this.table.contains(cell) || cell.dataset.col === undefined) return null;
    return [Number(cell.dataset.row), Number(cell.dataset.col)];
  }

  /** The grid cell holding the keyboard focus, if any. */
  focusedCell(): [number, number] | null {
    const root = this.table.getRootNode() as Document | ShadowRoot;
    const active = root.activeElement;
    return active && this.table.contains(active) ? this.cellOf(active) : null;
  }

  /** The cell's tooltip: the owner's words, blocked or not, and the change since the reader's edits. */
  private titleOf(r: number, c: number, value: number, blocked: boolean, since: string): string {
    const words = this.options.describe?.(r, c, value);
    const change = since ? `${since} since your edits` : '';
    return words || change ? [blocked && words ? `${words} (blocked)` : words, change].filter(Boolean).join('; ') : '';
  }

  /** Writes a cell's text unless it already shows it. */
  private writeText(i: number, text: string): void {
    if (this.shownText[i] === text) return;
    setText(this.cells[i], text);
    this.shownText[i] = text;
  }

  /** Drops every per-cell list and cache: the cells are about to be rebuilt, or replaced by a picture. */
  private forget(): void {
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
}
