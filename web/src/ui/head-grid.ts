// Small multiples: one attention map per head, side by side, each a sequential heatmap with the
// sentence's tokens down its left (query rows) and along its top (key columns), and one colour legend
// for all of them. Each map is a canvas (one pixel per weight, scaled up crisply by CSS), so 16 maps of
// 128 × 128 stay cheap; the map is a button that picks that head for the single-head figures, and the
// button's name describes the map in words. The step puts the numbers in a table next to the grid.
//
// The token labels on the left are buttons: pointing at one, focusing it (↑/↓, Home/End move between
// them) or pointing at a map's row highlights that token's row in every head at once, and a click (Enter,
// Space) keeps it highlighted. Past LABELLED_TOKENS tokens a row is too thin for a label, and the maps
// go without; pointing at a row still highlights it.
//
// Colours are the cells' own: every map's weights are coloured as a colour-only table's cells would be
// (palette.ts cellRgb, full-strength cap), up to the largest weight in the grid, so the heads compare on
// one scale and the legend's 0 … max is every map's. A theme change repaints. Saved as SVG (svgFile),
// the maps are drawn again from the weights they were painted from, in the same colours, each under its
// caption with the same token labels as on the page (from the labels given, not read from the page).
import { ColourLegend } from './colour-legend';
import { el, paintInNextFrame, replaceChildren, setText, setVar } from './dom';
import { esc, svgOpening, textWidth, wrap, type SvgFile } from './export-svg';
import { percent } from './format';
import {
  cellColour,
  cellRgb,
  colourPosition,
  colourSpan,
  hex,
  LIGHT_PALETTE,
  prefersDark,
  readPalette,
  watchColourScheme,
  type ColourSchemeWatcher,
  type Palette,
} from './palette';

export interface HeadMap {
  /** Row-major (n, n) weights of this head, values in [0, 1]. */
  data: Float32Array;
  n: number;
  /** Visible caption, e.g. "Head 2". */
  caption: string;
  /** Accessible name of the button: what the map shows and what pressing does. */
  description: string;
}

/** The most tokens the maps label: at 240 px, 32 rows are 7.5 px each, about the smallest readable label. */
export const LABELLED_TOKENS = 32;
/** Past this many tokens the labels get a smaller font (head-grid.css .head-map-dense). */
const DENSE_TOKENS = 16;

interface MapParts {
  pick: HTMLButtonElement;
  canvas: HTMLCanvasElement;
  band: HTMLElement;
  caption: HTMLElement;
  rows: HTMLButtonElement[];
}

export class HeadGrid implements ColourSchemeWatcher {
  readonly element: HTMLElement;
  private readonly grid: HTMLElement;
  private readonly legend = new ColourLegend('more weight');
  private maps: HeadMap[] = [];
  /** The token labels the maps show (none past LABELLED_TOKENS), for the SVG file too. */
  private labels: string[] = [];
  private parts: MapParts[] = [];
  private extent = 1;
  private key = '';
  private paletteKey = '';
  private lut: Uint8ClampedArray | null = null;
  /** The row pointed at or focused (shown while there), and the row a click keeps highlighted. */
  private pointed: number | null = null;
  private pinned: number | null = null;
  /** The row shown as highlighted in the DOM, and the row label in the tab order. */
  private shownRow: number | null = null;
  private tabRow = 0;

  constructor(
    private readonly onPick: (index: number) => void,
    label: string,
  ) {
    this.grid = el('div', { class: 'head-grid', role: 'group', 'aria-label': label });
    this.element = el('div', { class: 'head-grid-figure' }, this.grid, this.legend.element);
    this.grid.addEventListener('pointerover', (event) => {
      const at = this.rowLabelOf(event.target);
      // Over a map, pointermove follows the row under the pointer; anywhere else nothing is pointed at.
      if (at || !(event.target as Element | null)?.closest?.('.head-map-pick')) this.point(at?.row ?? null);
    });
    this.grid.addEventListener('pointermove', (event) => this.onPointerMove(event));
    this.grid.addEventListener('pointerleave', () => this.point(null));
    this.grid.addEventListener('click', (event) => {
      const at = this.rowLabelOf(event.target);
      if (!at) return;
      this.pinned = this.pinned === at.row ? null : at.row;
      this.showRow();
    });
    this.grid.addEventListener('focusin', (event) => {
      const at = this.rowLabelOf(event.target);
      if (at) this.point(at.row);
    });
    this.grid.addEventListener('focusout', (event) => {
      if (!this.rowLabelOf(event.relatedTarget)) this.point(null);
    });
    this.grid.addEventListener('keydown', (event) => this.onKey(event));
    watchColourScheme(this);
  }

  /** The reader's light/dark setting changed: paint the maps again with the theme's colours. */
  colourSchemeChanged(): void {
    this.schedulePaint();
  }

  /** `labels`: the tokens, one per row and column (tokenLabels); none: unlabelled maps. */
  update(maps: HeadMap[], pressed: number, labels: readonly string[] = []): void {
    this.maps = maps;
    const n = maps[0]?.n ?? 0;
    const shown = labels.length === n && n <= LABELLED_TOKENS ? [...labels] : [];
    this.labels = shown;
    const key = `${maps.map((m) => `${m.caption}:${m.n}`).join('|')}#${shown.join('\u0001')}`;
    if (key !== this.key) this.build(maps, shown, key);
    let extent = 0;
    for (const map of maps) for (const w of map.data) if (w > extent && Number.isFinite(w)) extent = w;
    this.extent = extent;
    maps.forEach((map, i) => {
      const { pick, caption } = this.parts[i];
      pick.setAttribute('aria-pressed', String(i === pressed));
      setText(caption, i === pressed ? `${map.caption} · shown` : map.caption);
      caption.classList.toggle('head-map-shown', i === pressed);
      pick.setAttribute('aria-label', map.description);
      pick.title = map.description;
    });
    this.legend.update(maps.length ? colourSpan('sequential', extent) : null, (v) => percent(v), true);
    this.schedulePaint();
  }

  /** The row highlighted in every head (pointed at, focused or kept by a click), or null. */
  get highlightedRow(): number | null {
    return this.shownRow;
  }

  /** The maps last drawn as small multiples in one SVG file, under `title`. */
  svgFile(title: string, palette: Palette = LIGHT_PALETTE): SvgFile {
    return headGridSvg(title, this.maps, this.extent, palette, this.labels);
  }

  private build(maps: HeadMap[], labels: string[], key: string): void {
    this.key = key;
    const n = maps[0]?.n ?? 0;
    if (this.pinned !== null && this.pinned >= n) this.pinned = null;
    this.pointed = null;
    this.shownRow = null;
    this.tabRow = Math.min(this.tabRow, Math.max(0, n - 1));
    this.parts = [];
    const items = maps.map((map, i) => {
      const canvas = el('canvas', { class: 'head-map-canvas', width: map.n, height: map.n, 'aria-hidden': 'true' });
      const band = el('span', { class: 'head-map-band', hidden: true, 'aria-hidden': 'true' });
      const pick = el('button', { type: 'button', class: 'head-map-pick' }, canvas, band);
      pick.addEventListener('click', () => this.onPick(i));
      const caption = el('span', { class: 'head-map-caption', 'aria-hidden': 'true' }, map.caption);
      const rows = labels.map((label, r) =>
        el(
          'button',
          {
            type: 'button',
            class: 'head-map-row',
            'data-row': r,
            title: label,
            tabindex: r === this.tabRow ? 0 : -1,
            'aria-pressed': 'false',
          },
          label,
        ),
      );
      const labelled = rows.length > 0;
      const item = el(
        'div',
        { class: `head-map${labelled ? '' : ' head-map-unlabelled'}${map.n > DENSE_TOKENS ? ' head-map-dense' : ''}`, 'data-head': i },
        caption,
        labelled &&
          el(
            'span',
            { class: 'head-map-cols', 'aria-hidden': 'true' },
            ...labels.map((label) => el('span', { class: 'head-map-col', title: label }, label)),
          ),
        labelled &&
          el(
            'div',
            {
              class: 'head-map-rows',
              role: 'group',
              'aria-label': `${map.caption}, query tokens: pick one to highlight its row in every head`,
            },
            ...rows,
          ),
        pick,
      );
      setVar(item, '--n', map.n);
      this.parts.push({ pick, canvas, band, caption, rows });
      return item;
    });
    replaceChildren(this.grid, ...items);
    this.showRow();
  }

  private point(row: number | null): void {
    if (row === this.pointed) return;
    this.pointed = row;
    this.showRow();
  }

  /** Shows the highlighted row in every head: its band over the map and its label. */
  private showRow(): void {
    const row = this.pointed ?? this.pinned;
    const before = this.shownRow;
    this.shownRow = row;
    this.grid.toggleAttribute('data-row', row !== null);
    if (row !== null) this.grid.dataset.row = String(row);
    for (const { band, rows } of this.parts) {
      band.hidden = row === null;
      if (row !== null) setVar(band, '--row', row);
      if (before !== null && before !== row) rows[before]?.classList.remove('head-map-row-hl');
      if (row !== null) rows[row]?.classList.add('head-map-row-hl');
      rows.forEach((button, r) => {
        const pressed = String(r === this.pinned);
        if (button.getAttribute('aria-pressed') !== pressed) button.setAttribute('aria-pressed', pressed);
      });
    }
  }

  private onPointerMove(event: PointerEvent): void {
    const pick = (event.target as Element | null)?.closest?.('.head-map-pick');
    const index = this.parts.findIndex((p) => p.pick === pick);
    if (index < 0) return;
    const box = this.parts[index].canvas.getBoundingClientRect();
    const n = this.maps[index]?.n ?? 0;
    if (!(box.height > 0) || n === 0) return;
    const row = Math.floor(((event.clientY - box.top) / box.height) * n);
    this.point(row >= 0 && row < n ? row : null);
  }

  private onKey(event: KeyboardEvent): void {
    const at = this.rowLabelOf(event.target);
    if (!at) return;
    const n = at.part.rows.length;
    const next =
      event.key === 'ArrowDown'
        ? at.row + 1
        : event.key === 'ArrowUp'
          ? at.row - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? n - 1
              : null;
    if (next === null) return;
    event.preventDefault();
    const row = Math.max(0, Math.min(n - 1, next));
    // One tab stop per map's labels, on the row last moved to, in every map alike.
    for (const { rows } of this.parts) {
      rows[this.tabRow]?.setAttribute('tabindex', '-1');
      rows[row]?.setAttribute('tabindex', '0');
    }
    this.tabRow = row;
    at.part.rows[row].focus();
  }

  private rowLabelOf(target: EventTarget | null): { part: MapParts; row: number } | null {
    const button = (target as Element | null)?.closest?.('.head-map-row');
    if (!button) return null;
    const part = this.parts.find((p) => p.rows.includes(button as HTMLButtonElement));
    return part ? { part, row: Number((button as HTMLElement).dataset.row) } : null;
  }

  /**
   * Paints in the next animation frame: reading the theme's colours there costs no extra style
   * recalculation (the frame computes styles right after anyway), and several updates in one
   * frame paint once.
   */
  private schedulePaint(): void {
    // Until attached, the theme colour is unknown: the maps wait for their first canvas to be.
    paintInNextFrame(
      this,
      (grid) => !grid.parts[0] || grid.parts[0].canvas.isConnected,
      (grid) => grid.paintAll(),
    );
  }

  private paintAll(): void {
    const first = this.parts[0]?.canvas;
    if (!first || !first.isConnected || typeof ImageData !== 'function') return;
    this.maps.forEach((map, i) => paint(this.parts[i]?.canvas, map, this.extent, this.colours(first)));
  }

  /** The theme's sequential scale as a 256-step lookup table, read again when the theme changes. */
  private colours(from: Element): Uint8ClampedArray {
    const dark = prefersDark();
    const key = String(dark);
    if (this.lut && key === this.paletteKey) return this.lut;
    const palette = readPalette(from);
    const lut = new Uint8ClampedArray(256 * 3);
    for (let i = 0; i < 256; i++) lut.set(cellRgb(i / 255, 'sequential', palette, palette.capColourOnly), i * 3);
    this.paletteKey = key;
    this.lut = lut;
    return lut;
  }
}

function paint(canvas: HTMLCanvasElement | undefined, map: HeadMap, extent: number, lut: Uint8ClampedArray): void {
  if (!canvas) return;
  let context: CanvasRenderingContext2D | null = null;
  try {
    context = canvas.getContext('2d');
  } catch {
    context = null;
  }
  if (!context) return; // no canvas (a test DOM): the button's name and the table still carry it
  // One pixel per weight in one putImageData, instead of n² fillRect calls (16 384 per 128-token map).
  const image = new ImageData(map.n, map.n);
  const pixels = image.data;
  for (let i = 0; i < map.n * map.n; i++) {
    const j = Math.round(colourPosition(map.data[i], 'sequential', extent) * 255) * 3;
    pixels[i * 4] = lut[j];
    pixels[i * 4 + 1] = lut[j + 1];
    pixels[i * 4 + 2] = lut[j + 2];
    pixels[i * 4 + 3] = 255;
  }
  context.putImageData(image, 0, 0);
}

/**
 * Small multiples of attention maps as SVG: each weight a square in the colour the page paints it, each
 * map under its caption with the tokens down its left (query rows) and along its top (key columns), as
 * the page labels them; without labels (past LABELLED_TOKENS tokens) the maps go without, as on the page.
 */
function headGridSvg(title: string, maps: readonly HeadMap[], extent: number, palette: Palette, labels: readonly string[] = []): SvgFile {
  const pad = 12;
  const columns = Math.min(4, Math.max(1, maps.length));
  const n = maps[0]?.n ?? 0;
  const labelled = labels.length > 0 && labels.length === n;
  // A labelled map gives each row at least 12 px, so its labels stay readable (32 tokens: 384 px).
  const size = labelled ? Math.max(150, n * 12) : 150;
  const labelSize = labelled ? Math.min(11, Math.max(7, Math.floor((size / n) * 0.8))) : 0;
  const labelRoom = labelled ? Math.ceil(Math.max(...labels.map((label) => textWidth(label, labelSize)))) + 6 : 0;
  const gap = 16;
  const captionH = 18;
  const blockW = labelRoom + size;
  const blockH = captionH + labelRoom + size;
  const rows = Math.ceil(maps.length / columns);
  const titleLines = wrap(title, columns * (blockW + gap), 13);
  const top = pad + titleLines.length * 18 + 6;
  const width = Math.ceil(pad * 2 + columns * blockW + (columns - 1) * gap);
  const height = Math.ceil(top + rows * (blockH + gap) + pad - gap);
  const muted = hex(palette.muted);
  const parts = [
    svgOpening(width, height, title, palette),
    `<rect width="${width}" height="${height}" fill="${hex(palette.surface)}"/>`,
    ...titleLines.map((line, i) => `<text x="${pad}" y="${pad + 13 + i * 18}" font-size="13" fill="${muted}">${esc(line)}</text>`),
  ];
  maps.forEach((map, k) => {
    const bx = pad + (k % columns) * (blockW + gap);
    const by = top + Math.floor(k / columns) * (blockH + gap);
    const x0 = bx + labelRoom;
    const y0 = by + captionH + labelRoom;
    const cell = size / Math.max(1, map.n);
    parts.push(`<text x="${bx}" y="${by + 13}" font-size="12" fill="${hex(palette.ink)}">${esc(map.caption)}</text>`);
    if (labelled) {
      // Key tokens along the top, read upwards as on the page; query tokens down the left, flush right.
      labels.forEach((label, c) => {
        const x = (x0 + (c + 0.5) * cell + labelSize * 0.35).toFixed(2);
        parts.push(`<text transform="translate(${x} ${y0 - 4}) rotate(-90)" font-size="${labelSize}" fill="${muted}">${esc(label)}</text>`);
      });
      labels.forEach((label, r) => {
        const y = (y0 + (r + 0.5) * cell + labelSize * 0.35).toFixed(2);
        parts.push(`<text x="${x0 - 4}" y="${y}" font-size="${labelSize}" fill="${muted}" text-anchor="end">${esc(label)}</text>`);
      });
    }
    parts.push(`<rect x="${x0}" y="${y0}" width="${size}" height="${size}" fill="${hex(palette.seq0)}" stroke="${hex(palette.rule)}"/>`);
    for (let r = 0; r < map.n; r++) {
      for (let c = 0; c < map.n; c++) {
        const w = map.data[r * map.n + c];
        if (!(w > 0)) continue;
        const fill = cellColour(colourPosition(w, 'sequential', extent), 'sequential', palette, palette.capColourOnly);
        parts.push(
          `<rect x="${(x0 + c * cell).toFixed(2)}" y="${(y0 + r * cell).toFixed(2)}" width="${cell.toFixed(2)}" height="${cell.toFixed(2)}" fill="${fill}"/>`,
        );
      }
    }
  });
  parts.push('</svg>');
  return { svg: parts.join(''), width, height };
}
