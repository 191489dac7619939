// @vitest-environment happy-dom
// Step 1 with the reader model: the snapshot part (result.reader, result.trained.answer) computed by the
// real engine, and step 1's figure rendered from it, its sentences read back against the snapshot.
import { beforeAll, describe, expect, test } from 'vitest';
import { computeSnapshot, FrameScheduler, withArrivedReader, withReaderFlips } from '../../web/src/compute';
import type { AttentionEngine } from '../../web/src/engine/engine';
import {
  answerSentence,
  causalSentence,
  FINDING_FLIPS,
  flipSentence,
  headLabel,
  headSentence,
  modelLine,
  readerModelSummary,
  resolvingRow,
  WRONG_PER_PAGE,
} from '../../web/src/features/reader/figure';
import { MODEL_LINE_CLASS } from '../../web/src/steps/shared/figure';
import { barStatement } from '../../web/src/steps/shared/which-model';
import { predictQuestion } from '../../web/src/steps/01-problem/prose';
import { STEPS } from '../../web/src/steps/index';
import { readSentence } from '../../web/src/features/reader/answer';
import { provideReaderModel, readerModelFor, readerView, type ReaderSnapshot } from '../../web/src/features/reader/model';
import { percent } from '../../web/src/ui/format';
import { DEFAULT_SETTINGS, validateSettings, type Settings } from '../../web/src/settings';
import type { Repeat, Snapshot } from '../../web/src/snapshot';
import { problemStep } from '../../web/src/steps/01-problem/step';
import { fixtureEngine, plainSnapshot, SHIPPED_WEIGHTS } from './fixtures';
import { loadSimdEngine, provideShippedReader, shippedReaderAliases, shippedWeights } from './load-engine';
import { provideTrainedWeights } from '../../web/src/features/trained-model/trained';
import { READER_MODELS } from '../../web/src/model/reader';

const TROPHY = 'The trophy did not fit in the suitcase because it was too big.';
const UNKNOWN_NOUN = 'The zorbleck did not fit in the suitcase because it was too big.';
const NO_PRONOUN = 'The cat sat on the mat.';

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await fixtureEngine();
});

function snapshotOf(change: Partial<Settings>): Snapshot {
  return computeSnapshot(engine, validateSettings({ weights: 'trained', ...change }, DEFAULT_SETTINGS).settings);
}
const ready = (s: Snapshot) => s.reader as ReaderSnapshot;

describe('the snapshot', () => {
  test('before the model is given: loading, and no answer; with random weights: no reader at all', () => {
    // a fresh engine has no reader model (the fixture engine gets one below)
    expect(readerView({} as AttentionEngine, ['it'], false)).toEqual({ status: 'loading', causal: false });
    expect(snapshotOf({ weights: 'random', sentence: TROPHY }).reader).toBeNull();
  });

  test('result.trained.answer: the reader model’s answer, positions indexing the words', () => {
    provideReaderModel(engine, false, shippedWeights('reader.bin'), READER_MODELS.bidirectional, 'at once', shippedReaderAliases());
    provideReaderModel(engine, true, shippedWeights('reader-causal.bin'), READER_MODELS.causal, 'at once', shippedReaderAliases());
    const s = snapshotOf({ sentence: TROPHY });
    const r = ready(s);
    expect(r.status).toBe('ready');
    expect(r.causal).toBe(false);
    const answer = s.trained!.answer!;
    expect(answer).toEqual(r.answer);
    expect(s.trained!.words[answer.pronoun]).toBe('it');
    expect(r.words[answer.antecedent!]).toBe(answer.word);
    expect(s.trained!.words[answer.antecedent!]).toBe(answer.word);
    expect(['trophy', 'suitcase']).toContain(answer.word);
    expect(answer.known).toBe(answer.probability >= 0.6 && r.guess.length === 0);
    expect(r.candidates.map((c) => c.position)).toEqual([1, 7]);
    expect(r.candidates.find((c) => c.position === answer.antecedent)!.probability).toBe(answer.probability);
  });

  test('the causal mask switches to the causal model, which settles at a word after the pronoun or at it', () => {
    const r = ready(snapshotOf({ sentence: TROPHY, causal: true }));
    expect(r.causal).toBe(true);
    expect(r.model.causal).toBe(true);
    expect(r.queries[0]).toBe(r.answer!.pronoun);
    expect(r.settling!.settlesAt).toBeGreaterThanOrEqual(r.answer!.pronoun);
  });
});

describe('the answer first, the flips after it (a downloaded model)', () => {
  // A 40-word sentence: the answer is one forward pass, its flips 34 more (tests/bench/reader-timing.ts).
  const LONG =
    'The old wooden trophy that the young girl won at the school fair last summer did not fit into the small brown ' +
    'suitcase on the bed because it was really far too big for the narrow space inside the case.';
  const settingsOf = (sentence: string) => validateSettings({ weights: 'trained', sentence }, DEFAULT_SETTINGS).settings;
  const later = () =>
    provideReaderModel(engine, false, shippedWeights('reader.bin'), READER_MODELS.bidirectional, 'later', shippedReaderAliases());
  const atOnce = () =>
    provideReaderModel(engine, false, shippedWeights('reader.bin'), READER_MODELS.bidirectional, 'at once', shippedReaderAliases());

  test('the snapshot carries the answer and attention with flips null; withReaderFlips finds readSentence’s flips', () => {
    later();
    try {
      const first = computeSnapshot(engine, settingsOf(LONG));
      const r = ready(first);
      const whole = readSentence(readerModelFor(engine, false)!, r.words);
      expect(r.flips).toBeNull();
      expect(r.answer).toEqual(whole.answer);
      expect(r.guess).toEqual(whole.guess);
      expect(r.attention[0]!.data).toEqual(whole.raw.attention[0]!.data);
      expect(first.trained!.answer).toEqual(whole.answer);
      const completed = withReaderFlips(engine, first);
      expect(ready(completed).flips).toEqual(whole.flips);
      expect(completed.sentence?.reader ?? completed.reader).toBe(completed.reader);
      // everything else is the first snapshot's own
      expect(completed.pipeline).toBe(first.pipeline);
      expect(completed.longContext).toBe(first.longContext);
      // complete already: the same snapshot back
      expect(withReaderFlips(engine, completed)).toBe(completed);
    } finally {
      atOnce();
    }
  });

  test('the scheduler hands out the answer, then the same settings with flips; the figure says it is finding them until then', async () => {
    later();
    const body = document.createElement('div');
    const view = problemStep.mount(body, { update: () => {} });
    const shown: { flips: ReaderSnapshot['flips']; text: string; busy: string | null }[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const scheduler = new FrameScheduler(
          engine,
          (snapshot) => {
            view.render(snapshot);
            const flips = body.querySelector('.reader-flips')!;
            shown.push({ flips: ready(snapshot).flips, text: flips.textContent!, busy: flips.getAttribute('aria-busy') });
            if (ready(snapshot).flips !== null) resolve();
          },
          reject,
        );
        scheduler.request(settingsOf(TROPHY));
        scheduler.flush();
      });
    } finally {
      atOnce();
    }
    expect(shown).toHaveLength(2);
    expect(shown[0]).toEqual({ flips: null, text: FINDING_FLIPS, busy: 'true' });
    const whole = ready(snapshotOf({ sentence: TROPHY }));
    expect(shown[1]!.flips).toEqual(whole.flips);
    expect(shown[1]!.text).toBe(flipSentence(whole));
    expect(shown[1]!.busy).toBe('false');
  });

  test('newer settings before the flips arrive: only the newest snapshot is completed', async () => {
    later();
    const seen: { sentence: string; flips: boolean }[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const scheduler = new FrameScheduler(
          engine,
          (snapshot) => {
            seen.push({ sentence: snapshot.settings.sentence, flips: ready(snapshot).flips !== null });
            if (snapshot.settings.sentence === UNKNOWN_NOUN && ready(snapshot).flips !== null) resolve();
          },
          reject,
        );
        scheduler.request(settingsOf(TROPHY));
        scheduler.flush();
        scheduler.request(settingsOf(UNKNOWN_NOUN));
        scheduler.flush();
      });
    } finally {
      atOnce();
    }
    expect(seen).toEqual([
      { sentence: TROPHY, flips: false },
      { sentence: UNKNOWN_NOUN, flips: false },
      { sentence: UNKNOWN_NOUN, flips: true },
    ]);
  });
});

describe('the model arriving after the page computed without it', () => {
  /** An engine with its later module and the who-is-it weights, and no reader model yet. */
  async function engineWithoutReader(): Promise<AttentionEngine> {
    const fresh = await loadSimdEngine();
    provideTrainedWeights(fresh, SHIPPED_WEIGHTS);
    return fresh;
  }

  for (const [label, change] of [
    ['the sentence, trained', { weights: 'trained', sentence: TROPHY }],
    ['the article’s example with the sentence beside it', {}],
    ['the sentence, causal', { weights: 'trained', sentence: TROPHY, causal: true }],
  ] as const) {
    test(`${label}: withArrivedReader gives what computing again gives, the rest by reference`, async () => {
      const fresh = await engineWithoutReader();
      const settings = validateSettings(change, DEFAULT_SETTINGS).settings;
      const before = computeSnapshot(fresh, settings);
      expect(before.reader?.status).toBe('loading');
      expect(withArrivedReader(fresh, before)).toBe(before); // nothing arrived yet
      provideShippedReader(fresh, settings.causal);
      const read = withArrivedReader(fresh, before);
      const again = computeSnapshot(fresh, settings);
      expect(plainSnapshot(read)).toEqual(plainSnapshot(again));
      expect(ready(read).status).toBe('ready');
      expect(read.trained!.answer).toEqual(ready(read).answer);
      expect(read.longContext!.reader!.full.word).toBe(ready(read).answer!.word);
      expect(read.sentence?.longContext ?? read.longContext).toBe(read.longContext);
      // what the reader model does not touch is the first snapshot's own
      expect(read.pipeline).toBe(before.pipeline);
      expect(read.flash).toBe(before.flash);
      expect(read.kvCache).toBe(before.kvCache);
      expect(read.longContext!.techniques).toBe(before.longContext!.techniques);
      expect(withArrivedReader(fresh, read)).toBe(read);
    });
  }

  test('the scheduler hands the shown snapshot out again with the model read, naming the one it repeats and the part', async () => {
    const fresh = await engineWithoutReader();
    const settings = validateSettings({ weights: 'trained', sentence: TROPHY }, DEFAULT_SETTINGS).settings;
    const shown: { snapshot: Snapshot; repeats: Repeat | null }[] = [];
    const scheduler = new FrameScheduler(
      fresh,
      (snapshot, repeats) => shown.push({ snapshot, repeats }),
      (error) => {
        throw error;
      },
    );
    scheduler.arrived('reader'); // nothing shown yet: nothing to read again
    scheduler.request(settings);
    scheduler.flush();
    expect(shown).toHaveLength(1);
    scheduler.arrived('reader'); // the model is not here: the same snapshot, not handed out again
    expect(shown).toHaveLength(1);
    provideShippedReader(fresh, false);
    scheduler.arrived('reader');
    expect(shown).toHaveLength(2);
    expect(shown[1]!.repeats).toEqual({ of: shown[0]!.snapshot, part: 'reader' });
    expect(ready(shown[1]!.snapshot).answer).toEqual(ready(computeSnapshot(fresh, settings)).answer);
    expect(shown[1]!.snapshot.pipeline).toBe(shown[0]!.snapshot.pipeline);
    // Settings waiting to be computed read the model themselves: no repeat of the older snapshot.
    scheduler.request({ ...settings, sentence: UNKNOWN_NOUN });
    scheduler.arrived('reader');
    expect(shown).toHaveLength(2);
    scheduler.flush();
    expect(shown).toHaveLength(3);
    expect(shown[2]!.repeats).toBeNull();
    expect(ready(shown[2]!.snapshot).status).toBe('ready');
  });
});

describe('step 1’s figure', () => {
  function render(sentence: string, causal = false): { body: HTMLElement; r: ReaderSnapshot } {
    const body = document.createElement('div');
    const view = problemStep.mount(body, { update: () => {} });
    const s = snapshotOf({ sentence, causal });
    view.render(s);
    return { body, r: ready(s) };
  }
  const text = (body: HTMLElement, selector: string) => body.querySelector(selector)!.textContent;

  test('a resolved sentence: the answer, candidates, the measured head and flips, each from the snapshot', () => {
    const { body, r } = render(TROPHY);
    const a = r.answer!;
    expect(text(body, '.reader-answer')).toBe(answerSentence(r));
    expect(answerSentence(r)).toContain(`“it” → “${a.word}” (${percent(a.probability)})`);
    expect(answerSentence(r).startsWith('Guessing')).toBe(!a.known);
    expect(text(body, '.reader-model-line')).toBe(modelLine(r));
    expect(modelLine(r)).toBe(
      `It knows ${r.model.vocabularySize.toLocaleString('en-US')} words and reads up to ${r.model.positions} tokens; this sentence is ${r.words.length} tokens.`,
    );
    // The step's one line of whose numbers, above the mixture figure, names the reader model and its shape, as its record states it.
    const line = `Numbers: the reader model (${r.record.layers} layers × ${r.record.heads} heads, d_model ${r.record.dModel})`;
    expect([...body.querySelectorAll(`.${MODEL_LINE_CLASS}`)].map((l) => l.textContent)).toEqual([line]);
    expect(readerModelSummary(r)).toBe(line.replace('Numbers: ', ''));
    expect([r.model.layers, r.model.heads, r.model.dModel]).toEqual([r.record.layers, r.record.heads, r.record.dModel]);
    // Under the mixture figure, which follows the pronoun: what the resolving head reads, beside the answer.
    expect(text(body, '.reading')).toBe(headSentence(r));
    expect(headSentence(r)).toContain(`layer ${r.head.layer + 1}, head ${r.head.head + 1}`);
    expect(text(body, '.reader-flips')).toBe(flipSentence(r));
    expect(r.flips).not.toBeNull();
    for (const f of r.flips!) expect(flipSentence(r)).toContain(`“${r.words[f.position]}”`);
    expect(body.querySelectorAll('.reader-candidates tbody tr')).toHaveLength(r.candidates.length);
    expect(body.querySelector('.reader-antecedent')!.textContent).toBe(a.word);
    // the panel: collapsed, with the record's three accuracies
    const details = body.querySelector('details.reader-knows') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.textContent).toContain(
      `Hand-written sentences in varied wording: ${percent(r.record.handwritten.correct / r.record.handwritten.sentences, 1)}`,
    );
    expect(details.querySelectorAll('.reader-wrong li').length).toBe(Math.min(WRONG_PER_PAGE, r.record.handwrittenWrong.length));
    // browsable: Next shows the next page of the record's wrong sentences, Previous goes back
    const wrong = r.record.handwrittenWrong;
    const items = () => [...details.querySelectorAll('.reader-wrong li')].map((li) => li.textContent);
    expect(items()[0]).toContain(wrong[0]!.text);
    (details.querySelector('button[data-page="1"]') as HTMLButtonElement).click();
    expect(items()[0]).toContain(wrong[WRONG_PER_PAGE]!.text);
    expect(details.querySelector('.reader-wrong')!.getAttribute('start')).toBe(String(WRONG_PER_PAGE + 1));
    (details.querySelector('button[data-page="0"]') as HTMLButtonElement).click();
    expect(items()[0]).toContain(wrong[0]!.text);
    // the old canned sentence is gone
    expect(body.textContent).not.toContain('change “tired” to “wide”');
  });

  test('an unknown noun the model names: marked, and the answer says "Guessing"', () => {
    const { body, r } = render(UNKNOWN_NOUN);
    expect(body.querySelector('.reader-unknown')!.textContent).toContain('zorbleck');
    if (r.answer!.word === 'zorbleck') {
      expect(text(body, '.reader-answer')).toMatch(/^Guessing: “it” → “zorbleck”/);
      expect(text(body, '.reader-answer')).toContain('“zorbleck” is not in its vocabulary');
    }
    expect(r.answer!.known).toBe(r.guess.length === 0);
  });

  test('no pronoun: says so, and shows no bars', () => {
    const { body } = render(NO_PRONOUN);
    expect(text(body, '.reader-answer')).toMatch(/^This sentence has no pronoun the model resolves/);
    expect((body.querySelector('.reader-candidates')!.closest('.bar-chart-scroll') as HTMLElement).hidden).toBe(true);
  });

  test('with the causal mask: the causal model and what it can know at the pronoun', () => {
    const { body, r } = render(TROPHY, true);
    expect(text(body, '.reader-model-line')).toMatch(/^Trained with the causal mask/);
    expect(body.querySelector(`.problem-figure .${MODEL_LINE_CLASS}`)!.textContent).toBe(
      `Numbers: the causal reader model (${r.record.layers} layers × ${r.record.heads} heads, d_model ${r.record.dModel})`,
    );
    expect(text(body, '.reader-causal')).toBe(causalSentence(r));
    expect(causalSentence(r)).toContain(`has read only the ${r.answer!.pronoun + 1} words up to it`);
  });

  test('the mixture figure draws the reader model’s resolving head, for the pronoun and for any other word', () => {
    const { body, r } = render(TROPHY);
    const chips = [...body.querySelectorAll<HTMLElement>('.problem-chip')];
    expect(chips.map((c) => c.firstChild!.textContent)).toEqual(r.words);
    expect(chips.find((c) => c.getAttribute('aria-checked') === 'true')!.textContent).toBe(r.words[r.answer!.pronoun]);
    const values = () => [...body.querySelectorAll('.problem-bars tbody tr .bar-value')].map((v) => v.textContent);
    const row = (i: number) => Array.from(resolvingRow(r, i));
    expect(values()).toEqual(row(r.answer!.pronoun).map((w) => percent(w)));
    expect(text(body, '.problem-bars caption')).toContain(`in ${headLabel(r)} of the reader model, the head measured to resolve pronouns`);
    expect(text(body, '.problem-question')).toBe(`What does “it” (token ${r.answer!.pronoun + 1}) refer to?`);
    // Another word: its own row of the same head, and a reading about it.
    chips[1]!.click();
    const other = row(1);
    const top = other.indexOf(Math.max(...other));
    expect(values()).toEqual(other.map((w) => percent(w)));
    expect(text(body, '.reading')).toBe(
      `In ${headLabel(r)} of the reader model, “${r.words[1]}” draws most from “${r.words[top]}”${top === 1 ? ' (itself)' : ''}: ${percent(other[top]!)} of its mixture.`,
    );
    // The bar names the same model (its shape is in the step's own line).
    expect(barStatement(STEPS, snapshotOf({ sentence: TROPHY }))).toMatch(
      /^Step 1 shows the reader model; steps 2–11, 13 the trained model/,
    );
  });

  test('the prediction asks about the reader model’s head, and its answer is that head’s largest weight', () => {
    const sentence = 'The trophy did not fit in the suitcase because it was big.';
    const s = snapshotOf({ sentence });
    const r = ready(s);
    const q = predictQuestion(s)!;
    const row = Array.from(resolvingRow(r));
    const top = row.indexOf(Math.max(...row));
    expect(q.question).toBe('Before you look: in the reader model’s head that resolves pronouns, which token will “it” draw from most?');
    expect(q.correct).toBe(String(top));
    const from = top === r.answer!.pronoun ? 'itself' : `“${r.words[top]}”`;
    expect(q.explanation).toContain(`takes ${percent(row[top]!)} of its mixture from ${from}`);
    expect(q.explanation).toContain(`the model’s answer for “it” is “${r.answer!.word}” (${percent(r.answer!.probability, 1)})`);
    expect(q.explanation).not.toMatch(/tired|wide|who-is-it/);
  });

  test('the opening asks about the pronoun the reader model found, “she” as well as “it”', () => {
    const { body, r } = render('The queen thanked the maid because she had worked hard.');
    expect(r.words[r.answer!.pronoun]).toBe('she');
    expect(text(body, '.problem-opening')).toBe(
      'Take the sentence “The queen thanked the maid because she had worked hard.” What does “she” stand for? A model reading each token alone could not tell: “she” starts as the same vector everywhere.',
    );
  });

  test('unknown words: marked chips and a note from the reader model’s vocabulary', () => {
    const { body, r } = render(UNKNOWN_NOUN);
    expect([...body.querySelectorAll('.problem-chip-unknown')].map((c) => c.firstChild!.textContent)).toEqual(['zorbleck']);
    expect(text(body, '.problem-notes')).toBe(
      `“zorbleck” is not in the vocabulary of the reader model (${r.model.vocabularySize.toLocaleString('en-US')} words): the model reads it as its one unknown-word embedding, so it carries no meaning of its own.`,
    );
    expect(body.textContent).not.toMatch(/who-is-it|51 words/);
  });

  test('while the model loads the figure keeps its shape with empty bars; if it failed, a line says why in its place', () => {
    const body = document.createElement('div');
    const view = problemStep.mount(body, { update: () => {} });
    const s = snapshotOf({ sentence: TROPHY });
    view.render({ ...s, reader: { status: 'loading', causal: false } });
    const drawn = body.querySelector<HTMLElement>('.problem-drawn')!;
    // The sentence's chips and one empty bar per token, the loading line as the bars' caption: nothing moves when it arrives.
    expect(drawn.hidden).toBe(false);
    expect(body.querySelector<HTMLElement>('.problem-status')!.hidden).toBe(true);
    expect([...body.querySelectorAll('.problem-chip')].map((c) => c.textContent)).toEqual(s.tokens);
    expect(text(body, '.problem-bars caption')).toBe('Loading the reader model (it answers this step’s question)…');
    const rows = [...body.querySelectorAll('.problem-bars tbody tr')];
    expect(rows).toHaveLength(s.tokens.length);
    expect(rows.every((row) => !/\d%/.test(row.textContent ?? ''))).toBe(true);
    expect(body.querySelector<HTMLElement>('.reader-figure')!.hidden).toBe(true);
    expect(body.querySelector<HTMLElement>('.reading')!.hidden).toBe(true);
    view.render({ ...s, reader: { status: 'failed', causal: true, message: 'the server answered 404' } });
    expect(text(body, '.problem-status')).toBe(
      'The causal reader model could not be loaded: the server answered 404. Reload the page to try again.',
    );
    expect(drawn.hidden).toBe(true);
    view.render(s);
    expect(body.querySelector<HTMLElement>('.problem-status')!.hidden).toBe(true);
    expect(drawn.hidden).toBe(false);
    expect(body.querySelector<HTMLElement>('.reader-figure')!.hidden).toBe(false);
  });
});
