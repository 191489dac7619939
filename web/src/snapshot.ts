// What every step renders from: plain data, copied out of the engine, never a live engine handle.
import type { DotProductSamples, FlashTrace, Matrix, PipelineSnapshot, SoftmaxSaturation } from './engine/types';
import type { SentenceAnswer } from './features/reader/answer';
import type { ReaderView } from './features/reader/model';
import type { LongContextSnapshot } from './features/long-context/compute';
import type { KVCacheSnapshot } from './features/long-context/kv-cache';
import type { Settings } from './settings';
import type { TrainedSnapshot } from './features/trained-model/trained';

export interface Snapshot {
  settings: Settings;
  /** Tokens as the reader typed them (labels); the engine saw them lowercased. */
  tokens: string[];
  pipeline: PipelineSnapshot;
  /** The variance experiment at the current d_k (step 4). */
  dots: DotProductSamples;
  /** The same experiment at the article's dₖ 64 (its std ≈ 8 -> ≈ 1), when the current dₖ is another; null at 64. */
  articleDots: DotProductSamples | null;
  /**
   * softmax of the article's row [1, 2, 3] unscaled and times √dₖ (step 4), for the dₖ named here: the
   * pipeline's, or the article's 64 with its four-token example (whose dₖ 4 would stretch by only 2).
   */
  saturation: { row: Float32Array; soft: SoftmaxSaturation; sharp: SoftmaxSaturation; factor: number; dK: number };
  /** Whether the engine runs its SIMD kernels. */
  simd: boolean;
  /** The tiled kernel, tile by tile, on the shown head (step 10); `unavailable` says so until the engine's later module is loaded. */
  flash: FlashSnapshot;
  /**
   * Full attention and the ways around its n × n matrix, on the shown head of the sentence (the
   * long-context step); null until the engine's later module is loaded (engine.ts loadLater()).
   */
  longContext: LongContextSnapshot | null;
  /** The sentence generated token by token through a KV cache, on all its heads (the long-context step); null as longContext. */
  kvCache: KVCacheSnapshot | null;
  /**
   * The same settings without the reader's edits (seeded X and W), when there are edits; null otherwise.
   * Every figure compares against it to mark the numbers an edit reached, and by how much.
   */
  baseline: PipelineSnapshot | null;
  /**
   * The trained models on the sentence (`result.trained`). With the small who-is-it model in view
   * (weights=trained, or the example once a step from multi-head on is drawn): that model on this sentence
   * (every layer's and head's attention, the prediction at "it", unknown words, head shares, held-out
   * accuracy); `pipeline` is then its resolving layer, run on that layer's input and weights. Where only
   * step 1's reader model is shown: `origin` 'reader-model' and the words that model read. Either way
   * `answer` is step 1's reader model's answer (`reader`), null while it loads or without a pronoun.
   * null with random weights.
   */
  trained: ((TrainedSnapshot | ReaderTrained) & { answer: SentenceAnswer | null }) | null;
  /** Step 1's reader model on the sentence (the causal one with the causal mask); null with random weights. */
  reader: ReaderView | null;
  /**
   * With the article's four-token example (weights=example): the same page on the sentence, which the
   * steps from multi-head on show, and step 1 (the example has one head and four tokens). null otherwise: those
   * steps show this snapshot. Read it through sentenceView().
   */
  sentence: Snapshot | null;
}

/**
 * What can arrive after a snapshot was computed without it, and the part of the snapshot it changes:
 * step 1's reader model ('reader': `reader`, `trained.answer`, the answer under each long-context pattern;
 * its flips too), the engine's later module ('later': `flash`, `longContext`, `kvCache`), and beside the
 * article's example the trained model's weights ('weights': `trained`, `sentence`, `longContext`, `kvCache`).
 */
export type ArrivedPart = 'reader' | 'later' | 'weights';

/** A snapshot handed out again with one part new: the snapshot it repeats (`of`) and that part. */
export interface Repeat {
  of: Snapshot;
  part: ArrivedPart;
}

/** `result.trained` where only step 1's reader model is shown: the words it read (`answer` indexes them). */
export interface ReaderTrained {
  origin: 'reader-model';
  words: string[];
}

/** The small who-is-it model in `trained`, or null (only the reader model, or random weights). */
export function whoIsIt(trained: Snapshot['trained']): (TrainedSnapshot & { answer: SentenceAnswer | null }) | null {
  return trained && trained.origin !== 'reader-model' ? trained : null;
}

/** What step 1 and the steps from multi-head on show: the sentence beside the article’s example, else the snapshot itself. */
export function sentenceView(snapshot: Snapshot): Snapshot {
  return snapshot.sentence ?? snapshot;
}

/** What a step computed by the engine's later module says while that module is on its way (engine.ts loadLater()). */
export const LATER_KERNELS_LOADING = 'This step’s kernels are loading (a second part of the engine, fetched when the step is first shown)…';

/** engine.flashTrace on the shown head's Q, K, V, first `tokens` rows, with the page's block, mask and scaling. */
export interface FlashSnapshot {
  /** Tokens traced: the first min(n, FLASH_MAX_TOKENS). */
  tokens: number;
  /** Every (query block, key block) step; null when the trace could not be made (see `unavailable`). */
  trace: FlashTrace | null;
  /** Why there is no trace, in words for the reader. */
  unavailable: string | null;
  /**
   * The naive attention() output on the same traced tokens, when it is not simply the first rows of
   * pipeline.headOutputs (fewer tokens than the sentence, without the causal mask); null otherwise.
   */
  prefixNaive: Matrix | null;
}
