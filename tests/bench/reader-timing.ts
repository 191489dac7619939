// Step 1's reader model answering a 40-word sentence (issue 38: ≤ 10 ms in Chromium), the same in
// Node (tests/bench/reader.ts) and in the bench page (tests/bench/page/main.ts): no Node or DOM APIs.
//   answer           ReaderModel.answer(): one forward pass, the answer and the attention the figure draws;
//   answer on screen readAnswer() (web/src/features/reader/answer.ts), what the first snapshot of a new
//                    sentence computes: the answer, and the model again with each unknown word left out
//                    (whether one decides the answer, so whether it is a guess);
//   reading complete readSentence(): that and readFlips(), the model again with each word read as
//                    unknown (which words flip the answer), which the page computes after painting the answer.
import type { AttentionEngine } from '../../web/src/engine/engine';
import { ReaderModel } from '../../web/src/engine/reader';
import { readAnswer, readSentence } from '../../web/src/features/reader/answer';
import { timeInterleaved, type CallTiming, type CpuClock } from './suite';

/** 40 words, one pronoun ("it", at word 28), every noun in the model's vocabulary or not: the sentence's own. */
export const READER_SENTENCE =
  'The old wooden trophy that the young girl won at the school fair last summer did not fit into the small brown ' +
  'suitcase on the bed because it was really far too big for the narrow space inside the case.';

export const READER_WORDS = READER_SENTENCE.split(/\s+/);

/** Step 1's two models (web/src/model/): the page shows the causal one while the causal mask is on. */
export const READER_MODELS = [
  { label: 'bidirectional', file: 'reader.bin' },
  { label: 'causal', file: 'reader-causal.bin' },
] as const;

export interface ReaderModelBytes {
  /** READER_MODELS's label. */
  label: string;
  bytes: Uint8Array;
}

export interface ReaderTiming {
  model: string;
  words: number;
  /** What the model answered, how many words flip it, and the forward passes before the answer is shown and in all. */
  answer: { word: string | null; probability: number; flips: number; runsOnScreen: number; runsComplete: number };
  forwardPass: CallTiming;
  answerOnScreen: CallTiming;
  readingComplete: CallTiming;
}

export async function measureReader(
  engine: AttentionEngine,
  models: ReaderModelBytes[],
  options: { cpuClock?: CpuClock; cpuOverheadMs?: number; minSampleMs?: number; log?: (line: string) => void } = {},
): Promise<ReaderTiming[]> {
  if (READER_WORDS.length !== 40) throw new Error(`the bench sentence has ${READER_WORDS.length} words, not 40`);
  const loaded = models.map((m) => ({ label: m.label, model: ReaderModel.fromWeights(engine, m.bytes) }));
  try {
    const calls = loaded.flatMap(({ model }) => [
      () => model.answer(READER_WORDS),
      () => readAnswer(model, READER_WORDS),
      () => readSentence(model, READER_WORDS),
    ]);
    const timings = await timeInterleaved(calls, {
      rounds: 15,
      minSampleMs: options.minSampleMs ?? 20,
      cpuOverheadMs: options.cpuOverheadMs ?? 0,
      ...(options.cpuClock ? { cpuClock: options.cpuClock } : {}),
    });
    return loaded.map(({ label, model }, i) => {
      // The forward passes, counted on a model that counts its answer() calls: the sentence once and
      // again for each unknown word left out (on screen), then for each word read as unknown (complete).
      let runs = 0;
      const counting = {
        answer: (w: readonly string[], p?: number) => (++runs, model.answer(w, p)),
        answerVariants: (w: readonly string[], p: number, at: readonly number[], word: string) => (
          (runs += at.length),
          model.answerVariants(w, p, at, word)
        ),
      } as unknown as ReaderModel;
      readAnswer(counting, READER_WORDS);
      const runsOnScreen = runs;
      runs = 0;
      const reading = readSentence(counting, READER_WORDS);
      const result: ReaderTiming = {
        model: label,
        words: READER_WORDS.length,
        answer: {
          word: reading.answer?.word ?? null,
          probability: reading.answer?.probability ?? NaN,
          flips: reading.flips.length,
          runsOnScreen,
          runsComplete: runs,
        },
        forwardPass: timings[3 * i]!,
        answerOnScreen: timings[3 * i + 1]!,
        readingComplete: timings[3 * i + 2]!,
      };
      options.log?.(
        `reader ${label}: forward pass ${result.forwardPass.medianMs.toFixed(2)} ms, answer on screen ${result.answerOnScreen.medianMs.toFixed(2)} ms (${runsOnScreen} model runs), ` +
          `reading complete ${result.readingComplete.medianMs.toFixed(2)} ms (${runs} model runs)`,
      );
      return result;
    });
  } finally {
    for (const { model } of loaded) model.dispose();
  }
}
