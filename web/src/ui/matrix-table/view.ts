// What a matrix figure is asked to show (a MatrixView), and the few facts every part of the figure reads
// from it the same way: a cell's value, its text, the colour extent, and the numbers a file exports.
// The cell grid, the edit and paint sessions, the picture and the exports all go through these, so a
// blocked cell or an offset into a Tensor3 means the same thing everywhere.
import type { TableData } from '../export-text';
import { colourPosition, type ColourScale } from '../palette';

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

/** How a number is written in a cell (the table's digits or format option). */
export type CellFormat = (value: number) => string;

export function valueAt(view: MatrixView, r: number, c: number): number {
  return view.data[(view.offset ?? 0) + r * view.cols + c];
}

/** The text a cell shows: its number, or the blocked text ("−∞" unless the view says otherwise). */
export function cellText(view: MatrixView, r: number, c: number, format: CellFormat): string {
  const blocked = view.blocked?.(r, c) ?? false;
  return blocked ? (view.blockedText ?? '−∞') : format(valueAt(view, r, c));
}

/** The largest magnitude among the cells that are not blocked, unless the view fixes the extent. */
export function viewExtent(view: MatrixView): number {
  if (view.extent !== undefined) return view.extent;
  let extent = 0;
  for (let r = 0; r < view.rows; r++)
    for (let c = 0; c < view.cols; c++) if (!view.blocked?.(r, c)) extent = Math.max(extent, Math.abs(valueAt(view, r, c)));
  return extent;
}

/** Exactly what the figure shows, for CSV, NumPy and image files (null view: an empty table). */
export function tableData(view: MatrixView | null, caption: string, corner: string, scale: ColourScale, format: CellFormat): TableData {
  if (!view)
    return {
      caption,
      corner: '',
      rows: 0,
      cols: 0,
      rowLabels: [],
      colLabels: [],
      values: [],
      texts: [],
      blocked: [],
      positions: [],
      scale,
      showNumbers: true,
    };
  const extent = viewExtent(view);
  const values: number[] = [];
  const texts: string[] = [];
  const blocked: boolean[] = [];
  const positions: number[] = [];
  const minusInfinity = (view.blockedText ?? '−∞').includes('∞');
  for (let r = 0; r < view.rows; r++) {
    for (let c = 0; c < view.cols; c++) {
      const value = valueAt(view, r, c);
      const isBlocked = view.blocked?.(r, c) ?? false;
      values.push(isBlocked && minusInfinity ? -Infinity : value);
      texts.push(cellText(view, r, c, format));
      blocked.push(isBlocked);
      positions.push(isBlocked ? 0 : colourPosition(value, scale, extent));
    }
  }
  return {
    caption,
    corner,
    rows: view.rows,
    cols: view.cols,
    rowLabels: view.rowLabels.map((label, r) => label ?? String(r + 1)),
    colLabels: view.colLabels,
    values,
    texts,
    blocked,
    positions,
    scale,
    showNumbers: view.showNumbers ?? true,
    totals: view.rowTotals
      ? { label: view.rowTotals.label, texts: Array.from({ length: view.rows }, (_, r) => view.rowTotals!.text(r)) }
      : undefined,
  };
}
