// A matrix too large to print its numbers (over 64 tokens; a 256-token sentence makes 65,536 weights
// per map) drawn as a picture: one canvas pixel per cell, scaled up crisply by CSS and painted with
// one putImageData, instead of 65,536 table cells per figure that every settings change would restyle.
//
// The reader keeps what the table gives them: the picture is one tab stop; the arrow keys (Shift: 8 at
// a time), Page Up/Down, Home/End and Ctrl+Home/End move a cursor, and the cell under the cursor or the
// pointer is read out in words by the owner (MatrixTable's live readout line). Enter or Space select the
// cell (or toggle it, for a painted mask); clicking selects; dragging paints. The selection and the rows
// or columns the owner highlights are outlined over the picture, and the owner's menu (Copy CSV, Save
// SVG…) still exports every number.
import { el, setVar, whenPointerReleased } from '../dom';
import { cellRgb, prefersDark, readPalette, watchColourScheme, type ColourScale, type ColourSchemeWatcher } from '../palette';

/**
 * A matrix is a picture rather than a table when it shows colour only (no numbers: over 64 tokens) and
 * has more than PICTURE_CELLS cells, or when it has more than MAX_TABLE_CELLS cells whatever it shows.
 */
export const PICTURE_CELLS = 4096;
export const MAX_TABLE_CELLS = 16384;

export function drawnAsPicture(rows: number, cols: number, showNumbers: boolean): boolean {
  const cells = rows * cols;
  return cells > MAX_TABLE_CELLS || (!showNumbers && cells > PICTURE_CELLS);
}

export interface PictureHost {
  scale: ColourScale;
  /** The cell under the pointer or cursor changed (null: none): the owner reads it out. */
  point(at: [number, number] | null): void;
  /** Enter, Space or a click on a cell. */
  activate(row: number, col: number): void;
  /** Pointer painting (a mask): the cell's state now, and set it. */
  paint?: { isOn(row: number, col: number): boolean; set(row: number, col: number, on: boolean): void };
}

/** What the picture shows: each cell's colour position ([-1, 1] or [0, 1]) and whether it is blocked. */
export interface PictureCells {
  rows: number;
  cols: number;
  position(index: number): number;
  blocked(index: number): boolean;
}

/** Keys that move the cursor, and how far: [rows, cols] per press, or a jump to an edge. */
function moveFor(event: KeyboardEvent, rows: number, cols: number, [r, c]: [number, number]): [number, number] | null {
  const step = event.shiftKey ? 8 : 1;
  switch (event.key) {
    case 'ArrowUp':
      return [r - step, c];
    case 'ArrowDown':
      return [r + step, c];
    case 'ArrowLeft':
      return [r, c - step];
    case 'ArrowRight':
      return [r, c + step];
    case 'PageUp':
      return [r - 16, c];
    case 'PageDown':
      return [r + 16, c];
    case 'Home':
      return event.ctrlKey ? [0, 0] : [r, 0];
    case 'End':
      return event.ctrlKey ? [rows - 1, cols - 1] : [r, cols - 1];
    default:
      return null;
  }
}

/** Runs of consecutive indices as [first, count]: a highlighted column range is one outline, not 400. */
export function runsOf(indices: Iterable<number>, limit: number): [number, number][] {
  const sorted = [...new Set(indices)].filter((i) => Number.isInteger(i) && i >= 0 && i < limit).sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const i of sorted) {
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === i) last[1]++;
    else runs.push([i, 1]);
  }
  return runs;
}

export class MatrixPicture implements ColourSchemeWatcher {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly cursorMark: HTMLElement;
  private readonly selectedMark: HTMLElement;
  private readonly bands = new Map<string, HTMLElement[]>();
  private rows = 0;
  private cols = 0;
  private cells: PictureCells | null = null;
  private cursor: [number, number] = [0, 0];
  private painting: boolean | null = null;
  private paletteKey = '';
  private colours: { lut: Uint8ClampedArray; blocked: [number, number, number] } | null = null;

  constructor(private readonly host: PictureHost) {
    this.canvas = el('canvas', { class: 'matrix-picture-canvas', width: 1, height: 1, 'aria-hidden': 'true' });
    this.cursorMark = el('div', { class: 'picture-mark picture-cursor', 'aria-hidden': 'true' });
    this.selectedMark = el('div', { class: 'picture-mark picture-selected', 'aria-hidden': 'true', hidden: true });
    this.element = el(
      'div',
      { class: 'matrix-picture', role: 'img', 'aria-roledescription': 'heatmap', tabindex: 0 },
      this.canvas,
      this.selectedMark,
      this.cursorMark,
    );
    this.element.addEventListener('keydown', (event) => this.onKey(event));
    this.element.addEventListener('focus', () => this.host.point(this.cursor));
    this.element.addEventListener('blur', () => this.host.point(null));
    this.element.addEventListener('pointermove', (event) => this.onPointer(event));
    this.element.addEventListener('pointerleave', () => this.host.point(null));
    this.element.addEventListener('pointerdown', (event) => this.onPointerDown(event));
    this.element.addEventListener('click', (event) => {
      const at = this.cellAt(event);
      if (at && !host.paint) this.host.activate(at[0], at[1]);
    });
    watchColourScheme(this);
  }

  /** The reader's light/dark setting changed: read the theme's colours again and redraw. */
  colourSchemeChanged(): void {
    this.paletteKey = '';
    this.draw();
  }

  /** Redraws for new cells; label is the accessible name (caption, shape and how to read cells). */
  update(cells: PictureCells, label: string): void {
    if (cells.rows !== this.rows || cells.cols !== this.cols) {
      this.rows = cells.rows;
      this.cols = cells.cols;
      this.canvas.width = cells.cols;
      this.canvas.height = cells.rows;
      setVar(this.element, '--rows', cells.rows);
      setVar(this.element, '--cols', cells.cols);
      this.cursor = [Math.min(this.cursor[0], cells.rows - 1), Math.min(this.cursor[1], cells.cols - 1)];
      this.place(this.cursorMark, this.cursor);
    }
    this.cells = cells;
    this.element.setAttribute('aria-label', label);
    this.draw();
  }

  /** The cursor cell while the picture has the keyboard focus. */
  focusedCell(): [number, number] | null {
    const root = this.element.getRootNode() as Document | ShadowRoot;
    return root.activeElement === this.element ? this.cursor : null;
  }

  /** Outlines the selected cell (null: none) and moves the cursor to it. */
  showSelection(at: [number, number] | null, focus: boolean): void {
    this.selectedMark.hidden = !at;
    if (!at) return;
    this.place(this.selectedMark, at);
    this.moveCursor(at);
    if (focus) this.element.focus();
  }

  /** Outlines these rows and columns with the class `name` (e.g. the row of Q that feeds a score). */
  mark(name: string, rows: Iterable<number>, cols: Iterable<number>): void {
    const outlines: HTMLElement[] = [];
    for (const [first, count] of runsOf(rows, this.rows)) outlines.push(this.band(name, 'row', first, count));
    for (const [first, count] of runsOf(cols, this.cols)) outlines.push(this.band(name, 'col', first, count));
    for (const old of this.bands.get(name) ?? []) old.remove();
    this.bands.set(name, outlines);
    this.element.append(...outlines);
  }

  private band(name: string, axis: 'row' | 'col', first: number, count: number): HTMLElement {
    const band = el('div', { class: `picture-band picture-${axis} ${name}`, 'aria-hidden': 'true' });
    setVar(band, '--first', first);
    setVar(band, '--count', count);
    return band;
  }

  private place(mark: HTMLElement, [r, c]: [number, number]): void {
    setVar(mark, '--r', r);
    setVar(mark, '--c', c);
  }

  private moveCursor(at: [number, number]): void {
    this.cursor = at;
    this.place(this.cursorMark, at);
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      const [r, c] = this.cursor;
      if (this.host.paint) this.host.paint.set(r, c, !this.host.paint.isOn(r, c));
      else this.host.activate(r, c);
      this.host.point(this.cursor);
      return;
    }
    const next = moveFor(event, this.rows, this.cols, this.cursor);
    if (!next) return;
    event.preventDefault();
    const at: [number, number] = [Math.max(0, Math.min(this.rows - 1, next[0])), Math.max(0, Math.min(this.cols - 1, next[1]))];
    this.moveCursor(at);
    this.host.point(at);
  }

  private cellAt(event: MouseEvent): [number, number] | null {
    const box = this.canvas.getBoundingClientRect();
    if (box.width <= 0 || box.height <= 0) return null;
    const c = Math.floor(((event.clientX - box.left) / box.width) * this.cols);
    const r = Math.floor(((event.clientY - box.top) / box.height) * this.rows);
    return r >= 0 && r < this.rows && c >= 0 && c < this.cols ? [r, c] : null;
  }

  private onPointer(event: PointerEvent): void {
    const at = this.cellAt(event);
    this.host.point(at);
    if (at && this.painting !== null && this.host.paint && this.host.paint.isOn(at[0], at[1]) !== this.painting) {
      this.host.paint.set(at[0], at[1], this.painting);
    }
  }

  private onPointerDown(event: PointerEvent): void {
    const paint = this.host.paint;
    const at = this.cellAt(event);
    if (!paint || !at || event.button !== 0) return;
    this.moveCursor(at);
    this.painting = !paint.isOn(at[0], at[1]);
    paint.set(at[0], at[1], this.painting);
    whenPointerReleased(() => {
      this.painting = null;
    });
  }

  /** The theme's colours as a 256-step lookup table, read again when the theme changes. */
  private palette(): { lut: Uint8ClampedArray; blocked: [number, number, number] } {
    const dark = prefersDark();
    const key = `${this.host.scale}|${dark}`;
    if (this.colours && key === this.paletteKey) return this.colours;
    const palette = readPalette(this.element);
    const sequential = this.host.scale === 'sequential';
    const lut = new Uint8ClampedArray(256 * 3);
    for (let i = 0; i < 256; i++)
      lut.set(cellRgb(sequential ? i / 255 : (i / 255) * 2 - 1, this.host.scale, palette, palette.capColourOnly), i * 3);
    this.paletteKey = key;
    this.colours = { lut, blocked: palette.surface2 };
    return this.colours;
  }

  private draw(): void {
    const cells = this.cells;
    if (!cells || !this.element.isConnected || typeof ImageData !== 'function') return;
    let context: CanvasRenderingContext2D | null = null;
    try {
      context = this.canvas.getContext('2d');
    } catch {
      context = null;
    }
    if (!context) return; // no canvas (a test DOM): the readout and the exports still carry every number
    const { lut, blocked } = this.palette();
    const image = new ImageData(cells.cols, cells.rows);
    const pixels = image.data;
    const sequential = this.host.scale === 'sequential';
    for (let i = 0; i < cells.rows * cells.cols; i++) {
      const p = i * 4;
      if (cells.blocked(i)) {
        pixels[p] = blocked[0];
        pixels[p + 1] = blocked[1];
        pixels[p + 2] = blocked[2];
      } else {
        const t = cells.position(i);
        const j = Math.round((sequential ? t : (t + 1) / 2) * 255) * 3;
        pixels[p] = lut[j];
        pixels[p + 1] = lut[j + 1];
        pixels[p + 2] = lut[j + 2];
      }
      pixels[p + 3] = 255;
    }
    context.putImageData(image, 0, 0);
  }
}
