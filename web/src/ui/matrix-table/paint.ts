// Painting a 0/1 matrix (a mask): a press sets the cell under it to the opposite of what it was, and the
// drag paints every cell it crosses that same way; Space, or a screen reader's click, toggles one cell.
// A painted cell shows its state at once; the owner keeps the values, and its next update confirms them.
import { whenPointerReleased } from '../dom';

/** 0/1 cells painted with the pointer or toggled with Space (a mask). */
export interface MatrixPaint {
  /** Set these cells to 1 (on) or 0. */
  paint(cells: [number, number][], on: boolean): void;
}

/** What the session reads from, and shows in, the table it paints. */
export interface PaintHost {
  cols(): number;
  /** The cell's state in the owner's last update (not blocked and not 0). */
  storedOn(row: number, col: number): boolean;
  /** Shows the cell's new state before the owner's update confirms it. */
  show(row: number, col: number, on: boolean): void;
}

export class PaintSession {
  /** The drag under way: the state it paints, and the cells it has already crossed. */
  private painting: { on: boolean; seen: Set<number> } | null = null;
  /** Painted cells not yet back from the owner's next update(). */
  private pending = new Map<number, boolean>();

  constructor(
    private readonly paint: MatrixPaint,
    private readonly host: PaintHost,
  ) {}

  /** The owner's update has the painted cells now. */
  confirmed(): void {
    this.pending.clear();
  }

  isOn(r: number, c: number): boolean {
    const pending = this.pending.get(r * this.host.cols() + c);
    if (pending !== undefined) return pending;
    return this.host.storedOn(r, c);
  }

  toggle(r: number, c: number): void {
    this.set(r, c, !this.isOn(r, c));
  }

  /** Paints one cell (once per drag), unless it is already in that state. */
  set(r: number, c: number, on: boolean): void {
    const index = r * this.host.cols() + c;
    if (this.painting) {
      if (this.painting.seen.has(index)) return;
      this.painting.seen.add(index);
    }
    if (this.isOn(r, c) === on) return;
    this.pending.set(index, on);
    this.host.show(r, c, on);
    this.paint.paint([[r, c]], on);
  }

  /** A press starts a drag that paints the opposite of the pressed cell's state, until the pointer is released anywhere. */
  pointerDown(event: PointerEvent, [r, c]: [number, number]): void {
    const on = !this.isOn(r, c);
    this.painting = { on, seen: new Set() };
    // Touch pointers are captured by the first cell; release it so the cells under the finger report.
    const target = event.target as Element;
    if (target.hasPointerCapture?.(event.pointerId)) target.releasePointerCapture(event.pointerId);
    this.set(r, c, on);
    whenPointerReleased(() => {
      this.painting = null;
    });
  }

  /** The pointer entered a cell: a drag with the button held (or a touch or pen) paints it. */
  pointerOver(event: PointerEvent, [r, c]: [number, number]): void {
    if (this.painting && (event.buttons & 1 || event.pointerType !== 'mouse')) this.set(r, c, this.painting.on);
  }
}
