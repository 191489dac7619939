// The engine's boundary shapes, shared by the wrapper, the state module and every step renderer.
// Everything is row-major float32, exactly as cpp/tensor.h lays it out.

/** A (rows, cols) matrix. data[r * cols + c]. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float32Array;
}

/** A stack of (rows, cols) matrices, e.g. per-head weights (h, n, n). data[(h * rows + r) * cols + c]. */
export interface Tensor3 {
  heads: number;
  rows: number;
  cols: number;
  data: Float32Array;
}

/** (rows, cols) of 0/1: 1 = the query row may attend to the key column. */
export interface MaskMatrix {
  rows: number;
  cols: number;
  data: Uint8Array;
}

export interface AttentionOptions {
  /** (n_q, n_k) 0/1 entries; blocked scores become -inf before softmax. */
  mask?: Uint8Array;
  /** Divide scores by sqrt(d_k) (default true). */
  scale?: boolean;
}

export interface AttentionResult {
  output: Matrix;             // (n_q, d_v)
  weights: Matrix;            // (n_q, n_k)
  fullyMaskedRows: Uint8Array; // (n_q) 1 where every key was blocked: that row's weights are all 0
}

export interface MultiHeadOptions {
  heads: number;
  causal?: boolean;
  scale?: boolean;
}

export interface MultiHeadResult {
  output: Matrix;   // (n, d_model)
  weights: Tensor3; // (h, n, n)
  fullyMaskedRows: Uint8Array;
}

export interface PipelineConfig {
  /** One entry per token; n = tokens.length. Lowercase them first so "The" and "the" share an embedding. */
  tokens: string[];
  dModel: number;
  heads: number;
  causal?: boolean;
  scale?: boolean;
  /** 0 .. 2^32 - 1 */
  seed?: number;
  /** Optional explicit matrices, row-major, replacing the seed-generated ones. */
  X?: Float32Array;
  W_q?: Float32Array;
  W_k?: Float32Array;
  W_v?: Float32Array;
  W_o?: Float32Array;
  /** Optional (n, n) 0/1 mask; overrides `causal`. */
  mask?: Uint8Array;
}

/** Every intermediate of the walkthrough, copied out of wasm memory. */
export interface PipelineSnapshot {
  n: number;
  dModel: number;
  heads: number;
  dK: number;
  /** 1/sqrt(d_k), or 1 with scaling off. */
  scaleFactor: number;
  X: Matrix; W_q: Matrix; W_k: Matrix; W_v: Matrix; W_o: Matrix;
  Q: Matrix; K: Matrix; V: Matrix;               // (n, d_model)
  Q_heads: Tensor3; K_heads: Tensor3; V_heads: Tensor3; // (h, n, d_k)
  scores: Tensor3;          // (h, n, n) raw Q K^T
  scoresScaled: Tensor3;    // (h, n, n) times scaleFactor, before the mask
  mask: MaskMatrix;         // (n, n) the mask in force
  weights: Tensor3;         // (h, n, n)
  fullyMaskedRows: Uint8Array;
  headOutputs: Tensor3;     // (h, n, d_k)
  merged: Matrix;           // (n, d_model)
  output: Matrix;           // (n, d_model)
  weightsUnscaled: Tensor3;     // same mask, no 1/sqrt(d_k)
  weightsCausal: Tensor3;       // causal mask before softmax
  weightsMaskedAfter: Tensor3;  // softmax, then zeroed above the diagonal: the wrong way
}

export interface DotProductSamples {
  dK: number;
  /** q . k for pairs of vectors with unit-normal components. */
  raw: Float32Array;
  /** raw / sqrt(d_k) */
  scaled: Float32Array;
  rawStd: number;
  scaledStd: number;
}

export interface SoftmaxSaturation {
  probabilities: Float32Array;
  /** Frobenius norm of the softmax Jacobian diag(p) - p p^T: how much gradient still flows. */
  jacobianNorm: number;
}

export interface EngineLimits {
  maxSequence: number;
  maxDim: number;
  maxScoreElements: number;
  maxPipelineTokens: number;
  maxDModel: number;
  maxHeads: number;
  maxPipelineHeadScoreElements: number;
}

export interface EngineInfo {
  simd: boolean;
  limits: EngineLimits;
}

export interface HeapStats {
  /** Bytes malloc has handed out and not taken back. */
  allocatedBytes: number;
  /** Size of the wasm linear memory. */
  memoryBytes: number;
}

type Failure = { error: string };

/** The raw embind functions: they return { error } instead of throwing. */
export interface RawEngineModule {
  attention(Q: Matrix, K: Matrix, V: Matrix, options: AttentionOptions): AttentionResult | Failure;
  multiHeadAttention(X: Matrix, W_q: Matrix, W_k: Matrix, W_v: Matrix, W_o: Matrix, options: MultiHeadOptions): MultiHeadResult | Failure;
  pipeline(config: PipelineConfig): PipelineSnapshot | Failure;
  dotProductSamples(options: { dK: number; samples: number; seed: number }): DotProductSamples | Failure;
  softmaxSaturation(row: Float32Array, factor: number): SoftmaxSaturation | Failure;
  engineInfo(): EngineInfo;
  heapStats(): HeapStats;
}
