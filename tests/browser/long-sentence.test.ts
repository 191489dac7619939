// A 256-token sentence, the longest the page takes: the (n, n) figures are pictures (one canvas pixel
// per cell) instead of 65,536-cell tables, and they still read out, select, highlight and export the
// engine's numbers. Checked against the snapshot the page drew from: the cell a reader reaches with the
// keyboard or the pointer, the pixels of masked cells, the by-hand sum of the selected score. Also: the
// head count is fitted to the sentence (at most 16 heads at 256 tokens), the page is back to tables
// with numbers when the sentence is short again, and axe finds no serious violation.
import type { Page } from 'playwright-core';
import { describe, test } from 'vitest';
import { axe, collectErrors, goLive, seriousViolations, useServerAndBrowser } from './harness';

const site = useServerAndBrowser();

const WORDS = Array.from({ length: 256 }, (_, i) => `w${i}`);

async function open(query: string): Promise<{ page: Page; errors: string[] }> {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}/index.html?weights=random&tokens=${encodeURIComponent(WORDS.join(' '))}&${query}`);
  await goLive(page, 120_000);
  return { page, errors };
}

/** The readout line under the figure of `section` that holds a picture. */
function readout(page: Page, section: string): Promise<string> {
  return page.evaluate((id) => {
    const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
    const figure = root.querySelector(`#${id} .matrix-picture`)!.closest('.matrix-figure')!;
    return figure.querySelector('.matrix-readout')!.textContent ?? '';
  }, section);
}

/** A number as the page writes it: "−4.84" → -4.84. */
const parse = (text: string) => Number(text.replace('\u2212', '-'));

// Every test has a page of its own and waits only on what it reports: they run side by side.
describe.concurrent('256 tokens', () => {
  test('the (n, n) and (n, d) figures are pictures; no table has more than 64 × 64 cells', async ({ expect }) => {
    const { page, errors } = await open('heads=8&d_model=64&causal=1');
    const shape = await page.evaluate(() => {
      const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
      const p = window.attentionWalkthrough!.result.pipeline;
      const pictures = Object.fromEntries(
        ['scores', 'scale', 'softmax', 'weighted-sum', 'causal'].map((id) => [id, root.querySelectorAll(`#${id} .matrix-picture`).length]),
      );
      const largestTable = Math.max(...[...root.querySelectorAll('table.matrix')].map((t) => t.querySelectorAll('td').length));
      const canvases = [...root.querySelectorAll<HTMLCanvasElement>('#scores .matrix-picture canvas')].map((c) => [c.width, c.height]);
      return { n: p.n, heads: p.heads, pictures, largestTable, canvases };
    });
    expect(shape.n).toBe(256);
    expect(shape.heads).toBe(8);
    // Step 4 divides one score and draws no (n, n) matrix (step 3 does). Step 7: the mask in force (the
    // painter), mask-then-softmax and softmax-then-mask; with the causal mask its weights are the middle one.
    expect(shape.pictures).toEqual({ scores: 1, scale: 0, softmax: 1, 'weighted-sum': 1, causal: 3 });
    expect(shape.largestTable).toBeLessThanOrEqual(4096);
    expect(shape.canvases).toEqual([[256, 256]]);
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);

  test('keys move through the scores picture; Enter selects the cell and its sum by hand adds up', async ({ expect }) => {
    const { page, errors } = await open('heads=8&d_model=64');
    const picture = page.locator('#scores .matrix-picture');
    await picture.scrollIntoViewIfNeeded();
    await picture.focus();
    await expect.poll(() => readout(page, 'scores')).toMatch(/^“w0” against “w0”: /);
    for (const key of ['ArrowRight', 'ArrowRight', 'ArrowDown', 'Shift+ArrowDown']) await page.keyboard.press(key);
    // Row 1 + 8 = 9 ("w9"), column 2 ("w2").
    const text = await readout(page, 'scores');
    expect(text).toMatch(/^“w9” against “w2”: /);
    const expected = await page.evaluate(() => {
      const p = window.attentionWalkthrough!.result.pipeline;
      return p.scores.data[9 * p.n + 2];
    });
    expect(parse(text.split(': ')[1])).toBeCloseTo(expected, 2);
    await page.keyboard.press('Enter');
    const byHand = page.locator('#scores .by-hand-result').first();
    await expect.poll(async () => Number(await byHand.getAttribute('data-value'))).toBeCloseTo(expected, 4);
    // The by-hand panel works out the selected cell: q₁₀ · k₃, counting from 1.
    expect(await page.locator('#scores .by-hand').first().textContent()).toMatch(/^q₁₀ · k₃ = /);
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);

  test('the pointer reads the softmax picture, and masked cells are painted as zero weight', async ({ expect }) => {
    const { page, errors } = await open('heads=8&d_model=64&causal=1');
    const picture = page.locator('#softmax .matrix-picture');
    const canvas = picture.locator('canvas');
    await picture.scrollIntoViewIfNeeded();
    // Sections near the viewport leave their placeholder size once laid out, which can move or resize
    // the picture after the scroll (CI once read the cell under a stale position): wait for its box
    // to hold still, then point relative to the canvas itself.
    let box = (await canvas.boundingBox())!;
    for (let tries = 0; tries < 30; tries++) {
      await page.waitForTimeout(100);
      const again = (await canvas.boundingBox())!;
      const still = again.x === box.x && again.y === box.y && again.width === box.width && again.height === box.height;
      box = again;
      if (still) break;
    }
    const cell = box.width / 256;
    // Row 200, column 40: below the diagonal, a real weight.
    await canvas.hover({ position: { x: (40 + 0.5) * cell, y: (200 + 0.5) * cell } });
    const text = await readout(page, 'softmax');
    const weight = await page.evaluate(() => {
      const p = window.attentionWalkthrough!.result.pipeline;
      return p.weights.data[200 * p.n + 40];
    });
    expect(text).toContain('“w200”');
    expect(text).toContain('“w40”');
    const shown = /([\d.]+)%/.exec(text);
    expect(shown).not.toBeNull();
    expect(Number(shown![1])).toBeCloseTo(weight * 100, 0);
    // Pixels: above the diagonal every weight is an exact 0 (the scale's zero colour); on the diagonal of
    // the first row the weight is 1 (token 0 sees only itself), the scale's far end.
    const pixels = await page.evaluate(() => {
      const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
      const canvas = root.querySelector<HTMLCanvasElement>('#softmax .matrix-picture canvas')!;
      const context = canvas.getContext('2d')!;
      const at = (r: number, c: number) => [...context.getImageData(c, r, 1, 1).data];
      return { above: [at(0, 5), at(10, 200), at(254, 255)], first: at(0, 0) };
    });
    for (const rgba of pixels.above) expect(rgba).toEqual(pixels.above[0]);
    expect(pixels.first).not.toEqual(pixels.above[0]);
    // The zero colour is light and the one colour dark (light theme): the picture is not blank.
    const lightness = (rgba: number[]) => rgba[0] + rgba[1] + rgba[2];
    expect(lightness(pixels.above[0])).toBeGreaterThan(lightness(pixels.first) + 200);
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);

  test('heads are fitted to the sentence; a short sentence brings the tables back', async ({ expect }) => {
    const { page, errors } = await open('heads=64&d_model=512');
    const notices = await page.evaluate(
      () => document.querySelector('attention-walkthrough')!.shadowRoot!.querySelector('.notices')!.textContent ?? '',
    );
    expect(notices).toContain('256 tokens allow at most 16 heads');
    const options = await page.locator('select[name="heads"] option').allTextContents();
    expect(options.map(Number)).toEqual([1, 2, 4, 8, 16]);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.pipeline.heads)).toBe(16);

    const sentence = page.locator('input[name="tokens"], textarea[name="tokens"]').first();
    await sentence.fill('the cat sat on the mat');
    await sentence.press('Enter');
    await expect.poll(() => page.evaluate(() => window.attentionWalkthrough!.result.pipeline.n)).toBe(6);
    // Off-screen sections are redrawn in idle time once the settings are still (250 ms, then one
    // section per idle slice): wait for the scores step to drop its picture.
    await expect
      .poll(() =>
        page.evaluate(
          () => document.querySelector('attention-walkthrough')!.shadowRoot!.querySelectorAll('#scores .matrix-picture').length,
        ),
      )
      .toBe(0);
    const after = await page.evaluate(() => {
      const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
      return {
        pictures: root.querySelectorAll('#scores .matrix-picture').length,
        numbers: [...root.querySelectorAll('#scores table.matrix:not(.no-numbers) td')].filter((td) =>
          /^\u2212?\d+\.\d\d$/.test(td.textContent ?? ''),
        ).length,
        heads: window.attentionWalkthrough!.result.pipeline.heads,
      };
    });
    expect(after.pictures).toBe(0);
    // Q (6 × 32 of head 1's columns), Kᵀ and the 6 × 6 scores, every cell a number again.
    expect(after.numbers).toBe(6 * 32 + 32 * 6 + 6 * 6);
    expect(after.heads).toBe(16);
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);

  test('axe: no serious or critical violation around a picture (the softmax step, embedded on its own)', async ({ expect }) => {
    // axe over the whole 256-token walkthrough takes minutes; one step with its picture is the same markup.
    const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = collectErrors(page);
    await page.goto(`${site.server.url}/embed.html?step=softmax&weights=random&causal=1&tokens=${encodeURIComponent(WORDS.join(' '))}`);
    await page.locator('.matrix-picture').first().waitFor({ timeout: 120_000 });
    const results = await axe(page).analyze();
    expect(seriousViolations(results, 'softmax step')).toEqual([]);
    expect(results.passes.map((rule) => rule.id)).toEqual(
      expect.arrayContaining(['aria-allowed-attr', 'aria-allowed-role', 'color-contrast']),
    );
    expect(errors).toEqual([]);
    await context.close();
  }, 600_000);
});
