// Step 1's reading of the reader's sentence with the reader model: the answer, whether it is a guess,
// which words flip it and where a left-to-right model settles (the head that resolves pronouns comes
// from the model's record). Every conclusion here is measured by running the model again on the
// sentence with one word changed, never typed: the page's sentences are made from these results.
import type { ReaderModel, ReaderModelAnswer } from '../../engine/reader';
import type { Matrix } from '../../engine/types';

/** Below this probability the answer is a guess: the page says "guessing", never a bare answer. */
export const GUESS_BELOW = 0.6;

/** What a word reads as when the model is asked what the sentence would be without it. */
export const UNKNOWN_WORD = '?';

/** `result.trained.answer`: positions index the sentence's words. */
export interface SentenceAnswer {
  pronoun: number;
  antecedent: number | null;
  word: string | null;
  probability: number;
  /** false when the model is guessing (see `GuessReason`). */
  known: boolean;
}

/**
 * Why an answer is a guess: its probability is under GUESS_BELOW; the word it names is outside the
 * vocabulary; or an unknown word decides it (the answer changes when that word is left out).
 * A word outside the vocabulary that the alias table reads as a known one ("famished" as "hungry")
 * counts as known: the model reads that known word's embedding, nothing is guessed about it, and the
 * page names the word it read instead (figure.ts), so a reader can judge the substitution. Such a word
 * is then tested for flips like any known word.
 */
export type GuessReason = { kind: 'confidence' } | { kind: 'unknown-answer' } | { kind: 'unknown-decides'; positions: number[] };

/** A word whose replacement by the unknown-word embedding changes the answer, and the answer then. */
export interface Flip {
  position: number;
  antecedent: number | null;
  probability: number;
}

/** With the causal model: the answer at the pronoun itself, and the word from which it stays the final one. */
export interface Settling {
  atPronoun: { antecedent: number; probability: number };
  /** The first query position from which every later row names the final answer. */
  settlesAt: number;
}

export interface ReaderReading {
  raw: ReaderModelAnswer;
  answer: SentenceAnswer | null;
  /** The candidates (known nouns and unknown words) with their pointer probability, in sentence order. */
  candidates: { position: number; probability: number }[];
  guess: GuessReason[];
  /** null until found: one forward pass per word, so the page shows the answer first (readFlips). */
  flips: Flip[] | null;
  settling: Settling | null;
}

/** A reading with its flips found. */
export type CompleteReading = ReaderReading & { flips: Flip[] };

/** Row `row` of a (rows, cols) matrix. */
export function matrixRow(m: Matrix, row: number): Float32Array {
  return m.data.subarray(row * m.cols, (row + 1) * m.cols);
}

function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let j = 1; j < values.length; j++) if (values[j]! > values[best]!) best = j;
  return best;
}

/** The answer with the word at `position` left out, its positions mapped back to the sentence's. */
function answerWithout(model: ReaderModel, words: readonly string[], pronoun: number, position: number): number | null {
  const shorter = words.filter((_, i) => i !== position);
  const a = model.answer(shorter, pronoun - (position < pronoun ? 1 : 0));
  if (a.antecedent < 0) return null;
  return a.antecedent + (a.antecedent >= position ? 1 : 0);
}

/** The model's whole reading of one sentence (already cut to the model's positions): readAnswer, then readFlips. */
export function readSentence(model: ReaderModel, words: readonly string[]): CompleteReading {
  const reading = readAnswer(model, words);
  return { ...reading, flips: readFlips(model, words, reading) };
}

/**
 * The answer part of a reading (already cut to the model's positions), without the flips (null):
 * one forward pass, plus one for each unknown word, which may decide whether the answer is a guess.
 */
export function readAnswer(model: ReaderModel, words: readonly string[]): ReaderReading {
  const raw = model.answer(words);
  if (raw.pronoun < 0) return { raw, answer: null, candidates: [], guess: [], flips: [], settling: null };
  const n = raw.words.length;
  const last = matrixRow(raw.pointer, raw.queries.length - 1);
  const candidates: ReaderReading['candidates'] = [];
  for (let i = 0; i < n; i++) if (raw.candidates[i]) candidates.push({ position: i, probability: last[i]! });

  const guess: GuessReason[] = [];
  if (raw.probability < GUESS_BELOW) guess.push({ kind: 'confidence' });
  if (raw.unknown[raw.antecedent]) guess.push({ kind: 'unknown-answer' });
  const deciding: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!raw.unknown[i] || i === raw.antecedent || i === raw.pronoun) continue;
    if (answerWithout(model, words, raw.pronoun, i) !== raw.antecedent) deciding.push(i);
  }
  if (deciding.length) guess.push({ kind: 'unknown-decides', positions: deciding });

  let settling: Settling | null = null;
  if (raw.queries.length > 1) {
    const tops = raw.queries.map((_, q) => argmax(matrixRow(raw.pointer, q)));
    let from = tops.length - 1;
    while (from > 0 && tops[from - 1] === raw.antecedent) from--;
    const first = matrixRow(raw.pointer, 0);
    settling = { atPronoun: { antecedent: tops[0]!, probability: first[tops[0]!]! }, settlesAt: raw.queries[from]! };
  }

  return {
    raw,
    answer: {
      pronoun: raw.pronoun,
      antecedent: raw.antecedent,
      word: raw.words[raw.antecedent] ?? null,
      probability: raw.probability,
      known: guess.length === 0,
    },
    candidates,
    guess,
    flips: null,
    settling,
  };
}

/**
 * Which words flip the reading's answer: each known word other than the pronoun and the candidates,
 * read as unknown, one forward pass each (29 for the bench's 40-word sentence). [] without a pronoun.
 */
export function readFlips(model: ReaderModel, words: readonly string[], reading: ReaderReading): Flip[] {
  const { raw } = reading;
  if (reading.flips) return reading.flips;
  const positions: number[] = [];
  for (let i = 0; i < raw.words.length; i++) if (!raw.unknown[i] && !raw.candidates[i] && i !== raw.pronoun) positions.push(i);
  // One call into wasm for all of them: about 9 % less than one answer() each (no attention copied out).
  return model
    .answerVariants(words, raw.pronoun, positions, UNKNOWN_WORD)
    .flatMap((a, k) =>
      a.antecedent === raw.antecedent
        ? []
        : [{ position: positions[k]!, antecedent: a.antecedent < 0 ? null : a.antecedent, probability: a.probability }],
    );
}
