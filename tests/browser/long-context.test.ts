// The long-context step as an author embeds it, in Chromium: <attention-long-context> from the embed
// bundle with its window, global-tokens, stride and kv-heads attributes. Each control is driven as a
// reader would; after each, the numbers read from the DOM (cells, distances, the KV cache's scores)
// are checked against the page's own engine (the element's debug handle). Then the measured run, capped
// at n = 1,024 by its test hook: every kernel timed at every size in the worker, and the slopes,
// crossings and memory it prints recomputed from the times the table holds.
import type { Locator } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { crossing } from '../../web/src/features/long-context/run';
import { fitLogLogSlope, type CostKernel } from '../../web/src/features/cost/cost-plan';
import { attributeMatching, collectErrors, hostPage, settled, started, useServerAndBrowser } from './harness';

const ELEMENT =
  '<attention-long-context debug tokens="the model keeps every key of the sentence in its cache while it writes" window="2" global-tokens="1" stride="3" kv-heads="1" controls="none"></attention-long-context>';

const site = useServerAndBrowser({
  serve: {
    routes: {
      '/host.html': {
        body: hostPage(`<h1>Long context</h1>${ELEMENT}`),
      },
    },
  },
});

/** What the DOM shows against what the engine computes for the element's current settings. */
function shownAndComputed(element: Locator) {
  return element.evaluate((el) => {
    interface Tech {
      id: string;
      cells: number;
      maxDifference: number;
      meanDifference: number;
    }
    const root = el.shadowRoot!;
    const snapshot = (
      el as unknown as { debug: { compute(): { longContext: { tokens: number; techniques: Tech[] }; kvCache: Record<string, number> } } }
    ).debug.compute();
    const number = (text: string | null | undefined) => Number((text ?? '').replace(/,/g, ''));
    const rows = snapshot.longContext.techniques.map((t) => {
      const row = root.querySelector(`table.lc-table tr[data-technique="${t.id}"]`)!;
      const cell = (key: string) => row.querySelector(`[data-key="${key}"]`)?.textContent;
      return {
        id: t.id,
        shown: { cells: number(cell('cells')), max: number(cell('max')), mean: number(cell('mean')) },
        computed: { cells: t.cells, max: t.maxDifference, mean: t.meanDifference },
      };
    });
    return {
      tokens: snapshot.longContext.tokens,
      rows,
      inputs: ['window', 'global-tokens', 'stride'].map((name) => (root.querySelector(`input[name="${name}"]`) as HTMLInputElement).value),
      kvSelected: (root.querySelector('select[name="kv-heads"]') as HTMLSelectElement).value,
      kvHeads: snapshot.kvCache.kvHeads,
      kvReading: root.querySelector('.kv-heads-reading')!.textContent!,
      stepReading: root.querySelector('.kv-step-reading')!.textContent!,
      cachedLast: (snapshot.kvCache as unknown as { cachedCells: number[] }).cachedCells.at(-1)!,
    };
  });
}

async function expectMatches(element: Locator) {
  const seen = await shownAndComputed(element);
  for (const row of seen.rows) {
    expect(row.shown.cells, row.id).toBe(row.computed.cells);
    expect(Math.abs(row.shown.max - row.computed.max), row.id).toBeLessThanOrEqual(5e-4);
    expect(Math.abs(row.shown.mean - row.computed.mean), row.id).toBeLessThanOrEqual(5e-4);
  }
  expect(seen.kvSelected).toBe(String(seen.kvHeads));
  expect(seen.stepReading).toContain(`${seen.cachedLast.toLocaleString('en-US')} scores`);
  return seen;
}

async function change(element: Locator, selector: string, value: string) {
  await element.locator(selector).fill(value);
  await element.locator(selector).dispatchEvent('change');
}

describe('<attention-long-context>', () => {
  test('its attributes, each control, and the numbers against the engine', async () => {
    const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = collectErrors(page);
    await page.goto(`${site.server.url}/host.html`);
    const element = page.locator('attention-long-context');
    await element.scrollIntoViewIfNeeded();
    expect(await started(element)).toBe('true');

    const first = await expectMatches(element);
    expect(first.inputs).toEqual(['2', '1', '3']);
    // Not causal: a window of 2 is the diagonal and its two neighbours.
    const n = first.tokens;
    expect(n).toBeGreaterThan(5);
    expect(first.rows.find((r) => r.id === 'window')!.shown.cells).toBe(n + 2 * (n - 1));
    expect(first.kvHeads).toBe(1);

    await change(element, 'input[name="window"]', '5');
    await settled(page, 'attention-long-context');
    const wider = await expectMatches(element);
    expect(wider.rows.find((r) => r.id === 'window')!.shown.cells).toBe(n + 2 * (4 * n - 10));

    await change(element, 'input[name="global-tokens"]', '3');
    await settled(page, 'attention-long-context');
    await change(element, 'input[name="stride"]', '2');
    await settled(page, 'attention-long-context');
    const patterned = await expectMatches(element);
    expect(patterned.inputs).toEqual(['5', '3', '2']);

    await element.locator('select[name="kv-heads"]').selectOption('2');
    await settled(page, 'attention-long-context');
    const grouped = await expectMatches(element);
    expect(grouped.kvHeads).toBe(2);
    expect(grouped.kvReading).toMatch(/multi-head/);

    // The measured run, on the same page load: 256, 512 and 1,024 tokens for all six kernels.
    const run = element.locator('.lc-run');
    expect(await run.locator('.flash-run-results').isHidden()).toBe(true);
    await run.evaluate((el) => {
      (el as HTMLElement).dataset.maxN = '1024';
    });
    await run.locator('.flash-run-start').click();
    expect(await attributeMatching(run, 'data-phase', /^(done|failed|cancelled)$/)).toBe('done');
    expect(site.server.requests.some((path) => /cost-worker[\w-]*\.js$/.test(path))).toBe(true);
    const kernels: CostKernel[] = ['naive', 'tiled', 'window', 'global', 'strided', 'linear'];
    const times = Object.fromEntries(
      await Promise.all(
        kernels.map(async (kernel) => [
          kernel,
          await run
            .locator(`tbody tr td[data-kernel="${kernel}"]`)
            .evaluateAll((cells) =>
              cells.map((td) => [Number(td.closest('tr')!.dataset.n), Number((td as HTMLElement).dataset.ms)] as [number, number]),
            ),
        ]),
      ),
    ) as Record<CostKernel, [number, number][]>;
    for (const kernel of kernels) {
      expect(
        times[kernel].map(([n]) => n),
        kernel,
      ).toEqual([256, 512, 1024]);
      for (const [, ms] of times[kernel]) expect(ms > 0 && Number.isFinite(ms), kernel).toBe(true);
      // The printed slope is the least-squares fit of the table's own times.
      const printed = Number(await run.locator('.flash-run-slope').getAttribute(`data-${kernel}-slope`));
      expect(Math.abs(printed - fitLogLogSlope(times[kernel])!.slope), kernel).toBeLessThanOrEqual(5e-4);
    }
    const wording = {
      always: /faster than full attention at every size/,
      from: /crosses full attention at/,
      extrapolated: /fitted lines cross near/,
      never: /does not cross/,
    };
    for (const kernel of kernels.slice(1)) {
      const found = crossing(times.naive, times[kernel], fitLogLogSlope(times.naive), fitLogLogSlope(times[kernel]));
      expect(found.kind, kernel).not.toBe('pending');
      const sentence = await run.locator(`.lc-run-crossings li[data-kernel="${kernel}"]`).textContent();
      expect(sentence, kernel).toMatch(wording[found.kind as keyof typeof wording]);
    }
    // The stated memory bound holds for what the two engines reached.
    const memory = run.locator('.lc-run-memory');
    const used = Number(await memory.getAttribute('data-used'));
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(Number(await memory.getAttribute('data-bound')));
    expect(await run.innerText()).not.toMatch(/\bNaN\b|undefined|Infinity/);

    // The decode timing, capped at t = 64: the shown model's heads and the chosen 2 KV heads.
    const decode = element.locator('.kv-run');
    await decode.evaluate((el) => {
      (el as HTMLElement).dataset.maxN = '64';
    });
    await decode.locator('.flash-run-start').click();
    expect(await attributeMatching(decode, 'data-phase', /^(done|failed|cancelled)$/)).toBe('done');
    const perToken = (kernel: string) =>
      decode
        .locator(`tbody tr td[data-kernel="${kernel}"]`)
        .evaluateAll((cells) =>
          cells.map((td) => [Number(td.closest('tr')!.dataset.n), Number((td as HTMLElement).dataset.ms)] as [number, number]),
        );
    const [cached, recompute] = [await perToken('cached'), await perToken('recompute')];
    expect(cached.map(([t]) => t)).toEqual([16, 32, 64]);
    expect(recompute.map(([t]) => t)).toEqual([16, 32, 64]);
    const reading = decode.locator('.kv-run-reading');
    expect(Number(await reading.getAttribute('data-t'))).toBe(64);
    expect(Number(await reading.getAttribute('data-speedup'))).toBeCloseTo(recompute[2][1] / cached[2][1], 2);
    const heads = await element.evaluate(
      (el) => (el as unknown as { debug: { compute(): { kvCache: { heads: number } } } }).debug.compute().kvCache.heads,
    );
    expect(await reading.textContent()).toContain(`At token 64 (${heads} heads of dₖ = 64)`);
    expect(await reading.textContent()).toContain(
      heads === 2 ? 'The chosen KV heads are the model’s 2' : `With 2 KV heads the cache is ${heads / 2} times smaller`,
    );
    expect(await decode.innerText()).not.toMatch(/\bNaN\b|undefined|Infinity/);
    expect(errors).toEqual([]);
    await page.close();
  });
});
