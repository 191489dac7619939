// A matrix as a real <table>: row and column headers for screen readers, numbers as text, and a
// heatmap colour behind each number. Every table is a keyboard grid (arrow keys, Home/End move the
// focus; one cell is in the tab order), and hovering or focusing a cell reads it out in words in a
// line under the table. Optionally:
//   - onSelect: focusing or clicking a cell selects it (Enter/Space too);
//   - edit:     cells are editable numbers (Enter to edit, type or nudge with ↑/↓, drag sideways);
//   - paint:    cells are 1/0 switches (click or drag to paint, Space to toggle);
//   - baseline: cells that moved since the reader's edits are outlined, with the change in a corner.
// A large matrix without numbers (drawnAsPicture: over 4,096 cells, e.g. the weights of 65 or more
// tokens) is drawn as a picture instead of a table (ui/matrix-table/picture.ts), with the same readout,
// selection, highlights, painting and exports.
// Under every table, its menu: CSV, a NumPy literal, PNG and SVG files of exactly what is shown, and
// "Embed this step" where the page offers it.
//
// This class routes events and keeps what the modes share (the view, the selection, the readout); each
// part does one thing: the cells and their skip-unchanged writes (matrix-grid.ts), the tab stop
// (matrix-cursor.ts), editing (matrix-edit.ts), painting (matrix-paint.ts), the picture (matrix-fallback.ts),
// the key to its colours under it (colour-legend.ts).
import { ColourLegend } from '../colour-legend';
import { el, setText } from '../dom';
import { tableCsv, tableNumpy, type TableData } from '../export-text';
import { tableSvg } from '../export-svg';
import { exportToolbar, type EmbedCode } from '../export-toolbar';
import { fmt, formatDelta } from '../format';
import { cursorTarget, GridCursor } from './cursor';
import { EditSession, type MatrixEdit } from './edit';
import { PictureFallback } from './fallback';
import { CellGrid } from './grid';
import { PaintSession, type MatrixPaint } from './paint';
import { drawnAsPicture } from './picture';
import { cellText, tableData, valueAt, viewExtent, type CellFormat, type MatrixView } from './view';
import { colourSpan, readPalette, type ColourScale } from '../palette';
import { scrollRegion } from '../scroll-region';

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
  /** Show the menu of copies and files (default true). */
  tools?: boolean;
  /** The step's embed code (its context's embedCode): the menu then offers "Embed this step" too. */
  embed?: EmbedCode;
  /** How a change since the reader's edits is written (default: signed, 2 or 3 decimals). */
  formatDelta?: (delta: number) => string;
  /** What a stronger colour means, for the legend of a sequential table (default "a larger value"). */
  legend?: string;
}

export class MatrixTable {
  readonly element: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly scroller: HTMLElement;
  private readonly readout: HTMLElement;
  private readonly format: CellFormat;
  private readonly grid: CellGrid;
  private readonly cursor: GridCursor;
  private readonly editor: EditSession | null;
  private readonly painter: PaintSession | null;
  private readonly picture: PictureFallback;
  private readonly legend: ColourLegend | null;
  /** Shape and labels of what is on the page (cells or a picture): a new caption alone keeps the cells. */
  private shapeKey = '';
  private captionText = '';
  private view: MatrixView | null = null;
  private selected: [number, number] | null = null;
  private pointed: [number, number] | null = null;
  private changedCount = 0;

  constructor(private readonly options: MatrixTableOptions) {
    const grid = Boolean(options.onSelect || options.edit || options.paint);
    const modes = `${options.edit ? ' editable' : ''}${options.paint ? ' paintable' : ''}`;
    this.table = el('table', {
      class: `matrix ${options.scale === 'sequential' ? 'sequential' : ''} ${options.className ?? ''}${modes}`.replace(/\s+/g, ' ').trim(),
      role: grid ? 'grid' : null,
    });
    // No tab stop of its own: the table is a keyboard grid, and moving its cursor scrolls the cell into view.
    this.scroller = scrollRegion({ label: options.caption, className: 'matrix-scroll', tabStop: false }, this.table);
    this.readout = el('p', { class: 'matrix-readout', 'aria-live': 'polite' });
    this.legend = options.scale === 'none' ? null : new ColourLegend(options.legend);
    const foot = el('div', { class: 'matrix-foot' }, this.legend?.element, this.readout);
    if (options.tools !== false) {
      foot.appendChild(
        exportToolbar({
          label: () => this.captionText || this.options.caption,
          csv: () => tableCsv(this.exportData()),
          numpy: () => tableNumpy(this.exportData()),
          svg: () => tableSvg(this.exportData(), readPalette(this.element)),
          embed: options.embed,
        }),
      );
    }
    this.element = el('div', { class: 'matrix-figure' }, this.scroller, foot);

    const digits = options.digits ?? 2;
    this.format = options.format ?? ((v: number) => fmt(v, digits));
    this.grid = new CellGrid(this.table, {
      corner: options.corner,
      scale: options.scale,
      format: this.format,
      describe: options.describe,
      formatDelta: options.formatDelta ?? formatDelta,
    });
    this.cursor = new GridCursor(this.grid);
    this.editor = options.edit
      ? new EditSession(options.edit, {
          grid: this.grid,
          value: (r, c) => valueAt(this.view!, r, c),
          text: (r, c) => cellText(this.view!, r, c, this.format),
          format: (value) => fmt(value, digits),
        })
      : null;
    this.painter = options.paint
      ? new PaintSession(options.paint, {
          cols: () => this.grid.cols,
          storedOn: (r, c) => !(this.view?.blocked?.(r, c) ?? false) && valueAt(this.view!, r, c) !== 0,
          show: (r, c, on) =>
            this.grid.showPainted(r, c, on, (this.view?.showNumbers ?? true) ? (on ? '1' : (this.view?.blockedText ?? '0')) : null),
        })
      : null;
    const painter = this.painter;
    this.picture = new PictureFallback(
      {
        scale: options.scale,
        point: (at) => {
          this.pointed = at;
          this.showReadout();
        },
        activate: (r, c) => {
          if (this.options.onSelect) this.select(r, c);
        },
        paint: painter ? { isOn: (r, c) => painter.isOn(r, c), set: (r, c, on) => painter.set(r, c, on) } : undefined,
      },
      options.corner,
    );

    this.table.addEventListener('keydown', (event) => this.onKey(event));
    this.table.addEventListener('focusin', (event) => this.onFocus(event));
    this.table.addEventListener('click', (event) => this.onClick(event));
    this.table.addEventListener('pointerover', (event) => this.onPointerOver(event));
    this.table.addEventListener('pointerleave', () => {
      this.pointed = null;
      this.showReadout();
    });
    if (options.edit || options.paint) this.table.addEventListener('pointerdown', (event) => this.onPointerDown(event));
    const editor = this.editor;
    if (editor) {
      this.table.addEventListener('pointermove', (event) => editor.pointerMove(event));
      this.table.addEventListener('pointerup', (event) => editor.pointerUp(event, true));
      this.table.addEventListener('pointercancel', (event) => editor.pointerUp(event, false));
    }
  }

  /** Switches editing on or off (e.g. off when the example is too large to edit). */
  setEditable(on: boolean): void {
    const next = on && this.editor !== null;
    if (next === this.editable || !this.editor) return;
    if (!next) this.editor.finish(false, false);
    this.editor.enabled = next;
    this.table.classList.toggle('editable', next);
    const grid = Boolean(this.options.onSelect || next || this.options.paint);
    if (grid) this.table.setAttribute('role', 'grid');
    else this.table.removeAttribute('role');
  }

  get editable(): boolean {
    return this.editor?.enabled ?? false;
  }

  get selection(): [number, number] | null {
    return this.selected;
  }

  update(view: MatrixView, caption = this.options.caption): void {
    this.view = view;
    this.painter?.confirmed();
    const extent = viewExtent(view);
    const asPicture = drawnAsPicture(view.rows, view.cols, view.showNumbers ?? true);
    // The legend's ticks are the extent the cells are coloured by, in the cells' own format.
    this.legend?.update(colourSpan(this.options.scale, extent), this.format, asPicture || view.showNumbers === false);
    if (asPicture) {
      this.updatePicture(view, caption, extent);
      return;
    }
    if (this.picture.shown) this.leavePicture();
    // The caption is not part of the shape: a new caption (e.g. another head) keeps the cells.
    const key = `${view.rows}x${view.cols}|${view.rowLabels.join('\u0001')}|${view.colLabels.join('\u0001')}|${view.rowTotals?.label ?? ''}`;
    if (key !== this.shapeKey) this.build(view, caption, key);
    else if (this.captionText !== caption) this.setCaption(caption);
    this.changedCount = this.grid.write(view, extent, (r, c) => this.editor?.isEditing(r, c) ?? false);
    if (this.pointed) this.grid.wordsOn(view, this.pointed[0], this.pointed[1]);
    if (this.selected) this.markSelection();
    this.showReadout();
  }

  /** Selects a cell programmatically (and tells onSelect). */
  select(row: number, col: number, focus = false): void {
    if (!this.view) return;
    const r = Math.max(0, Math.min(this.grid.rows - 1, row));
    const c = Math.max(0, Math.min(this.grid.cols - 1, col));
    this.selected = [r, c];
    this.markSelection();
    if (this.picture.shown) this.picture.showSelection(this.selected, focus);
    else if (focus) this.grid.cell(r, c)?.focus();
    this.options.onSelect?.(r, c);
    this.showReadout();
  }

  /** Emphasises rows/columns that feed the selected cell elsewhere (e.g. the row of Q). */
  highlight(rows: number[], cols: number[]): void {
    this.markCells('hl', rows, cols);
  }

  /** Puts `className` on the cells of these rows and columns (outlines them on a picture) and takes it off every other cell. */
  markCells(className: string, rows: Iterable<number>, cols: Iterable<number>): void {
    if (this.picture.shown) this.picture.mark(className, rows, cols);
    else this.grid.mark(className, rows, cols);
  }

  /** How many cells moved since the reader's edits, at the last update. */
  get changes(): number {
    return this.changedCount;
  }

  /** Exactly what the table shows, for CSV, NumPy and image files. */
  exportData(): TableData {
    return tableData(this.view, this.captionText, this.options.corner ?? '', this.options.scale, this.format);
  }

  private build(view: MatrixView, caption: string, key: string): void {
    this.editor?.finish(false, false);
    this.shapeKey = key;
    if (this.selected && (this.selected[0] >= view.rows || this.selected[1] >= view.cols)) this.selected = null;
    this.grid.build(view);
    this.setCaption(caption);
    this.cursor.placeAfterBuild(this.selected);
  }

  /** Draws the matrix as a picture, dropping the table's cells. */
  private updatePicture(view: MatrixView, caption: string, extent: number): void {
    this.editor?.finish(false, false);
    const key = `picture|${view.rows}x${view.cols}`;
    const place = this.shapeKey !== key;
    if (place) {
      this.grid.clear(view.rows, view.cols);
      this.shapeKey = key;
      if (this.selected && (this.selected[0] >= view.rows || this.selected[1] >= view.cols)) this.selected = null;
    }
    this.captionText = caption;
    this.picture.show(view, caption, extent, this.scroller, place);
    this.changedCount = 0;
    this.markSelection();
    this.showReadout();
  }

  private leavePicture(): void {
    this.picture.leave();
    this.scroller.hidden = false;
    this.shapeKey = '';
  }

  private setCaption(caption: string): void {
    this.captionText = caption;
    this.grid.setCaption(caption);
    this.scroller.setAttribute('aria-label', caption);
  }

  private markSelection(): void {
    if (this.picture.shown) {
      this.picture.showSelection(this.selected, false);
      return;
    }
    if (this.grid.showSelected(this.selected)) this.cursor.moveTo(this.selected![0], this.selected![1]);
  }

  private onFocus(event: Event): void {
    const at = this.grid.cellOf(event.target);
    if (!at) return;
    this.cursor.moveTo(at[0], at[1]);
    if (this.view) this.grid.wordsOn(this.view, at[0], at[1]);
    this.showReadout();
    if (!this.options.onSelect) return;
    if (this.selected && this.selected[0] === at[0] && this.selected[1] === at[1]) return;
    this.select(at[0], at[1]);
  }

  private onClick(event: MouseEvent): void {
    const at = this.grid.cellOf(event.target);
    if (!at) return;
    // A click without a pointer (a screen reader's activation, detail 0) toggles a paintable cell.
    if (this.painter && event.detail === 0) this.painter.toggle(at[0], at[1]);
    if (!this.options.onSelect) return;
    this.select(at[0], at[1]);
  }

  private onPointerOver(event: PointerEvent): void {
    const at = this.grid.cellOf(event.target);
    if (!at) return;
    this.pointed = at;
    if (this.view) this.grid.wordsOn(this.view, at[0], at[1]);
    this.showReadout();
    this.painter?.pointerOver(event, at);
  }

  private onPointerDown(event: PointerEvent): void {
    const at = this.grid.cellOf(event.target);
    if (!at || event.button !== 0 || !this.view) return;
    if (this.painter) this.painter.pointerDown(event, at);
    else this.editor?.pointerDown(event, at);
  }

  private onKey(event: KeyboardEvent): void {
    if (this.editor?.ownsInput(event.target)) return;
    const at = this.grid.cellOf(event.target);
    if (!at) return;
    const next = cursorTarget(event, at, this.grid.rows, this.grid.cols);
    if (next) {
      event.preventDefault();
      if (this.options.onSelect) this.select(next[0], next[1], true);
      else {
        this.cursor.moveTo(next[0], next[1]);
        this.grid.cell(next[0], next[1])?.focus();
      }
      return;
    }
    const [r, c] = at;
    const editor = this.editable ? this.editor : null;
    switch (event.key) {
      case 'F2':
        if (!editor) return;
        event.preventDefault();
        editor.start(r, c);
        return;
      case 'Enter':
      case ' ':
        event.preventDefault();
        if (editor && event.key === 'Enter') editor.start(r, c);
        else if (this.painter) this.painter.toggle(r, c);
        else if (this.options.onSelect) this.select(r, c);
        return;
      default:
        // Typing a number on a focused editable cell starts editing with it, as in a spreadsheet.
        if (editor && !event.ctrlKey && !event.metaKey && !event.altKey && /^[\d.\-−]$/.test(event.key)) {
          event.preventDefault();
          editor.start(r, c, event.key);
        }
    }
  }

  /** A cell in words: the owner's describe(), or its row and column labels. */
  private words(view: MatrixView, r: number, c: number): string {
    const value = valueAt(view, r, c);
    const blocked = view.blocked?.(r, c) ?? false;
    const text = cellText(view, r, c, this.format);
    let words = this.options.describe?.(r, c, value) || `Row ${view.rowLabels[r] ?? r + 1}, column ${view.colLabels[c] ?? c + 1}: ${text}`;
    if (blocked) words += ` (blocked: ${text})`;
    const delta = this.grid.deltaOf(r, c);
    if (delta) words += `; ${delta} since your edits`;
    return words;
  }

  private showReadout(): void {
    const at = this.pointed ?? (this.focusedCell() || this.selected);
    const { rows, cols } = this.grid;
    const text =
      at && this.view && at[0] < rows && at[1] < cols
        ? this.words(this.view, at[0], at[1])
        : this.changedCount > 0
          ? `${this.changedCount} of ${rows * cols} numbers moved since your edits (dashed outline, change in the corner).`
          : '';
    // Unchanged text is not written again, so the live region does not repeat itself on every redraw.
    setText(this.readout, text);
  }

  private focusedCell(): [number, number] | null {
    return this.picture.shown ? this.picture.focusedCell() : this.grid.focusedCell();
  }
}
