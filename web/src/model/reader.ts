// Step 1's reader models (issue 38): where their weights files and their alias table are, and the
// records `npm run train:weights` (or `measure:reader`) wrote beside them (cpp/train/reader_cli.cpp): shape, training, and every accuracy
// measured on the shipped (quantized) file. tests/cpp/reader_shipped_test.cpp measures the files again
// and must reproduce these numbers; the page quotes them, never its own copies. The page imports this
// module only when it first asks for a reader model (features/reader/model.ts), so the records (~6 KiB
// gzipped) come with the model, not with the page's live code.
import { fetchWeightsOnce } from './fetch-once';
import causalRecord from './reader-causal.json';
import bidirectionalRecord from './reader.json';

export interface ReaderScoreRecord {
  sentences: number;
  correct: number;
  refused: number;
  accuracy: number;
}

export interface ReaderModelRecord {
  task: 'reader' | 'reader-causal';
  causal: boolean;
  layers: number;
  heads: number;
  dModel: number;
  mlp: boolean;
  positions: number;
  parameters: number;
  vocabulary: number;
  frames: number;
  heldoutFrameNames: string[];
  learningRate: number;
  warmup: number;
  weightDecay: number;
  wordDropout: number;
  batch: number;
  steps: number;
  seed: number;
  bytes: number;
  quantization: string;
  /** The alias table the numbers below were measured with: entries kept for this vocabulary, by WordNet relation. */
  aliases: { words: number; byRelation: Record<string, number> };
  /** Words of the hand-written sentences and of the pairs (each occurrence) read through an alias, or still as unknown. */
  unknownWords: { handwrittenAliased: number; handwrittenUnknown: number; pairsAliased: number; pairsUnknown: number };
  /** Generated sentences whose (word, word, frame) combination was never trained on. */
  heldoutWords: ReaderScoreRecord;
  /** The same, measured on the float model before quantization. */
  heldoutWordsFloat: ReaderScoreRecord;
  /** Generated sentences of frames never trained on. */
  heldoutFrames: ReaderScoreRecord;
  /** tests/data/reader/handwritten.txt. */
  handwritten: ReaderScoreRecord;
  /** tag -> [right, sentences] over the hand-written set. */
  handwrittenByTag: Record<string, readonly number[]>;
  /** tests/data/reader/minimal-pairs.txt: pairs with both sentences answered right. */
  minimalPairs: { pairs: number; bothRight: number; accuracy: number };
  /**
   * The head whose attention from the pronoun puts the most mean weight on the antecedent (0-based
   * layer and head), measured by the trainer on the generated held-out sentences (`sentences` of them: all
   * but those with a contracted "it's"): the head step 1 shows.
   */
  resolvingHead: { layer: number; head: number; share: number; sentences: number };
  /** The hand-written sentences the model gets wrong (answered: null when it refused one). */
  handwrittenWrong: { text: string; expected: string; answered: string | null }[];
}

export const READER_MODELS: Readonly<Record<'bidirectional' | 'causal', Readonly<ReaderModelRecord>>> = Object.freeze({
  bidirectional: Object.freeze(bidirectionalRecord as ReaderModelRecord),
  causal: Object.freeze(causalRecord as ReaderModelRecord),
});

/** The weights file of one reader model as this build emitted it (next to the bundle). */
export function readerWeightsUrl(causal: boolean): string {
  return causal ? new URL('./reader-causal.bin', import.meta.url).href : new URL('./reader.bin', import.meta.url).href;
}

/** The alias table both reader models read (cpp/train/reader_aliases.h), next to the bundle. */
export function readerAliasesUrl(): string {
  return new URL('./reader-aliases.txt', import.meta.url).href;
}

/** Downloads the alias table once per page; a failed download may be retried. */
export function loadReaderAliases(): Promise<Uint8Array> {
  return fetchWeightsOnce(readerAliasesUrl(), 'the reader models’ alias table');
}

/** Downloads a reader model's weights once per page; a failed download may be retried. */
export function loadReaderWeights(causal: boolean): Promise<Uint8Array> {
  return fetchWeightsOnce(readerWeightsUrl(causal), causal ? 'the causal reader model' : 'the reader model');
}
