// Taking the numbers home: a matrix as CSV or as a NumPy array literal (float32 values written out in
// full), any figure as an SVG file that stands alone and as a PNG, the clipboard with a select-the-text
// fallback, and downloads through <a download> with a blob: URL. Also the small toolbar that offers
// these under every table and chart.
//
// Colours are the page's: heatmap cells are mixed in JS exactly as figures.css mixes them (color-mix in
// oklab), from the theme's custom properties resolved with getComputedStyle, so the file looks like the
// page in the reader's theme. Nothing here writes an inline style attribute: SVG files use presentation
// attributes, and the one probe element that resolves a custom property is styled through the CSSOM.
import { el, setText } from './dom';
import type { ColourScale } from './palette';

// ---------------------------------------------------------------------------------------------------
// Numbers as text

/** Shortest decimal text that reads back as the same float32 (at most 9 significant digits). */
export function f32(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  const target = Math.fround(value);
  if (target === 0) return '0.0';
  for (let digits = 1; digits <= 9; digits++) {
    const text = target.toPrecision(digits);
    if (Math.fround(Number(text)) === target) return normalise(text);
  }
  return normalise(target.toPrecision(9));
}

/** "1.50" -> "1.5", "2" -> "2.0", "1.2e-7" stays: every number reads as a float in Python. */
function normalise(text: string): string {
  const [mantissa, exponent] = text.toLowerCase().split('e');
  let m = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '.0') : `${mantissa}.0`;
  if (m === '-0.0') m = '0.0';
  if (exponent === undefined) return m;
  return `${m}e${Number(exponent) < 0 ? '-' : '+'}${String(Math.abs(Number(exponent))).padStart(2, '0')}`;
}

/** A NumPy literal of one float: -np.inf for a blocked score. */
function pyNumber(value: number): string {
  if (value === -Infinity) return '-np.inf';
  if (value === Infinity) return 'np.inf';
  if (Number.isNaN(value)) return 'np.nan';
  return f32(value);
}

/** What a table export needs: the shown matrix, its labels, and each cell's shown text and colour. */
export interface TableData {
  caption: string;
  corner: string;
  rows: number;
  cols: number;
  rowLabels: string[];
  colLabels: string[];
  /** Row-major numbers; −Infinity where a blocked score shows −∞. */
  values: number[];
  /** Row-major text as shown in the cells. */
  texts: string[];
  blocked: boolean[];
  /** Row-major colour positions (figures/palette.ts colourPosition). */
  positions: number[];
  scale: ColourScale;
  showNumbers: boolean;
  totals?: { label: string; texts: string[] };
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Header row of column labels, then one row per matrix row with its label first. */
export function tableCsv(t: TableData): string {
  const lines = [[t.corner, ...t.colLabels].map(csvField).join(',')];
  for (let r = 0; r < t.rows; r++) {
    const cells = Array.from({ length: t.cols }, (_, c) => f32(t.values[r * t.cols + c]));
    lines.push([csvField(t.rowLabels[r] ?? String(r + 1)), ...cells].join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** A comment naming the matrix and its rows and columns, then np.array([...]). */
export function tableNumpy(t: TableData): string {
  const comment = (text: string) => `# ${text.replace(/[\r\n]+/g, ' ')}`;
  const rows = Array.from({ length: t.rows }, (_, r) =>
    `    [${Array.from({ length: t.cols }, (_, c) => pyNumber(t.values[r * t.cols + c])).join(', ')}],`);
  return [
    comment(t.caption),
    comment(`rows: ${t.rowLabels.join(', ')}`),
    comment(`columns: ${t.colLabels.join(', ')}`),
    'np.array([',
    ...rows,
    '])',
  ].join('\n') + '\n';
}

/** A file name from a caption: "weights = softmax(…), head 1" -> "weights-softmax-head-1". */
export function fileStem(caption: string): string {
  const stem = caption.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '').toLowerCase();
  return (stem.slice(0, 60).replace(/-+$/, '') || 'figure');
}

// ---------------------------------------------------------------------------------------------------
// Colours

type RGB = [number, number, number];

export interface Palette {
  pos: RGB; neg: RGB; mid: RGB; seq0: RGB; seq1: RGB;
  ink: RGB; muted: RGB; surface: RGB; surface2: RGB; rule: RGB;
  /** --cap of a heatmap with numbers and of a colour-only one (figures.css). */
  cap: number;
  capColourOnly: number;
  font: string;
  mono: string;
}

/** The light theme's values (tokens.css), used where styles cannot be read (a test DOM). */
const LIGHT: Palette = {
  pos: [0xb3, 0x58, 0x06], neg: [0x54, 0x27, 0x88], mid: [0xf7, 0xf7, 0xf7], seq0: [0xf7, 0xfb, 0xff], seq1: [0x08, 0x30, 0x6b],
  ink: [0x1d, 0x1d, 0x1f], muted: [0x55, 0x56, 0x5a], surface: [0xff, 0xff, 0xff], surface2: [0xf3, 0xf1, 0xec], rule: [0xd9, 0xd5, 0xcc],
  cap: 0.55, capColourOnly: 1,
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif',
  mono: 'ui-monospace, Menlo, Consolas, "Liberation Mono", monospace',
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
  return `#${[r, g, b].map((v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0')).join('')}`;
}

/** The theme's colours where `from` sits (inside a shadow root: that element's :host variables). */
export function readPalette(from: Element): Palette {
  if (typeof getComputedStyle !== 'function' || !from.isConnected) return LIGHT;
  const probe = el('span', { 'aria-hidden': 'true', class: 'export-probe' });
  from.appendChild(probe);
  const read = (name: string, fallback: RGB): RGB => {
    probe.style.setProperty('color', `var(${name})`);
    return parseColour(getComputedStyle(probe).color) ?? fallback;
  };
  try {
    const family = (name: string, fallback: string) => {
      probe.style.setProperty('font-family', `var(${name})`);
      return getComputedStyle(probe).fontFamily || fallback;
    };
    const palette: Palette = {
      pos: read('--abh-pos', LIGHT.pos), neg: read('--abh-neg', LIGHT.neg), mid: read('--abh-mid', LIGHT.mid),
      seq0: read('--abh-seq-0', LIGHT.seq0), seq1: read('--abh-seq-1', LIGHT.seq1),
      ink: read('--abh-ink', LIGHT.ink), muted: read('--abh-ink-muted', LIGHT.muted),
      surface: read('--abh-surface', LIGHT.surface), surface2: read('--abh-surface-2', LIGHT.surface2), rule: read('--abh-rule', LIGHT.rule),
      cap: LIGHT.cap, capColourOnly: LIGHT.capColourOnly,
      font: family('--abh-font', LIGHT.font), mono: family('--abh-mono', LIGHT.mono),
    };
    const cap = Number.parseFloat(getComputedStyle(from.closest('.matrix-figure')?.querySelector('table.matrix:not(.no-numbers)') ?? from).getPropertyValue('--cap'));
    if (Number.isFinite(cap) && cap > 0 && cap <= 1) palette.cap = cap;
    return palette;
  } finally {
    probe.remove();
  }
}

// sRGB <-> OKLab, as CSS Color 4 defines them (color-mix(in oklab, …)).
const toLinear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const fromLinear = (c: number) => 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);

function toOklab([r, g, b]: RGB): RGB {
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

/** A heatmap cell's background, mixed as figures.css does for table.matrix td. */
export function cellRgb(position: number, scale: ColourScale, palette: Palette, cap: number): RGB {
  if (scale === 'sequential') return mixOklab(palette.seq1, Math.max(0, position) * cap, palette.seq0);
  if (scale === 'none') return palette.mid;
  const inner = mixOklab(palette.neg, Math.max(0, -position) * cap, palette.mid);
  return mixOklab(palette.pos, Math.max(0, position) * cap, inner);
}

export function cellColour(position: number, scale: ColourScale, palette: Palette, cap: number): string {
  return hex(cellRgb(position, scale, palette, cap));
}

// ---------------------------------------------------------------------------------------------------
// SVG files

export interface SvgFile {
  svg: string;
  width: number;
  height: number;
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Rough text width for layout: the file's fonts are the reader's, so this leaves room to spare. */
const textWidth = (text: string, size: number) => [...text].length * size * 0.62;

function wrap(text: string, width: number, size: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** The table drawn as SVG: caption, column and row labels, coloured cells with their numbers, row totals. */
export function tableSvg(t: TableData, palette: Palette = LIGHT): SvgFile {
  const numbers = t.showNumbers;
  const cap = numbers ? palette.cap : palette.capColourOnly;
  const pad = 12;
  const gap = numbers ? 2 : 1;
  const labelSize = numbers ? 11 : 8;
  const cellTexts = numbers ? t.texts : [];
  const widest = Math.max(0, ...cellTexts.map((s) => textWidth(s, 12)), ...(numbers ? t.colLabels.map((s) => textWidth(s, labelSize)) : []));
  const cellW = numbers ? Math.max(44, Math.ceil(widest + 12)) : 9;
  const cellH = numbers ? 24 : 9;
  const showColLabels = numbers || t.cols <= 32;
  const rowLabelW = Math.ceil(Math.max(textWidth(t.corner, labelSize), ...t.rowLabels.map((s) => textWidth(s, labelSize)))) + 10;
  const totalsW = t.totals ? Math.max(56, Math.ceil(Math.max(textWidth(t.totals.label, 11), ...t.totals.texts.map((s) => textWidth(s, 12))) + 12)) : 0;
  const gridW = t.cols * (cellW + gap);
  const innerW = rowLabelW + gridW + (t.totals ? totalsW + 8 : 0);
  const captionLines = wrap(t.caption, Math.max(innerW, 320), 13);
  const top = pad + captionLines.length * 18 + 6;
  const headH = showColLabels ? (numbers ? 20 : 12) : 4;
  const width = Math.ceil(pad * 2 + Math.max(innerW, ...captionLines.map((l) => textWidth(l, 13))));
  const height = Math.ceil(top + headH + t.rows * (cellH + gap) + pad);
  const ink = hex(palette.ink);
  const muted = hex(palette.muted);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${esc(palette.font)}">`);
  parts.push(`<title>${esc(t.caption)}</title>`);
  parts.push('<defs><pattern id="blocked" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
    `<rect width="6" height="6" fill="${hex(palette.surface2)}"/><rect width="3" height="6" fill="${muted}" fill-opacity="0.18"/></pattern></defs>`);
  parts.push(`<rect width="${width}" height="${height}" fill="${hex(palette.surface)}"/>`);
  captionLines.forEach((line, i) => parts.push(`<text x="${pad}" y="${pad + 13 + i * 18}" font-size="13" fill="${muted}">${esc(line)}</text>`));
  const x0 = pad + rowLabelW;
  const y0 = top + headH;
  parts.push(`<text x="${x0 - 6}" y="${y0 - 6}" font-size="${labelSize - 1}" fill="${muted}" text-anchor="end">${esc(t.corner)}</text>`);
  if (showColLabels) {
    t.colLabels.forEach((label, c) => parts.push(`<text x="${x0 + c * (cellW + gap) + cellW / 2}" y="${y0 - 6}" font-size="${labelSize}" font-weight="600" fill="${muted}" text-anchor="middle">${esc(label)}</text>`));
  }
  if (t.totals) parts.push(`<text x="${x0 + gridW + 8 + totalsW / 2}" y="${y0 - 6}" font-size="11" font-weight="600" fill="${muted}" text-anchor="middle">${esc(t.totals.label)}</text>`);
  for (let r = 0; r < t.rows; r++) {
    const y = y0 + r * (cellH + gap);
    parts.push(`<text x="${x0 - 6}" y="${y + cellH / 2 + labelSize * 0.35}" font-size="${labelSize}" font-weight="600" fill="${muted}" text-anchor="end">${esc(t.rowLabels[r] ?? String(r + 1))}</text>`);
    for (let c = 0; c < t.cols; c++) {
      const i = r * t.cols + c;
      const x = x0 + c * (cellW + gap);
      const fill = t.blocked[i] ? 'url(#blocked)' : cellColour(t.positions[i], t.scale, palette, cap);
      parts.push(`<rect x="${x}" y="${y}" width="${cellW}" height="${cellH}" rx="${numbers ? 3 : 1}" fill="${fill}"/>`);
      if (numbers) parts.push(`<text x="${x + cellW - 5}" y="${y + 16}" font-family="${esc(palette.mono)}" font-size="12" fill="${t.blocked[i] ? muted : ink}" text-anchor="end">${esc(t.texts[i])}</text>`);
    }
    if (t.totals) parts.push(`<text x="${x0 + gridW + 8 + totalsW - 5}" y="${y + 16}" font-family="${esc(palette.mono)}" font-size="12" font-weight="600" fill="${ink}" text-anchor="end">${esc(t.totals.texts[r] ?? '')}</text>`);
  }
  parts.push('</svg>');
  return { svg: parts.join(''), width, height };
}

const STYLE_ATTRIBUTES = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'stroke-linejoin', 'opacity', 'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline'] as const;
const COLOUR_ATTRIBUTES = new Set(['fill', 'stroke']);

/**
 * An SVG chart of the page as a file that stands alone: every element's computed style written as
 * presentation attributes (colours as hex), a background in the theme's surface colour, explicit size.
 */
export function serializeSvg(source: SVGSVGElement, palette: Palette = LIGHT): SvgFile {
  const clone = source.cloneNode(true) as SVGSVGElement;
  const originals = [source, ...source.querySelectorAll('*')];
  const copies = [clone, ...clone.querySelectorAll('*')];
  const computed = typeof getComputedStyle === 'function' && source.isConnected;
  originals.forEach((node, i) => {
    const copy = copies[i];
    if (!copy) return;
    if (computed) {
      const style = getComputedStyle(node);
      if (style.display === 'none') {
        copy.setAttribute('display', 'none');
        return;
      }
      for (const name of STYLE_ATTRIBUTES) {
        let value = style.getPropertyValue(name).trim();
        if (!value || value === 'normal' && name !== 'font-weight') continue;
        if (COLOUR_ATTRIBUTES.has(name) && value !== 'none' && !value.startsWith('url(')) {
          const rgb = parseColour(value);
          if (rgb) value = hex(rgb);
        }
        if (name === 'stroke-dasharray' && value === 'none') continue;
        copy.setAttribute(name, value);
      }
    }
    copy.removeAttribute('class');
  });
  const box = source.viewBox?.baseVal;
  const width = Math.round(box && box.width > 0 ? box.width : Number(source.getAttribute('width')) || 600);
  const height = Math.round(box && box.height > 0 ? box.height : Number(source.getAttribute('height')) || 400);
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  if (!clone.getAttribute('viewBox')) clone.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const background = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  background.setAttribute('width', '100%');
  background.setAttribute('height', '100%');
  background.setAttribute('fill', hex(palette.surface));
  clone.insertBefore(background, clone.firstChild);
  return { svg: new XMLSerializer().serializeToString(clone), width, height };
}

/** The PNG of an SVG file, drawn at `scale` × its size through an <img> and a <canvas>. */
export function rasterize(file: SvgFile, scale = 2): Promise<Blob> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(new Blob([file.svg], { type: 'image/svg+xml' }));
    const image = new Image();
    image.onload = () => {
      URL.revokeObjectURL(url);
      try {
        const canvas = document.createElement('canvas');
        canvas.width = Math.max(1, Math.round(file.width * scale));
        canvas.height = Math.max(1, Math.round(file.height * scale));
        const context = canvas.getContext('2d');
        if (!context) throw new Error('this browser has no 2D canvas');
        context.scale(scale, scale);
        context.drawImage(image, 0, 0, file.width, file.height);
        canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the canvas could not be turned into a PNG'))), 'image/png');
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    image.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error('this page’s Content-Security-Policy does not let images load from blob: URLs (img-src), which drawing the PNG needs; save the SVG instead'));
    };
    image.src = url;
  });
}

/** Starts a download of the blob; false when the browser refused. */
export function download(blob: Blob, name: string, host: Element | ShadowRoot | null = null): boolean {
  let url = '';
  try {
    url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: name, hidden: true });
    (host ?? document.body).appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 30_000);
    return true;
  } catch {
    if (url) URL.revokeObjectURL(url);
    return false;
  }
}

/** The clipboard, then the old execCommand route; false when neither worked. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (typeof navigator !== 'undefined' && navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Blocked (an iframe without clipboard-write, no focus, no permission): try the old way.
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------
// The toolbar

export interface ExportSource {
  /** What the files and copies are of, for labels and file names. */
  label: () => string;
  csv?: () => string;
  numpy?: () => string;
  svg?: () => SvgFile;
}

let uid = 0;

/**
 * "Copy or save" under a figure: a button that opens Copy CSV, Copy NumPy, Save PNG, Save SVG. Status in
 * a polite live region; when the clipboard is blocked, the text appears selected in a box to copy by hand.
 */
export function exportToolbar(source: ExportSource): HTMLElement {
  const id = `export-${++uid}`;
  const menu = el('div', { class: 'export-menu', id: `${id}-menu`, role: 'group', hidden: true });
  const toggle = el('button', { type: 'button', class: 'export-toggle', 'aria-expanded': 'false', 'aria-controls': `${id}-menu` }, 'Copy or save');
  const status = el('p', { class: 'export-status', role: 'status' });
  const element = el('div', { class: 'export-tools' }, toggle, menu, status);
  // Made on the first blocked copy: Chromium's autofill walks every text field on the page after each
  // settings change (forcing a style and layout pass per field), and the page has one toolbar per figure.
  let fallback: HTMLTextAreaElement | null = null;

  const say = (text: string) => {
    setText(status, text);
  };
  const copy = async (what: string, text: string) => {
    if (fallback) fallback.hidden = true;
    if (await copyText(text)) {
      say(`Copied ${what} of ${source.label()}.`);
      return;
    }
    fallback ??= element.appendChild(el('textarea', { class: 'export-fallback', readonly: true, rows: 6, spellcheck: 'false' }));
    fallback.value = text;
    fallback.setAttribute('aria-label', `${what} of ${source.label()}`);
    fallback.hidden = false;
    fallback.focus();
    fallback.select();
    say('The clipboard is blocked here, so the text is selected in the box below: press Ctrl+C (⌘C on a Mac) to copy it.');
  };
  const save = async (kind: 'png' | 'svg') => {
    if (!source.svg) return;
    const name = `${fileStem(source.label())}.${kind}`;
    const host = element.getRootNode() as ShadowRoot | Document;
    const parent = host instanceof Document ? null : host;
    try {
      const file = source.svg();
      const blob = kind === 'svg' ? new Blob([file.svg], { type: 'image/svg+xml' }) : await rasterize(file);
      say(download(blob, name, parent)
        ? `Saved ${name} (look in your downloads; if nothing arrived, this page does not allow downloads).`
        : `The browser refused to save ${name}: this page does not allow downloads.`);
    } catch (error) {
      say(`Could not save ${name}: ${error instanceof Error ? error.message : String(error)}.`);
    }
  };
  const button = (text: string, run: () => void) => {
    const b = el('button', { type: 'button', class: 'export-action' }, text);
    b.addEventListener('click', run);
    return b;
  };
  if (source.csv) menu.append(button('Copy CSV', () => void copy('CSV', source.csv!())));
  if (source.numpy) menu.append(button('Copy NumPy', () => void copy('a NumPy array', source.numpy!())));
  if (source.svg) menu.append(button('Save PNG', () => void save('png')), button('Save SVG', () => void save('svg')));

  const setOpen = (open: boolean) => {
    menu.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    if (open) menu.setAttribute('aria-label', `Copy or save ${source.label()}`);
  };
  toggle.addEventListener('click', () => setOpen(menu.hidden));
  element.addEventListener('keydown', (event) => {
    // Arrow keys stay here (a figure around the table may use them to step).
    if (event.key.startsWith('Arrow')) event.stopPropagation();
    if (event.key === 'Escape' && !menu.hidden) {
      setOpen(false);
      toggle.focus();
      event.stopPropagation();
    }
  });
  return element;
}

/** "Copy or save" for an SVG chart of the page: Save PNG and Save SVG of the chart as drawn. */
export function chartTools(chart: () => SVGSVGElement | null, label: () => string): HTMLElement {
  const tools = exportToolbar({
    label,
    svg: () => {
      const source = chart();
      if (!source) throw new Error('the chart is not drawn yet');
      return serializeSvg(source, readPalette(source.parentElement ?? source));
    },
  });
  return el('div', { class: 'chart-tools' }, tools);
}

/**
 * A bar chart of the page (figures/bars.ts: a table whose middle column is a bar) drawn as SVG, read
 * from the table itself: caption, each row's label, its bar length (--w) and value text.
 */
export function barChartSvg(table: HTMLTableElement, palette: Palette = LIGHT): SvgFile {
  const caption = table.querySelector('caption')?.textContent ?? '';
  const rows = [...table.querySelectorAll('tbody tr')].map((tr) => ({
    label: tr.querySelector('th')?.textContent ?? '',
    value: tr.querySelector('.bar-value')?.textContent ?? '',
    fraction: Math.max(0, Math.min(1, Number.parseFloat((tr.querySelector('.bar-fill') as HTMLElement | null)?.style.getPropertyValue('--w') ?? '0') || 0)),
    strong: tr.classList.contains('emphasis'),
    muted: tr.classList.contains('muted'),
    bar: !tr.classList.contains('no-bar'),
  }));
  const pad = 12;
  const labelW = Math.ceil(Math.max(40, ...rows.map((r) => textWidth(r.label, 12)))) + 10;
  const valueW = Math.ceil(Math.max(40, ...rows.map((r) => textWidth(r.value, 12)))) + 10;
  const barW = 320;
  const width = pad * 2 + labelW + barW + valueW;
  const captionLines = caption ? wrap(caption, width - 2 * pad, 13) : [];
  const top = pad + captionLines.length * 18 + (captionLines.length ? 6 : 0);
  const rowH = 22;
  const height = top + rows.length * rowH + pad;
  const ink = hex(palette.ink);
  const muted = hex(palette.muted);
  const accent = hex(mixOklab(palette.seq1, 0.75, palette.surface2));
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${esc(palette.font)}">`,
    `<title>${esc(caption)}</title>`,
    `<rect width="${width}" height="${height}" fill="${hex(palette.surface)}"/>`,
    ...captionLines.map((line, i) => `<text x="${pad}" y="${pad + 13 + i * 18}" font-size="13" fill="${muted}">${esc(line)}</text>`),
  ];
  rows.forEach((row, i) => {
    const y = top + i * rowH;
    const weight = row.strong ? ' font-weight="700"' : '';
    parts.push(`<text x="${pad + labelW - 8}" y="${y + 15}" font-size="12" fill="${row.muted ? muted : ink}" text-anchor="end"${weight}>${esc(row.label)}</text>`);
    if (row.bar) {
      parts.push(`<rect x="${pad + labelW}" y="${y + 4}" width="${barW}" height="14" rx="3" fill="${hex(palette.surface2)}"/>`);
      parts.push(`<rect x="${pad + labelW}" y="${y + 4}" width="${(barW * row.fraction).toFixed(1)}" height="14" rx="3" fill="${row.muted ? hex(palette.rule) : row.strong ? hex(palette.seq1) : accent}"/>`);
    }
    parts.push(`<text x="${width - pad}" y="${y + 15}" font-family="${esc(palette.mono)}" font-size="12" fill="${row.muted ? muted : ink}" text-anchor="end"${weight}>${esc(row.value)}</text>`);
  });
  parts.push('</svg>');
  return { svg: parts.join(''), width, height };
}

export interface HeadMapData {
  /** Row-major (n, n) weights in [0, 1]. */
  data: ArrayLike<number>;
  n: number;
  caption: string;
}

/** Small multiples of attention maps (figures/head-grid.ts) as SVG: each weight a square in the sequential scale. */
export function headGridSvg(title: string, maps: HeadMapData[], palette: Palette = LIGHT): SvgFile {
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
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${esc(palette.font)}">`,
    `<title>${esc(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="${hex(palette.surface)}"/>`,
    ...titleLines.map((line, i) => `<text x="${pad}" y="${pad + 13 + i * 18}" font-size="13" fill="${hex(palette.muted)}">${esc(line)}</text>`),
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
        parts.push(`<rect x="${(x0 + c * cell).toFixed(2)}" y="${(y0 + r * cell).toFixed(2)}" width="${cell.toFixed(2)}" height="${cell.toFixed(2)}" fill="${hex(palette.seq1)}" fill-opacity="${Math.min(1, w).toFixed(3)}"/>`);
      }
    }
    parts.push(`<text x="${x0}" y="${y0 + size + 14}" font-size="12" fill="${hex(palette.ink)}">${esc(map.caption)}</text>`);
  });
  parts.push('</svg>');
  return { svg: parts.join(''), width, height };
}

/** "Copy or save" (Save PNG, Save SVG) for a figure the page draws without SVG: the builder makes the file. */
export function figureTools(anchor: () => Element, label: () => string, build: (palette: Palette) => SvgFile): HTMLElement {
  return el('div', { class: 'chart-tools' }, exportToolbar({ label, svg: () => build(readPalette(anchor())) }));
}
