// Small multiples: one attention map per head, side by side, as sequential heatmaps. Each map is
// a canvas (one pixel per weight, scaled up crisply by CSS), so 16 maps of 128 × 128 stay cheap;
// each is inside a button that picks that head for the single-head figures, and the button's
// name describes the map in words. The step puts the numbers in a table next to the grid.
//
// Colours come from the theme: the canvas's CSS background is the scale's 0 and its CSS `color`
// is the scale's 1; a weight w is painted in that colour at opacity w. A theme change repaints.
// Saved as SVG (svgFile), the maps are drawn again from the weights they were painted from.
import { el, replaceChildren, setText } from './dom';
import { esc, svgOpening, wrap, type SvgFile } from './export-svg';
import { hex, LIGHT_PALETTE, type Palette } from './palette';

export interface HeadMap {
  /** Row-major (n, n) weights of this head, values in [0, 1]. */
  data: Float32Array;
  n: number;
  /** Visible caption, e.g. "Head 2". */
  caption: string;
  /** Accessible name of the button: what the map shows and what pressing does. */
  description: string;
}

export class HeadGrid {
  readonly element: HTMLElement;
  private maps: HeadMap[] = [];
  private buttons: HTMLButtonElement[] = [];
  private canvases: HTMLCanvasElement[] = [];
  private captions: HTMLElement[] = [];
  private key = '';
  private frame = 0;

  constructor(
    private readonly onPick: (index: number) => void,
    label: string,
  ) {
    this.element = el('div', { class: 'head-grid', role: 'group', 'aria-label': label });
    if (typeof matchMedia === 'function') {
      matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', () => this.schedulePaint());
    }
  }

  update(maps: HeadMap[], pressed: number): void {
    this.maps = maps;
    const key = maps.map((m) => `${m.caption}:${m.n}`).join('|');
    if (key !== this.key) this.build(maps);
    maps.forEach((map, i) => {
      const button = this.buttons[i];
      button.setAttribute('aria-pressed', String(i === pressed));
      setText(this.captions[i], i === pressed ? `${map.caption} · shown` : map.caption);
      button.setAttribute('aria-label', map.description);
      button.title = map.description;
    });
    this.schedulePaint();
  }

  /** The maps last drawn as small multiples in one SVG file, under `title`. */
  svgFile(title: string, palette: Palette = LIGHT_PALETTE): SvgFile {
    return headGridSvg(title, this.maps, palette);
  }

  /**
   * Paints in the next animation frame: reading the theme colour there costs no extra style
   * recalculation (the frame computes styles right after anyway), and several updates in one
   * frame paint once.
   */
  private schedulePaint(tries = 0): void {
    if (typeof requestAnimationFrame !== 'function') return this.paintAll();
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      // Not in a document yet (an element rendered before it was attached): the theme colour is
      // unknown, so wait a few frames for it.
      if (this.canvases[0] && !this.canvases[0].isConnected) {
        if (tries < 120) this.schedulePaint(tries + 1);
        return;
      }
      this.paintAll();
    });
  }

  private build(maps: HeadMap[]): void {
    this.key = maps.map((m) => `${m.caption}:${m.n}`).join('|');
    this.buttons = [];
    this.canvases = [];
    this.captions = [];
    const items = maps.map((map, i) => {
      const canvas = el('canvas', { class: 'head-map-canvas', width: map.n, height: map.n, 'aria-hidden': 'true' });
      const caption = el('span', { class: 'head-map-caption', 'aria-hidden': 'true' }, map.caption);
      const button = el('button', { type: 'button', class: 'head-map' }, canvas, caption);
      this.captions.push(caption);
      button.addEventListener('click', () => this.onPick(i));
      this.buttons.push(button);
      this.canvases.push(canvas);
      return button;
    });
    replaceChildren(this.element, ...items);
  }

  private paintAll(): void {
    const first = this.canvases[0];
    if (!first || !first.isConnected) return;
    const ink = getComputedStyle(first).color || '#08306b';
    this.maps.forEach((map, i) => paint(this.canvases[i], map, ink));
  }
}

function paint(canvas: HTMLCanvasElement | undefined, map: HeadMap, ink: string): void {
  if (!canvas) return;
  let context: CanvasRenderingContext2D | null = null;
  try {
    context = canvas.getContext('2d');
  } catch {
    context = null;
  }
  if (!context) return; // no canvas (a test DOM): the button's name and the table still carry it
  // One pixel per weight in one putImageData: the ink at opacity w (what fillRect at globalAlpha w
  // paints on a clear canvas), instead of n² fillRect calls (16 384 per 128-token map).
  const rgb = parseRgb(ink);
  if (rgb && typeof ImageData === 'function') {
    const image = new ImageData(map.n, map.n);
    const pixels = image.data;
    for (let i = 0; i < map.n * map.n; i++) {
      const w = map.data[i];
      if (!(w > 0)) continue;
      pixels[i * 4] = rgb[0];
      pixels[i * 4 + 1] = rgb[1];
      pixels[i * 4 + 2] = rgb[2];
      pixels[i * 4 + 3] = Math.round(Math.min(1, w) * 255);
    }
    context.putImageData(image, 0, 0);
    return;
  }
  context.clearRect(0, 0, map.n, map.n);
  context.fillStyle = ink;
  for (let r = 0; r < map.n; r++) {
    for (let c = 0; c < map.n; c++) {
      const w = map.data[r * map.n + c];
      if (!(w > 0)) continue;
      context.globalAlpha = Math.min(1, w);
      context.fillRect(c, r, 1, 1);
    }
  }
  context.globalAlpha = 1;
}

/** "rgb(8, 48, 107)" / "rgba(…)" as [r, g, b]; null for any other colour syntax (then fillRect paints). */
function parseRgb(colour: string): [number, number, number] | null {
  const match = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)\s*(?:[,/]\s*([\d.]+%?)\s*)?\)$/.exec(colour.trim());
  if (!match) return null;
  if (match[4] !== undefined && match[4] !== '1' && match[4] !== '100%') return null; // a translucent ink: let the canvas blend it
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Small multiples of attention maps as SVG: each weight a square in the sequential scale's 1, at opacity w. */
function headGridSvg(title: string, maps: readonly HeadMap[], palette: Palette): SvgFile {
  const pad = 12;
  const columns = Math.min(4, Math.max(1, maps.length));
  const size = 150;
  const gap = 16;
  const captionH = 18;
  const rows = Math.ceil(maps.length / columns);
  const titleLines = wrap(title, columns * (size + gap), 13);
  const top = pad + titleLines.length * 18 + 6;
  const width = pad * 2 + columns * size + (columns - 1) * gap;
  const height = top + rows * (size + captionH + gap) + pad - gap;
  const parts = [
    svgOpening(width, height, title, palette),
    `<rect width="${width}" height="${height}" fill="${hex(palette.surface)}"/>`,
    ...titleLines.map(
      (line, i) => `<text x="${pad}" y="${pad + 13 + i * 18}" font-size="13" fill="${hex(palette.muted)}">${esc(line)}</text>`,
    ),
  ];
  maps.forEach((map, k) => {
    const x0 = pad + (k % columns) * (size + gap);
    const y0 = top + Math.floor(k / columns) * (size + captionH + gap);
    const cell = size / Math.max(1, map.n);
    parts.push(`<rect x="${x0}" y="${y0}" width="${size}" height="${size}" fill="${hex(palette.seq0)}" stroke="${hex(palette.rule)}"/>`);
    for (let r = 0; r < map.n; r++) {
      for (let c = 0; c < map.n; c++) {
        const w = map.data[r * map.n + c];
        if (!(w > 0)) continue;
        parts.push(
          `<rect x="${(x0 + c * cell).toFixed(2)}" y="${(y0 + r * cell).toFixed(2)}" width="${cell.toFixed(2)}" height="${cell.toFixed(2)}" fill="${hex(palette.seq1)}" fill-opacity="${Math.min(1, w).toFixed(3)}"/>`,
        );
      }
    }
    parts.push(`<text x="${x0}" y="${y0 + size + 14}" font-size="12" fill="${hex(palette.ink)}">${esc(map.caption)}</text>`);
  });
  parts.push('</svg>');
  return { svg: parts.join(''), width, height };
}
