// Editing the numbers of a matrix table, as in a spreadsheet: Enter, F2 or typing a digit puts a text
// box in the cell (↑/↓ nudge by 0.1, Shift by 1; Enter keeps, Escape puts back), and dragging a cell
// sideways scrubs its value. The session only reports: the owner keeps the values and redraws.
import { el } from '../dom';
import type { CellGrid } from './grid';

/** Editable numbers. The table handles the keys and the pointer; the owner keeps the values. */
export interface MatrixEdit {
  /** Words for the edit box, e.g. "X, row 3 (“sat”), column 2". */
  label(row: number, col: number): string;
  /** An edit of this cell begins (edit mode entered, or a drag started). */
  start?(row: number, col: number): void;
  /** The value as it is now (every nudge, drag step and readable keystroke). */
  change(row: number, col: number, value: number): void;
  /** The edit ends: keep the value, or put back what was there at start(). */
  end(row: number, col: number, keep: boolean): void;
}

/** What the session reads from the table it edits. */
export interface EditHost {
  grid: CellGrid;
  /** The number the cell holds now. */
  value(row: number, col: number): number;
  /** The cell's text as the table shows it. */
  text(row: number, col: number): string;
  /** A dragged value as a cell shows it. */
  format(value: number): string;
}

/** A typed number: "0.5", "-1", "−2.25", ".5", "1e-2"; null when it is not one (yet). */
export function parseTyped(text: string): number | null {
  const clean = text
    .trim()
    .replace(/\u2212/g, '-')
    .replace(/,/g, '.');
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(clean)) return null;
  const value = Number(clean);
  return Number.isFinite(value) ? value : null;
}

/** Edited values keep three decimals: nudges of 0.1 do not pile up float noise (0.30000000000000004). */
const round3 = (v: number) => {
  const r = Math.round(v * 1000) / 1000;
  return Object.is(r, -0) ? 0 : r;
};

interface BoxSession {
  row: number;
  col: number;
  input: HTMLInputElement;
}

interface DragSession {
  row: number;
  col: number;
  x: number;
  value: number;
  pointer: number;
  moved: boolean;
}

export class EditSession {
  /** Editing is on (switched off, e.g., when the example is too large to edit). */
  enabled = true;
  private box: BoxSession | null = null;
  private drag: DragSession | null = null;

  constructor(
    private readonly edit: MatrixEdit,
    private readonly host: EditHost,
  ) {}

  /** (r, c) holds the edit box: table writes leave its text alone. */
  isEditing(r: number, c: number): boolean {
    return this.box?.row === r && this.box.col === c;
  }

  /** The event comes from the edit box (its keys are its own). */
  ownsInput(target: EventTarget | null): boolean {
    return this.box !== null && target === this.box.input;
  }

  /** Edit mode on one cell: a text box in place of the number, holding `typed` or the current value. */
  start(r: number, c: number, typed?: string): void {
    const cell = this.host.grid.cell(r, c);
    if (!this.enabled || !cell) return;
    if (this.box) this.finish(true, false);
    const edit = this.edit;
    const input = el('input', {
      type: 'text',
      inputmode: 'decimal',
      autocomplete: 'off',
      spellcheck: 'false',
      class: 'matrix-edit-input',
      'aria-label': `${edit.label(r, c)}. Type a number, or nudge it with the Up and Down arrows (Shift: steps of 1). Enter keeps it, Escape puts back the old value.`,
    });
    input.value = typed ?? String(round3(this.host.value(r, c)));
    this.box = { row: r, col: c, input };
    cell.classList.add('editing');
    cell.textContent = '';
    this.host.grid.forgetText(r, c);
    cell.appendChild(input);
    edit.start?.(r, c);
    input.focus();
    if (typed === undefined) input.select();
    else if (parseTyped(typed) !== null) edit.change(r, c, parseTyped(typed)!);
    input.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
        event.preventDefault();
        const now = parseTyped(input.value) ?? this.host.value(r, c);
        const next = round3(now + (event.key === 'ArrowUp' ? 1 : -1) * (event.shiftKey ? 1 : 0.1));
        input.value = String(next);
        edit.change(r, c, next);
      } else if (event.key === 'Enter') {
        event.preventDefault();
        this.finish(true, true);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        this.finish(false, true);
      } else if (event.key === 'Tab') {
        // Keep the number; focus goes back to the cell first, so Tab moves on from the table.
        this.finish(true, true);
      }
    });
    input.addEventListener('input', () => {
      const value = parseTyped(input.value);
      if (value !== null) edit.change(r, c, round3(value));
    });
    input.addEventListener('blur', () => {
      if (this.box?.input === input) this.finish(true, false);
    });
  }

  /** Leaves edit mode (if on): keep the typed value or put back the old one; the cell shows its number again. */
  finish(keep: boolean, focusCell: boolean): void {
    const session = this.box;
    if (!session) return;
    this.box = null;
    const { row, col, input } = session;
    const value = parseTyped(input.value);
    if (keep && value !== null) this.edit.change(row, col, round3(value));
    this.edit.end(row, col, keep && value !== null);
    const cell = this.host.grid.cell(row, col);
    input.remove();
    if (cell) {
      cell.classList.remove('editing');
      this.host.grid.showText(row, col, this.host.text(row, col));
      if (focusCell) cell.focus();
    }
  }

  /** A press on a cell may start a drag (it becomes one after 4 px sideways). */
  pointerDown(event: PointerEvent, [r, c]: [number, number]): void {
    if (this.ownsInput(event.target) || !this.enabled) return;
    this.drag = { row: r, col: c, x: event.clientX, value: this.host.value(r, c), pointer: event.pointerId, moved: false };
    try {
      this.host.grid.cell(r, c)?.setPointerCapture?.(event.pointerId);
    } catch {
      // Not capturable (a synthetic event): the drag still works while the pointer stays on the table.
    }
  }

  /** Sideways motion scrubs the value: 0.01 a pixel (Shift: 0.1). */
  pointerMove(event: PointerEvent): void {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointer) return;
    const dx = event.clientX - drag.x;
    if (!drag.moved) {
      if (Math.abs(dx) < 4) return;
      drag.moved = true;
      if (this.box) this.finish(true, false);
      this.edit.start?.(drag.row, drag.col);
      this.host.grid.cell(drag.row, drag.col)?.classList.add('dragging');
    }
    const value = round3(drag.value + Math.round(dx) * (event.shiftKey ? 0.1 : 0.01));
    this.host.grid.showPassing(drag.row, drag.col, this.host.format(value));
    this.edit.change(drag.row, drag.col, value);
  }

  /** The drag ends: keep the value (pointerup) or put it back (pointercancel). */
  pointerUp(event: PointerEvent, keep: boolean): void {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointer) return;
    this.drag = null;
    if (!drag.moved) return;
    this.host.grid.cell(drag.row, drag.col)?.classList.remove('dragging');
    this.edit.end(drag.row, drag.col, keep);
  }
}
