// @vitest-environment happy-dom
// The trained model's weights (44 KiB gzipped) come only to a view that shows the trained model
// (needsTrainedWeights in features/trained-model/trained.ts): an element of step 3 with the article's
// example never fetches them, nor step 1 (it shows the reader model); step 8 beside the example fetches
// them at its first drawing; asked for trained weights later, an element fetches them then, and says so
// in place if they cannot come.
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { isLazyStep } from '../../web/src/elements/lazy-step';
import { computeSnapshot } from '../../web/src/compute';
import { hasTrainedWeights, needsTrainedWeights, provideTrainedWeights } from '../../web/src/features/trained-model/trained';
import { DEFAULT_SETTINGS, type Settings } from '../../web/src/settings';
import { whoIsIt, type Snapshot } from '../../web/src/snapshot';
import { WalkthroughState } from '../../web/src/state';
import { STEPS } from '../../web/src/steps/index';
import type { StepDefinition } from '../../web/src/steps/types';
import { mountWalkthrough } from '../../web/src/walkthrough';
import { loadSimdEngine, shippedWeights } from './load-engine';
import { mountStep } from './mount-step';

await Promise.all(STEPS.map((step) => (isLazyStep(step) ? step.load() : null)));
const step = (id: string): StepDefinition => STEPS.find((s) => s.id === id)!;

let withModel: AttentionEngine;
let withoutModel: AttentionEngine;
beforeAll(async () => {
  [withModel, withoutModel] = await Promise.all([loadSimdEngine(), loadSimdEngine()]);
  provideTrainedWeights(withModel, shippedWeights('who-is-it.bin'));
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const snapshots = new Map<string, Snapshot>();
/** What a step alone shows for these settings, computed by this engine (one snapshot per engine and weights). */
function shown(engine: AttentionEngine, definition: StepDefinition, settings: Settings): string {
  const key = `${engine === withModel ? 'with' : 'without'} ${settings.weights}`;
  if (!snapshots.has(key)) snapshots.set(key, computeSnapshot(engine, settings));
  const { body, view } = mountStep(definition);
  view.render(snapshots.get(key)!);
  return body.textContent ?? '';
}

describe('the trained weights, only where a view shows the trained model', () => {
  test('a step needs them exactly when the weights change what it shows', () => {
    const settings = { ...DEFAULT_SETTINGS, weights: 'example' as const };
    for (const definition of STEPS.filter((s) => s.numbers !== 'own')) {
      const needed = needsTrainedWeights('example', [definition]);
      const same = shown(withModel, definition, settings) === shown(withoutModel, definition, settings);
      expect(same, definition.id).toBe(!needed);
    }
    // Random weights show no model; trained weights, every step but a training run of its own.
    expect(needsTrainedWeights('random', STEPS)).toBe(false);
    expect(STEPS.filter((s) => needsTrainedWeights('trained', [s])).map((s) => s.id)).toEqual(
      STEPS.filter((s) => s.id !== 'train').map((s) => s.id),
    );
    expect(needsTrainedWeights('example', [step('train')])).toBe(false);
    expect(needsTrainedWeights('example', STEPS)).toBe(true);
  });

  /** Step 3 alone, as <attention-scores> mounts it, on an engine without the trained weights; `fetch` answers with `respond`. */
  async function scoresAlone(respond: () => Response) {
    const engine = await loadSimdEngine();
    const fetched: string[] = [];
    vi.stubGlobal('fetch', (url: string | URL) => {
      fetched.push(String(url));
      return Promise.resolve(respond());
    });
    const root = document.createElement('div');
    document.body.replaceChildren(root);
    const state = new WalkthroughState(false, {});
    const walkthrough = mountWalkthrough({ root, engine, state, steps: [step('scores')] });
    await walkthrough.updateComplete;
    return { engine, fetched, root, state, walkthrough };
  }

  // The failure first: a download that succeeded is kept for the page (model/fetch-once.ts).
  test('if they cannot come, it says why in place and keeps showing what it showed', async () => {
    const { engine, root, state, walkthrough } = await scoresAlone(() => new Response('missing', { status: 404 }));
    state.update({ weights: 'trained' });
    await walkthrough.updateComplete;
    expect(hasTrainedWeights(engine)).toBe(false);
    expect(state.settings.weights).toBe('example');
    expect(walkthrough.snapshot!.settings.weights).toBe('example');
    expect(root.textContent).toContain(
      'The trained model could not be loaded (the trained weights could not be downloaded: the server answered 404).',
    );
    expect(root.textContent).not.toMatch(/\bNaN\b/);
  });

  /** A walkthrough of these steps with the article's example, on an engine without the trained weights. */
  async function walkthroughOf(ids: string[], status = 200) {
    const engine = await loadSimdEngine();
    const fetched: string[] = [];
    vi.stubGlobal('fetch', (url: string | URL) => {
      fetched.push(String(url));
      const file = String(url).split('/').at(-1)!;
      if (status !== 200) return Promise.resolve(new Response('missing', { status }));
      return Promise.resolve(new Response(new Blob([shippedWeights(file) as Uint8Array<ArrayBuffer>])));
    });
    const root = document.createElement('div');
    document.body.replaceChildren(root);
    const walkthrough = mountWalkthrough({ root, engine, state: new WalkthroughState(false, {}), steps: ids.map(step) });
    await walkthrough.updateComplete;
    return { engine, fetched, root, walkthrough };
  }

  test('beside the example, a step from multi-head on whose weights cannot come says why and shows random weights, named', async () => {
    const { engine, root, walkthrough } = await walkthroughOf(['problem', 'multi-head'], 404);
    expect(hasTrainedWeights(engine)).toBe(false);
    expect(walkthrough.snapshot!.settings.weights).toBe('example');
    expect(root.textContent).toContain(
      'The trained model could not be loaded (the trained weights could not be downloaded: the server answered 404): the steps that show the sentence use random weights instead.',
    );
    const sentence = walkthrough.snapshot!.sentence!;
    expect(sentence.settings.weights).toBe('random');
    expect(root.querySelector('#multi-head .worked-example-text')!.textContent).toContain(
      `random weights (seed ${sentence.settings.seed})`,
    );
    expect(root.textContent).not.toMatch(/\bNaN\b/);
  });

  test('an element of step 3 fetches them only once it is asked for trained weights, then shows the model', async () => {
    const { engine, fetched, state, walkthrough } = await scoresAlone(
      () => new Response(new Blob([shippedWeights('who-is-it.bin') as Uint8Array<ArrayBuffer>])),
    );
    expect(walkthrough.snapshot!.settings.weights).toBe('example');
    expect(walkthrough.snapshot!.tokens).toHaveLength(4);
    expect(fetched).toEqual([]);
    expect(hasTrainedWeights(engine)).toBe(false);

    state.update({ weights: 'trained' });
    await walkthrough.updateComplete;
    expect(fetched.filter((url) => url.endsWith('who-is-it.bin'))).toHaveLength(1);
    expect(hasTrainedWeights(engine)).toBe(true);
    const { settings, pipeline } = walkthrough.snapshot!;
    const trained = whoIsIt(walkthrough.snapshot!.trained);
    expect(settings.weights).toBe('trained');
    expect(trained?.origin).toBe('shipped');
    // The trained model's own shape, read from the file just fetched.
    expect([pipeline.dModel, pipeline.heads]).toEqual([trained!.model.dModel, trained!.model.heads]);
  });

  test('step 1 shows the reader model: with the example it never fetches them; a step from multi-head on fetches them at its first drawing', async () => {
    const alone = await walkthroughOf(['problem', 'scores']);
    expect(alone.fetched.filter((url) => url.endsWith('who-is-it.bin'))).toEqual([]);
    expect(hasTrainedWeights(alone.engine)).toBe(false);

    // (The download itself is shared by the page, so an earlier test's may serve it: the engine's weights tell.)
    const withHeads = await walkthroughOf(['problem', 'multi-head']);
    expect(hasTrainedWeights(withHeads.engine)).toBe(true);
    // Step 8 draws the trained model, computed once the weights came.
    const sentence = withHeads.walkthrough.snapshot!.sentence!;
    expect(whoIsIt(sentence.trained)?.origin).toBe('shipped');
    expect(withHeads.root.querySelector<HTMLElement>('.trained-heads')!.hidden).toBe(false);
  });
});
