// A reader holding the article finds its numbers on the page at the default settings, read from the
// DOM where the article prints them: q₁·k₁ = 1.0(1.1) + 0.5(0.4) = 1.30 (step 3), row 1 of the
// weights 0.31 / 0.26 / 0.25 / 0.18 (step 5), the output 0.31(2.0) + 0.26(0.5) + 0.25(1.5) + 0.18(0.0)
// = 1.13 (step 6), the causal weights (step 7) and softmax([1, 2, 3]) with its ×8 (step 4). The unit
// test tests/unit/default-snapshot.test.ts checks the same numbers in the snapshot these are drawn from.
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { collectErrors, goLive, settled, useServerAndBrowser } from './harness';

const site = useServerAndBrowser();
let page: Page;
let errors: string[];

beforeAll(async () => {
  page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  errors = collectErrors(page);
  await page.goto(`${site.server.url}/index.html`);
  await goLive(page);
  await settled(page);
});

/** The table of a step whose caption starts with `caption`. */
function table(step: string, caption: RegExp): Locator {
  return page.locator(`#${step} table.matrix`).filter({ has: page.locator('caption', { hasText: caption }) });
}

/** Row `row` of a table's numbers, as printed. */
const rowOf = async (t: Locator, row: number) => (await t.locator(`td[data-row="${row}"][data-col]`).allTextContents()).slice(0, 4);
const minus = (text: string) => text.replace(/\u2212/g, '-');

describe('the article’s numbers at the default settings', () => {
  test('the worked steps say they show the article’s example, chosen to match it', async () => {
    const note = page.locator('#qkv .worked-example').first();
    expect(await note.textContent()).toMatch(/^Worked on the article’s example: the 4 tokens/);
    expect(await note.textContent()).toMatch(/We chose its inputs so that the numbers the article prints come out here/);
    expect(await page.locator('#qkv table.matrix caption').first().textContent()).toContain('(4, 8)');
  });

  test('step 3: q₁ · k₁ = 1.0(1.1) + 0.5(0.4) = 1.30', async () => {
    const q = table('scores', /^Q/);
    const kT = table('scores', /^Kᵀ/);
    expect((await rowOf(q, 0)).slice(0, 2)).toEqual(['1.00', '0.50']);
    expect(await kT.locator('td[data-row="0"][data-col="0"]').textContent()).toBe('1.10');
    expect(await kT.locator('td[data-row="1"][data-col="0"]').textContent()).toBe('0.40');
    expect(
      await table('scores', /^scores/)
        .locator('td[data-row="0"][data-col="0"]')
        .textContent(),
    ).toBe('1.30');
  });

  test('step 5: row 1 of the weights is 31 / 26 / 25 / 18 %', async () => {
    expect(await rowOf(table('softmax', /^weights/), 0)).toEqual(['31%', '26%', '25%', '18%']);
  });

  test('step 6: output row 1 is 0.31(2.00) + 0.26(0.50) + 0.25(1.50) + 0.18(0.00) = 1.13', async () => {
    const weights = table('weighted-sum', /^weights/);
    expect(await rowOf(weights, 0)).toEqual(['0.31', '0.26', '0.25', '0.18']);
    const values = table('weighted-sum', /^V/);
    const column = await Promise.all([0, 1, 2, 3].map((r) => values.locator(`td[data-row="${r}"][data-col="0"]`).textContent()));
    expect(column).toEqual(['2.00', '0.50', '1.50', '0.00']);
    expect(
      await table('weighted-sum', /^output/)
        .locator('td[data-row="0"][data-col="0"]')
        .textContent(),
    ).toBe('1.13');
    // The by-hand sum of the selected cell (row 1, column 1 at first) writes the same terms out.
    const sum = minus((await page.locator('#weighted-sum .by-hand-box').textContent()) ?? '');
    for (const term of ['0.31', '2.00', '0.26', '0.50', '0.25', '1.50', '0.18', '0.00', '1.13']) expect(sum).toContain(term);
  });

  test('step 7: the causal weights as the article prints them', async () => {
    const causal = table('causal', /^softmax\(masked scores\)/);
    const rows = await Promise.all([0, 1, 2, 3].map((r) => rowOf(causal, r)));
    // Blocked cells print their blocked text, 0.
    expect(rows).toEqual([
      ['1.00', '0', '0', '0'],
      ['0.51', '0.49', '0', '0'],
      ['0.38', '0.22', '0.40', '0'],
      ['0.24', '0.33', '0.20', '0.23'],
    ]);
  });

  test('step 4: softmax([1, 2, 3]) = [0.09 0.24 0.67], and ×8 = [0.00 0.00 1.00]', async () => {
    const probabilities = async (chart: string) =>
      (await page.locator(`#scale ${chart} td`).allTextContents()).filter((text) => /^\d\.\d\d$/.test(text));
    expect(await probabilities('.scale-soft')).toEqual(['0.09', '0.24', '0.67']);
    expect(await probabilities('.scale-sharp')).toEqual(['0.00', '0.00', '1.00']);
    expect(await page.locator('#scale .scale-sharp').textContent()).toContain('softmax([1, 2, 3] × √64) = softmax([8, 16, 24])');
    expect(errors).toEqual([]);
  });
});
