// Memory: the page's own UI path, run many times, leaves the wasm heap and the JS heap flat.
//   - 10,000 computeSnapshot() calls through the page's engine (the element's test hook), cycling
//     through settings that change every engine input (sentence, d_model, heads, mask, scaling, seed);
//   - 320 full UI updates: state.update -> FrameScheduler -> computeSnapshot -> every step's render().
// How few is enough: malloc's live bytes (mallinfo, exact to the byte) must be exactly what they were
// after the warm-up, at every checkpoint, so a wasm leak of a single byte anywhere in the cycle fails
// (100,000 calls with 64 KiB allowed used to let a leak of up to 0.65 bytes a call through). The JS
// heap after gc() is not exact (its code and feedback grow and shrink by tens of KiB), so it keeps the
// per-call allowance the 100,000-call run had: 2 MiB per 100,000 calls. The UI run keeps its 320
// updates and 2 MiB: there the JS heap moves by a few hundred KiB between checkpoints and still grows
// for a while after the warm-up, so fewer updates with a proportionally smaller allowance would be
// flaky. The DOM's element count, like malloc's, must be exactly equal at every checkpoint.
// Chromium runs with --js-flags=--expose-gc (gc() before each measurement) and
// --enable-precise-memory-info (performance.memory is exact, not bucketed).
import type { Page } from 'playwright-core';
import { describe, test } from 'vitest';
import { collectErrors, goLive, useServerAndBrowser } from './harness';

/** A multiple of the 40-setting cycle (and of CHUNK), so every checkpoint is at the cycle's start. */
const COMPUTE_CALLS = Number(process.env.MEMORY_COMPUTE_CALLS ?? 10_000);
/** Calls between checkpoints: 50 cycles. */
const CHUNK = 2_000;
/** A multiple of the 40-setting cycle, so the page ends on the setting it started from. */
const UI_UPDATES = 320;
/** JS heap growth allowed per call and per update: 2 MiB over 100,000 calls and over 320 updates, as before. */
const JS_PER_CALL = (2 * 2 ** 20) / 100_000;
const JS_PER_UPDATE = (2 * 2 ** 20) / 320;

const site = useServerAndBrowser({ launchArgs: ['--js-flags=--expose-gc', '--enable-precise-memory-info'] });

interface Measure {
  jsHeap: number;
  wasmAllocated: number;
  wasmMemory: number;
  domNodes: number;
}

declare global {
  interface Window {
    gc(): void;
  }
  interface Performance {
    memory: { usedJSHeapSize: number };
  }
}

/** The walkthrough's debug property (with the `debug` attribute set) and a cycle of settings that differ in every engine input. */
const PAGE_HELPERS = `
window.__hooks = () => { const element = document.querySelector('attention-walkthrough'); element.setAttribute('debug', ''); return element.debug; };
window.__cycle = (() => {
  const base = document.querySelector('attention-walkthrough').config;
  const sentences = ['The animal crossed the road because it was tired.', 'a cat sat', 'the quick brown fox jumps over the lazy dog again and again', 'it'];
  // The trained model's shape is its own (d_model 32, 2 heads); the others are random weights.
  const shapes = [[8, 2, 'random'], [16, 4, 'random'], [32, 2, 'trained'], [12, 3, 'random'], [16, 1, 'random']];
  const list = [];
  // As a reader works: runs of sentence, mask and scaling changes; every 8th change a new shape and seed.
  for (let i = 0; i < 40; i++) {
    const [dModel, heads, weights] = shapes[Math.floor(i / 8) % shapes.length];
    list.push({ ...base, weights, sentence: sentences[i % sentences.length], dModel, heads, head: i % heads, causal: i % 3 === 0, scale: i % 7 !== 0, seed: 1 + Math.floor(i / 8) });
  }
  return list;
})();
window.__measure = async () => {
  for (let i = 0; i < 3; i++) { window.gc(); await new Promise((r) => setTimeout(r, 20)); }
  const roots = [document];
  for (let i = 0; i < roots.length; i++) for (const node of roots[i].querySelectorAll('*')) if (node.shadowRoot) roots.push(node.shadowRoot);
  const stats = window.__hooks().engine.heapStats();
  return { jsHeap: performance.memory.usedJSHeapSize, wasmAllocated: stats.allocatedBytes, wasmMemory: stats.memoryBytes, domNodes: roots.reduce((n, r) => n + r.querySelectorAll('*').length, 0) };
};`;

async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}/index.html`);
  await goLive(page);
  // What the page loads after going live (step 1's reader model and alias table, ~2.7 MB of wasm heap;
  // in idle time the small trained model) is in before anything is measured.
  await page.locator('#problem .reader-figure[data-status="ready"]').waitFor({ state: 'attached' });
  await page.waitForFunction(() => {
    const trained = window.attentionWalkthrough?.result.trained;
    return trained !== null && trained !== undefined && 'resolving' in trained;
  });
  await page.evaluate(PAGE_HELPERS);
  return { page, errors };
}

/** Runs `count` computeSnapshot calls in the page, keeping nothing. Returns the time taken. */
function computeMany(page: Page, start: number, count: number): Promise<number> {
  return page.evaluate(
    ({ start, count }) => {
      const w = window as unknown as { __hooks(): { compute(s: unknown): { pipeline: { n: number } } }; __cycle: unknown[] };
      const hooks = w.__hooks();
      const t0 = performance.now();
      let check = 0;
      for (let i = start; i < start + count; i++) check += hooks.compute(w.__cycle[i % w.__cycle.length]).pipeline.n;
      if (check <= 0) throw new Error('no snapshot');
      return performance.now() - t0;
    },
    { start, count },
  );
}

/** One full UI update: state.update, the frame that computes and draws it, then every other step drawn too. */
function uiUpdates(page: Page, start: number, count: number): Promise<void> {
  return page.evaluate(
    async ({ start, count }) => {
      const w = window as unknown as { __hooks(): { update(s: unknown): void; flush(): void }; __cycle: unknown[] };
      const element = document.querySelector('attention-walkthrough')!;
      for (let i = start; i < start + count; i++) {
        const drawn = new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`update ${i} was not drawn`)), 20_000);
          element.addEventListener(
            'attention-change',
            () => {
              clearTimeout(timer);
              resolve();
            },
            { once: true },
          );
        });
        w.__hooks().update(w.__cycle[i % w.__cycle.length]);
        await drawn;
        w.__hooks().flush(); // steps off screen are otherwise drawn in idle time: draw every one, every time
      }
    },
    { start, count },
  );
}

const measure = (page: Page) => page.evaluate(() => (window as unknown as { __measure(): Promise<Measure> }).__measure());
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;

// The two tests have a page (a renderer process, with its own heaps) each and keep one core busy each:
// run side by side, they take both cores.
describe.concurrent('memory over long sessions', () => {
  test(`${COMPUTE_CALLS} recomputes through the page's engine leave the wasm heap and the JS heap flat`, async ({ expect }) => {
    const { page, errors } = await openPage();
    expect(await page.evaluate(() => typeof window.gc === 'function' && performance.memory.usedJSHeapSize > 0)).toBe(true);
    // Warm-up: every setting of the cycle, so the wasm memory has grown to its working size.
    await computeMany(page, 0, 2_000);
    const before = await measure(page);
    let ms = 0;
    const wasmAtCheckpoints: number[][] = [];
    let after = before;
    for (let done = 0; done < COMPUTE_CALLS; done += CHUNK) {
      ms += await computeMany(page, done, Math.min(CHUNK, COMPUTE_CALLS - done));
      after = await measure(page);
      wasmAtCheckpoints.push([after.wasmAllocated, after.wasmMemory]);
    }
    console.log(
      `[memory] ${COMPUTE_CALLS} computeSnapshot calls in ${(ms / 1000).toFixed(1)} s: JS heap ${mib(before.jsHeap)} -> ${mib(after.jsHeap)}, ` +
        `wasm malloc'd ${before.wasmAllocated} -> ${after.wasmAllocated} bytes, wasm memory ${mib(before.wasmMemory)} -> ${mib(after.wasmMemory)}`,
    );
    // Every checkpoint: not a byte more or less malloc'd, not a page more wasm memory.
    expect(wasmAtCheckpoints).toEqual(wasmAtCheckpoints.map(() => [before.wasmAllocated, before.wasmMemory]));
    expect(after.jsHeap - before.jsHeap).toBeLessThanOrEqual(JS_PER_CALL * COMPUTE_CALLS);
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);

  test(`${UI_UPDATES} full UI updates (state -> scheduler -> compute -> every step rendered) leave both heaps and the DOM flat`, async ({
    expect,
  }) => {
    const { page, errors } = await openPage();
    await uiUpdates(page, 0, 80); // warm-up: every setting drawn twice
    const before = await measure(page);
    const middle = (await uiUpdates(page, 80, UI_UPDATES / 2), await measure(page));
    await uiUpdates(page, 80 + UI_UPDATES / 2, UI_UPDATES / 2); // ends on the setting the warm-up ended on: same figures, same DOM
    const after = await measure(page);
    console.log(
      `[memory] ${UI_UPDATES} UI updates: JS heap ${mib(before.jsHeap)} -> ${mib(after.jsHeap)}, wasm malloc'd ${before.wasmAllocated} -> ${after.wasmAllocated}, ` +
        `wasm memory ${mib(before.wasmMemory)} -> ${mib(after.wasmMemory)}, DOM elements ${before.domNodes} -> ${after.domNodes}`,
    );
    for (const checkpoint of [middle, after]) {
      expect(checkpoint.wasmMemory).toBe(before.wasmMemory);
      expect(checkpoint.wasmAllocated).toBe(before.wasmAllocated);
      expect(checkpoint.domNodes).toBe(before.domNodes);
    }
    expect(after.jsHeap - before.jsHeap).toBeLessThanOrEqual(JS_PER_UPDATE * UI_UPDATES);
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);
});
