// The typed engine: loads the wasm once, checks argument types, turns the C++ side's { error }
// results into EngineError exceptions carrying the same message. Results are plain objects of
// copied typed arrays (the bindings copy before returning), so nothing here needs .delete().
import createAttentionEngine from './generated/attention_engine.mjs';
import type {
  AttentionOptions, AttentionResult, DotProductSamples, EngineInfo, FlashOptions, FlashResult, FlashTrace, HeapStats, Matrix,
  MultiHeadOptions, MultiHeadResult, PipelineConfig, PipelineSnapshot, RawEngineModule, SoftmaxSaturation,
} from './types';

export type * from './types';

export class EngineError extends Error {
  override name = 'EngineError';
}

export interface LoadOptions {
  /** The .wasm bytes, when there is no fetch (Node, Vitest). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Override the .wasm location (embeds served from another origin). */
  wasmUrl?: string;
}

function unwrap<T extends object>(result: T | { error: string }): T {
  if ('error' in result) throw new EngineError(result.error);
  return result;
}

function checkMatrix(name: string, m: Matrix): void {
  if (!m || typeof m !== 'object' || !(m.data instanceof Float32Array))
    throw new EngineError(`${name} must be { rows, cols, data: Float32Array }`);
}

function checkFlashOptions(options: FlashOptions): void {
  if (!options || typeof options !== 'object') throw new EngineError('options must be { blockQ, blockK, causal?, scale? }');
  for (const key of ['blockQ', 'blockK'] as const)
    if (typeof options[key] !== 'number') throw new EngineError(`${key} must be a whole number from 1 to 1024`);
  for (const key of ['causal', 'scale'] as const)
    if (options[key] !== undefined && typeof options[key] !== 'boolean') throw new EngineError(`${key} must be true or false`);
}

export class AttentionEngine {
  constructor(private readonly raw: RawEngineModule) {}

  /** The article's attention(Q, K, V, mask): Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v). */
  attention(Q: Matrix, K: Matrix, V: Matrix, options: AttentionOptions = {}): AttentionResult {
    checkMatrix('Q', Q);
    checkMatrix('K', K);
    checkMatrix('V', V);
    if (options.mask !== undefined && !(options.mask instanceof Uint8Array))
      throw new EngineError('mask must be a Uint8Array of n_q x n_k entries (1 = allowed)');
    return unwrap(this.raw.attention(Q, K, V, options));
  }

  /** The article's multi_head_attention(X, W_q, W_k, W_v, W_o, h). */
  multiHeadAttention(X: Matrix, W_q: Matrix, W_k: Matrix, W_v: Matrix, W_o: Matrix, options: MultiHeadOptions): MultiHeadResult {
    for (const [name, m] of [['X', X], ['W_q', W_q], ['W_k', W_k], ['W_v', W_v], ['W_o', W_o]] as const) checkMatrix(name, m);
    return unwrap(this.raw.multiHeadAttention(X, W_q, W_k, W_v, W_o, options));
  }

  /** Every intermediate the walkthrough shows, for one configuration. */
  pipeline(config: PipelineConfig): PipelineSnapshot {
    if (!config || !Array.isArray(config.tokens)) throw new EngineError('tokens must be an array of strings');
    for (const key of ['X', 'W_q', 'W_k', 'W_v', 'W_o'] as const)
      if (config[key] !== undefined && !(config[key] instanceof Float32Array)) throw new EngineError(`${key} must be a Float32Array`);
    if (config.mask !== undefined && !(config.mask instanceof Uint8Array)) throw new EngineError('mask must be a Uint8Array');
    return unwrap(this.raw.pipeline(config));
  }

  /** The article's variance experiment: dot products of unit-normal d_k-vectors, raw and scaled. */
  dotProductSamples(dK: number, samples: number, seed: number): DotProductSamples {
    return unwrap(this.raw.dotProductSamples({ dK, samples, seed }));
  }

  /** softmax(row * factor) and the norm of its Jacobian (how much gradient still flows). */
  softmaxSaturation(row: Float32Array, factor: number): SoftmaxSaturation {
    if (!(row instanceof Float32Array)) throw new EngineError('row must be a Float32Array');
    if (!Number.isFinite(factor)) throw new EngineError('the factor must be a finite number');
    return unwrap(this.raw.softmaxSaturation(row, factor));
  }

  /**
   * attention(Q, K, V) computed in (blockQ, blockK) tiles with an online softmax, FlashAttention-2 style:
   * Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v) -> output (n_q, d_v), equal to attention()'s up to float
   * rounding. Never materialises the (n_q, n_k) matrix, so it accepts up to 65536 tokens.
   */
  flashAttention(Q: Matrix, K: Matrix, V: Matrix, options: FlashOptions): FlashResult {
    checkMatrix('Q', Q);
    checkMatrix('K', K);
    checkMatrix('V', V);
    checkFlashOptions(options);
    return unwrap(this.raw.flashAttention(Q, K, V, options));
  }

  /**
   * The same computation on a small input (n_q, n_k <= 64; d_k, d_v <= 256), recording every
   * (query block, key block) step: running max m, sum l, rescale factor and accumulator per row.
   */
  flashTrace(Q: Matrix, K: Matrix, V: Matrix, options: FlashOptions): FlashTrace {
    checkMatrix('Q', Q);
    checkMatrix('K', K);
    checkMatrix('V', V);
    checkFlashOptions(options);
    return unwrap(this.raw.flashTrace(Q, K, V, options));
  }

  info(): EngineInfo {
    return this.raw.engineInfo();
  }

  heapStats(): HeapStats {
    return this.raw.heapStats();
  }
}

let shared: Promise<AttentionEngine> | null = null;

/** Loads the engine on first call; every later call (from any element on the page) shares it. */
export function loadEngine(options: LoadOptions = {}): Promise<AttentionEngine> {
  shared ??= createEngine(options).catch((error: unknown) => {
    shared = null; // a failed load (offline, blocked wasm) may be retried
    throw error;
  });
  return shared;
}

/** A fresh, unshared instance (tests, benchmarks, recovery after an out-of-memory). */
export async function createEngine(options: LoadOptions = {}): Promise<AttentionEngine> {
  const wasmUrl = options.wasmUrl ?? new URL('./generated/attention_engine.wasm', import.meta.url).href;
  const raw = await createAttentionEngine({
    ...(options.wasmBinary ? { wasmBinary: options.wasmBinary } : { locateFile: () => wasmUrl }),
    printErr: (text: string) => console.warn(`[attention engine] ${text}`),
  });
  return new AttentionEngine(raw);
}
