// What each pattern does to step 1's answer: the trained reader model (features/reader/) answers the
// sentence again with its attention restricted to the long-context step's window, window + global
// tokens and window + stride patterns (ReaderModel.answerWithin: inference only, the model was trained
// with full attention), beside its answer with full attention. Linear attention would replace the
// model's softmax by another function it was never trained with: its answer is not computed.
import type { AttentionEngine } from '../../engine/engine';
import { sparsePatternMask } from '../../engine/long-context';
import { readerModelFor, type ReaderView } from '../reader/model';
import type { Settings } from '../../settings';
import type { TechniqueId } from './compute';

export interface ReaderPick {
  /** The word the pronoun is resolved to, as the model read it. */
  word: string;
  position: number;
  probability: number;
}

export interface ReaderEffect {
  causal: boolean;
  /** The pronoun resolved, and its position. */
  pronoun: { word: string; position: number };
  /** Words the model read (the pattern's n). */
  words: number;
  full: ReaderPick;
  /** Per pattern, the answer within it. */
  techniques: { id: Exclude<TechniqueId, 'linear'>; pick: ReaderPick }[];
}

/**
 * The reader's answers under each pattern, when step 1 has an answer (the trained model loaded, a
 * pronoun in the sentence); null otherwise (random weights, loading, no pronoun).
 */
export function computeReaderEffect(engine: AttentionEngine, reader: ReaderView | null, settings: Settings): ReaderEffect | null {
  if (reader?.status !== 'ready' || !reader.answer) return null;
  const model = readerModelFor(engine, reader.causal);
  if (!model) return null;
  const words = reader.words;
  const n = words.length;
  const pronoun = reader.answer.pronoun;
  const pick = (answer: { antecedent: number; probability: number }): ReaderPick => ({
    word: words[answer.antecedent] ?? '',
    position: answer.antecedent,
    probability: answer.probability,
  });
  const full = pick(model.answer(words, pronoun));
  const global = Math.min(settings.lcGlobal, n);
  const within = (window: number, extra: { global?: number; stride?: number }) =>
    pick(model.answerWithin(words, sparsePatternMask(engine, n, { window, causal: reader.causal, ...extra }).mask.data, pronoun));
  return {
    causal: reader.causal,
    pronoun: { word: words[pronoun] ?? '', position: pronoun },
    words: n,
    full,
    techniques: [
      { id: 'window', pick: within(settings.lcWindow, {}) },
      { id: 'global', pick: within(settings.lcWindow, { global }) },
      { id: 'strided', pick: within(settings.lcWindow, { stride: settings.lcStride }) },
    ],
  };
}
