// Small multiples: one attention map per head, side by side, as sequential heatmaps. Each map is
// a canvas (one pixel per weight, scaled up crisply by CSS), so 16 maps of 128 × 128 stay cheap;
// each is inside a button that picks that head for the single-head figures, and the button's
// name describes the map in words. The step puts the numbers in a table next to the grid.
//
// Colours come from the theme: the canvas's CSS background is the scale's 0 and its CSS `color`
// is the scale's 1; a weight w is painted in that colour at opacity w. A theme change repaints.
import { el, replaceChildren, setText } from './dom';

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

  constructor(private readonly onPick: (index: number) => void, label: string) {
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
