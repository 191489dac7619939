// @vitest-environment happy-dom
// The engine's later module (the tiled kernel, the long-context kernels, the KV cache: CMakeLists.txt)
// is not part of going live: the walkthrough fetches it when a step that draws its kernels is first
// drawn. Before it is there, the snapshot computes everything else and leaves those steps' numbers out,
// saying so, and its calls refuse with a message; a failed download says why in the step's place, and
// a later try loads it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { computeSnapshot, withLaterKernels } from '../../web/src/compute';
import { createEngine, EngineError } from '../../web/src/engine/engine';
import { linearAttention } from '../../web/src/engine/long-context';
import { isLazyStep, loadFailureMessage } from '../../web/src/elements/lazy-step';
import { DEFAULT_SETTINGS, validateSettings } from '../../web/src/settings';
import { LATER_KERNELS_LOADING } from '../../web/src/snapshot';
import { WalkthroughState } from '../../web/src/state';
import { STEPS } from '../../web/src/steps/index';
import { mountWalkthrough } from '../../web/src/walkthrough';
import { generatedDir, loadSimdEngine } from './load-engine';
import { provideTrainedWeights } from '../../web/src/features/trained-model/trained';
import { plainSnapshot, SHIPPED_WEIGHTS } from './fixtures';
import { mountStep } from './mount-step';

const coreBytes = readFileSync(resolve(generatedDir, 'attention_engine.wasm'));
const laterBytes = readFileSync(resolve(generatedDir, 'attention_engine_later.wasm'));
const LATER_URL = 'https://example.test/assets/attention_engine_later.wasm';
const NOT_FOUND = 'the engine file attention_engine_later.wasm could not be downloaded: the server answered 404 Not Found';

afterEach(() => {
  vi.unstubAllGlobals();
});

/** `fetch` answers every request with `respond()`, and records the URLs. */
function stubFetch(respond: () => Response): string[] {
  const fetched: string[] = [];
  vi.stubGlobal('fetch', (url: string | URL) => {
    fetched.push(String(url));
    return Promise.resolve(respond());
  });
  return fetched;
}

const notFound = () => new Response('missing', { status: 404, statusText: 'Not Found' });

describe('the engine before and after its later module', () => {
  test('without it the snapshot has every other number and says the later steps are loading; with it, theirs too', async () => {
    const engine = await loadSimdEngine({ later: false });
    expect(engine.hasLater).toBe(false);
    const { settings } = validateSettings({ weights: 'random', heads: 2 }, DEFAULT_SETTINGS);
    const before = computeSnapshot(engine, settings);
    expect(before.flash).toEqual({ tokens: 9, trace: null, prefixNaive: null, unavailable: LATER_KERNELS_LOADING });
    expect([before.longContext, before.kvCache]).toEqual([null, null]);
    const Q = { rows: 9, cols: before.pipeline.dK, data: before.pipeline.Q_heads.data.slice(0, 9 * before.pipeline.dK) };
    expect(() => engine.flashTrace(Q, Q, Q, { blockQ: 4, blockK: 4 })).toThrow(
      /^flashTrace\(\) is in the engine’s later module, which is not loaded yet/,
    );
    expect(() => linearAttention(engine, Q, Q, Q)).toThrow(EngineError);
    expect(engine.crashed).toBe(false);
    // Drawn before the module is here, the two steps say so in a plain line (not an error), and print no number.
    await Promise.all(STEPS.map((step) => (isLazyStep(step) ? step.load() : null)));
    const flash = mountStep(STEPS.find((step) => step.id === 'flash')!);
    flash.view.render(before);
    const waiting = flash.body.querySelector<HTMLElement>('.flash-unavailable')!;
    expect([waiting.hidden, waiting.textContent, waiting.classList.contains('load-error')]).toEqual([false, LATER_KERNELS_LOADING, false]);
    const longContext = mountStep(STEPS.find((step) => step.id === 'long-context')!);
    longContext.view.render(before);
    expect(longContext.body.querySelector('.lc-reading')!.textContent).toBe(LATER_KERNELS_LOADING);
    expect(longContext.body.textContent).not.toMatch(/\bNaN\b|undefined/);

    await engine.loadLater();
    expect(engine.hasLater).toBe(true);
    const after = computeSnapshot(engine, settings);
    // The core's numbers are the same; the later steps' are there now, on the same 9 tokens.
    expect(after.pipeline.weights.data).toEqual(before.pipeline.weights.data);
    expect(after.flash.unavailable).toBeNull();
    expect(after.flash.trace!.nQ).toBe(9);
    expect(after.flash.trace!.queryBlocks).toBe(Math.ceil(9 / settings.block));
    expect(after.longContext!.tokens).toBe(9);
    expect(after.kvCache!.cachedCells).toHaveLength(9);
  });

  test('withLaterKernels completes a snapshot made before the module as computing again would, the rest by reference', async () => {
    const engine = await loadSimdEngine({ later: false });
    provideTrainedWeights(engine, SHIPPED_WEIGHTS);
    const changes = [{}, { weights: 'random', heads: 2 }, { weights: 'trained', causal: true }] as const;
    const before = changes.map((change) => computeSnapshot(engine, validateSettings(change, DEFAULT_SETTINGS).settings));
    for (const s of before) expect(withLaterKernels(engine, s)).toBe(s); // nothing arrived: the same snapshots
    await engine.loadLater();
    for (const [i, first] of before.entries()) {
      const completed = withLaterKernels(engine, first);
      const again = computeSnapshot(engine, first.settings);
      expect(plainSnapshot(completed), JSON.stringify(changes[i])).toEqual(plainSnapshot(again));
      expect(completed.longContext).not.toBeNull();
      expect(completed.flash.trace).not.toBeNull();
      // Beside the example, the top level's long-context numbers are the sentence's.
      if (completed.sentence) expect(completed.longContext).toBe(completed.sentence.longContext);
      expect(completed.pipeline).toBe(first.pipeline);
      expect(completed.dots).toBe(first.dots);
      expect(completed.reader).toBe(first.reader);
      expect(withLaterKernels(engine, completed)).toBe(completed);
    }
  });

  test('a failed download is an EngineError that says why, and the next try loads it', async () => {
    let respond = notFound;
    const fetched = stubFetch(() => respond());
    const engine = await createEngine({ wasmBinary: coreBytes, laterWasmUrl: LATER_URL });
    expect(fetched).toEqual([]); // going live fetches the core only
    await expect(engine.loadLater()).rejects.toThrow(NOT_FOUND);
    expect(engine.hasLater).toBe(false);
    respond = () => new Response(new Blob([laterBytes as Uint8Array<ArrayBuffer>]));
    await Promise.all([engine.loadLater(), engine.loadLater()]);
    expect(engine.hasLater).toBe(true);
    expect(fetched).toEqual([LATER_URL, LATER_URL]); // once per try, shared by concurrent callers
  });

  test('bytes that are not WebAssembly are named as such', async () => {
    await expect(createEngine({ wasmBinary: coreBytes, laterWasmBinary: new TextEncoder().encode('<!doctype html>') })).rejects.toThrow(
      /^the engine file attention_engine_later\.wasm is not WebAssembly/,
    );
  });
});

describe('the walkthrough asks for it when a step that needs it is first drawn', () => {
  test('only the steps whose kernels are in it ask', () => {
    expect(STEPS.filter((step) => step.later).map((step) => step.id)).toEqual(['flash', 'long-context']);
  });

  test('a failed download leaves the step’s line in place with the reason, and the other steps live', async () => {
    await Promise.all(STEPS.map((step) => (isLazyStep(step) ? step.load() : null)));
    const fetched = stubFetch(notFound);
    const engine = await createEngine({ wasmBinary: coreBytes, laterWasmUrl: LATER_URL });
    const root = document.createElement('div');
    document.body.replaceChildren(root);
    const steps = STEPS.filter((step) => ['scores', 'flash'].includes(step.id));
    const state = new WalkthroughState(false, { weights: 'random' });
    const walkthrough = mountWalkthrough({ root, engine, state, steps });
    await walkthrough.updateComplete;
    await vi.waitFor(() => expect(fetched).toEqual([LATER_URL]), { timeout: 5000 });
    const flash = steps.find((step) => step.id === 'flash')!;
    const message = loadFailureMessage(flash, new EngineError(NOT_FOUND), false);
    await vi.waitFor(() => expect(root.querySelector('section[data-step="flash"]')?.textContent).toContain(message), { timeout: 5000 });
    // Step 3 is live and drawn from the core's snapshot.
    expect(walkthrough.snapshot!.longContext).toBeNull();
    expect(root.querySelector('section[data-step="scores"]')?.textContent).not.toMatch(/could not load|\bNaN\b/);
  });
});
