// Which rows and columns step 2's tables show: the shown head's columns of W and Q/K/V, a window of
// them when the matrices are too large to print whole.
import type { Matrix } from '../../engine/types';
import { LIMITS } from '../../settings';

/** Above this many rows or columns a matrix is shown as a window of WINDOW rows or columns. */
const FULL_UP_TO = LIMITS.maxTokensWithNumbers;
const WINDOW = 16;

export interface DimWindow {
  /** First column of W and of Q/K/V shown (0-based: the head's first), and how many. */
  colStart: number;
  colCount: number;
  /** Rows of W (= columns of X) shown. */
  rowCount: number;
  /** True when the matrices are too large to show whole. */
  windowed: boolean;
}

export function dimWindow(dModel: number, dK: number, head: number): DimWindow {
  const rowCount = dModel <= FULL_UP_TO ? dModel : WINDOW;
  const colCount = dK <= FULL_UP_TO ? dK : WINDOW;
  return { colStart: head * dK, colCount, rowCount, windowed: rowCount < dModel || colCount < dK };
}

/** Rows [0, rows) and columns [c0, c0 + cols) of m, as a packed row-major array. */
export function crop(m: Matrix, rows: number, c0: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) out.set(m.data.subarray(r * m.cols + c0, r * m.cols + c0 + cols), r * cols);
  return out;
}

/** The same crop of the numbers before the reader's edits, or null when there are none. */
export function cropBaseline(m: Matrix | undefined, rows: number, c0: number, cols: number): Float32Array | null {
  return m ? crop(m, rows, c0, cols) : null;
}
