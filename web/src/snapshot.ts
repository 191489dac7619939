// What every step renders from: plain data, copied out of the engine, never a live engine handle.
import type { DotProductSamples, PipelineSnapshot, SoftmaxSaturation } from './engine/types';
import type { Settings } from './settings';

export interface Snapshot {
  settings: Settings;
  /** Tokens as the reader typed them (labels); the engine saw them lowercased. */
  tokens: string[];
  pipeline: PipelineSnapshot;
  /** The variance experiment at the current d_k (step 4). */
  dots: DotProductSamples;
  /** softmax of the article's row [1, 2, 3] unscaled and times sqrt(d_k) (step 4). */
  saturation: { row: Float32Array; soft: SoftmaxSaturation; sharp: SoftmaxSaturation; factor: number };
  /** Whether the engine runs its SIMD kernels. */
  simd: boolean;
}
