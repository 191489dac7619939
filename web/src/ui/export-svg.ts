// Figures as SVG files that stand alone (and, through a canvas, as PNG): the shared pieces every
// figure's own file is drawn with (ui/bars.ts, head-grid.ts draw theirs from their data), the
// drawing of a table from exactly what it shows, and the file of a chart that is already SVG on the
// page. Colours come from ui/palette.ts; files use presentation attributes, never style=.
import type { TableData } from './export-text';
import { cellColour, hex, LIGHT_PALETTE, parseColour, type Palette } from './palette';

export interface SvgFile {
  svg: string;
  width: number;
  height: number;
}

/** Text escaped for SVG markup (element text and attribute values). */
export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The start of a file's <svg>: its size, the theme's font and its title. */
export function svgOpening(width: number, height: number, title: string, palette: Palette): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${esc(palette.font)}"><title>${esc(title)}</title>`;
}

/** Rough text width for layout: the file's fonts are the reader's, so this leaves room to spare. */
export const textWidth = (text: string, size: number) => [...text].length * size * 0.62;

export function wrap(text: string, width: number, size: number): string[] {
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
export function tableSvg(t: TableData, palette: Palette = LIGHT_PALETTE): SvgFile {
  const numbers = t.showNumbers;
  const cap = numbers ? palette.cap : palette.capColourOnly;
  const pad = 12;
  const gap = numbers ? 2 : 1;
  const labelSize = numbers ? 11 : 8;
  const cellTexts = numbers ? t.texts : [];
  const widest = Math.max(
    0,
    ...cellTexts.map((s) => textWidth(s, 12)),
    ...(numbers ? t.colLabels.map((s) => textWidth(s, labelSize)) : []),
  );
  const cellW = numbers ? Math.max(44, Math.ceil(widest + 12)) : 9;
  const cellH = numbers ? 24 : 9;
  const showColLabels = numbers || t.cols <= 32;
  const rowLabelW = Math.ceil(Math.max(textWidth(t.corner, labelSize), ...t.rowLabels.map((s) => textWidth(s, labelSize)))) + 10;
  const totalsW = t.totals
    ? Math.max(56, Math.ceil(Math.max(textWidth(t.totals.label, 11), ...t.totals.texts.map((s) => textWidth(s, 12))) + 12))
    : 0;
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
  parts.push(svgOpening(width, height, t.caption, palette));
  parts.push(
    '<defs><pattern id="blocked" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
      `<rect width="6" height="6" fill="${hex(palette.surface2)}"/><rect width="3" height="6" fill="${muted}" fill-opacity="0.18"/></pattern></defs>`,
  );
  parts.push(`<rect width="${width}" height="${height}" fill="${hex(palette.surface)}"/>`);
  captionLines.forEach((line, i) =>
    parts.push(`<text x="${pad}" y="${pad + 13 + i * 18}" font-size="13" fill="${muted}">${esc(line)}</text>`),
  );
  const x0 = pad + rowLabelW;
  const y0 = top + headH;
  parts.push(`<text x="${x0 - 6}" y="${y0 - 6}" font-size="${labelSize - 1}" fill="${muted}" text-anchor="end">${esc(t.corner)}</text>`);
  if (showColLabels) {
    t.colLabels.forEach((label, c) =>
      parts.push(
        `<text x="${x0 + c * (cellW + gap) + cellW / 2}" y="${y0 - 6}" font-size="${labelSize}" font-weight="600" fill="${muted}" text-anchor="middle">${esc(label)}</text>`,
      ),
    );
  }
  if (t.totals)
    parts.push(
      `<text x="${x0 + gridW + 8 + totalsW / 2}" y="${y0 - 6}" font-size="11" font-weight="600" fill="${muted}" text-anchor="middle">${esc(t.totals.label)}</text>`,
    );
  for (let r = 0; r < t.rows; r++) {
    const y = y0 + r * (cellH + gap);
    parts.push(
      `<text x="${x0 - 6}" y="${y + cellH / 2 + labelSize * 0.35}" font-size="${labelSize}" font-weight="600" fill="${muted}" text-anchor="end">${esc(t.rowLabels[r] ?? String(r + 1))}</text>`,
    );
    for (let c = 0; c < t.cols; c++) {
      const i = r * t.cols + c;
      const x = x0 + c * (cellW + gap);
      const fill = t.blocked[i] ? 'url(#blocked)' : cellColour(t.positions[i], t.scale, palette, cap);
      parts.push(`<rect x="${x}" y="${y}" width="${cellW}" height="${cellH}" rx="${numbers ? 3 : 1}" fill="${fill}"/>`);
      if (numbers)
        parts.push(
          `<text x="${x + cellW - 5}" y="${y + 16}" font-family="${esc(palette.mono)}" font-size="12" fill="${t.blocked[i] ? muted : ink}" text-anchor="end">${esc(t.texts[i])}</text>`,
        );
    }
    if (t.totals)
      parts.push(
        `<text x="${x0 + gridW + 8 + totalsW - 5}" y="${y + 16}" font-family="${esc(palette.mono)}" font-size="12" font-weight="600" fill="${ink}" text-anchor="end">${esc(t.totals.texts[r] ?? '')}</text>`,
      );
  }
  parts.push('</svg>');
  return { svg: parts.join(''), width, height };
}

const STYLE_ATTRIBUTES = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'stroke-linejoin',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'text-anchor',
  'dominant-baseline',
] as const;
const COLOUR_ATTRIBUTES = new Set(['fill', 'stroke']);

/**
 * An SVG chart of the page as a file that stands alone: every element's computed style written as
 * presentation attributes (colours as hex), a background in the theme's surface colour, explicit size.
 * For the charts drawn as SVG from their data (line-chart.ts, histogram.ts): their colours and dash
 * patterns live in ui/widgets.css, so the file reads them from the drawing instead of keeping a copy.
 */
export function serializeSvg(source: SVGSVGElement, palette: Palette = LIGHT_PALETTE): SvgFile {
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
        if (!value || (value === 'normal' && name !== 'font-weight')) continue;
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
      reject(
        new Error(
          'this page’s Content-Security-Policy does not let images load from blob: URLs (img-src), which drawing the PNG needs; save the SVG instead',
        ),
      );
    };
    image.src = url;
  });
}
