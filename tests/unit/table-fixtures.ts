// Small MatrixTable inputs for renderer tests: a view with labelled rows and columns, and a table on the page.
import type { MatrixTable } from '../../web/src/ui/matrix-table/matrix-table';

/** A (rows, cols) view of `data` labelled r1…, c1…, with any extra view fields. */
export const view = (data: number[], rows: number, cols: number, extra: Record<string, unknown> = {}) => ({
  data: Float32Array.from(data),
  rows,
  cols,
  rowLabels: Array.from({ length: rows }, (_, i) => `r${i + 1}`),
  colLabels: Array.from({ length: cols }, (_, i) => `c${i + 1}`),
  ...extra,
});

/** The table as the only thing on the page, so it is connected and measurable. */
export function mounted(table: MatrixTable): HTMLElement {
  document.body.replaceChildren(table.element);
  return table.element;
}
