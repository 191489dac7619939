// Hands-on, as a reader does it in Chromium: editing numbers with the keyboard and the pointer,
// the mask editor, predictions, taking numbers home (clipboard, the NumPy script run for real with
// Debian's python3, PNG and SVG files) and the readout under every heatmap. Numbers are checked
// against the engine's own snapshot (window.attentionWalkthrough.result) and the page's tables.
// Length (~750 lines): one browser and one server for every hands-on tool; split, each file would launch
// Chromium and serve the site again, and the browser suite is the one near its time budget.
// Every test has a context of its own and waits only on what its page reports, so the blocks run their
// tests side by side, except the ones that copy: the browser has one clipboard for all its pages.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { encodePaint } from '../../web/src/features/hands-on/hands-on-settings';
import {
  axeFor,
  collectErrors,
  goLive,
  nextFrames,
  seriousViolations,
  settled,
  showAllSections,
  started,
  textMatching,
  useServerAndBrowser,
} from './harness';

// The editable example: random weights (the trained model's d_model 32 is too wide to edit).
const FOUR = '?weights=random&tokens=the+cat+sat+down';
const PYTHON = '/usr/bin/python3';
const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

const site = useServerAndBrowser({
  serve: {
    headers: (path): Record<string, string> => (path === '/embed.html' ? { 'content-security-policy': STRICT_CSP } : {}),
  },
});

interface Opened {
  page: Page;
  context: BrowserContext;
  errors: string[];
}

/** A fresh context (its own localStorage); predictions off unless asked for, so figures are not covered. */
async function open(query: string, options: { predictions?: boolean; clipboard?: boolean } = {}): Promise<Opened> {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.server.url });
  if (!options.predictions) {
    await context.addInitScript(() => {
      if (!localStorage.getItem('attention-by-hand:predictions'))
        localStorage.setItem('attention-by-hand:predictions', JSON.stringify({ off: true, answers: {} }));
    });
  }
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}/${query}`);
  await goLive(page);
  return { page, context, errors };
}

async function ready(page: Page): Promise<void> {
  await goLive(page);
}

// After a change the page draws the sections in view at once and the others in idle time once the
// settings are still (step-renderer.ts): settled(page) waits for all of it before tables are read.

const settingsOf = (page: Page) => page.evaluate(() => window.attentionWalkthrough!.result.settings);
/** The page's own location (page.url() follows it through a separate event, which may come later). */
const urlOf = (page: Page) => page.evaluate(() => location.href);
const number = (text: string | null) => Number((text ?? '').replace('\u2212', '-').replace('%', ''));
const fmt2 = (v: number) => {
  const text = v.toFixed(2);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text.replace('-', '\u2212');
};

/** The snapshot's arrays as plain numbers. */
function snapshotOf(page: Page) {
  return page.evaluate(() => {
    const s = window.attentionWalkthrough!.result;
    const p = s.pipeline;
    const plain = (m: { data: ArrayLike<number> }) => Array.from(m.data);
    return {
      settings: s.settings,
      n: p.n,
      d: p.dModel,
      dK: p.dK,
      heads: p.heads,
      X: plain(p.X),
      W_q: plain(p.W_q),
      Q: plain(p.Q),
      K: plain(p.K),
      V: plain(p.V),
      scores: plain(p.scores),
      weights: plain(p.weights),
      headOutputs: plain(p.headOutputs),
      output: plain(p.output),
      mask: Array.from(p.mask.data),
      fullyMaskedRows: Array.from(p.fullyMaskedRows),
      baselineX: s.baseline ? plain(s.baseline.X) : null,
    };
  });
}

const cell = (table: ReturnType<Page['locator']>, r: number, c: number) => table.locator(`td[data-row="${r}"][data-col="${c}"]`);

describe.concurrent('editing numbers', () => {
  test('keyboard: Enter, nudge with ↑, type, Escape; every number downstream follows the engine; arrows still move', async ({ expect }) => {
    const { page, errors } = await open(FOUR);
    const X = page.locator('#qkv table.matrix').nth(0);
    expect(await X.getAttribute('class')).toContain('editable');
    const seeded = await snapshotOf(page);
    const d = seeded.d;

    // Grid navigation is untouched: focus a cell, move right and down.
    await cell(X, 0, 0).click();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(
      await page.evaluate(() => {
        const active = document.querySelector('attention-walkthrough')!.shadowRoot!.activeElement as HTMLElement;
        return [active.dataset.row, active.dataset.col];
      }),
    ).toEqual(['2', '1']);

    // Enter edits; ↑ twice nudges by 0.2; Enter keeps it.
    await page.keyboard.press('Enter');
    expect(await X.locator('input.matrix-edit-input').count()).toBe(1);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    const nudged = Math.round((seeded.X[2 * d + 1] + 0.2) * 1000) / 1000;
    await settled(page);
    expect((await settingsOf(page)).edits).toBe(`X.3.2:${nudged}`);
    expect(await X.locator('input').count()).toBe(0);

    // Shift+↑ is a step of 1, then type a value over it.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+ArrowUp');
    await settled(page);
    expect((await settingsOf(page)).edits).toBe(`X.3.2:${Math.round((nudged + 1) * 1000) / 1000}`);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('0.5');
    await page.keyboard.press('Enter');
    await settled(page);
    expect((await settingsOf(page)).edits).toBe('X.3.2:0.5');

    // Escape puts back what was there.
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowUp');
    await settled(page);
    expect((await settingsOf(page)).edits).toBe('X.3.2:0.6');
    await page.keyboard.press('Escape');
    await settled(page);
    expect((await settingsOf(page)).edits).toBe('X.3.2:0.5');

    // The engine used the edit, and everything downstream is the engine's, on the page.
    const s = await snapshotOf(page);
    expect(s.X[2 * d + 1]).toBeCloseTo(0.5, 6);
    expect(s.baselineX![2 * d + 1]).toBeCloseTo(seeded.X[2 * d + 1], 6);
    for (let c = 0; c < d; c++) {
      let q = 0;
      for (let t = 0; t < d; t++) q += s.X[2 * d + t] * s.W_q[t * d + c];
      expect(s.Q[2 * d + c]).toBeCloseTo(q, 4);
    }
    expect(await X.locator('td[data-row="2"][data-col="1"]').textContent()).toBe('0.50');
    const Q = page.locator('#qkv table.matrix').nth(2);
    for (let c = 0; c < d; c++) expect(await cell(Q, 2, c).textContent()).toBe(fmt2(s.Q[2 * d + c]));
    const scores = page.locator('#scores table.matrix').nth(2);
    const h = s.settings.head;
    for (let r = 0; r < s.n; r++)
      for (let c = 0; c < s.n; c++) expect(await cell(scores, r, c).textContent()).toBe(fmt2(s.scores[(h * s.n + r) * s.n + c]));
    const output = page.locator('#multi-head table.matrix').first();
    expect(await cell(output, 3, 5).textContent()).toBe(fmt2(s.output[3 * d + 5]));

    // What the edit reached is marked: row 3 and column 3 of the scores, not the rest.
    const changed = await scores
      .locator('td.changed')
      .evaluateAll((nodes) => nodes.map((n) => `${(n as HTMLElement).dataset.row},${(n as HTMLElement).dataset.col}`));
    expect(changed.every((rc) => rc.startsWith('2,') || rc.endsWith(',2'))).toBe(true);
    expect(changed.length).toBeGreaterThan(0);
    expect(await scores.locator('td.changed').first().getAttribute('title')).toMatch(/[+−]\d+\.\d+ since your edits$/);
    expect(await page.locator('#softmax td.changed').count()).toBeGreaterThan(0);
    expect(await page.locator('#qkv .qkv-edit-status').textContent()).toMatch(/^You changed 1 number\./);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('pointer: dragging a number sideways changes it by 0.01 a pixel', async ({ expect }) => {
    const { page, errors } = await open(FOUR);
    const seeded = await snapshotOf(page);
    const Wv = page.locator('#qkv table.matrix').nth(5);
    const target = cell(Wv, 1, 2);
    await target.scrollIntoViewIfNeeded();
    const box = (await target.boundingBox())!;
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + 5, y);
    await page.mouse.down();
    await page.mouse.move(box.x + 25, y, { steps: 4 });
    await page.mouse.move(box.x + 45, y, { steps: 4 });
    await page.mouse.up();
    await settled(page);
    expect((await settingsOf(page)).edits).toMatch(/^Wv\.2\.3:-?\d/);
    const s = await snapshotOf(page);
    const wv = await page.evaluate(() => {
      const r = window.attentionWalkthrough!.result;
      return [r.pipeline.W_v.data[1 * r.pipeline.dModel + 2], r.baseline!.W_v.data[1 * r.pipeline.dModel + 2]];
    });
    expect(wv[0] - wv[1]).toBeCloseTo(0.4, 1);
    // A W_v weight reaches the values and outputs, but not a single attention weight.
    expect(s.weights).toEqual(seeded.weights);
    expect(s.headOutputs).not.toEqual(seeded.headOutputs);
    expect(await page.locator('#softmax td.changed').count()).toBe(0);
    expect(await page.locator('#weighted-sum td.changed').count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('edits go in the URL compactly, survive a reload, and Undo brings back the seeded numbers', async ({ expect }) => {
    const { page, errors } = await open(`${FOUR}&edits=X.3.2:0.5,Wq.1.4:-0.25`);
    const seeded = await page.evaluate(() => Array.from(window.attentionWalkthrough!.result.baseline!.weights.data));
    expect(page.url()).toContain('edits=X.3.2:0.5,Wq.1.4:-0.25');
    const X = page.locator('#qkv table.matrix').nth(0);
    await cell(X, 0, 0).click();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('-1.25');
    await page.keyboard.press('Enter');
    expect(await urlOf(page)).toContain('edits=X.1.1:-1.25,X.3.2:0.5,Wq.1.4:-0.25');
    // The URL is written with the state; the numbers follow: wait for them.
    await settled(page);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.settings.edits)).toBe('X.1.1:-1.25,X.3.2:0.5,Wq.1.4:-0.25');
    const before = await page.evaluate(() => Array.from(window.attentionWalkthrough!.result.pipeline.weights.data));
    await page.reload();
    await ready(page);
    expect((await settingsOf(page)).edits).toBe('X.1.1:-1.25,X.3.2:0.5,Wq.1.4:-0.25');
    expect(await page.evaluate(() => Array.from(window.attentionWalkthrough!.result.pipeline.weights.data))).toEqual(before);
    expect(await cell(X, 0, 0).textContent()).toBe('\u22121.25');
    await page.getByRole('button', { name: 'Undo every edit' }).click();
    await settled(page);
    expect((await settingsOf(page)).edits).toBe('');
    expect(await urlOf(page)).not.toContain('edits=');
    expect(await page.evaluate(() => Array.from(window.attentionWalkthrough!.result.pipeline.weights.data))).toEqual(seeded);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.baseline)).toBeNull();
    expect(await page.locator('td.changed').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('too large to edit: a notice, no edits, and a way to the small example', async ({ expect }) => {
    const { page } = await open('?weights=random&edits=X.1.1:2');
    expect(await page.locator('.notices').innerText()).toMatch(
      /set aside: editing works on small examples of up to 8 tokens and d_model 16/,
    ); // with the first drawing
    expect((await settingsOf(page)).edits).toBe('');
    expect(await page.locator('#qkv table.matrix').first().getAttribute('class')).not.toContain('editable');
    await page.getByRole('button', { name: 'Use the article’s four-token example' }).click();
    await settled(page);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.pipeline.n)).toBe(4);
    expect(await page.locator('#qkv table.matrix').first().getAttribute('class')).toContain('editable');
    await page.context().close();
  });
});

/** Rows of an n × n 0/1 mask as strings. */
const maskRows = (bits: number[], n: number) => Array.from({ length: n }, (_, r) => bits.slice(r * n, (r + 1) * n).join(''));

describe.concurrent('the mask editor', () => {
  test('presets make the expected masks, and are the same setting as the settings bar’s causal checkbox', async ({ expect }) => {
    const { page, errors } = await open(FOUR);
    const editor = page.locator('#causal .mask-editor');
    const mask = async () => maskRows((await snapshotOf(page)).mask, 4);
    await editor.getByLabel('Padding').check();
    await settled(page);
    expect(await settingsOf(page).then((s) => s.mask)).toBe('pad:2');
    expect(await mask()).toEqual(['1100', '1100', '1100', '1100']);
    await editor.getByLabel('Sliding window').check();
    await settled(page);
    expect(await settingsOf(page).then((s) => s.mask)).toBe('window:3');
    expect(await mask()).toEqual(['1000', '1100', '1110', '0111']);
    await editor.locator('input.mask-param-input').fill('2');
    await editor.locator('input.mask-param-input').press('Enter');
    await settled(page);
    expect(await settingsOf(page).then((s) => s.mask)).toBe('window:2');
    expect(await mask()).toEqual(['1000', '1100', '0110', '0011']);
    expect(page.url()).toContain('mask=window:2');
    await settled(page);
    expect(await page.locator('#causal .mask-state').textContent()).toMatch(/^In force on every step: a sliding window of 2/);
    expect(await page.locator('#causal input[type="checkbox"]').count()).toBe(0);
    expect(await page.locator('input[name="causal"]').isChecked()).toBe(false);
    await editor.getByLabel('Prefix-LM').check();
    await settled(page);
    expect(await settingsOf(page).then((s) => s.mask)).toBe('prefix:2');
    expect(await mask()).toEqual(['1100', '1100', '1110', '1111']);
    // The settings bar's checkbox replaces a custom mask with the causal one.
    await page.locator('input[name="causal"]').check();
    await settled(page);
    expect(await settingsOf(page).then((s) => [s.causal, s.mask])).toEqual([true, 'none']);
    expect(await mask()).toEqual(['1000', '1100', '1110', '1111']);
    expect(await editor.getByLabel('Causal', { exact: true }).isChecked()).toBe(true);
    await editor.getByLabel('No mask').check();
    await settled(page);
    expect(await settingsOf(page).then((s) => [s.causal, s.mask])).toEqual([false, 'none']);
    expect(await mask()).toEqual(['1111', '1111', '1111', '1111']);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('painting: click, drag and Space toggle cells; a row with no key left gets zeros and an explanation', async ({ expect }) => {
    const { page, errors } = await open(`${FOUR}&causal=1`);
    const painter = page.locator('#causal table.mask-painter');
    // Click: open the future for row 1.
    await cell(painter, 0, 1).click();
    await settled(page);
    expect(maskRows((await snapshotOf(page)).mask, 4)).toEqual(['1100', '1100', '1110', '1111']);
    expect((await settingsOf(page)).mask).toMatch(/^paint:[A-Za-z0-9_-]+$/);
    // Drag across row 3: block every key it had.
    await cell(painter, 2, 2).scrollIntoViewIfNeeded();
    const from = (await cell(painter, 2, 0).boundingBox())!;
    const to = (await cell(painter, 2, 2).boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
    await page.mouse.up();
    await settled(page);
    expect(maskRows((await snapshotOf(page)).mask, 4)).toEqual(['1100', '1100', '0000', '1111']);
    await settled(page);
    const s = await snapshotOf(page);
    expect(s.fullyMaskedRows).toEqual([0, 0, 1, 0]);
    expect(s.weights.slice(2 * 4, 3 * 4)).toEqual([0, 0, 0, 0]);
    const note = page.locator('#causal .mask-empty-note');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(/Row 3 \(“sat”\) has no key left.*NumPy does exactly that and prints nan.*all-zero weights/);
    expect(await page.locator('#causal table.mask-weights td.row-total').nth(2).textContent()).toBe('0%');
    // Keyboard: arrows to a cell, Space toggles it back on.
    await cell(painter, 2, 0).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Space');
    await settled(page);
    expect(maskRows((await snapshotOf(page)).mask, 4)).toEqual(['1100', '1100', '0100', '1111']);
    // The painted mask is a link.
    const url = page.url();
    await page.reload();
    await ready(page);
    expect(page.url()).toBe(url);
    expect(maskRows((await snapshotOf(page)).mask, 4)).toEqual(['1100', '1100', '0100', '1111']);
    // Every section's text (textContent: off-screen sections skip rendering, so their innerText is empty).
    expect((await page.locator('section.step').allTextContents()).join('\n')).not.toMatch(/\bNaN\b|undefined/);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('an unreadable mask in the URL: a notice and no mask', async ({ expect }) => {
    const { page } = await open(`${FOUR}&mask=paint:AAAAAAAA`);
    expect(await page.locator('.notices').innerText()).toMatch(/painted mask does not fit this sentence/); // with the first drawing
    expect((await settingsOf(page)).mask).toBe('none');
    await page.context().close();
  });
});

describe('predict, then reveal', () => {
  test('figures are covered until answered or skipped; choices and the switch are remembered across reload', async () => {
    const { page, errors } = await open(FOUR, { predictions: true });
    const problemFigure = page.locator('#problem figure.problem-figure');
    expect(await problemFigure.getAttribute('class')).toContain('predict-cover');
    expect(await problemFigure.getAttribute('inert')).not.toBeNull();
    expect(await page.locator('#scale .scale-saturation').getAttribute('class')).toContain('predict-cover');
    expect(await page.locator('#causal .causal-wrong').getAttribute('class')).toContain('predict-cover');
    expect(await page.locator('.predict-cover').count()).toBe(8); // four figures and their readings

    // Answer step 1 with the right token (the engine's largest weight in the followed row).
    const top = await page.evaluate(() => {
      const s = window.attentionWalkthrough!.result;
      const n = s.pipeline.n;
      const row = Array.from(s.pipeline.weights.data.subarray((s.settings.head * n + n - 1) * n, (s.settings.head * n + n) * n));
      return row.indexOf(Math.max(...row));
    });
    await page.locator(`#problem .predict-choice[data-choice="${top}"]`).click();
    expect(await page.locator('#problem .predict-verdict').textContent()).toMatch(/^Right: /);
    expect(await problemFigure.getAttribute('class')).not.toContain('predict-cover');
    expect(await problemFigure.getAttribute('inert')).toBeNull();
    // Step 4: a wrong answer says so, and explains.
    await page.locator('#scale .predict-choice[data-choice="shrinks"]').click();
    expect(await page.locator('#scale .predict-verdict').textContent()).toMatch(
      /^Not quite: you said It shrinks; the answer is It grows\. Unscaled scores spread/,
    );
    // Step 7: skip.
    await page.locator('#causal .predict-skip').click();
    expect(await page.locator('#causal .predict-verdict').textContent()).toMatch(/^The answer: No, less than 1\./);
    expect(await page.locator('#causal .causal-wrong').getAttribute('class')).not.toContain('predict-cover');
    // Step 8 is still covered.
    expect(await page.locator('#multi-head .predict-cover').count()).toBe(2);

    await page.reload();
    await ready(page);
    expect(await page.locator('#problem .predict-verdict').textContent()).toMatch(/^Right: /);
    expect(await page.locator(`#problem .predict-choice[aria-pressed="true"]`).getAttribute('data-choice')).toBe(String(top));
    expect(await page.locator('#scale .predict-verdict').textContent()).toMatch(/^Not quite/);
    expect(await page.locator('.predict-cover').count()).toBe(2);

    // "Show everything" turns predictions off, for good.
    await page.locator('#multi-head .predict-off').click();
    expect(await page.locator('.predict-cover').count()).toBe(0);
    expect(await page.locator('.predict:visible').count()).toBe(0);
    await page.reload();
    await ready(page);
    expect(await page.locator('.predict-cover').count()).toBe(0);
    // And the switch in step 1 brings them back: answered ones stay answered.
    const toggle = page.getByLabel(/Ask me to predict before some figures/);
    expect(await toggle.isChecked()).toBe(false);
    await toggle.check();
    expect(await page.locator('.predict-cover').count()).toBe(2);
    expect(await page.locator('#problem .predict-verdict').textContent()).toMatch(/^Right: /);
    // "Ask me again" covers the figure again.
    await page.locator('#problem .predict-again').click();
    expect(await problemFigure.getAttribute('class')).toContain('predict-cover');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

/** The arrays a run of the NumPy script printed, by marker. */
function parsePrinted(stdout: string): Record<'weights' | 'headOutput' | 'output', number[]> {
  const blocks = stdout.split(
    /^(weights of head \d+ \(steps 5 and 6\):|weights @ V of head \d+ \(step 6\):|output = concat\(heads\) @ W_o \(step 8\):)$/m,
  );
  const numbers = (text: string) => (text.match(/-?\d+\.\d*(?:e[+-]?\d+)?|-?\d+(?=[\s\]])/g) ?? []).map(Number);
  const find = (prefix: string) => numbers(blocks[blocks.findIndex((b) => b.startsWith(prefix)) + 1] ?? '');
  return { weights: find('weights of head'), headOutput: find('weights @ V'), output: find('output = concat') };
}

function requirePython(): void {
  const probe = spawnSync(PYTHON, ['-c', 'import numpy; print(numpy.__version__)'], { encoding: 'utf8' });
  if (probe.status !== 0)
    throw new Error(
      `${PYTHON} with NumPy is needed to run the copied script (install python3-numpy): ${probe.error?.message ?? probe.stderr}`,
    );
}

describe('take the numbers home', () => {
  const configurations = [
    ['edits, scaling on, no mask', `${FOUR}&edits=X.3.2:0.5,Wq.1.4:-0.25,Wk.2.2:1.5`],
    ['the article’s four-token example, the default', ''],
    ['causal mask, second head', `${FOUR}&heads=2&causal=1&head=2`],
    [
      'a painted mask with an empty row, scaling off',
      `${FOUR}&scale=0&mask=${encodePaint(Uint8Array.from([1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]))}`,
    ],
    ['the article’s sentence, d_model 16, 4 heads, window mask', '?weights=random&d_model=16&heads=4&head=3&mask=window:3'],
  ] as const;

  for (const [name, query] of configurations) {
    test(`the copied NumPy script, run with python3, prints the page’s weights and outputs (${name})`, async () => {
      requirePython();
      const { page, errors } = await open(query, { clipboard: true });
      await page.getByRole('button', { name: 'Reproduce in NumPy: copy the script' }).click();
      // The clipboard write is asynchronous: the status line says when it is done.
      await textMatching(page.locator('#weighted-sum .numpy-repro-status'), /^Copied: \d+ lines of Python/);
      const script = await page.evaluate(() => navigator.clipboard.readText());
      expect(script).toContain('def attention_heads(X, W_q, W_k, W_v, W_o, heads, mask=None, scale=True):');
      expect(script).toContain(`heads = ${(await snapshotOf(page)).heads}`);
      const dir = mkdtempSync(join(tmpdir(), 'abh-numpy-'));
      writeFileSync(join(dir, 'attention.py'), script);
      const stdout = execFileSync(PYTHON, [join(dir, 'attention.py')], { encoding: 'utf8' });
      const printed = parsePrinted(stdout);
      await settled(page);
      const s = await snapshotOf(page);
      const h = s.settings.head;
      const n = s.n;
      const engineWeights = s.weights.slice(h * n * n, (h + 1) * n * n);
      const engineHead = s.headOutputs.slice(h * n * s.dK, (h + 1) * n * s.dK);
      expect(printed.weights).toHaveLength(n * n);
      expect(printed.headOutput).toHaveLength(n * s.dK);
      // One head has nothing to mix: its output is weights V itself, (n, dₖ); with heads, concat @ W_o is (n, d_model).
      expect(printed.output).toHaveLength(n * (s.heads === 1 && s.settings.weights === 'example' ? s.dK : s.d));
      // To the printed precision (two decimals): within half a unit of the last digit, plus float noise.
      printed.weights.forEach((v, i) => expect(Math.abs(v - engineWeights[i]), `weights[${i}]`).toBeLessThan(0.0051));
      printed.headOutput.forEach((v, i) => expect(Math.abs(v - engineHead[i]), `head output[${i}]`).toBeLessThan(0.0051));
      printed.output.forEach((v, i) => expect(Math.abs(v - s.output[i]), `output[${i}]`).toBeLessThan(0.0051));
      // And against the numbers printed on the page (both rounded to two decimals).
      const shown = async (selector: string, index: number) =>
        (await page.locator(selector).nth(index).locator('td[data-col]').allTextContents()).map(number);
      const pageWeights = await shown('#weighted-sum table.matrix', 0);
      pageWeights.forEach((v, i) => expect(Math.abs(v - printed.weights[i]), `page weights[${i}]`).toBeLessThan(0.0101));
      const pageHead = await shown('#weighted-sum table.matrix', 2);
      pageHead.forEach((v, i) => expect(Math.abs(v - printed.headOutput[i]), `page head output[${i}]`).toBeLessThan(0.0101));
      // Step 8 shows the sentence, not the four-token example, so its output is compared only away from it.
      const pageOutput = s.settings.weights === 'example' ? printed.output : await shown('#multi-head table.matrix', 0);
      pageOutput.forEach((v, i) => expect(Math.abs(v - printed.output[i]), `page output[${i}]`).toBeLessThan(0.0101));
      expect(stdout).not.toMatch(/nan/);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  test('Copy CSV and Copy NumPy from a table’s toolbar, with the keyboard', async () => {
    const { page } = await open(FOUR, { clipboard: true });
    const figure = page.locator('#softmax .matrix-figure').first();
    await figure.locator('.export-toggle').focus();
    await page.keyboard.press('Enter');
    expect(await figure.locator('.export-menu').isVisible()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // Copy CSV
    await textMatching(figure.locator('.export-status'), /^Copied CSV of weights = softmax/);
    const csv = await page.evaluate(() => navigator.clipboard.readText());
    const s = await snapshotOf(page);
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe('query ↓ key →,the,cat,sat,down');
    expect(lines).toHaveLength(5);
    const row4 = lines[4].split(',');
    expect(row4[0]).toBe('down');
    row4
      .slice(1)
      .map(Number)
      .forEach((v, c) => expect(Math.fround(v)).toBe(Math.fround(s.weights[(s.settings.head * 4 + 3) * 4 + c])));
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // Copy NumPy
    await textMatching(figure.locator('.export-status'), /^Copied a NumPy array/);
    const literal = await page.evaluate(() => navigator.clipboard.readText());
    expect(literal).toMatch(
      /^# weights = softmax[^\n]*\n# rows: the, cat, sat, down\n# columns: the, cat, sat, down\nnp\.array\(\[\n {4}\[/,
    );
    requirePython();
    const values = JSON.parse(
      execFileSync(
        PYTHON,
        [
          '-c',
          `import numpy as np, json, sys\na = ${literal.replace(/\n#[^\n]*/g, '').replace(/^#[^\n]*\n/gm, '')}\nprint(json.dumps(a.astype(np.float32).tolist()))`,
        ],
        { encoding: 'utf8' },
      ),
    ) as number[][];
    expect(values.flat().map((v) => Math.fround(v))).toEqual(
      s.weights.slice(s.settings.head * 16, (s.settings.head + 1) * 16).map((v) => Math.fround(v)),
    );
    // Tab goes on through the rest of the menu: Save PNG, Save SVG, then Embed this step, whose panel
    // opens under the menu with the page's settings; Escape closes it all and the focus is on the button again.
    const toggle = figure.locator('.export-toggle');
    expect(await toggle.textContent()).toBe('Copy, save or embed');
    const focusedText = () =>
      page.evaluate(() => {
        let node: Element | null = document.activeElement;
        while (node?.shadowRoot?.activeElement) node = node.shadowRoot.activeElement;
        return node?.textContent ?? '';
      });
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      order.push(await focusedText());
    }
    expect(order).toEqual(['Save PNG', 'Save SVG', 'Embed this step']);
    await page.keyboard.press('Enter');
    const panel = figure.locator('.embed-code');
    expect(await panel.isVisible()).toBe(true); // shown in the click's handler
    const elementSnippet = await panel.locator('textarea[aria-label="Custom element snippet"]').inputValue();
    expect(elementSnippet).toMatch(/<attention-softmax [^>]*tokens="the cat sat down"/);
    expect(elementSnippet).toContain('weights="random"');
    // The clipboard write is asynchronous: the panel's status line says when it is done.
    await textMatching(panel.locator('[role="status"]'), /^Copied the element snippet\.$/);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(elementSnippet);
    await page.keyboard.press('Escape');
    expect(await figure.locator('.export-menu').isVisible()).toBe(false);
    expect(await panel.isVisible()).toBe(false);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await focusedText()).toBe('Copy, save or embed');
    // Space opens it too, and Escape from an action closes it again.
    await page.keyboard.press('Space');
    expect(await figure.locator('.export-menu').isVisible()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await focusedText()).toBe('Copy CSV');
    await page.keyboard.press('Escape');
    expect(await figure.locator('.export-menu').isVisible()).toBe(false);
    expect(await focusedText()).toBe('Copy, save or embed');
    await page.context().close();
  });

  test.concurrent('PNG and SVG of a heatmap and of a chart are real files with the figure’s content', async ({ expect }) => {
    const { page, errors } = await open(FOUR);
    const figure = page.locator('#softmax .matrix-figure').first();
    await figure.locator('.export-toggle').click();
    const [svgDownload] = await Promise.all([page.waitForEvent('download'), figure.getByRole('button', { name: 'Save SVG' }).click()]);
    expect(svgDownload.suggestedFilename()).toMatch(/^weights-softmax-scores-dk-n-n-4-4.*\.svg$/);
    const svgText = readFileSync((await svgDownload.path())!, 'utf8');
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return {
        error: doc.querySelector('parsererror')?.textContent ?? null,
        root: doc.documentElement.nodeName,
        rects: doc.querySelectorAll('rect').length,
        texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
        fills: [...new Set([...doc.querySelectorAll('rect')].map((r) => r.getAttribute('fill')))].length,
      };
    }, svgText);
    expect(parsed.error).toBeNull();
    expect(parsed.root).toBe('svg');
    expect(parsed.rects).toBeGreaterThanOrEqual(16);
    expect(parsed.fills).toBeGreaterThan(4); // a heatmap, not one colour
    const shownTexts = await figure.locator('td[data-col]').allTextContents();
    for (const text of [...shownTexts, 'the', 'cat', 'sat', 'down', 'row sum', '100%']) expect(parsed.texts).toContain(text);
    expect(svgText).not.toMatch(/style=/);

    const [pngDownload] = await Promise.all([page.waitForEvent('download'), figure.getByRole('button', { name: 'Save PNG' }).click()]);
    const png = readFileSync((await pngDownload.path())!);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.length).toBeGreaterThan(5000);
    expect(png.readUInt32BE(16)).toBeGreaterThan(300); // width, at twice the SVG's size
    expect(pngDownload.suggestedFilename()).toMatch(/\.png$/);

    // The log-log chart of step 9, serialised with its styles as attributes.
    const chartTools = page.locator('#cost .chart-tools');
    await chartTools.locator('.export-toggle').click();
    const [chartSvg] = await Promise.all([page.waitForEvent('download'), chartTools.getByRole('button', { name: 'Save SVG' }).click()]);
    const chartText = readFileSync((await chartSvg.path())!, 'utf8');
    const chart = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const line = doc.querySelector('polyline');
      return {
        error: doc.querySelector('parsererror') !== null,
        stroke: line?.getAttribute('stroke'),
        classes: doc.querySelectorAll('[class]').length,
        texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
      };
    }, chartText);
    expect(chart.error).toBe(false);
    expect(chart.stroke).toMatch(/^#[0-9a-f]{6}$/);
    expect(chart.classes).toBe(0);
    expect(chart.texts.join(' ')).toMatch(/tokens n \(log scale\)/);
    const [chartPng] = await Promise.all([page.waitForEvent('download'), chartTools.getByRole('button', { name: 'Save PNG' }).click()]);
    expect([...readFileSync((await chartPng.path())!).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);

    // Step 8's attention maps: every map under its caption, the tokens along its top and down its left.
    const gridTools = page.locator('#multi-head .chart-tools').first();
    await gridTools.locator('.export-toggle').click();
    const [gridSvg] = await Promise.all([page.waitForEvent('download'), gridTools.getByRole('button', { name: 'Save SVG' }).click()]);
    const grid = await page.evaluate(
      (text) => {
        const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
        return {
          error: doc.querySelector('parsererror') !== null,
          texts: [...doc.querySelectorAll('text')].map((t) => t.textContent ?? ''),
        };
      },
      readFileSync((await gridSvg.path())!, 'utf8'),
    );
    expect(grid.error).toBe(false);
    const captions = await page.locator('#multi-head .head-map-caption').allTextContents();
    expect(captions.length).toBe((await settingsOf(page)).heads);
    const labels = await page.locator('#multi-head .head-map').first().locator('.head-map-row').allTextContents();
    expect(labels).toEqual(['the', 'cat', 'sat', 'down']);
    for (const caption of captions) {
      const at = grid.texts.indexOf(caption.replace(' · shown', ''));
      expect(at, caption).toBeGreaterThan(0);
      // After each caption: the key tokens, then the query tokens, as the page shows them.
      expect(grid.texts.slice(at + 1, at + 9)).toEqual([...labels, ...labels]);
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test.concurrent('under the strict embed CSP the PNG is refused with a reason, and the SVG still saves', async ({ expect }) => {
    const context = await site.browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${site.server.url}/embed.html?step=softmax&tokens=the+cat+sat+down`);
    expect(await started(page.locator('attention-softmax'))).toBe('true');
    const figure = page.locator('attention-softmax .matrix-figure').first();
    await figure.locator('.export-toggle').click();
    await figure.getByRole('button', { name: 'Save PNG' }).click();
    await textMatching(
      figure.locator('.export-status'),
      /Could not save .*\.png: this page’s Content-Security-Policy does not let images load from blob: URLs/,
    );
    const [download] = await Promise.all([page.waitForEvent('download'), figure.getByRole('button', { name: 'Save SVG' }).click()]);
    expect(readFileSync((await download.path())!, 'utf8')).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    await context.close();
  });
});

describe.concurrent('reading a heatmap in words', () => {
  test('hovering or focusing any cell of any table names it in the readout line under the table', async ({ expect }) => {
    const { page, errors } = await open(FOUR);
    const figures = page.locator('.matrix-figure');
    const count = await figures.count();
    let checked = 0;
    for (let i = 0; i < count; i++) {
      const figure = figures.nth(i);
      if (!(await figure.isVisible())) continue;
      const first = figure.locator('td[data-col]').first();
      if (!(await first.isVisible())) continue;
      await first.hover();
      await nextFrames(page); // the pointer move is delivered with the next frame
      const readout = figure.locator('.matrix-readout');
      expect(await readout.getAttribute('aria-live')).toBe('polite');
      expect(await readout.textContent()).not.toBe('');
      expect(await readout.textContent()).not.toMatch(/NaN|undefined/);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(20);
    // The attention map reads as “query” attends to “key”.
    const map = page.locator('#softmax .matrix-figure').first();
    await map.locator('td[data-row="3"][data-col="1"]').hover();
    await nextFrames(page);
    expect(await map.locator('.matrix-readout').textContent()).toMatch(/^“down” attends to “cat”: \d+%$/);
    // Keyboard: focus a cell of a table that is not selectable, and move.
    const v = page.locator('#weighted-sum .matrix-figure').nth(1);
    await page.mouse.move(0, 0);
    await v.locator('td[data-row="0"][data-col="0"]').focus();
    await page.keyboard.press('ArrowDown');
    expect(await v.locator('.matrix-readout').textContent()).toMatch(/^value of “cat”, dimension 1: /);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  // axe-core takes a minute or more per pass on the whole walkthrough (see a11y.test.ts): a long timeout.
  // One test per scheme, so the two pages' axe runs overlap.
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`axe: no serious or critical violation with edits, a custom mask and predictions, ${colorScheme}`, async ({ expect }) => {
      const context = await site.browser.newContext({ colorScheme, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${site.server.url}/${FOUR}&edits=X.3.2:0.5&mask=window:2`);
      await ready(page);
      await page.locator('#problem .predict-choice').first().click();
      await page.locator('#softmax .export-toggle').first().click();
      await showAllSections(page);
      // The sections this state changes: the edited numbers (step 2), the custom mask (step 7), the open
      // menu (step 5) and every prediction. The rest is the markup walkthrough.test.ts checks whole.
      const ids = await page
        .locator('attention-walkthrough')
        .evaluate((host) =>
          [...host.shadowRoot!.querySelectorAll('section.step')]
            .filter((section) => ['qkv', 'softmax', 'causal'].includes(section.id) || section.querySelector('.predict'))
            .map((section) => section.id),
        );
      expect(ids).toEqual(expect.arrayContaining(['problem', 'qkv', 'softmax', 'causal']));
      const axe = axeFor(page, colorScheme);
      for (const id of ids) axe.include({ fromShadowDom: ['attention-walkthrough', `#${id}`] });
      const results = await axe.analyze();
      expect(results.passes.map((rule) => rule.id)).toContain('color-contrast');
      expect(seriousViolations(results, colorScheme)).toEqual([]);
      await context.close();
    }, 600_000);
  }
});
