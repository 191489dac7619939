// The shape most figures of the walkthrough share: the model line, then one or more matrix tables whose
// cell descriptions (read out when the reader points at or moves to a cell, between renders) read the
// snapshot drawn last. A figure makes its tables with `matrixTable()` and fills them in `draw()`.
import { el } from '../../ui/dom';
import { MatrixTable, type MatrixTableOptions } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import { modelLine, type Figure } from './figure';
import { allPieces } from './pieces';

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
    allPieces(this.renderInPieces(snapshot));
  }

  /** render() a piece at a time, for a step drawn in pieces (steps/shared/pieces.ts). */
  *renderInPieces(snapshot: Snapshot): Generator<void, void> {
    this.drawn = snapshot;
    this.line.render(snapshot);
    const pieces = this.drawInPieces?.(snapshot);
    if (pieces) yield* pieces;
    else this.draw(snapshot);
  }

  /** Two tables side by side under the model line (Q beside Kᵀ, V beside the output). */
  protected pair(first: MatrixTable, second: MatrixTable): HTMLElement {
    return el(
      'div',
      { class: 'figure-row' },
      this.line.element,
      el('figure', { class: 'figure' }, first.element),
      el('figure', { class: 'figure' }, second.element),
    );
  }

  /** Fills the tables (and anything else the figure shows) from the snapshot. */
  protected abstract draw(snapshot: Snapshot): void;

  /** draw() in pieces, for a figure of several large tables. */
  protected drawInPieces?(snapshot: Snapshot): Generator<void, void>;
}

/** The commonest of them: the model line over one table. */
export abstract class OneTableFigure extends MatrixFigure {
  readonly element: HTMLElement;
  readonly table: MatrixTable;

  protected constructor(options: Omit<MatrixTableOptions, 'describe'>, describe: CellDescription) {
    super();
    this.table = this.matrixTable(options, describe);
    this.element = el('figure', { class: 'figure' }, this.line.element, this.table.element);
  }
}
