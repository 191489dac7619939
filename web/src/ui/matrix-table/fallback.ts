// A matrix table too large to print (ui/matrix-table/picture.ts decides when) shows a picture in place of
// its cells: this wires the picture into the table's figure, with the caption above it and the row
// totals the table would show in its last column as their own small table under it.
import { columnHeads } from '../data-table';
import { el, setText } from '../dom';
import { MatrixPicture, type PictureHost } from './picture';
import type { MatrixView } from './view';
import { colourPosition } from '../palette';
import { scrollRegion } from '../scroll-region';

export class PictureFallback {
  private picture: MatrixPicture | null = null;
  private caption: HTMLElement | null = null;
  /** A picture's row totals (e.g. the row sums of a weights map) as a two-column table under it. */
  private totals: HTMLElement | null = null;

  /** corner: the table's top-left header, whose first word names the rows of the totals table. */
  constructor(
    private readonly host: PictureHost,
    private readonly corner: string | undefined,
  ) {}

  /** The picture is on the page. */
  get shown(): boolean {
    return this.picture?.element.isConnected ?? false;
  }

  /**
   * Draws the view as a picture. `place` is true when the picture takes the table's place (a new shape):
   * it goes after `scroller`, which the caller has emptied and hides.
   */
  show(view: MatrixView, caption: string, extent: number, scroller: HTMLElement, place: boolean): void {
    if (!this.picture) {
      this.picture = new MatrixPicture(this.host);
      this.caption = el('p', { class: 'matrix-picture-caption', 'aria-hidden': 'true' });
    }
    if (place) {
      scroller.hidden = true;
      scroller.after(this.caption!, this.picture.element);
    }
    setText(this.caption!, caption);
    this.showTotals(view);
    const offset = view.offset ?? 0;
    const blocked = view.blocked;
    const scale = this.host.scale;
    this.picture.update(
      {
        rows: view.rows,
        cols: view.cols,
        position: (i) => colourPosition(view.data[offset + i], scale, extent),
        blocked: blocked ? (i) => blocked(Math.floor(i / view.cols), i % view.cols) : () => false,
      },
      `${caption}: a ${view.rows} × ${view.cols} heatmap, too large to print as a table. The arrow keys move through it one cell at a time and the line below reads the cell out; Copy CSV, in the menu under it, has every number.`,
    );
  }

  /** Takes the picture, its caption and totals off the page (the table comes back). */
  leave(): void {
    this.picture?.element.remove();
    this.caption?.remove();
    this.totals?.remove();
    this.totals = null;
  }

  showSelection(at: [number, number] | null, focus: boolean): void {
    this.picture?.showSelection(at, focus);
  }

  mark(className: string, rows: Iterable<number>, cols: Iterable<number>): void {
    this.picture?.mark(className, rows, cols);
  }

  focusedCell(): [number, number] | null {
    return this.picture?.focusedCell() ?? null;
  }

  /** The row totals a table shows in its last column, as their own small table under the picture. */
  private showTotals(view: MatrixView): void {
    const totals = view.rowTotals;
    if (!totals) {
      this.totals?.remove();
      this.totals = null;
      return;
    }
    const key = `${totals.label}|${view.rowLabels.join('\u0001')}`;
    if (this.totals?.dataset.key !== key) {
      const rows = view.rowLabels.map((label, r) =>
        el('tr', {}, el('th', { scope: 'row' }, label ?? String(r + 1)), el('td', { class: 'row-total' })),
      );
      const table = el(
        'table',
        { class: 'data-table picture-totals-table' },
        el('caption', {}, `${totals.label}, every row`),
        columnHeads([this.corner?.split(/\s/)[0] ?? 'row', totals.label]),
        el('tbody', {}, ...rows),
      );
      const box = scrollRegion(
        { label: `${totals.label}, every row`, className: 'picture-totals matrix-scroll', attributes: { 'data-key': key } },
        table,
      );
      if (this.totals) this.totals.replaceWith(box);
      else this.picture!.element.after(box);
      this.totals = box;
    }
    // Written in place: a settings change rewrites only the sums that changed, and focus stays in the box.
    this.totals.querySelectorAll('td.row-total').forEach((cell, r) => {
      const text = totals.text(r);
      const className = `row-total ${totals.className?.(r) ?? ''}`.trim();
      setText(cell, text);
      if (cell.className !== className) cell.className = className;
    });
  }
}
