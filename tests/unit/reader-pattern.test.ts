// @vitest-environment happy-dom
// Step 1's reader model with its attention restricted to a pattern (issue 40: what a window or a sparse
// pattern does to the answer), the shipped models in wasm: a pattern that allows every key the model
// uses (all of them; the causal band as wide as the sentence for the causal model) gives answer()'s
// numbers to the bit, a narrow window keeps every attention weight inside it, and bad patterns are
// refused with the C++ side's message. Then the long-context step's use of it: the snapshot carries
// step 1's answer under each pattern (features/long-context/reader-effect.ts) and each panel prints it.
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { computeSnapshot } from '../../web/src/compute';
import { EngineError, type AttentionEngine } from '../../web/src/engine/engine';
import { sparsePatternMask } from '../../web/src/engine/long-context';
import { longContextStep } from '../../web/src/features/long-context/step';
import { provideReaderModel, readerModelFor, type ReaderSnapshot } from '../../web/src/features/reader/model';
import { percent, quoted } from '../../web/src/ui/format';
import { DEFAULT_SETTINGS, validateSettings } from '../../web/src/settings';
import { fixtureEngine } from './fixtures';
import { loadReaderModels, loadSimdEngine, shippedReaderAliases, shippedWeights } from './load-engine';
import { READER_MODELS } from '../../web/src/model/reader';

const WORDS = 'the trophy did not fit in the suitcase because it was too big'.split(' ');
const n = WORDS.length;

/** (n, n) 0/1: allow(i, j) for each cell. */
const pattern = (allow: (i: number, j: number) => boolean) =>
  Uint8Array.from({ length: n * n }, (_, k) => (allow(Math.floor(k / n), k % n) ? 1 : 0));

let engine: AttentionEngine;
let models: ReturnType<typeof loadReaderModels>;
beforeAll(async () => {
  engine = await loadSimdEngine();
  models = loadReaderModels(engine);
});

describe.each(['bidirectional', 'causal'] as const)('the %s reader within a pattern', (kind) => {
  test('every key it uses allowed: the same bits as answer()', () => {
    const model = models[kind];
    const plain = model.answer(WORDS);
    expect(plain.pronoun).toBe(WORDS.indexOf('it'));
    const wide = kind === 'causal' ? [pattern(() => true), pattern((i, j) => j <= i)] : [pattern(() => true)];
    for (const allowed of wide) {
      const same = model.answerWithin(WORDS, allowed);
      expect(same.antecedent).toBe(plain.antecedent);
      expect(same.probability).toBe(plain.probability);
      expect(same.pointer.data).toEqual(plain.pointer.data);
      same.attention.forEach((layer, l) => expect(layer.data).toEqual(plain.attention[l]!.data));
    }
  });

  test('a window of |i − j| < 2: every weight inside it, rows summing to 1', () => {
    const window = pattern((i, j) => Math.abs(i - j) < 2);
    const narrow = models[kind].answerWithin(WORDS, window);
    expect(narrow.probability).not.toBe(models[kind].answer(WORDS).probability);
    for (const layer of narrow.attention)
      for (let h = 0; h < layer.heads; h++)
        for (let i = 0; i < n; i++) {
          let sum = 0;
          for (let j = 0; j < n; j++) {
            const w = layer.data[(h * n + i) * n + j]!;
            if (!window[i * n + j]) expect(w).toBe(0);
            sum += w;
          }
          expect(sum).toBeCloseTo(1, 5);
        }
  });
});

test('bad patterns are refused with a message', () => {
  const model = models.bidirectional;
  expect(() => model.answerWithin(WORDS, new Uint8Array(n * n - 1).fill(1))).toThrow(/must be \(n, n\)/);
  expect(() =>
    model.answerWithin(
      WORDS,
      pattern((i, j) => i !== j),
    ),
  ).toThrow(/use itself \(row 1\)/);
  expect(() => model.answerWithin(WORDS, [1, 1] as unknown as Uint8Array)).toThrow(EngineError);
});

describe('the long-context step: step 1’s answer under each pattern', () => {
  const TROPHY = 'The trophy did not fit in the suitcase because it was too big.';

  test.each([false, true])(
    'causal %s: full attention is step 1’s answer, each pattern the model’s answer within it, printed in its panel',
    async (causal) => {
      const fixture = await fixtureEngine();
      provideReaderModel(fixture, false, shippedWeights('reader.bin'), READER_MODELS.bidirectional, 'at once', shippedReaderAliases());
      provideReaderModel(fixture, true, shippedWeights('reader-causal.bin'), READER_MODELS.causal, 'at once', shippedReaderAliases());
      const { settings } = validateSettings(
        { weights: 'trained', sentence: TROPHY, causal, lcWindow: 3, lcGlobal: 1, lcStride: 4 },
        DEFAULT_SETTINGS,
      );
      const snapshot = computeSnapshot(fixture, settings);
      const step1 = snapshot.reader as ReaderSnapshot;
      const effect = snapshot.longContext!.reader!;
      expect(effect.causal).toBe(causal);
      expect(effect.full.position).toBe(step1.answer!.antecedent);
      expect(effect.full.word).toBe(step1.answer!.word);
      expect(effect.full.probability).toBe(step1.answer!.probability);
      expect(effect.pronoun.word).toBe('it');
      const model = readerModelFor(fixture, causal)!;
      const n = step1.words.length;
      const patterns = { window: { window: 3 }, global: { window: 3, global: 1 }, strided: { window: 3, stride: 4 } };
      for (const t of effect.techniques) {
        const allowed = sparsePatternMask(fixture, n, { ...patterns[t.id], causal }).mask.data;
        const again = model.answerWithin(step1.words, allowed, effect.pronoun.position);
        expect(t.pick.position, t.id).toBe(again.antecedent);
        expect(t.pick.probability, t.id).toBe(again.probability);
      }

      const body = document.createElement('div');
      document.body.replaceChildren(body);
      longContextStep.mount(body, { update: () => {} }).render(snapshot);
      for (const t of effect.techniques) {
        const text = body.querySelector(`#lc-${t.id} .lc-reader-effect`)!.textContent!;
        expect(text).toContain(`${quoted(t.pick.word)} (${percent(t.pick.probability)})`);
        expect(text).toContain(`${quoted(effect.full.word)} (${percent(effect.full.probability)}) with full attention`);
        expect(text).toContain(t.pick.position === effect.full.position ? 'still resolves' : 'instead of');
      }
      expect(body.querySelector('#lc-linear .lc-reader-effect')!.textContent).toMatch(/linear attention in its place is not computed/);
    },
  );

  test('while the reader model loads, the step asks for it once it comes near the viewport, not before', async () => {
    const fixture = await fixtureEngine();
    provideReaderModel(fixture, true, shippedWeights('reader-causal.bin'), READER_MODELS.causal, 'at once', shippedReaderAliases()); // loaded here, whatever ran before
    const { settings } = validateSettings({ weights: 'trained', sentence: TROPHY, causal: true }, DEFAULT_SETTINGS);
    const snapshot = computeSnapshot(fixture, settings);
    // An IntersectionObserver the test drives: the step is far from the viewport until `near()`.
    let report: ((records: { isIntersecting: boolean }[]) => void) | null = null;
    vi.stubGlobal(
      'IntersectionObserver',
      class {
        constructor(callback: (records: { isIntersecting: boolean }[]) => void) {
          report = callback;
        }
        observe() {}
        disconnect() {}
      },
    );
    try {
      const asked: boolean[] = [];
      const body = document.createElement('div');
      const view = longContextStep.mount(body, { update: () => {}, loadReaderModel: (causal) => asked.push(causal) });
      view.render(snapshot);
      view.render({ ...snapshot, reader: { status: 'loading', causal: true }, longContext: { ...snapshot.longContext!, reader: null } });
      expect(asked).toEqual([]); // far from the viewport: a step going live downloads nothing
      report!([{ isIntersecting: true }]);
      await vi.waitFor(() => expect(asked).toEqual([true]), { timeout: 2000 });
    } finally {
      vi.unstubAllGlobals();
    }
  });

  test('random weights: no answer, nothing printed', async () => {
    const { settings } = validateSettings({ sentence: TROPHY, weights: 'random' }, DEFAULT_SETTINGS);
    const snapshot = computeSnapshot(await fixtureEngine(), settings);
    expect(snapshot.longContext!.reader).toBeNull();
    const body = document.createElement('div');
    longContextStep.mount(body, { update: () => {} }).render(snapshot);
    for (const panel of body.querySelectorAll<HTMLElement>('.lc-reader-effect')) expect(panel.hidden).toBe(true);
  });
});
