// Step 1's reader model in wasm (cpp/bindings/reader.cpp, web/src/engine/reader.ts) against the native
// trainer's own measurements: the shipped files' records (web/src/model/reader*.json, written by
// cpp/train/reader_cli.cpp from the native model) must be reproduced by the wasm model answering the
// same hand-written sentences one at a time. Then the reading step 1 makes of it (features/reader/
// answer.ts): the guessing rule, no pronoun, flips and the causal model's settling, each checked by
// running the model again rather than against typed answers.
import { beforeAll, describe, expect, test } from 'vitest';
import { EngineError, type AttentionEngine } from '../../web/src/engine/engine';
import { ReaderModel } from '../../web/src/engine/reader';
import { GUESS_BELOW, matrixRow, readSentence, UNKNOWN_WORD } from '../../web/src/features/reader/answer';
import { READER_MODELS } from '../../web/src/model/reader';
import { loadReaderSet } from './reader-sentences';
import { loadReaderModels, loadSimdEngine, shippedWeights } from './load-engine';

const set = loadReaderSet();

let engine: AttentionEngine;
let models: ReturnType<typeof loadReaderModels>;
beforeAll(async () => {
  engine = await loadSimdEngine();
  models = loadReaderModels(engine);
});

describe.each(['bidirectional', 'causal'] as const)('the %s reader model in wasm', (kind) => {
  const record = READER_MODELS[kind];

  test('describe() is the shape and training its record states', () => {
    const d = models[kind].describe();
    expect(d).toMatchObject({ causal: record.causal, layers: record.layers, heads: record.heads, dModel: record.dModel, mlp: record.mlp });
    expect(d).toMatchObject({ positions: record.positions, parameterCount: record.parameters, steps: record.steps, seed: record.seed });
    expect(d.vocabularySize).toBe(record.vocabulary);
  });

  test('answering one sentence at a time reproduces the native hand-written and minimal-pair scores', () => {
    const m = models[kind];
    const right = (s: (typeof set.handwritten)[number]) => {
      const a = m.answer(s.words, s.pronoun);
      expect(a.candidates[a.antecedent], `${s.text}: “${a.words[a.antecedent]}” is no candidate`).toBe(1);
      return a.antecedent === s.antecedent;
    };
    expect(set.handwritten.filter(right).length).toBe(record.handwritten.correct);
    expect(set.handwritten.length).toBe(record.handwritten.sentences);
    expect(set.pairs.filter((p) => right(p.first) && right(p.second)).length).toBe(record.minimalPairs.bothRight);
    // and each sentence the record lists as wrong gets the same wrong word
    const byText = new Map(set.handwritten.map((s) => [s.text, s]));
    for (const wrong of record.handwrittenWrong) {
      const s = byText.get(wrong.text)!;
      const a = m.answer(s.words, s.pronoun);
      expect(a.antecedent >= 0 ? a.words[a.antecedent] : null).toBe(wrong.answered);
    }
  });

  test('an answer: pointer rows over the positions each query sees, attention per layer (heads, n, n)', () => {
    const words = 'The trophy did not fit in the suitcase because it was too big .'.split(' ');
    const a = models[kind].answer(words);
    const n = words.length;
    expect(a.words).toHaveLength(n);
    expect(a.words[9]).toBe('it');
    expect(a.pronoun).toBe(9);
    expect(a.queries).toEqual(kind === 'causal' ? [9, 10, 11, 12, 13] : [9]);
    expect(a.pointer).toMatchObject({ rows: a.queries.length, cols: n });
    a.queries.forEach((q, row) => {
      const p = matrixRow(a.pointer, row);
      expect(p.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 5);
      // a left-to-right model points only at what it has read
      if (kind === 'causal') for (let j = q + 1; j < n; j++) expect(p[j]).toBe(0);
      // and only at a word that can be an antecedent: a noun it knows or a word it does not
      for (let j = 0; j < n; j++) if (!a.candidates[j]) expect(p[j]).toBe(0);
    });
    const candidates = a.words.filter((_, j) => a.candidates[j]);
    expect(candidates).toEqual(['trophy', 'suitcase']); // not "fit", "it", nor "." (no letter)
    const last = matrixRow(a.pointer, a.queries.length - 1);
    expect(a.probability).toBe(Math.max(...last));
    expect(last[a.antecedent]).toBe(a.probability);
    expect(a.attention).toHaveLength(record.layers);
    for (const layer of a.attention) expect(layer).toMatchObject({ heads: record.heads, rows: n, cols: n });
    // the unknown-word flag: "." reads as the unknown word
    expect(a.unknown[13]).toBe(1);
    expect(a.unknown[1]).toBe(0);
  });
});

describe('refusals', () => {
  test('bad input is an EngineError with the model’s message, and the model keeps working', () => {
    const m = models.bidirectional;
    expect(() => m.answer([])).toThrow(new EngineError('the sentence is empty'));
    expect(() => m.answer(['the', 'cat', 'saw', 'it'], 1)).toThrow(new EngineError('word 2 is not a pronoun the model resolves'));
    expect(() => m.answer(new Array<string>(READER_MODELS.bidirectional.positions + 1).fill('cat'))).toThrow(/at most 64 words/);
    expect(() => m.answer(['it'], -1)).toThrow(EngineError);
    expect(() => m.answer([1 as unknown as string])).toThrow(EngineError);
    expect(() => ReaderModel.fromWeights(engine, new Uint8Array([1, 2, 3, 4]))).toThrow(EngineError);
    expect(() => ReaderModel.fromWeights(engine, shippedWeights('who-is-it.bin'))).toThrow(EngineError);
    expect(m.answer(['the', 'cat', 'saw', 'it']).pronoun).toBe(3);
    expect(() => m.answerVariants(['the', 'cat', 'saw', 'it'], 3, [4], '?')).toThrow(
      new EngineError("a variant's position 4 is not a word of the sentence"),
    );
    expect(() => m.answerVariants(['the', 'cat', 'saw', 'it'], 3, [0.5], '?')).toThrow(EngineError);
    expect(() => m.answerVariants(['the', 'cat', 'saw', 'it'], 1, [0], '?')).toThrow(
      new EngineError('word 2 is not a pronoun the model resolves'),
    );
    expect(m.answerVariants(['the', 'cat', 'saw', 'it'], 3, [], '?')).toEqual([]);
  });

  test('a disposed model refuses calls', () => {
    const m = ReaderModel.fromWeights(engine, shippedWeights('reader.bin'));
    m.dispose();
    expect(() => m.describe()).toThrow(new EngineError('this reader model was disposed'));
  });
});

describe('step 1’s reading of a sentence', () => {
  test('no pronoun: no answer, no candidates, no guess', () => {
    const r = readSentence(models.bidirectional, 'The cat sat on the mat .'.split(' '));
    expect(r.raw.pronoun).toBe(-1);
    expect(r).toMatchObject({ answer: null, candidates: [], guess: [], flips: [], settling: null });
  });

  test.each(['bidirectional', 'causal'] as const)(
    '%s: the guessing rule on every hand-written sentence, each reason measured again',
    (kind) => {
      const m = models[kind];
      let guesses = 0;
      for (const s of set.handwritten) {
        const r = readSentence(m, s.text.split(' '));
        if (!r.answer) continue;
        const { raw } = r;
        const reasons = r.guess.map((g) => g.kind);
        expect(reasons.includes('confidence')).toBe(raw.probability < GUESS_BELOW);
        expect(reasons.includes('unknown-answer')).toBe(raw.unknown[raw.antecedent] === 1);
        const deciding = r.guess.find((g) => g.kind === 'unknown-decides');
        for (const i of deciding?.kind === 'unknown-decides' ? deciding.positions : []) {
          expect(raw.unknown[i]).toBe(1);
          const without = m.answer(
            s.text.split(' ').filter((_, j) => j !== i),
            raw.pronoun - (i < raw.pronoun ? 1 : 0),
          );
          expect(without.antecedent + (without.antecedent >= i ? 1 : 0)).not.toBe(raw.antecedent);
        }
        expect(r.answer.known).toBe(r.guess.length === 0);
        expect(r.answer.word).toBe(raw.words[raw.antecedent]);
        guesses += r.answer.known ? 0 : 1;
      }
      expect(guesses).toBeGreaterThan(0);
    },
  );

  test('an unknown noun the model names is a guess, whatever its probability', () => {
    const r = readSentence(models.bidirectional, 'The zorbleck did not fit in the suitcase because it was too big.'.split(' '));
    expect(r.raw.unknown[1]).toBe(1);
    if (r.answer!.antecedent === 1) expect(r.guess.map((g) => g.kind)).toContain('unknown-answer');
    expect(r.candidates.map((c) => c.position)).toEqual([1, 7]);
  });

  test('flips are real (answerVariants in one call = answer() once per word): each flipped word changes the answer when read as unknown, and no other word does', () => {
    let found = 0;
    for (const pair of set.pairs.slice(0, 12)) {
      const words = pair.first.text.split(' ');
      const r = readSentence(models.bidirectional, words);
      const flipped = new Set(r.flips.map((f) => f.position));
      for (let i = 0; i < words.length; i++) {
        if (r.raw.unknown[i] || r.raw.candidates[i] || i === r.raw.pronoun) continue;
        const a = models.bidirectional.answer(
          words.map((w, j) => (j === i ? UNKNOWN_WORD : w)),
          r.raw.pronoun,
        );
        expect(flipped.has(i)).toBe(a.antecedent !== r.raw.antecedent);
        if (flipped.has(i)) {
          const flip = r.flips.find((f) => f.position === i)!;
          expect(flip.antecedent).toBe(a.antecedent);
          expect(flip.probability).toBeCloseTo(a.probability, 6);
        }
      }
      found += r.flips.length;
    }
    expect(found).toBeGreaterThan(0);
  });

  test('causal: the answer settles at the first word from which every later row names it', () => {
    for (const s of set.handwritten.slice(0, 40)) {
      const r = readSentence(models.causal, s.text.split(' '));
      if (!r.answer || !r.settling) continue;
      const tops = r.raw.queries.map((_, q) => {
        const row = matrixRow(r.raw.pointer, q);
        return row.indexOf(Math.max(...row));
      });
      const from = r.raw.queries.indexOf(r.settling.settlesAt);
      expect(tops.slice(from).every((t) => t === r.answer!.antecedent)).toBe(true);
      if (from > 0) expect(tops[from - 1]).not.toBe(r.answer.antecedent);
      expect(r.settling.atPronoun.antecedent).toBe(tops[0]);
    }
  });

  // The trainer measures the head on the generated held-out sentences (reader_shipped_tests measures it
  // again natively); the page reads it from the record, which must name a head of the model.
  test.each(['bidirectional', 'causal'] as const)('the %s record names a resolving head of its model', (kind) => {
    const r = READER_MODELS[kind];
    expect(r.resolvingHead.layer).toBeGreaterThanOrEqual(0);
    expect(r.resolvingHead.layer).toBeLessThan(r.layers);
    expect(r.resolvingHead.head).toBeGreaterThanOrEqual(0);
    expect(r.resolvingHead.head).toBeLessThan(r.heads);
    // every generated held-out sentence but those whose pronoun is contracted ("it's"), which the page does not ask about
    expect(r.resolvingHead.sentences).toBeGreaterThan((r.heldoutWords.sentences + r.heldoutFrames.sentences) * 0.9);
    expect(r.resolvingHead.sentences).toBeLessThanOrEqual(r.heldoutWords.sentences + r.heldoutFrames.sentences);
    // a mean attention weight (reader_shipped_tests reproduces its head from the same sentences)
    expect(r.resolvingHead.share).toBeGreaterThan(0);
    expect(r.resolvingHead.share).toBeLessThanOrEqual(1);
  });
});
