// @vitest-environment happy-dom
// Every heatmap's legend says what its colours stand for: the ticks are the very span the table colours
// its cells by (−max, 0, +max or 0 … max, in the cells' own format), the gradient's stops are the
// palette's cell colours in the light and the dark theme (both read from tokens.css), and the two scales
// stay apart and ordered for colour-blind readers and on the dark page.
import { describe, expect, test } from 'vitest';
import { ColourLegend } from '../../web/src/ui/colour-legend';
import { percent } from '../../web/src/ui/format';
import { MatrixTable } from '../../web/src/ui/matrix-table/matrix-table';
import {
  cellColour,
  cellRgb,
  colourSpan,
  colourStops,
  contrast,
  hex,
  LIGHT_PALETTE,
  luminance,
  mixOklab,
  parseColour,
  toOklab,
  type Palette,
  type RGB,
} from '../../web/src/ui/palette';
import { themePalette, token } from './theme-palettes';
import { mounted, view } from './table-fixtures';

const ticks = (root: Element) => [...root.querySelectorAll('.colour-legend-tick')].map((t) => t.textContent);

/** The gradient's stops as [offset %, colour] (what the bar shows). */
function stopsOf(bar: HTMLElement): [number, string][] {
  const gradient = bar.style.getPropertyValue('--legend-gradient');
  expect(gradient).toMatch(/^linear-gradient\(to right, /);
  return [...gradient.matchAll(/(#[0-9a-f]{6}) ([\d.]+)%/g)].map((m) => [Number(m[2]), m[1]]);
}

describe('a table’s legend: the ticks are the span its cells are coloured by', () => {
  test('diverging: −max, 0, +max of the largest magnitude, in the table’s format, with both hues named', () => {
    const table = new MatrixTable({ caption: 'Q', scale: 'diverging' });
    const root = mounted(table);
    table.update(view([1, -2, 3.5, 0], 2, 2));
    const legend = root.querySelector('.colour-legend')!;
    expect(legend.hasAttribute('hidden')).toBe(false);
    expect(colourSpan('diverging', 3.5)).toEqual({ scale: 'diverging', min: -3.5, max: 3.5, ticks: [-3.5, 0, 3.5] });
    expect(ticks(legend)).toEqual(['−3.50', '0.00', '+3.50']);
    // The strongest cells are the ends of the bar: 3.5 is step +20 (position 1), −2 is −2/3.5 of the way down.
    expect(root.querySelector('td[data-row="1"][data-col="0"]')!.getAttribute('data-t')).toBe('20');
    expect(root.querySelector('td[data-row="0"][data-col="1"]')!.getAttribute('data-t')).toBe(String(Math.round((-2 / 3.5) * 20)));
    expect(legend.textContent).toContain('purple negative, orange positive');
    expect(legend.getAttribute('role')).toBe('img');
    expect(legend.getAttribute('aria-label')).toBe(
      'Colour scale: purple for negative values down to −3.50, neutral at 0.00, orange for positive values up to +3.50.',
    );
    // New numbers, new span; a negative extreme counts as much as a positive one.
    table.update(view([0.25, -4, 1, 2], 2, 2));
    expect(ticks(legend)).toEqual(['−4.00', '0.00', '+4.00']);
    // About eight elements, whatever the table's size: one gradient, not one element per step.
    expect(legend.querySelectorAll('*').length).toBeLessThanOrEqual(8);
  });

  test('sequential weights: 0% to the largest weight, or 0%–100% when the view fixes the extent at 1', () => {
    const table = new MatrixTable({ caption: 'weights', scale: 'sequential', format: (v) => percent(v), legend: 'a larger share' });
    const root = mounted(table);
    table.update(view([0.54, 0.46, 0.3, 0.7], 2, 2));
    const legend = root.querySelector('.colour-legend')!;
    expect(ticks(legend)).toEqual([percent(0), percent(0.7)]);
    expect(ticks(legend)).toEqual(['0%', '70%']);
    expect(legend.textContent).toContain('a stronger blue means a larger share');
    expect(legend.getAttribute('aria-label')).toBe(
      'Colour scale: a stronger blue means a larger share, from 0% (faintest) to 70% (strongest).',
    );
    table.update(view([0.54, 0.46, 0.3, 0.7], 2, 2, { extent: 1 }));
    expect(ticks(legend)).toEqual(['0%', '100%']);
    // Blocked cells do not count toward the span, as they do not toward the colours.
    table.update(view([0.9, 0.1, 0.2, 0.8], 2, 2, { blocked: (r: number, c: number) => r === 0 && c === 0 }));
    expect(ticks(legend)).toEqual(['0%', '80%']);
  });

  test('all zeros: the cells use an extent of 1, and so does the legend; a table without colours has none', () => {
    const table = new MatrixTable({ caption: 'zeros', scale: 'diverging' });
    const root = mounted(table);
    table.update(view([0, 0, 0, 0], 2, 2));
    expect(ticks(root)).toEqual(['−1.00', '0.00', '+1.00']);
    const plain = new MatrixTable({ caption: 'plain', scale: 'none' });
    expect(mounted(plain).querySelector('.colour-legend')).toBeNull();
  });

  test('a colour-only table (no numbers) and a picture take the full-strength cap, as their cells do', () => {
    const table = new MatrixTable({ caption: 'big', scale: 'sequential' });
    const root = mounted(table);
    table.update(view([0, 0.5, 0.25, 1], 2, 2, { showNumbers: false }));
    const legend = (table as unknown as { legend: ColourLegend }).legend;
    legend.paint(LIGHT_PALETTE);
    const stops = stopsOf(root.querySelector('.colour-legend-bar')!);
    expect(stops[stops.length - 1]).toEqual([100, hex(LIGHT_PALETTE.seq1)]); // cap 1: the scale's own 1
    table.update(view([0, 0.5, 0.25, 1], 2, 2));
    legend.paint(LIGHT_PALETTE);
    expect(stopsOf(root.querySelector('.colour-legend-bar')!).at(-1)).toEqual([100, cellColour(1, 'sequential', LIGHT_PALETTE, 0.55)]);
  });
});

describe('the gradient is the palette’s cell colours, in both themes', () => {
  const themes: [string, Palette][] = [
    ['light', themePalette('light')],
    ['dark', themePalette('dark')],
  ];

  test('the light palette the code falls back on is tokens.css’s light theme', () => {
    const light = themePalette('light');
    for (const key of ['pos', 'neg', 'mid', 'seq0', 'seq1', 'ink', 'muted', 'surface', 'surface2', 'rule'] as const)
      expect(LIGHT_PALETTE[key], key).toEqual(light[key]);
  });

  test.each(themes)('%s: diverging stops from the capped purple through the neutral to the capped orange', (_, palette) => {
    const legend = new ColourLegend();
    document.body.replaceChildren(legend.element);
    legend.update(colourSpan('diverging', 2), (v) => v.toFixed(2));
    legend.paint(palette);
    const stops = stopsOf(legend.element.querySelector('.colour-legend-bar')!);
    expect(stops.map(([offset]) => offset)).toEqual([0, 12.5, 25, 37.5, 50, 62.5, 75, 87.5, 100]);
    expect(stops.map(([, colour]) => colour)).toEqual(
      [-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1].map((t) => cellColour(t, 'diverging', palette, palette.cap)),
    );
    expect(stops[0][1]).toBe(hex(mixOklab(palette.neg, palette.cap, palette.mid)));
    expect(stops[4][1]).toBe(hex(palette.mid));
    expect(stops[8][1]).toBe(hex(mixOklab(palette.pos, palette.cap, palette.mid)));
  });

  test.each(themes)('%s: sequential stops from seq-0 to the capped seq-1', (_, palette) => {
    const legend = new ColourLegend();
    document.body.replaceChildren(legend.element);
    legend.update(colourSpan('sequential', 0.5), (v) => percent(v));
    legend.paint(palette);
    const stops = stopsOf(legend.element.querySelector('.colour-legend-bar')!);
    expect(stops.map(([, colour]) => colour)).toEqual(colourStops('sequential', palette, palette.cap).map((s) => s.colour));
    expect(stops[0]).toEqual([0, hex(palette.seq0)]);
    expect(stops[8]).toEqual([100, hex(mixOklab(palette.seq1, palette.cap, palette.seq0))]);
  });

  test('the themes differ where they should: the dark scale runs from dark to light', () => {
    const [light, dark] = [themePalette('light'), themePalette('dark')];
    expect(hex(dark.seq0)).toBe('#23262e');
    expect(luminance(cellRgb(1, 'sequential', light, 1))).toBeLessThan(luminance(light.seq0));
    expect(luminance(cellRgb(1, 'sequential', dark, 1))).toBeGreaterThan(luminance(dark.seq0));
  });
});

// Machado, Oliveira & Fernandes (2009), full severity, on linear sRGB.
const CVD: Record<string, number[][]> = {
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};
const lin = (v: number) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const srgb = (c: number) => 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
function simulate(colour: RGB, m: number[][]): RGB {
  const l = colour.map(lin);
  return m.map((row) => srgb(Math.max(0, Math.min(1, row[0] * l[0] + row[1] * l[1] + row[2] * l[2])))) as RGB;
}
const deltaE = (a: RGB, b: RGB) => Math.hypot(...toOklab(a).map((v, i) => v - toOklab(b)[i]));

describe('colour-blind safe and readable in both themes', () => {
  test.each(['light', 'dark'] as const)('%s: the diverging ends stay apart, and from the neutral, under each colour blindness', (theme) => {
    const palette = themePalette(theme);
    for (const cap of [palette.cap, palette.capColourOnly]) {
      const [neg, mid, pos] = [-1, 0, 1].map((t) => cellRgb(t, 'diverging', palette, cap));
      for (const [name, m] of Object.entries(CVD)) {
        const [n, z, p] = [neg, mid, pos].map((c) => simulate(c, m));
        // 0.1 in OKLab is several times a just-noticeable difference (about 0.02).
        expect(deltaE(n, p), `${theme} ${name} cap ${cap}: purple vs orange`).toBeGreaterThan(0.1);
        expect(deltaE(n, z), `${theme} ${name} cap ${cap}: purple vs neutral`).toBeGreaterThan(0.1);
        expect(deltaE(p, z), `${theme} ${name} cap ${cap}: orange vs neutral`).toBeGreaterThan(0.1);
      }
    }
  });

  test.each(['light', 'dark'] as const)('%s: the sequential scale is ordered by lightness for every reader', (theme) => {
    const palette = themePalette(theme);
    const sign = theme === 'light' ? -1 : 1; // light: stronger is darker; dark: stronger is lighter
    for (const m of [null, ...Object.values(CVD)]) {
      const lightness = Array.from({ length: 21 }, (_, i) => {
        const colour = cellRgb(i / 20, 'sequential', palette, 1);
        return toOklab(m ? simulate(colour, m) : colour)[0];
      });
      for (let i = 1; i < lightness.length; i++) expect(sign * (lightness[i] - lightness[i - 1])).toBeGreaterThan(0);
    }
  });

  test('dark: the lowest sequential colour shows against the page and the figure surface; the numbers stay readable', () => {
    const dark = themePalette('dark');
    const bg = token('bg', 'dark');
    expect(contrast(dark.seq0, bg)).toBeGreaterThan(1.15);
    expect(contrast(dark.seq0, dark.surface)).toBeGreaterThan(1.08);
    for (const theme of ['light', 'dark'] as const) {
      const palette = themePalette(theme);
      // The numbers' ink on the strongest capped cell of each scale: WCAG AA.
      for (const colour of [
        cellRgb(1, 'sequential', palette, palette.cap),
        cellRgb(1, 'diverging', palette, palette.cap),
        cellRgb(-1, 'diverging', palette, palette.cap),
      ])
        expect(contrast(palette.ink, colour), `${theme} ink on ${hex(colour)}`).toBeGreaterThanOrEqual(4.5);
    }
    expect(parseColour(hex(dark.seq0))).toEqual(dark.seq0);
  });
});
