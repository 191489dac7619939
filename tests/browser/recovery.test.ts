// The engine never stays broken. A real out-of-memory: the test makes the browser refuse to grow the
// wasm memory (WebAssembly.Memory.prototype.grow throws, as when the tab is out of address space), so
// malloc fails inside the C++ and the instance aborts with a RuntimeError. The page must then re-create
// the instance (engine.restart(), i.e. a fresh instantiation of the compiled module), say so in its
// notice area, and either compute the settings again or go back to the last ones it could draw.
// Also: sizes over the page's memory budget are refused before anything is allocated, with a message
// that offers the tiled kernel.
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { collectErrors, goLive, hostPage, settled, started, useServerAndBrowser } from './harness';

/** 128 distinct words, d_model 512, 64 heads: about 30 MB of working memory, over the initial 16 MiB. */
const HEAVY = { sentence: Array.from({ length: 128 }, (_, i) => `w${i}`).join(' '), dModel: 512, heads: 64, head: 0 };

const site = useServerAndBrowser({
  serve: {
    routes: {
      '/host.html': {
        body: hostPage(`<attention-scores tokens="a b c"></attention-scores><attention-softmax tokens="x y z"></attention-softmax>`),
      },
    },
  },
});

type Hooks = {
  engine: { crashed: boolean; restarts: number; heapStats(): { memoryBytes: number } };
  compute(s?: unknown): unknown;
  update(change: unknown): void;
};

/**
 * Installs a switch for grow(): window.__refuseMemory = 'current' fails every grow of the memory that
 * first asks (the running instance; a restarted instance has a new memory and may grow), 'all' fails
 * every grow of any memory, 'none' lets them through.
 */
const REFUSE_MEMORY = `
window.__refuseMemory = 'none';
let doomed = null;
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (pages) {
  if (window.__refuseMemory === 'current') doomed ??= this;
  if (window.__refuseMemory === 'all' || (window.__refuseMemory === 'current' && this === doomed))
    throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
  return grow.call(this, pages);
};`;

const refuse = (page: Page, mode: 'none' | 'current' | 'all') =>
  page.evaluate((m) => ((window as unknown as { __refuseMemory: string }).__refuseMemory = m), mode);

async function openWalkthrough(): Promise<{ page: Page; errors: string[] }> {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = collectErrors(page);
  await page.addInitScript(REFUSE_MEMORY);
  await page.addInitScript(HOOKS_HELPER);
  await page.goto(`${site.server.url}/index.html`);
  await goLive(page);
  // What the page loads after going live (step 1's reader model and alias table; in idle time, the small
  // trained model for step 8 on) is in before the memory is refused, so the out-of-memory the tests make is
  // the settings', not a download finishing late.
  await page.locator('#problem .reader-figure[data-status="ready"]').waitFor({ state: 'attached' });
  await page.waitForFunction(() => {
    const trained = window.attentionWalkthrough?.result.trained;
    return trained !== null && trained !== undefined && 'resolving' in trained;
  });
  await settled(page);
  return { page, errors };
}

const hooksOf = (selector: string) => selector;
/** In the page: the element's debug property (AttentionElement.debug, with the `debug` attribute set). */
declare global {
  interface Window {
    __hooks(selector: string): Hooks;
  }
}
const HOOKS_HELPER = `window.__hooks = (selector) => { const element = document.querySelector(selector); element.setAttribute('debug', ''); return element.debug; };`;
const notices = (page: Page, selector = 'attention-walkthrough') => page.locator(`${selector} .notices`).innerText();
const config = (page: Page, selector = 'attention-walkthrough') =>
  page.evaluate(
    (s) => (document.querySelector(s) as unknown as { config: { dModel: number; heads: number; sentence: string } }).config,
    selector,
  );
const engineState = (page: Page, selector = 'attention-walkthrough') =>
  page.evaluate((expression) => {
    const hooks = window.__hooks(expression);
    return { crashed: hooks.engine.crashed, restarts: hooks.engine.restarts };
  }, hooksOf(selector));

describe('after the wasm instance runs out of memory', () => {
  test('once: the engine is restarted, the page says so, and the settings are computed after all', async () => {
    const { page, errors } = await openWalkthrough();
    await refuse(page, 'current');
    await page.evaluate(({ hooks, heavy }) => window.__hooks(hooks).update(heavy), {
      hooks: hooksOf('attention-walkthrough'),
      heavy: HEAVY,
    });
    await settled(page); // the restart, then the settings computed again and drawn
    expect(await notices(page)).toMatch(/The engine stopped \(.*\) and was restarted; your settings were computed again/);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.pipeline.n)).toBe(128);
    expect(await config(page)).toMatchObject({ dModel: 512, heads: 64 });
    expect(await engineState(page)).toEqual({ crashed: false, restarts: 1 });
    const text = await page.locator('attention-walkthrough section.step').allInnerTexts();
    expect(text.join(' ')).not.toMatch(/\bNaN\b|Infinity|undefined/);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('twice on the same settings: restarted again, back to the last settings that drew, and the page says why', async () => {
    const { page, errors } = await openWalkthrough();
    const previous = await config(page);
    await refuse(page, 'all'); // no more memory for any instance
    await page.evaluate(({ hooks, heavy }) => window.__hooks(hooks).update(heavy), {
      hooks: hooksOf('attention-walkthrough'),
      heavy: HEAVY,
    });
    await settled(page); // two restarts, then back to the previous settings, drawn
    expect(await notices(page)).toMatch(
      /ran out of memory twice on d_model 512, 64 heads, so it was restarted and these settings were left out/,
    );
    expect(await notices(page)).toMatch(/The figures still show your previous settings \(the article’s four-token example\)/);
    expect(await config(page)).toEqual(previous);
    expect(await page.evaluate(() => location.href)).not.toContain('d_model=512');
    expect(await engineState(page)).toEqual({ crashed: false, restarts: 2 });
    // The page still works, with the restarted instance.
    await refuse(page, 'none');
    await page.locator('input[name="causal"]').check();
    await settled(page);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.settings.causal)).toBe(true);
    await page.evaluate(({ hooks, heavy }) => window.__hooks(hooks).update(heavy), {
      hooks: hooksOf('attention-walkthrough'),
      heavy: HEAVY,
    });
    await settled(page);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.pipeline.n)).toBe(128);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('elements sharing the engine: one crashes, all keep working after the restart', async () => {
    const page = await site.browser.newPage();
    const errors = collectErrors(page);
    await page.addInitScript(REFUSE_MEMORY);
    await page.addInitScript(HOOKS_HELPER);
    await page.goto(`${site.server.url}/host.html`);
    for (const tag of ['attention-scores', 'attention-softmax']) expect(await started(page.locator(tag))).toBe('true');
    await refuse(page, 'current');
    await page.evaluate((heavy) => {
      const scores = document.querySelector('attention-scores')!;
      scores.setAttribute('d-model', String(heavy.dModel));
      scores.setAttribute('heads', String(heavy.heads));
      scores.setAttribute('tokens', heavy.sentence);
    }, HEAVY);
    await settled(page, 'attention-scores');
    expect(await notices(page, 'attention-scores')).toMatch(/was restarted/);
    expect(
      await page.evaluate(
        () => (document.querySelector('attention-scores') as unknown as { result: { pipeline: { n: number } } }).result.pipeline.n,
      ),
    ).toBe(128);
    // The other element computes with the same, restarted engine.
    await page.evaluate(() => document.querySelector('attention-softmax')!.setAttribute('tokens', 'one two three four'));
    await settled(page, 'attention-softmax');
    expect(
      await page.evaluate(
        () => (document.querySelector('attention-softmax') as unknown as { result: { pipeline: { n: number } } }).result.pipeline.n,
      ),
    ).toBe(4);
    expect(await engineState(page, 'attention-softmax')).toEqual({ crashed: false, restarts: 1 });
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('the memory budget in the page', () => {
  test('the largest settings the page accepts fit the budget; over-budget engine calls are refused before allocating, offering the tiled kernel', async () => {
    const { page, errors } = await openWalkthrough();
    const outcome = await page.evaluate((selector) => {
      type Engine = {
        heapStats(): { memoryBytes: number; allocatedBytes: number };
        attention(...args: unknown[]): unknown;
        pipeline(config: unknown): { n: number };
      };
      const h = window.__hooks(selector) as unknown as { engine: Engine; compute(s: unknown): { pipeline: { n: number; heads: number } } };
      const base = (document.querySelector(selector) as unknown as { config: object }).config;
      // The two largest snapshots the page makes, both 2^20 weights per table at d_model 512 (its maximum):
      // 128 tokens with 64 heads, and 256 tokens (600 words are cut to 256) with 16 heads.
      const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`).join(' ');
      const most = h.compute({ ...base, weights: 'random', sentence: words(128), dModel: 512, heads: 64, head: 0 });
      const longest = h.compute({ ...base, weights: 'random', sentence: words(600), dModel: 512, heads: 16, head: 0 });
      const before = h.engine.heapStats();
      const column = (rows: number) => ({ rows, cols: 1, data: new Float32Array(rows) });
      const messages: string[] = [];
      const attempts: (() => unknown)[] = [
        () => h.engine.attention(column(16384), column(8192), column(8192)),
        () => h.engine.attention(column(16385), column(16385), column(16385)),
        () => h.engine.pipeline({ tokens: new Array(600).fill('w'), dModel: 8, heads: 1 }),
        () => h.engine.pipeline({ tokens: new Array(400).fill('w'), dModel: 64, heads: 64 }),
      ];
      for (const attempt of attempts) {
        try {
          attempt();
          messages.push('computed');
        } catch (error) {
          messages.push(`${(error as Error).name}: ${(error as Error).message}`);
        }
      }
      const after = h.engine.heapStats();
      return {
        shapes: [
          [most.pipeline.n, most.pipeline.heads],
          [longest.pipeline.n, longest.pipeline.heads],
        ],
        messages,
        grew: after.memoryBytes - before.memoryBytes,
        allocated: after.allocatedBytes - before.allocatedBytes,
      };
    }, 'attention-walkthrough');
    expect(outcome).toMatchObject({
      shapes: [
        [128, 64],
        [256, 16],
      ],
      grew: 0,
      allocated: 0,
    });
    expect(outcome.messages).toEqual([
      'EngineError: the 16384 x 8192 score matrix would exceed the memory budget of 64M entries; use the tiled (FlashAttention-style) kernel',
      'EngineError: sequence length is limited to 16384 tokens',
      'EngineError: the walkthrough shows at most 512 tokens (got 600)',
      "EngineError: heads x n x n = 10240000 attention weights would exceed the walkthrough's budget of 2097152",
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
