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
  output: Matrix; // (n_q, d_v)
  weights: Matrix; // (n_q, n_k)
  fullyMaskedRows: Uint8Array; // (n_q) 1 where every key was blocked: that row's weights are all 0
}

export interface MultiHeadOptions {
  heads: number;
  causal?: boolean;
  scale?: boolean;
}

export interface MultiHeadResult {
  output: Matrix; // (n, d_model)
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
  /** The head the comparison tables (weightsUnscaled, weightsCausal, weightsMaskedAfter) are for, 0 .. heads - 1; default 0. */
  comparisonHead?: number;
}

/**
 * Every intermediate of the walkthrough, copied out of wasm memory (never a view into it). Read-only:
 * arrays may be shared between results instead of copied again: in a result over 256 KB, any array
 * bit-identical to the same array of one of the engine's last two such results is that result's array.
 * The engine builds it from the layout the C++ side publishes (cpp/pipeline.h, pipeline_fields):
 * these field names are the names there.
 */
export interface PipelineSnapshot {
  n: number;
  dModel: number;
  heads: number;
  dK: number;
  /** 1/sqrt(d_k), or 1 with scaling off. */
  scaleFactor: number;
  X: Matrix;
  W_q: Matrix;
  W_k: Matrix;
  W_v: Matrix;
  W_o: Matrix;
  Q: Matrix;
  K: Matrix;
  V: Matrix; // (n, d_model)
  Q_heads: Tensor3;
  K_heads: Tensor3;
  V_heads: Tensor3; // (h, n, d_k)
  scores: Tensor3; // (h, n, n) raw Q K^T
  scoresScaled: Tensor3; // (h, n, n) times scaleFactor, before the mask
  mask: MaskMatrix; // (n, n) the mask in force
  weights: Tensor3; // (h, n, n)
  fullyMaskedRows: Uint8Array;
  headOutputs: Tensor3; // (h, n, d_k)
  merged: Matrix; // (n, d_model)
  output: Matrix; // (n, d_model)
  /**
   * The comparisons drawn next to the configured path, each (n, n) for head `comparisonHead` only: the
   * page shows one head at a time, and for every head they were half of a large snapshot's bytes.
   */
  comparisonHead: number;
  weightsUnscaled: Matrix; // same mask, no 1/sqrt(d_k)
  weightsCausal: Matrix; // causal mask before softmax
  weightsMaskedAfter: Matrix; // softmax, then zeroed above the diagonal: the wrong way
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
  maxFlashSequence: number;
  maxFlashBlock: number;
  maxTraceSequence: number;
  maxTraceDim: number;
  maxSeed: number;
}

/** The training core's limits (cpp/train/model.h, trainer.h), as trainingLimits() publishes them. */
export interface TrainingLimits {
  /** The longest sequence a model reads (learned position embeddings). */
  maxPositions: number;
  maxLayers: number;
  maxHeads: number;
  minDModel: number;
  maxDModel: number;
  maxBatch: number;
  /** Steps of one step(n) call. */
  maxStepsPerCall: number;
  /** Steps of a model's whole training run. */
  maxTotalSteps: number;
  maxLearningRate: number;
}

/** What the engine says of itself; its limits are read from engine/limits.ts (written at build time). */
export interface EngineInfo {
  simd: boolean;
}

export interface HeapStats {
  /** Bytes malloc has handed out and not taken back. */
  allocatedBytes: number;
  /** Size of the wasm linear memory. */
  memoryBytes: number;
}

export interface FlashOptions {
  /** Query rows per tile, 1..1024 (a block larger than n_q is clamped to n_q). */
  blockQ: number;
  /** Key/value rows per tile, 1..1024 (clamped to n_k). */
  blockK: number;
  /** Token i attends to keys 0..i; needs n_q == n_k (default false). */
  causal?: boolean;
  /** Divide scores by sqrt(d_k) (default true). */
  scale?: boolean;
  /**
   * flashAttention and multiHeadFlashAttention only: a Float32Array of the output's size (n_q x d_v,
   * n_q x heads * d_v) that receives the result and is returned as output.data, instead of a fresh array.
   * Reusing one array across calls saves allocating (and, in Node, page-faulting in) a new one each time:
   * about 0.45 ms of a 2 ms call at n = 512, d_v = 64. Left untouched when the call fails.
   */
  output?: Float32Array;
}

export interface MultiHeadFlashOptions extends FlashOptions {
  /** Heads, 1..64: Q and K have heads * d_k columns, V heads * d_v. */
  heads: number;
}

/** The tiled (FlashAttention-2 style) kernel's result: the same output as attention(), no n x n matrix. */
export interface FlashResult {
  output: Matrix; // (n_q, d_v)
  /**
   * Floats of working memory besides inputs and output, whatever n is: one tile, m, l and the rescale
   * factors, and packed copies of a query block (d_k, blockQ) and a key block (blockK, d_k); block
   * sizes rounded up to multiples of 4. blockQ * blockK + 3 * blockQ + d_k * (blockQ + blockK) when both are.
   */
  scratchFloats: number;
}

/**
 * One (query block, key block) step of the tiled kernel, values after the step. The tile covers query
 * rows [queryStart, queryEnd) and keys [keyStart, keyEnd): rows = queryEnd - queryStart, cols = keyEnd - keyStart.
 */
export interface FlashTraceStep {
  queryBlock: number;
  keyBlock: number;
  queryStart: number;
  queryEnd: number;
  keyStart: number;
  keyEnd: number;
  /** Causal, and every key of the block is after every query row of the block: nothing was computed. */
  skipped: boolean;
  /** (rows, cols) Q_b K_c^T * scaleFactor; -Infinity where masked (all of it when skipped). */
  scores: Matrix;
  /** (rows, cols) exp(score - m) with the new running max m; 0 where masked. Not normalised. */
  probabilities: Matrix;
  /** (rows) running max of each query row's scores so far; -Infinity while the row has seen no key. */
  m: Float32Array;
  /** (rows) running sum of exp(score - m) so far. */
  l: Float32Array;
  /** (rows) exp(m_old - m_new), the factor l and acc were multiplied by: 1 if the max stayed, < 1 if it grew. */
  rescale: Float32Array;
  /** (rows, d_v) unnormalised output accumulator; after the last key block, acc / l is the output. */
  acc: Matrix;
}

/** Every step of the tiled kernel on a small input (n_q, n_k <= 64; d_k, d_v <= 256). */
export interface FlashTrace {
  nQ: number;
  nK: number;
  dK: number;
  dV: number;
  /** Block sizes as used (clamped to nQ, nK). */
  blockQ: number;
  blockK: number;
  queryBlocks: number; // ceil(nQ / blockQ)
  keyBlocks: number; // ceil(nK / blockK)
  causal: boolean;
  /** 1/sqrt(d_k), or 1 with scaling off. */
  scaleFactor: number;
  /** queryBlocks * keyBlocks steps, query block outer: steps[qb * keyBlocks + kb]. */
  steps: FlashTraceStep[];
  /** (n_q, d_v), bit-identical to flashAttention()'s output for the same input. */
  output: Matrix;
}

type Failure = { error: string };

/**
 * How the pipeline's result header is laid out, as cpp/bindings/attention.cpp publishes it: `header` names its
 * first words (each a uint32, or float32 bits for the names in `floatWords`), then one record of
 * `fieldWords` words (named by `fieldWordNames`) per array in `fields`; a record's element word indexes
 * `elements`.
 */
export interface PipelineFormat {
  header: string[];
  floatWords: string[];
  fields: string[];
  /**
   * Each field's dependency level (cpp/pipeline.h, PipelineLevel): an array of level L is computed from
   * the inputs of levels 0 to L only (seed and d_model; tokens; heads; scaling; mask; comparison head).
   */
  levels: number[];
  fieldWords: number;
  fieldWordNames: string[];
  elements: string[];
}

/**
 * The raw module: embind functions, which return { error } instead of throwing, and the pipeline's
 * three plain exports, which pass addresses in wasm memory (the protocol is described in
 * cpp/bindings/attention.cpp; engine.ts is its only user).
 */
export interface RawEngineModule {
  attention(Q: Matrix, K: Matrix, V: Matrix, options: AttentionOptions): AttentionResult | Failure;
  multiHeadAttention(X: Matrix, W_q: Matrix, W_k: Matrix, W_v: Matrix, W_o: Matrix, options: MultiHeadOptions): MultiHeadResult | Failure;
  /** Room for n token ids and the given inputs' lengths (0 = not given): the address of 7 addresses, or 0. */
  _abh_pipeline_stage(
    n: number,
    xLength: number,
    wqLength: number,
    wkLength: number,
    wvLength: number,
    woLength: number,
    maskLength: number,
  ): number;
  /** Runs the staged configuration: the address of the result header (see pipelineFormat()), or 0 (then pipelineError() says why). */
  _abh_pipeline_run(dModel: number, heads: number, seed: number, causal: number, scale: number, comparisonHead: number): number;
  /** Frees what the last stage/run allocated. */
  _abh_pipeline_release(): void;
  pipelineError(): string;
  pipelineFormat(): PipelineFormat;
  /** Views of the wasm memory, replaced when it grows: read them after every call. */
  readonly HEAPU8: Uint8Array;
  readonly HEAPU32: Uint32Array;
  readonly HEAPF32: Float32Array;
  dotProductSamples(options: { dK: number; samples: number; seed: number }): DotProductSamples | Failure;
  softmaxSaturation(row: Float32Array, factor: number): SoftmaxSaturation | Failure;
  /** The build's kind and limits: web/scripts/build-wasm.mjs writes the limits into generated/limits.json. */
  engineInfo(): EngineInfo & { limits: EngineLimits };
  trainingLimits(): TrainingLimits;
  /** This instance's memory (each module has its own). */
  heapStats(): HeapStats;
}

/**
 * The later module (`attention_engine_later.wasm`, fetched when a step that needs it is first drawn):
 * the tiled kernel here, the long-context kernels and the KV cache in long-context.ts's view of it.
 */
export interface RawLaterModule {
  flashAttention(Q: Matrix, K: Matrix, V: Matrix, options: FlashOptions): FlashResult | Failure;
  flashMultiHead(Q: Matrix, K: Matrix, V: Matrix, options: MultiHeadFlashOptions): FlashResult | Failure;
  flashTrace(Q: Matrix, K: Matrix, V: Matrix, options: FlashOptions): FlashTrace | Failure;
  heapStats(): HeapStats;
}
