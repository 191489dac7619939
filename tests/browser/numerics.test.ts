// Numerics in the page, at the edges the article talks about: a large d_k with scaling off (scores in
// the tens, softmax saturated), all-equal rows (every score in a row the same), fully masked rows (no
// key allowed: defined zeros, not 0/0), and the largest model the page offers. Softmax stays finite,
// rows sum to 1 (or are all zero where fully masked), and no figure shows NaN, Infinity, "?" or "∞".
// The softmax step must also explain the overflow that subtracting the max prevents.
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { collectErrors, goLive, useServerAndBrowser } from './harness';

const site = useServerAndBrowser();

async function open(query: string): Promise<{ page: Page; errors: string[] }> {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}/index.html?weights=random&${query}`);
  // The largest setting draws every step with 128 x 128 figures: seconds on a busy two-core machine.
  await goLive(page, 120_000);
  return { page, errors };
}

/**
 * The page at its defaults, loaded once: the engine-API tests call the page's own engine without drawing
 * anything, and the softmax step's prose is read as drawn, so no test changes what another reads. Each test
 * still asserts that no error has been reported on the page (since its load).
 */
let shared: Promise<{ page: Page; errors: string[] }> | undefined;
const openShared = () => (shared ??= open(''));
afterAll(async () => (await shared)?.page.close());

/** Problems on screen and in the snapshot the page drew from. */
function problems(page: Page): Promise<{ text: string[]; numbers: string[]; maxAbsScore: number }> {
  return page.evaluate(() => {
    const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
    const text: string[] = [];
    for (const section of root.querySelectorAll<HTMLElement>('section.step')) {
      const content = section.textContent ?? '';
      const match = /\bNaN\b|Infinity|undefined/.exec(content);
      if (match) text.push(`${section.id}: …${content.slice(Math.max(0, match.index - 40), match.index + 40)}…`);
      // format.ts draws NaN as "?" and ±Infinity as "∞": no computed cell may hold either (an open
      // histogram bin's edge "∞" and a masked score's "−∞" are by design).
      for (const cell of section.querySelectorAll('td, output, .stat, .by-hand-result')) {
        const value = (cell.textContent ?? '').trim();
        const computed = cell.hasAttribute('data-value') || cell.classList.contains('by-hand-result');
        if (/^\?%?$/.test(value) || (computed && /(^|[^\u2212-])∞/.test(value))) text.push(`${section.id} cell: ${value}`);
      }
    }
    const p = window.attentionWalkthrough!.result.pipeline;
    const numbers: string[] = [];
    for (const [key, value] of Object.entries(p)) {
      const data = (value as { data?: Float32Array })?.data;
      if (data instanceof Float32Array && data.some((x) => !Number.isFinite(x))) numbers.push(`${key} has a non-finite value`);
    }
    const n = p.n;
    for (const [name, weights] of [
      ['weights', p.weights.data],
      ['weightsUnscaled', p.weightsUnscaled.data],
      ['weightsCausal', p.weightsCausal.data],
    ] as const) {
      for (let r = 0; r < weights.length / n; r++) {
        let sum = 0;
        for (let c = 0; c < n; c++) sum += weights[r * n + c];
        const expected = p.fullyMaskedRows[r % n] ? 0 : 1;
        if (Math.abs(sum - expected) > 1e-5) numbers.push(`${name} row ${r} sums to ${sum}`);
      }
    }
    let maxAbsScore = 0;
    for (const s of p.scoresScaled.data) maxAbsScore = Math.max(maxAbsScore, Math.abs(s));
    return { text, numbers, maxAbsScore };
  });
}

describe('numerics on the page', () => {
  test('d_k = 512 with scaling off: scores in the tens, softmax saturated but finite, rows sum to 1', async () => {
    const { page, errors } = await open(
      'd_model=512&heads=1&scale=0&tokens=the+animal+crossed+the+road+because+it+was+tired.+and+it+slept',
    );
    const result = await problems(page);
    expect(result.text).toEqual([]);
    expect(result.numbers).toEqual([]);
    expect(result.maxAbsScore).toBeGreaterThan(20); // unscaled dot products of 512-vectors: std ≈ √512 ≈ 23
    // Saturation, the lesson of step 4: the largest weight of most rows is close to 1.
    const peaks = await page.evaluate(() => {
      const p = window.attentionWalkthrough!.result.pipeline;
      return Array.from({ length: p.n }, (_, r) => Math.max(...p.weights.data.subarray(r * p.n, (r + 1) * p.n)));
    });
    expect(peaks.filter((w) => w > 0.9).length).toBeGreaterThan(peaks.length / 2);
    // The by-hand softmax of a saturated row still reads: pick a cell, e^(s − max) stays in [0, 1].
    const map = page.locator('#softmax table.matrix').first();
    await map.locator('td[tabindex="0"]').focus();
    await page.keyboard.press('ArrowDown');
    const exps = await page
      .locator('#softmax .softmax-exp')
      .evaluateAll((cells) => cells.map((c) => Number((c as HTMLElement).dataset.value)));
    expect(exps.length).toBeGreaterThan(0);
    for (const e of exps) expect(e >= 0 && e <= 1).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('all-equal rows: the same word n times gives every key the same score and exactly 1/n of the weight', async () => {
    const { page, errors } = await open('tokens=a+a+a+a+a&d_model=64&heads=4&scale=0');
    const result = await problems(page);
    expect(result.text).toEqual([]);
    expect(result.numbers).toEqual([]);
    const weights = await page.evaluate(() => Array.from(window.attentionWalkthrough!.result.pipeline.weights.data));
    for (const w of weights) expect(w).toBeCloseTo(0.2, 6);
    const cells = await page.locator('#softmax table.matrix').first().locator('td[data-col]').allTextContents();
    expect(cells.length).toBe(25);
    expect(new Set(cells)).toEqual(new Set(['20%']));
    expect(errors).toEqual([]);
    await page.close();
  });

  test('the largest model the page offers (128 tokens, d_model 512, 64 heads, causal): finite, rows sum to 1', async () => {
    const tokens = Array.from({ length: 128 }, (_, i) => `w${i % 40}`).join('+');
    const { page, errors } = await open(`tokens=${tokens}&d_model=512&heads=64&causal=1&scale=0&seed=4294967295`);
    const result = await problems(page);
    expect(result.text).toEqual([]);
    expect(result.numbers).toEqual([]);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.pipeline.n)).toBe(128);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('fully masked rows (engine API, the page’s own engine): all-zero weights and a flag, never 0/0', async () => {
    const { page, errors } = await openShared();
    const outcome = await page.evaluate(() => {
      const element = document.querySelector('attention-walkthrough')!;
      element.setAttribute('debug', '');
      const engine = (
        element as unknown as {
          debug: {
            engine: {
              pipeline(c: unknown): {
                n: number;
                weights: { data: Float32Array };
                fullyMaskedRows: Uint8Array;
                output: { data: Float32Array };
              };
            };
          };
        }
      ).debug.engine;
      const mask = new Uint8Array(16).fill(1);
      mask.fill(0, 4, 8); // row 2: every key blocked
      mask.fill(0, 12, 16); // row 4 too
      const s = engine.pipeline({ tokens: ['a', 'b', 'c', 'd'], dModel: 8, heads: 2, mask, scale: false });
      return {
        flags: Array.from(s.fullyMaskedRows),
        weights: Array.from(s.weights.data),
        finite: [...s.output.data].every(Number.isFinite),
      };
    });
    expect(outcome.flags).toEqual([0, 1, 0, 1]);
    expect(outcome.finite).toBe(true);
    for (const head of [0, 1]) {
      for (const row of [1, 3]) expect(outcome.weights.slice(head * 16 + row * 4, head * 16 + row * 4 + 4)).toEqual([0, 0, 0, 0]);
      for (const row of [0, 2])
        expect(outcome.weights.slice(head * 16 + row * 4, head * 16 + row * 4 + 4).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    }
    expect(errors).toEqual([]);
  });

  test('entries of 1e30 and 1e-30 (engine API, the page’s own engine): finite weights, rows sum to 1', async () => {
    const { page, errors } = await openShared();
    const outcome = await page.evaluate(() => {
      type M = { rows: number; cols: number; data: Float32Array };
      const element = document.querySelector('attention-walkthrough')!;
      element.setAttribute('debug', '');
      const engine = (
        element as unknown as { debug: { engine: { attention(Q: M, K: M, V: M, o: { scale: boolean }): { output: M; weights: M } } } }
      ).debug.engine;
      const m = (rows: number, cols: number, values: number[]): M => ({ rows, cols, data: Float32Array.from(values) });
      const run = (size: number, scale: boolean) => {
        // Q·Kᵀ of 1e30-sized entries is ~1e60: far past float32's 3.4e38. Of 1e-30: ~1e-60, below its smallest denormal.
        const Q = m(
          3,
          4,
          [1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1].map((x) => x * size),
        );
        const K = m(
          3,
          4,
          [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0].map((x) => x * size),
        );
        const V = m(3, 2, [1, 0, 0, 1, 1, 1]);
        const r = engine.attention(Q, K, V, { scale });
        return { weights: Array.from(r.weights.data), output: Array.from(r.output.data) };
      };
      return { huge: run(1e30, true), hugeUnscaled: run(1e30, false), tiny: run(1e-30, true), tinyUnscaled: run(1e-30, false) };
    });
    for (const [name, r] of Object.entries(outcome)) {
      expect(r.weights.every(Number.isFinite), name).toBe(true);
      expect(r.output.every(Number.isFinite), name).toBe(true);
      for (let row = 0; row < 3; row++)
        expect(
          r.weights.slice(row * 3, row * 3 + 3).reduce((a, b) => a + b, 0),
          `${name} row ${row}`,
        ).toBeCloseTo(1, 6);
    }
    // Huge: saturated, all weight on the matching key (rows 0 and 1), split evenly where scores tie (row 2).
    for (const name of ['huge', 'hugeUnscaled'] as const) {
      expect(outcome[name].weights.slice(0, 6), name).toEqual([1, 0, 0, 0, 1, 0]);
      for (const w of outcome[name].weights.slice(6)) expect(w, name).toBeCloseTo(1 / 3, 6);
    }
    // Tiny: every score underflows to 0, so every key gets exactly a third.
    for (const name of ['tiny', 'tinyUnscaled'] as const) for (const w of outcome[name].weights) expect(w, name).toBeCloseTo(1 / 3, 6);
    expect(errors).toEqual([]);
  });

  test('the softmax step explains why the max is subtracted: e^x overflows for large scores', async () => {
    const { page } = await openShared();
    // textContent: the section may be off screen, where innerText is empty (content-visibility: auto).
    const text = (await page.locator('#softmax').textContent()) ?? '';
    expect(text).toMatch(/overflow/i);
    expect(text).toMatch(/subtract/i);
  });
});
