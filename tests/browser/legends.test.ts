// Figures that explain themselves, in Debian's Chromium: every heatmap on the page carries a legend whose
// ticks are its cells' span and whose gradient ends are the colours its cells really have (computed by
// the browser, light and dark); in dark mode the scale's lowest colour stands off the page; step 8's
// per-head maps are large, labelled with the tokens on both axes, and a token's row lights up in every
// head when the reader points at, clicks or arrows to its label.
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { tokenLabels } from '../../web/src/ui/labels';
import { contrast, type RGB } from '../../web/src/ui/palette';
import { collectErrors, goLive, nextFrames, settled, useServerAndBrowser } from './harness';

const QUERY = '?weights=random&d_model=8&heads=2';

const site = useServerAndBrowser();

interface Opened {
  page: Page;
  errors: string[];
  close: () => Promise<void>;
}

/** The page drawn everywhere (every step, every legend's gradient); predictions off so no figure is covered. */
async function open(colorScheme: 'light' | 'dark', width = 1280): Promise<Opened> {
  const context = await site.browser.newContext({ colorScheme, viewport: { width, height: 900 } });
  await context.addInitScript(() => {
    localStorage.setItem('attention-by-hand:predictions', JSON.stringify({ off: true, answers: {} }));
  });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}/${QUERY}`);
  await goLive(page);
  await settled(page);
  await nextFrames(page); // legends and maps mix their colours in an animation frame
  return { page, errors, close: () => context.close() };
}

/**
 * One page per theme at 1280 px for the tests that only read it (the legends, the dark scale's lowest
 * colour, the maps' size, labels and colours): none changes what another reads. The test that points,
 * clicks and picks a head opens a page of its own.
 */
const readOnly = new Map<'light' | 'dark', Promise<Opened>>();
function shared(colorScheme: 'light' | 'dark'): Promise<Opened> {
  if (!readOnly.has(colorScheme)) readOnly.set(colorScheme, open(colorScheme));
  return readOnly.get(colorScheme)!;
}
afterAll(async () => {
  for (const opened of readOnly.values()) await (await opened).close();
});

interface FigureReport {
  caption: string;
  hasLegend: boolean;
  label: string;
  ticks: string[];
  gradient: string[];
  /** The text of every coloured cell that is not blocked. */
  texts: string[];
  /** Colours the browser computed for cells at the scale's bottom, middle and top (rgb 0–255). */
  cells: { bottom: RGB | null; zero: RGB | null; top: RGB | null };
  sequential: boolean;
  /** The first opaque background behind the figure. */
  background: RGB;
}

/** Every MatrixTable figure on the page, read in the page: its legend and the colours its cells show. */
function figures(page: Page): Promise<FigureReport[]> {
  return page.evaluate(() => {
    const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    // Any CSS colour (color-mix results come back as color(srgb …) or oklab(…)) as 0–255 sRGB.
    const rgb = (css: string): [number, number, number] | null => {
      if (!css || css === 'rgba(0, 0, 0, 0)' || css === 'transparent') return null;
      context.clearRect(0, 0, 1, 1);
      context.fillStyle = css;
      context.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = context.getImageData(0, 0, 1, 1).data;
      return a === 0 ? null : [r, g, b];
    };
    const cell = (table: Element | null, t: string) => {
      const td =
        table?.querySelector(`td[data-t="${t}"]:not(.blocked)`) ??
        (t === '0' ? table?.querySelector('td:not([data-t]):not(.blocked):not(.row-total)') : null);
      return td ? rgb(getComputedStyle(td).backgroundColor) : null;
    };
    // The figures on the page (a figure waiting in a hidden part, e.g. FlashAttention's comparison before a run, is not).
    const shown = [...root.querySelectorAll<HTMLElement>('.matrix-figure')].filter((figure) => figure.offsetWidth > 0);
    return shown.map((figure) => {
      const table = figure.querySelector('table.matrix');
      const legend = figure.querySelector('.colour-legend');
      const bar = legend?.querySelector('.colour-legend-bar') as HTMLElement | undefined;
      const gradient = bar
        ? [
            ...getComputedStyle(bar)
              .getPropertyValue('--legend-gradient')
              .matchAll(/#[0-9a-f]{6}/g),
          ].map((m) => m[0])
        : [];
      const texts = [...(table?.querySelectorAll('td[data-t]:not(.blocked)') ?? [])].map((td) => td.textContent ?? '');
      let background: [number, number, number] | null = null;
      for (
        let node: Element | null = figure;
        node && !background;
        node = node.parentElement ?? (node.getRootNode() as ShadowRoot).host ?? null
      )
        background = rgb(getComputedStyle(node).backgroundColor);
      return {
        caption: table?.querySelector('caption')?.textContent ?? figure.querySelector('.matrix-picture-caption')?.textContent ?? '',
        hasLegend: Boolean(legend && !legend.hasAttribute('hidden') && (legend as HTMLElement).offsetWidth > 0),
        label: legend?.getAttribute('aria-label') ?? '',
        ticks: [...(legend?.querySelectorAll('.colour-legend-tick') ?? [])].map((t) => t.textContent ?? ''),
        gradient,
        texts,
        cells: { bottom: cell(table, '-20'), zero: cell(table, '0'), top: cell(table, '20') },
        sequential: table?.classList.contains('sequential') ?? false,
        background: background ?? rgb(getComputedStyle(document.body).backgroundColor)!,
      };
    });
  });
}

const hexRgb = (hex: string): RGB => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as RGB;
const near = (a: RGB | null, b: RGB, tolerance = 3) => a !== null && a.every((v, i) => Math.abs(v - b[i]) <= tolerance);

describe('every heatmap has a legend that matches its cells', () => {
  for (const scheme of ['light', 'dark'] as const) {
    test(`${scheme}: a legend under every table, ticks at the cells’ span, gradient ends the cells’ colours`, async () => {
      const { page, errors } = await shared(scheme);
      const all = await figures(page);
      expect(all.length).toBeGreaterThanOrEqual(15);
      let matchedTop = 0;
      for (const f of all) {
        expect({ caption: f.caption, legend: f.hasLegend }).toEqual({ caption: f.caption, legend: true });
        expect(f.label, f.caption).toMatch(/^Colour scale: /);
        expect(f.ticks.length, f.caption).toBe(f.sequential ? 2 : 3);
        expect(f.gradient.length, `${f.caption}: gradient mixed`).toBe(9);
        // The legend's ends are the largest magnitude among the cells, as the cells write it (or the
        // extent a view fixes, 1 for weights, when no cell reaches it): ±max on a diverging scale.
        const magnitude = (text: string) => Math.abs(Number(text.replace('−', '-').replace('%', '')) / (text.endsWith('%') ? 100 : 1));
        const largest = f.texts.reduce((best, text) => (magnitude(text) > magnitude(best) ? text : best), f.texts[0] ?? '');
        const top = f.ticks[f.ticks.length - 1].replace(/^\+/, '');
        if (f.texts.length && top !== largest.replace(/^−/, ''))
          expect({ caption: f.caption, top, largest, fixed: magnitude(top) === 1 && magnitude(largest) <= 1 }).toMatchObject({
            fixed: true,
          });
        if (!f.sequential) expect(f.ticks[0], f.caption).toBe(`−${top}`);
        // The bar shows what the cells show, as the browser mixed them (color-mix in oklab from tokens.css).
        if (f.cells.top) {
          expect(near(f.cells.top, hexRgb(f.gradient[8])), `${f.caption}: top ${f.cells.top} vs ${f.gradient[8]}`).toBe(true);
          matchedTop++;
        }
        if (f.cells.bottom) expect(near(f.cells.bottom, hexRgb(f.gradient[0])), `${f.caption}: bottom`).toBe(true);
        if (f.cells.zero) expect(near(f.cells.zero, hexRgb(f.gradient[f.sequential ? 0 : 4])), `${f.caption}: zero`).toBe(true);
      }
      // Enough tables reach their top colour for the check to mean something (six on this page since each figure is drawn once).
      expect(matchedTop).toBeGreaterThanOrEqual(5);
      // The head grid's legend: 0% to the largest weight among the maps.
      const grid = await page.locator('#multi-head .head-grid-figure > .colour-legend').evaluate((legend) => ({
        label: legend.getAttribute('aria-label'),
        ticks: [...legend.querySelectorAll('.colour-legend-tick')].map((t) => t.textContent),
      }));
      const peak = await page.evaluate(() => Math.max(...Array.from(window.attentionWalkthrough!.result.pipeline.weights.data)));
      expect(grid.ticks).toEqual(['0%', `${Math.round(peak * 100)}%`]);
      expect(grid.label).toContain('a stronger blue means more weight');
      expect(errors).toEqual([]);
    });
  }

  test('dark: the sequential scale’s lowest colour stands off the background behind the table', async () => {
    const { page } = await shared('dark');
    const weights = (await figures(page)).find((f) => f.sequential && f.cells.zero)!;
    const ratio = contrast(weights.cells.zero!, weights.background);
    console.info(`dark: sequential low ${weights.cells.zero} on ${weights.background}: contrast ${ratio.toFixed(3)} (${weights.caption})`);
    expect(ratio).toBeGreaterThan(1.15);
    // And step 5's sentence is true in this theme: the strongest cell is lighter, not darker.
    const five = await page.locator('#softmax .softmax-legend').textContent();
    expect(five).toMatch(/^A stronger blue means a larger share; the strongest cell is \d+%\./);
  });
});

describe('step 8: one readable, labelled map per head, with a row to follow across heads', () => {
  const maps = (page: Page) => page.locator('#multi-head .head-map');

  test('1280 px: maps of 240 px or more, the tokens on both axes, two to a row; 360 px: one to a row, inside the page', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page } = await shared(scheme);
      const tokens = tokenLabels(await page.evaluate(() => window.attentionWalkthrough!.result.tokens));
      expect(await maps(page).count()).toBe(2);
      let strongest = 0;
      for (let i = 0; i < 2; i++) {
        const map = maps(page).nth(i);
        const box = (await map.locator('.head-map-canvas').boundingBox())!;
        console.info(`${scheme} 1280 px: head ${i + 1} map ${box.width.toFixed(0)} × ${box.height.toFixed(0)} px`);
        expect(box.width).toBeGreaterThanOrEqual(240);
        expect(Math.abs(box.height - box.width)).toBeLessThan(1);
        expect(await map.locator('.head-map-row').allTextContents()).toEqual(tokens);
        expect(await map.locator('.head-map-col').allTextContents()).toEqual(tokens);
        // Each row label sits beside its row, each column label above its column.
        const rows = await map.locator('.head-map-row').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()));
        const cols = await map.locator('.head-map-col').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()));
        const step = box.width / tokens.length;
        rows.forEach((r, k) => {
          expect(Math.abs(r.top + r.height / 2 - (box.y + (k + 0.5) * step))).toBeLessThan(2);
          expect(r.right).toBeLessThanOrEqual(box.x + 1);
        });
        cols.forEach((c, k) => {
          expect(Math.abs(c.left + c.width / 2 - (box.x + (k + 0.5) * step))).toBeLessThan(2);
          expect(c.bottom).toBeLessThanOrEqual(box.y + 1);
        });
        // Readable in either theme: the strongest weight's pixel against the page behind the map.
        const pixels = await map.locator('.head-map-canvas').evaluate((canvas: HTMLCanvasElement) => {
          const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
          const colours = new Set<string>();
          for (let p = 0; p < data.length; p += 4) colours.add(`${data[p]},${data[p + 1]},${data[p + 2]}`);
          return [...colours].map((c) => c.split(',').map(Number));
        });
        const background = await page.evaluate(() => {
          const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
          const css = getComputedStyle(root.querySelector('#multi-head')!).backgroundColor;
          return css === 'rgba(0, 0, 0, 0)' ? getComputedStyle(document.body).backgroundColor : css;
        });
        const bg = background.match(/\d+/g)!.slice(0, 3).map(Number) as RGB;
        const best = Math.max(...pixels.map((p) => contrast(p as RGB, bg)));
        const spread = Math.max(...pixels.flatMap((p) => pixels.map((q) => contrast(p as RGB, q as RGB))));
        console.info(
          `${scheme}: head ${i + 1}'s strongest colour on the page ${best.toFixed(2)}, strongest vs weakest ${spread.toFixed(2)}`,
        );
        strongest = Math.max(strongest, best);
        expect(spread).toBeGreaterThan(2.5);
      }
      // One scale for all heads: the grid's largest weight is the scale's 1, clear on the page in either theme.
      expect(strongest).toBeGreaterThan(4.5);
      // Two maps side by side.
      const [a, b] = [await maps(page).nth(0).boundingBox(), await maps(page).nth(1).boundingBox()];
      expect(Math.abs(a!.y - b!.y)).toBeLessThan(1);
    }
    const { page, close } = await open('light', 360);
    const a = (await maps(page).nth(0).locator('.head-map-canvas').boundingBox())!;
    const b = (await maps(page).nth(1).locator('.head-map-canvas').boundingBox())!;
    console.info(`360 px: maps ${a.width.toFixed(0)} px wide`);
    expect(b.y).toBeGreaterThan(a.y + a.height); // one per row
    for (const box of [a, b]) {
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(360);
      expect(box.width).toBeGreaterThanOrEqual(180);
    }
    const overflow = await page.locator('#multi-head .head-grid').evaluate((grid) => grid.scrollWidth - grid.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await close();
  });

  /** Per head: the highlighted row's band (its row, and where it sits over the map) and the highlighted labels. */
  function highlight(page: Page) {
    return maps(page).evaluateAll((items) =>
      items.map((item) => {
        const band = item.querySelector<HTMLElement>('.head-map-band')!;
        const canvas = item.querySelector('canvas')!.getBoundingClientRect();
        const box = band.getBoundingClientRect();
        return {
          band: band.hidden ? null : Number(band.style.getPropertyValue('--row')),
          bandRow: band.hidden
            ? null
            : Math.round(
                ((box.top + box.height / 2 - canvas.top) / canvas.height) * (item.querySelectorAll('.head-map-row').length || 1) - 0.5,
              ),
          labels: [...item.querySelectorAll('.head-map-row.head-map-row-hl')].map((b) => Number((b as HTMLElement).dataset.row)),
          pressed: [...item.querySelectorAll('.head-map-row[aria-pressed="true"]')].map((b) => Number((b as HTMLElement).dataset.row)),
        };
      }),
    );
  }

  test('pointing at, clicking and arrowing to a token label highlights its row in every head; a map still picks its head', async () => {
    const { page, errors, close } = await open('light');
    const row = (head: number, r: number) => maps(page).nth(head).locator(`.head-map-row[data-row="${r}"]`);
    await page.locator('#multi-head .head-grid').scrollIntoViewIfNeeded();
    expect((await highlight(page)).map((h) => h.band)).toEqual([null, null]);

    await row(0, 6).hover();
    expect(await highlight(page)).toEqual([
      { band: 6, bandRow: 6, labels: [6], pressed: [] },
      { band: 6, bandRow: 6, labels: [6], pressed: [] },
    ]);
    // Pointing at a map's row highlights that row too.
    const canvas = (await maps(page).nth(1).locator('canvas').boundingBox())!;
    const n = await maps(page).nth(1).locator('.head-map-row').count();
    await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + (2.5 * canvas.height) / n);
    expect((await highlight(page)).map((h) => h.band)).toEqual([2, 2]);
    await page.mouse.move(5, 5);
    expect((await highlight(page)).map((h) => h.band)).toEqual([null, null]);

    // A click keeps the row highlighted after the pointer leaves.
    await row(1, 4).click();
    await page.mouse.move(5, 5);
    expect(await highlight(page)).toEqual([
      { band: 4, bandRow: 4, labels: [4], pressed: [4] },
      { band: 4, bandRow: 4, labels: [4], pressed: [4] },
    ]);

    // Keyboard: the labels are one tab stop per map; ↑/↓ move the highlight in every head, Enter keeps it.
    await row(0, 4).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate(() => {
      const active = document.querySelector('attention-walkthrough')!.shadowRoot!.activeElement as HTMLElement | null;
      return { row: active?.dataset.row, head: active?.closest<HTMLElement>('.head-map')?.dataset.head, tab: active?.tabIndex };
    });
    expect(focused).toEqual({ row: '6', head: '0', tab: 0 });
    expect((await highlight(page)).map((h) => h.band)).toEqual([6, 6]);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab'); // on to the map: the kept row stays
    expect(await highlight(page)).toEqual([
      { band: 6, bandRow: 6, labels: [6], pressed: [6] },
      { band: 6, bandRow: 6, labels: [6], pressed: [6] },
    ]);

    // Clicking a map picks its head for the single-head figures, and the highlight survives the redraw.
    await maps(page).nth(1).locator('.head-map-pick').click();
    await settled(page);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.settings.head)).toBe(1);
    expect(await maps(page).nth(1).locator('.head-map-pick').getAttribute('aria-pressed')).toBe('true');
    await page.mouse.move(5, 5);
    expect((await highlight(page)).map((h) => h.band)).toEqual([6, 6]);
    expect(errors).toEqual([]);
    await close();
  });
});
