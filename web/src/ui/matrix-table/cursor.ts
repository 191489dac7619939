// The keyboard cursor of a matrix table: one cell is in the tab order (a roving tabindex, so Tab moves
// past a 16,384-cell table in one press), and the arrow keys, Home/End and Ctrl+Home/End move it.
import type { CellGrid } from './grid';

/** Where a key moves the cursor from (r, c), clamped to the grid; null for a key that does not move it. */
export function cursorTarget(event: KeyboardEvent, [r, c]: [number, number], rows: number, cols: number): [number, number] | null {
  switch (event.key) {
    case 'ArrowUp':
      r--;
      break;
    case 'ArrowDown':
      r++;
      break;
    case 'ArrowLeft':
      c--;
      break;
    case 'ArrowRight':
      c++;
      break;
    case 'Home':
      c = 0;
      if (event.ctrlKey) r = 0;
      break;
    case 'End':
      c = cols - 1;
      if (event.ctrlKey) r = rows - 1;
      break;
    default:
      return null;
  }
  return [Math.max(0, Math.min(rows - 1, r)), Math.max(0, Math.min(cols - 1, c))];
}

export class GridCursor {
  /** The one cell in the tab order. */
  private at: [number, number] = [0, 0];

  constructor(private readonly grid: CellGrid) {}

  /** Moves the one tab stop to (r, c). */
  moveTo(r: number, c: number): void {
    const old = this.grid.cell(this.at[0], this.at[1]);
    const cell = this.grid.cell(r, c);
    if (old && old !== cell) old.tabIndex = -1;
    this.at = [r, c];
    if (cell && cell.tabIndex !== 0) cell.tabIndex = 0;
  }

  /** The grid was rebuilt: the tab stop goes on the selection, else where it was (the first cell if that is gone). */
  placeAfterBuild(selected: [number, number] | null): void {
    if (this.at[0] >= this.grid.rows || this.at[1] >= this.grid.cols) this.at = [0, 0];
    if (this.grid.size === 0) return;
    const [r, c] = selected ?? this.at;
    this.at = [r, c];
    this.grid.cell(r, c)!.tabIndex = 0;
  }
}
