// @vitest-environment happy-dom
// Step 1's reader models with the shipped alias table (web/src/model/reader-aliases.txt): in wasm an
// aliased word reads exactly the known word it stands for and an unaliased one stays unknown; bad
// tables are EngineErrors; and step 1's figure marks each aliased word, names the word it was read as
// in the sentence, the answer, the candidates and the flips, and the panel counts the table from the
// record. Every expected sentence is built from the snapshot or the record, never typed as a result.
import { beforeAll, describe, expect, test } from 'vitest';
import { computeSnapshot } from '../../web/src/compute';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { EngineError } from '../../web/src/engine/engine';
import { ReaderModel } from '../../web/src/engine/reader';
import { readFlips } from '../../web/src/features/reader/answer';
import {
  ALIAS_RELATION_WORDS,
  aliasPanelSentence,
  aliasSentence,
  answerSentence,
  flipSentence,
  wordAsRead,
} from '../../web/src/features/reader/figure';
import { provideReaderModel, readerModelFor, type ReaderSnapshot } from '../../web/src/features/reader/model';
import { READER_MODELS } from '../../web/src/model/reader';
import { DEFAULT_SETTINGS, validateSettings } from '../../web/src/settings';
import { problemStep } from '../../web/src/steps/01-problem/step';
import { count, percent } from '../../web/src/ui/format';
import { fixtureEngine } from './fixtures';
import { loadReaderModels, shippedReaderAliases, shippedWeights } from './load-engine';

// Words of WordNet outside the vocabulary (not words of tests/data/reader): "poodle" is read as "dog"
// (a hypernym), "stallion" as "horse", "colossal" as "large" (a similar adjective).
const POODLE = 'The poodle did not fit in the barn because it was colossal.';
/** A sentence whose aliased size word decides the answer (measured: read as unknown, the answer changes). */
const COLOSSAL = 'The suitcase did not fit in the trunk because it was colossal.';
const STALLION = 'The stallion jumped over the fence because it was frightened.';

let engine: AttentionEngine;
let models: ReturnType<typeof loadReaderModels>;
beforeAll(async () => {
  engine = await fixtureEngine();
  models = loadReaderModels(engine);
  provideReaderModel(engine, false, shippedWeights('reader.bin'), READER_MODELS.bidirectional, 'at once', shippedReaderAliases());
  provideReaderModel(engine, true, shippedWeights('reader-causal.bin'), READER_MODELS.causal, 'at once', shippedReaderAliases());
});

describe('the alias table in wasm', () => {
  test('each model keeps the entries its record counts, and describes them', () => {
    for (const kind of ['bidirectional', 'causal'] as const) {
      expect(models[kind].describe().aliasCount).toBe(READER_MODELS[kind].aliases.words);
      expect(READER_MODELS[kind].aliases.words).toBe(Object.values(READER_MODELS[kind].aliases.byRelation).reduce((a, b) => a + b, 0));
    }
  });

  test('an aliased word reads exactly its known word; an unaliased unknown word stays unknown', () => {
    for (const model of Object.values(models)) {
      const words = POODLE.split(' ');
      const read = model.answer(words);
      const poodle = words.indexOf('poodle');
      const target = read.readAs[poodle]!;
      expect(target).not.toBe('');
      expect(read.unknown[poodle]).toBe(0);
      expect(Object.keys(ALIAS_RELATION_WORDS)).toContain(read.aliasRelation[poodle]);
      const plain = model.answer(words.map((w, i) => (i === poodle ? target : w)));
      expect(read.pointer.data).toEqual(plain.pointer.data);
      expect(read.attention.map((t) => t.data)).toEqual(plain.attention.map((t) => t.data));
      const made = model.answer(['the', 'zorbleck', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired']);
      expect([made.unknown[1], made.readAs[1], made.aliasRelation[1]]).toEqual([1, '', '']);
    }
  });

  test('a bad table is an EngineError and the old one stays', () => {
    const model = ReaderModel.fromWeights(engine, shippedWeights('reader.bin'));
    try {
      expect(model.useAliases(new TextEncoder().encode('dog hypernym poodle\n'))).toBe(1);
      expect(() => model.useAliases(new TextEncoder().encode('dog hypernym\n'))).toThrow(/alias table line 1/);
      expect(() => model.useAliases('dog hypernym poodle' as unknown as Uint8Array)).toThrow(EngineError);
      expect(model.describe().aliasCount).toBe(1);
      expect(model.answer(['the', 'poodle', 'ran', 'because', 'it', 'was', 'tired']).readAs[1]).toBe('dog');
    } finally {
      model.dispose();
    }
  });
});

describe('step 1’s figure with aliased words', () => {
  function render(sentence: string): { body: HTMLElement; r: ReaderSnapshot } {
    const body = document.createElement('div');
    const view = problemStep.mount(body, { update: () => {} });
    const s = computeSnapshot(engine, validateSettings({ weights: 'trained', sentence }, DEFAULT_SETTINGS).settings);
    view.render(s);
    return { body, r: s.reader as ReaderSnapshot };
  }

  test('each aliased word is marked with the word it is read as, and one line says why', () => {
    const { body, r } = render(POODLE);
    const aliased = r.aliases.flatMap((a, i) => (a ? [{ i, ...a }] : []));
    expect(aliased.map(({ i }) => r.words[i])).toEqual(['poodle', 'colossal']);
    const marks = [...body.querySelectorAll('.reader-aliased')];
    expect(marks.map((m) => m.textContent)).toEqual(aliased.map(({ i, readAs }) => `${r.words[i]}→${readAs}`));
    expect(marks[0]!.getAttribute('title')).toContain(ALIAS_RELATION_WORDS[aliased[0]!.relation]!.one);
    expect(body.querySelectorAll('.reader-unknown')).toHaveLength(0);
    const line = body.querySelector('.reader-aliases') as HTMLElement;
    expect(line.hidden).toBe(false);
    expect(line.textContent).toBe(aliasSentence(r));
    expect(aliasSentence(r)).toBe(
      'Outside its vocabulary, read through WordNet as words it knows: ' +
        aliased.map(({ i, readAs, relation }) => `“${r.words[i]}” as “${readAs}” (${ALIAS_RELATION_WORDS[relation]!.one})`).join(', ') +
        '.',
    );
    // an aliased word is known: never a reason to guess, and it is tried for flips like a known word
    expect(r.guess.map((g) => g.kind)).not.toContain('unknown-decides');
    const { r: sized } = render(COLOSSAL);
    const colossal = sized.words.indexOf('colossal');
    expect(sized.aliases[colossal]).not.toBeNull();
    const flips = readFlips(readerModelFor(engine, false)!, sized.words, {
      ...sized,
      raw: readerModelFor(engine, false)!.answer(sized.words),
      flips: null,
    });
    expect(flips).toEqual(sized.flips);
    // read as unknown, "colossal" (read as "large") no longer decides the answer
    expect(sized.flips!.map((f) => f.position)).toContain(colossal);
    expect(flipSentence(sized)).toContain(`“colossal” (read as “${sized.aliases[colossal]!.readAs}”) (the answer becomes`);
    // the candidates' bars name the word an aliased candidate is read as
    const labels = [...body.querySelectorAll('.reader-candidates tbody th')].map((th) => th.textContent);
    expect(labels).toContain(`poodle (read as ${r.aliases[r.words.indexOf('poodle')]!.readAs})`);
  });

  test('an answer that is an aliased word says which word was read, and is not a guess for it', () => {
    const { r } = render(STALLION);
    const a = r.answer!;
    const alias = r.aliases[a.antecedent!];
    expect(a.word).toBe('stallion');
    expect(alias).not.toBeNull();
    expect(wordAsRead(r, a.antecedent!)).toBe(`“stallion” (read as “${alias!.readAs}”)`);
    expect(answerSentence(r)).toContain(`“it” → “stallion” (read as “${alias!.readAs}”, ${percent(a.probability)})`);
    expect(a.known).toBe(a.probability >= 0.6);
    expect(r.guess.map((g) => g.kind)).not.toContain('unknown-answer');
  });

  test('no aliased word: no line', () => {
    const { body, r } = render('The animal crossed the road because it was tired.');
    expect(r.aliases.every((a) => a === null)).toBe(true);
    expect(aliasSentence(r)).toBe('');
    expect((body.querySelector('.reader-aliases') as HTMLElement).hidden).toBe(true);
  });

  test('the panel counts the table by relation and the words still unknown, from the record', () => {
    const { body, r } = render(POODLE);
    const rec = r.record;
    const panel = body.querySelector('details.reader-knows')!.textContent!;
    expect(panel).toContain(aliasPanelSentence(rec));
    expect(aliasPanelSentence(rec)).toContain(`${count(rec.aliases.words)} such words`);
    for (const [relation, n] of Object.entries(rec.aliases.byRelation))
      expect(aliasPanelSentence(rec)).toContain(`${count(n)} ${ALIAS_RELATION_WORDS[relation]!.many}`);
    expect(aliasPanelSentence(rec)).toContain(
      `${count(rec.unknownWords.handwrittenAliased)} words are read that way and ${count(rec.unknownWords.handwrittenUnknown)} still as unknown`,
    );
    const without = { ...rec, aliases: { words: 0, byRelation: {} } };
    expect(aliasPanelSentence(without)).toMatch(/^Every word outside its vocabulary reads as one unknown word\./);
  });
});
