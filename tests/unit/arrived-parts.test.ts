// @vitest-environment happy-dom
// A snapshot handed out again with one part new (snapshot.ts ArrivedPart: step 1's reader model, the
// engine's later module, the trained weights beside the article's example) is drawn again only in the steps that show that part, as their definitions
// say (walkthrough.ts partsShown); the others keep what they drew for the snapshot it repeats. So every
// other step must draw exactly the same page for the repeat: checked here step by step, on the real
// engine, at the default settings (the article's example beside the sentence), trained and causal; and
// the repeat must hold what computing its settings again would.
import { beforeAll, describe, expect, test } from 'vitest';
import { computeSnapshot, withArrivedReader, withLaterKernels, withTrainedWeights } from '../../web/src/compute';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { isLazyStep } from '../../web/src/elements/lazy-step';
import { provideTrainedWeights } from '../../web/src/features/trained-model/trained';
import { DEFAULT_SETTINGS, validateSettings, type Settings } from '../../web/src/settings';
import type { ArrivedPart, Snapshot } from '../../web/src/snapshot';
import { STEPS } from '../../web/src/steps/index';
import { partsShown } from '../../web/src/walkthrough';
import { plainSnapshot, SHIPPED_WEIGHTS } from './fixtures';
import { loadSimdEngine, provideShippedReader } from './load-engine';
import { mountStep } from './mount-step';

beforeAll(async () => {
  await Promise.all(STEPS.map((step) => (isLazyStep(step) ? step.load() : null)));
});

/** An engine with the who-is-it weights and, unless `without` names them, the later module and both reader models. */
async function engineWithout(without: ArrivedPart): Promise<AttentionEngine> {
  const engine = await loadSimdEngine({ later: without !== 'later' });
  if (without !== 'weights') arrive(engine, 'weights');
  if (without !== 'reader') arrive(engine, 'reader');
  return engine;
}

function arrive(engine: AttentionEngine, part: ArrivedPart): Promise<void> | void {
  if (part === 'later') return engine.loadLater();
  if (part === 'weights') return provideTrainedWeights(engine, SHIPPED_WEIGHTS);
  for (const causal of [false, true]) provideShippedReader(engine, causal);
}

const COMPLETE = { reader: withArrivedReader, later: withLaterKernels, weights: withTrainedWeights } as const;

const SETTINGS: [string, Partial<Settings>][] = [
  ['default', {}],
  ['trained', { weights: 'trained' }],
  ['causal', { weights: 'trained', causal: true }],
];
/** The trained weights arrive as a part only beside the article's example (with trained weights in force, every step changes). */
const EXAMPLE_SETTINGS: [string, Partial<Settings>][] = [
  ['default', {}],
  [
    'the example, causal and unscaled, another sentence',
    { causal: true, scale: false, sentence: 'The cat chased the mouse because it was hungry.' },
  ],
];

describe.each(['reader', 'later', 'weights'] as const)('the part %s arriving', (part) => {
  test.each(part === 'weights' ? EXAMPLE_SETTINGS : SETTINGS)(
    '%s: the steps that do not show it draw the repeat exactly as the snapshot it repeats',
    async (_, change) => {
      const engine = await engineWithout(part);
      const settings = validateSettings(change, DEFAULT_SETTINGS).settings;
      const first = computeSnapshot(engine, settings);
      await arrive(engine, part);
      const repeat: Snapshot = COMPLETE[part](engine, first);
      expect(repeat).not.toBe(first);
      expect(COMPLETE[part](engine, repeat)).toBe(repeat); // complete: nothing more to read
      // What computing the settings again gives, number for number.
      expect(plainSnapshot(repeat)).toEqual(plainSnapshot(computeSnapshot(engine, settings)));
      const changed: string[] = [];
      for (const step of STEPS) {
        const { body, view } = mountStep(step);
        view.render(first);
        const drawn = body.innerHTML;
        view.render(repeat);
        if (body.innerHTML !== drawn) changed.push(step.id);
      }
      const showing = STEPS.filter((step) => partsShown(step).includes(part)).map((step) => step.id);
      // Every step that draws something else shows the part; and the part does change what they draw.
      expect(changed.filter((id) => !showing.includes(id))).toEqual([]);
      expect(changed.length).toBeGreaterThan(0);
    },
  );
});
