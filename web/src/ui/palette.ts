// Colour positions for heatmaps. Cells get a number in [-1, 1] (diverging) or [0, 1] (sequential)
// as the CSS custom property --t; the stylesheet mixes the theme's colours with color-mix(), so
// light and dark themes share the code. Table cells carry the position in steps (colourStep, as
// data-t) and the stylesheet turns each step into --t. Both scales are colour-blind safe: sequential is one hue
// (blue), diverging is purple <-> orange (ColorBrewer PuOr), which survives all common forms of
// colour blindness, and the numbers are always there as text.
//
// Nothing here writes an inline style attribute: the probe spans that resolve custom properties
// (readPalette) are styled through the CSSOM, which a strict CSP allows.
import { el } from './dom';

export type ColourScale = 'diverging' | 'sequential' | 'none';

/** Position of value on the scale, clamped; `extent` is the largest magnitude shown. */
export function colourPosition(value: number, scale: ColourScale, extent: number): number {
  if (!Number.isFinite(value) || scale === 'none') return 0;
  const t = value / fullColourAt(extent);
  return scale === 'diverging' ? Math.max(-1, Math.min(1, t)) : Math.max(0, Math.min(1, t));
}

/** The value the strongest colour stands for: the largest magnitude shown, or 1 when all are 0 (or none is finite). */
function fullColourAt(extent: number): number {
  return extent > 0 && Number.isFinite(extent) ? extent : 1;
}

/** What a heatmap's colours stand for, as its legend labels them. */
export interface ColourSpan {
  scale: 'diverging' | 'sequential';
  /** The values at the scale's two ends: −max and +max (diverging) or 0 and max (sequential). */
  min: number;
  max: number;
  /** The values a legend writes under its bar, low to high: −max, 0, +max or 0, max. */
  ticks: number[];
}

/** The span of a table whose cells are coloured by colourPosition(value, scale, extent); null without colours. */
export function colourSpan(scale: ColourScale, extent: number): ColourSpan | null {
  if (scale === 'none') return null;
  const max = fullColourAt(extent);
  return scale === 'diverging' ? { scale, min: -max, max, ticks: [-max, 0, max] } : { scale, min: 0, max, ticks: [0, max] };
}

/** The hue names of the scales (tokens.css), for legends and sentences that name a colour. */
export const HUES = { negative: 'purple', positive: 'orange', sequential: 'blue' } as const;

/**
 * Steps per unit of colour position in a table cell's data-t (matrix-table/matrix-table.css has one rule per step).
 * Cells on the same step share one computed style; a per-cell inline --t made every changed cell a
 * full style recalculation (about 50 µs a cell on the benchmark machine). 5% steps of a colour
 * that is capped at 55% behind numbers cannot be told apart.
 */
export const COLOUR_STEPS = 20;

/** A colour position as the whole step a table cell shows, −COLOUR_STEPS to COLOUR_STEPS. */
export function colourStep(position: number): number {
  return Math.round(position * COLOUR_STEPS);
}

// ---------------------------------------------------------------------------------------------------
// The colour model: what those positions look like in the reader's theme. The live pictures
// (matrix-picture.ts, head-grid.ts), every table's legend (colour-legend.ts, through colourSpan and
// colourStops) and the exported files (export-svg.ts, bars.ts, head-grid.ts) mix heatmap colours
// here exactly as matrix-table/matrix-table.css mixes them (color-mix in oklab) from the theme's custom properties, so a
// canvas or a saved file looks like the table on the page.

export type RGB = [number, number, number];

export interface Palette {
  pos: RGB;
  neg: RGB;
  mid: RGB;
  seq0: RGB;
  seq1: RGB;
  ink: RGB;
  muted: RGB;
  surface: RGB;
  surface2: RGB;
  rule: RGB;
  /** --cap of a heatmap with numbers and of a colour-only one (matrix-table/matrix-table.css). */
  cap: number;
  capColourOnly: number;
  font: string;
  mono: string;
}

/** The light theme's values (tokens.css), used where styles cannot be read (a test DOM). */
export const LIGHT_PALETTE: Palette = {
  pos: [0xb3, 0x58, 0x06],
  neg: [0x54, 0x27, 0x88],
  mid: [0xf7, 0xf7, 0xf7],
  seq0: [0xf7, 0xfb, 0xff],
  seq1: [0x08, 0x30, 0x6b],
  ink: [0x1d, 0x1d, 0x1f],
  muted: [0x55, 0x56, 0x5a],
  surface: [0xff, 0xff, 0xff],
  surface2: [0xf3, 0xf1, 0xec],
  rule: [0xd9, 0xd5, 0xcc],
  cap: 0.55,
  capColourOnly: 1,
  font: 'system-ui, sans-serif',
  mono: 'ui-monospace, monospace',
};

/** "rgb(1, 2, 3)", "rgba(…)", "#abc", "#aabbcc", "color(srgb 0.1 0.2 0.3)" -> [r, g, b] (0–255). */
export function parseColour(text: string): RGB | null {
  const value = text.trim().toLowerCase();
  let m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/.exec(value);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])].map((v) => Math.round(v)) as RGB;
  m = /^color\(srgb\s+([-\d.e]+)\s+([-\d.e]+)\s+([-\d.e]+)/.exec(value);
  if (m) return [m[1], m[2], m[3]].map((v) => Math.round(Math.max(0, Math.min(1, Number(v))) * 255)) as RGB;
  m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(value);
  if (m) {
    const hex = m[1].length === 3 ? [...m[1]].map((ch) => ch + ch).join('') : m[1];
    return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as RGB;
  }
  return canvasColour(value);
}

/** Any other CSS colour (oklab(), lab(), named), through a 1 × 1 canvas; null without canvas. */
function canvasColour(value: string): RGB | null {
  if (typeof document === 'undefined') return null;
  try {
    const context = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    if (!context) return null;
    context.fillStyle = '#010203';
    context.fillStyle = value;
    if (context.fillStyle === '#010203' && value !== '#010203') return null;
    context.fillRect(0, 0, 1, 1);
    const [r, g, b] = context.getImageData(0, 0, 1, 1).data;
    return [r, g, b];
  } catch {
    return null;
  }
}

export function hex([r, g, b]: RGB): string {
  return `#${[r, g, b]
    .map((v) =>
      Math.max(0, Math.min(255, Math.round(v)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

const COLOURS = {
  pos: '--abh-pos',
  neg: '--abh-neg',
  mid: '--abh-mid',
  seq0: '--abh-seq-0',
  seq1: '--abh-seq-1',
  ink: '--abh-ink',
  muted: '--abh-ink-muted',
  surface: '--abh-surface',
  surface2: '--abh-surface-2',
  rule: '--abh-rule',
} as const;
const FONTS = { font: '--abh-font', mono: '--abh-mono' } as const;

/** A table's --cap (matrix-table/matrix-table.css), or `fallback` where it is not a number in (0, 1]. */
function capOf(table: Element, fallback: number): number {
  const cap = Number.parseFloat(getComputedStyle(table).getPropertyValue('--cap'));
  return Number.isFinite(cap) && cap > 0 && cap <= 1 ? cap : fallback;
}

/**
 * The theme's colours, fonts and heatmap caps where `from` sits: one probe span per variable and one
 * probe table per kind of heatmap (with numbers, colour only), all resolved by one style recalculation
 * (setting a property and reading it back one variable at a time recalculated styles twelve times per
 * figure drawn; reading a figure's own table recalculated the styles of its whole section, even off screen).
 */
function readTheme(from: Element): Palette {
  const probe = el('span', { 'aria-hidden': 'true', class: 'export-probe' });
  const span = (property: string, variable: string) => {
    const child = el('span', {});
    child.style.setProperty(property, `var(${variable})`);
    probe.appendChild(child);
    return child;
  };
  const colours = Object.entries(COLOURS).map(([key, variable]) => [key, span('color', variable)] as const);
  const fonts = Object.entries(FONTS).map(([key, variable]) => [key, span('font-family', variable)] as const);
  const numbered = probe.appendChild(el('table', { class: 'matrix' }));
  const colourOnly = probe.appendChild(el('table', { class: 'matrix no-numbers' }));
  from.appendChild(probe);
  try {
    const theme: Palette = { ...LIGHT_PALETTE };
    for (const [key, child] of colours)
      theme[key as keyof typeof COLOURS] = parseColour(getComputedStyle(child).color) ?? theme[key as keyof typeof COLOURS];
    for (const [key, child] of fonts)
      theme[key as keyof typeof FONTS] = getComputedStyle(child).fontFamily || theme[key as keyof typeof FONTS];
    theme.cap = capOf(numbered, LIGHT_PALETTE.cap);
    theme.capColourOnly = capOf(colourOnly, LIGHT_PALETTE.capColourOnly);
    return theme;
  } finally {
    probe.remove();
  }
}

/**
 * The theme read once per root (a shadow root, or the document) and kept until it can have changed:
 * the reader's colour scheme flips, or the host's theme, style or class attribute changes (an author
 * theming an element). Reading it costs a forced style recalculation; every legend, picture and head
 * grid reads it, and one frame can paint dozens of them (on a phone's CPU, a fifth of going live).
 */
interface ThemeEntry {
  key: string;
  /** One object per theme, so that colourStops can memoize on it. */
  palette: Palette;
}

const themes = new WeakMap<Node, ThemeEntry>();
let darkQuery: MediaQueryList | null | undefined;

/** The reader's colour-scheme query, made once: each matchMedia call makes a new list. */
function darkSchemeQuery(): MediaQueryList | null {
  darkQuery ??= typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
  return darkQuery;
}

/** Whether the reader's colour scheme is dark. */
export function prefersDark(): boolean {
  return darkSchemeQuery()?.matches ?? false;
}

/** A figure painted from the theme, which paints again when the reader's colour scheme flips. */
export interface ColourSchemeWatcher {
  colourSchemeChanged(): void;
}

const watchers = new Set<WeakRef<ColourSchemeWatcher>>();
let listening = false;

/**
 * Calls `watcher.colourSchemeChanged()` whenever the reader's colour scheme flips, holding the watcher
 * weakly, with one listener for the whole page: a listener per figure would keep the figure, and the
 * table around it, alive after a step rebuilds it (tests/browser/memory.test.ts).
 */
export function watchColourScheme(watcher: ColourSchemeWatcher): void {
  if (watchers.size >= 256) for (const ref of watchers) if (!ref.deref()) watchers.delete(ref);
  watchers.add(new WeakRef(watcher));
  const query = darkSchemeQuery();
  if (listening || !query) return;
  listening = true;
  query.addEventListener?.('change', () => {
    for (const ref of watchers) {
      const live = ref.deref();
      if (live) live.colourSchemeChanged();
      else watchers.delete(ref);
    }
  });
}

/** What the theme where `root` sits depends on, as one string: equal strings, equal themes. */
function themeKey(root: Node): string {
  const dark = prefersDark();
  const host = 'host' in root ? (root as ShadowRoot).host : 'documentElement' in root ? (root as Document).documentElement : null;
  const attribute = (name: string) => host?.getAttribute(name) ?? '';
  return `${dark}|${attribute('theme')}|${attribute('style')}|${attribute('class')}`;
}

/**
 * The theme's colours where `from` sits (inside a shadow root: that element's :host variables), and
 * the caps of its heatmaps with numbers (`cap`) and colour only (`capColourOnly`).
 */
export function readPalette(from: Element): Palette {
  if (typeof getComputedStyle !== 'function' || !from.isConnected) return LIGHT_PALETTE;
  const root = from.getRootNode();
  const key = themeKey(root);
  let entry = themes.get(root);
  if (!entry || entry.key !== key) {
    entry = { key, palette: readTheme(from) };
    themes.set(root, entry);
  }
  return entry.palette;
}

// sRGB <-> OKLab, as CSS Color 4 defines them (color-mix(in oklab, …)).
const toLinear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const fromLinear = (c: number) => 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);

/** sRGB (0–255) to OKLab [L, a, b]. */
export function toOklab([r, g, b]: RGB): RGB {
  const [lr, lg, lb] = [toLinear(r), toLinear(g), toLinear(b)];
  const l = Math.cbrt(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb);
  const m = Math.cbrt(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb);
  const s = Math.cbrt(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}

function fromOklab([L, A, B]: RGB): RGB {
  const l = (L + 0.3963377774 * A + 0.2158037573 * B) ** 3;
  const m = (L - 0.1055613458 * A - 0.0638541728 * B) ** 3;
  const s = (L - 0.0894841775 * A - 1.291485548 * B) ** 3;
  const rgb = [
    4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
    -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
    -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s,
  ];
  return rgb.map((c) => Math.max(0, Math.min(255, fromLinear(Math.max(0, Math.min(1, c)))))) as RGB;
}

/** color-mix(in oklab, a p, b): p of a, the rest b. */
export function mixOklab(a: RGB, p: number, b: RGB): RGB {
  const [x, y] = [toOklab(a), toOklab(b)];
  const t = Math.max(0, Math.min(1, p));
  return fromOklab([x[0] * t + y[0] * (1 - t), x[1] * t + y[1] * (1 - t), x[2] * t + y[2] * (1 - t)]);
}

/** A heatmap cell's background, mixed as matrix-table/matrix-table.css does for table.matrix td. */
export function cellRgb(position: number, scale: ColourScale, palette: Palette, cap: number): RGB {
  if (scale === 'sequential') return mixOklab(palette.seq1, Math.max(0, position) * cap, palette.seq0);
  if (scale === 'none') return palette.mid;
  const inner = mixOklab(palette.neg, Math.max(0, -position) * cap, palette.mid);
  return mixOklab(palette.pos, Math.max(0, position) * cap, inner);
}

export function cellColour(position: number, scale: ColourScale, palette: Palette, cap: number): string {
  return hex(cellRgb(position, scale, palette, cap));
}

/** A colour along a legend bar: where it sits (0 = the low end, 1 = the high end) and its colour. */
export interface ColourStop {
  offset: number;
  colour: string;
}

/**
 * The stops already mixed, by palette (readPalette hands out one object per theme and cap): a frame that
 * paints many legends of one theme mixes each scale's colours once.
 */
const stopsMade = new WeakMap<Palette, Map<string, readonly ColourStop[]>>();

/**
 * The colours a legend bar shows, low end to high end, mixed by cellColour exactly as the cells are:
 * 9 evenly spaced colour positions (−1 to 1, or 0 to 1), so the gradient's straight sRGB blend between
 * neighbours stays within a step of the cells' oklab mix. `cap` is the table's --cap.
 */
export function colourStops(scale: 'diverging' | 'sequential', palette: Palette, cap: number, count = 9): readonly ColourStop[] {
  let byPalette = stopsMade.get(palette);
  if (!byPalette) stopsMade.set(palette, (byPalette = new Map()));
  const key = `${scale}|${cap}|${count}`;
  let stops = byPalette.get(key);
  if (!stops) {
    stops = Object.freeze(
      Array.from({ length: count }, (_, i) => {
        const offset = i / (count - 1);
        const position = scale === 'diverging' ? offset * 2 - 1 : offset;
        return Object.freeze({ offset, colour: cellColour(position, scale, palette, cap) });
      }),
    );
    byPalette.set(key, stops);
  }
  return stops;
}

/** The stops as a CSS linear-gradient, left to right. */
export function colourGradient(stops: readonly ColourStop[]): string {
  return `linear-gradient(to right, ${stops.map((s) => `${s.colour} ${+(s.offset * 100).toFixed(2)}%`).join(', ')})`;
}

/** WCAG relative luminance of an sRGB colour (0 black to 1 white). */
export function luminance([r, g, b]: RGB): number {
  return 0.2126 * toLinear(r) + 0.7152 * toLinear(g) + 0.0722 * toLinear(b);
}

/** WCAG contrast ratio of two colours, 1 (same) to 21 (black on white). */
export function contrast(a: RGB, b: RGB): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}
