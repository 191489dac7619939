// The shape most figures of the walkthrough share: the model line, then one or more matrix tables whose
// cell descriptions (read out when the reader points at or moves to a cell, between renders) read the
// snapshot drawn last. A figure makes its tables with `matrixTable()` and fills them in `draw()`.
import { MatrixTable, type MatrixTableOptions } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import { modelLine, type Figure } from './figure';

/** A cell's description, from the snapshot its table shows. */
export type CellDescription = (snapshot: Snapshot, row: number, col: number, value: number) => string;

export abstract class MatrixFigure implements Figure {
  abstract readonly element: HTMLElement;
  protected readonly line = modelLine();
  private drawn: Snapshot | null = null;

  /** A table of this figure; before the first render its cells describe nothing. */
  protected matrixTable(options: Omit<MatrixTableOptions, 'describe'>, describe: CellDescription): MatrixTable {
    return new MatrixTable({ ...options, describe: (r, c, v) => (this.drawn ? describe(this.drawn, r, c, v) : '') });
  }

  render(snapshot: Snapshot): void {
    this.drawn = snapshot;
    this.line.render(snapshot);
    this.draw(snapshot);
  }

  /** Fills the tables (and anything else the figure shows) from the snapshot. */
  protected abstract draw(snapshot: Snapshot): void;
}
