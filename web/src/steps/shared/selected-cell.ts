// The cell a worked step (3 and 6) works out by hand: which cell is selected, the box that shows its sum
// and the line that reads it. Both steps select through a table of their figure and keep the selection
// inside the shape when the reader's sizes shrink it.
import { el } from '../../ui/dom';

/** The part of a matrix table the selected cell follows. */
interface SelectableTable {
  readonly selection: [number, number] | null;
  select(row: number, col: number): void;
}

export interface SelectedCell {
  readonly selection: { row: number; col: number };
  /** Where the sum is worked out. */
  readonly byHand: HTMLElement;
  /** The sentence that reads the selected cell. */
  readonly reading: HTMLElement;
  /** The figure's onSelect: remember the cell and work it out. */
  select(row: number, col: number): void;
  /** After a render: clamp the cell into rows x cols, then select it in the table (the first time) or redo the sum. */
  follow(table: SelectableTable, rows: number, cols: number): void;
}

/** @param show  works the selected cell out into byHand and reading. */
export function selectedCell(show: () => void): SelectedCell {
  const selection = { row: 0, col: 0 };
  return {
    selection,
    byHand: el('div', { class: 'by-hand-box', 'aria-live': 'polite' }),
    reading: el('p', { class: 'reading' }),
    select(row, col) {
      selection.row = row;
      selection.col = col;
      show();
    },
    follow(table, rows, cols) {
      selection.row = Math.min(selection.row, rows - 1);
      selection.col = Math.min(selection.col, cols - 1);
      if (!table.selection) table.select(selection.row, selection.col);
      else show();
    },
  };
}
