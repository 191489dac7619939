// The typed wrapper of the kernels that avoid the n x n matrix and of KV-cache decoding
// (cpp/long_context.h, bound in cpp/bindings/long_context.cpp). Like engine.ts it checks JavaScript
// types only; every other rule, and its message, is the C++ side's, and a refusal is an EngineError.
// Results are copies out of wasm memory. A KVCache holds memory in the wasm instance: dispose() it.
// All of it runs in the engine's later module (engine.loadLater() first).
import { AttentionEngine, EngineError, checkFlag, checkMatrix, checkOptions, isObject, numberOrNaN } from './engine';
import { EngineObject, type Result } from './engine-object';
import type { MaskMatrix, Matrix, RawLaterModule } from './types';

/**
 * Which keys each query attends to, within one sequence of n tokens (query i and key i are the same
 * position): its window (causal: keys i - window + 1 .. i; not causal: |i - j| < window), the first
 * `global` tokens (they attend to, and are attended by, every token), and every key j with i - j a
 * multiple of `stride` (0: none). Keys never leave [0, n), and causal attention never sees j > i.
 */
export interface SparsePattern {
  /** 1 or more; n or more is full attention. */
  window: number;
  /** 0 (default) to n. */
  global?: number;
  /** 0 (default, none) or 1 or more; 1 is full attention. */
  stride?: number;
  /** Default true. */
  causal?: boolean;
}

export interface SparseResult {
  /** (n, d_v). */
  output: Matrix;
  /** Query-key scores computed: the pattern's size, exactly. */
  cells: number;
}

export interface PatternMask {
  /** (n, n), 1 = attended. */
  mask: MaskMatrix;
  cells: number;
}

export interface DecodeResult {
  /** (heads, d_k): the new token's attention output, one row per query head. */
  output: Matrix;
  /** Scores computed: heads x t with the cache, heads x t (t + 1) / 2 recomputing everything. */
  cells: number;
}

export interface CacheShape {
  /** 1 to 64. */
  layers: number;
  /** 1 to 64: 1 is multi-query attention, the number of query heads is multi-head. */
  kvHeads: number;
  dK: number;
  /** Tokens the cache has room for (allocated up front). */
  capacity: number;
}

export interface ModelShape {
  layers: number;
  kvHeads: number;
  dK: number;
  /** 2 for 16-bit values, 4 for float32. */
  bytesPerValue: number;
}

interface RawKVCache {
  configure(shape: CacheShape): Result<{ bytesPerToken: number }>;
  append(layer: number, K: Matrix, V: Matrix): Result<{ length: number }>;
  decode(layer: number, Q: Matrix): Result<DecodeResult>;
  length(layer: number): number;
  delete(): void;
}
interface RawLongContextModule {
  sparseAttention(Q: Matrix, K: Matrix, V: Matrix, pattern: SparsePattern): Result<SparseResult>;
  sparsePatternCells(n: number, pattern: SparsePattern): Result<{ cells: number }>;
  sparsePatternMask(n: number, pattern: SparsePattern): Result<PatternMask>;
  linearAttention(Q: Matrix, K: Matrix, V: Matrix, options: { causal?: boolean }): Result<{ output: Matrix }>;
  linearAttentionWeights(Q: Matrix, K: Matrix, options: { causal?: boolean }): Result<{ weights: Matrix }>;
  decodeRecompute(Q: Matrix, K: Matrix, V: Matrix, options: { heads: number; kvHeads: number }): Result<DecodeResult>;
  kvCacheBytesPerToken(shape: ModelShape): Result<{ bytes: number }>;
  KVCache: new () => RawKVCache;
}

const raw = (module: RawLaterModule) => module as unknown as RawLongContextModule;

function checkPattern(pattern: SparsePattern): SparsePattern {
  if (!isObject(pattern)) throw new EngineError('the pattern must be { window, global?, stride?, causal? }');
  const p = pattern as unknown as Record<string, unknown>;
  const plain: SparsePattern = { window: numberOrNaN(p.window), causal: checkFlag(p, 'causal') };
  if (p.global !== undefined) plain.global = numberOrNaN(p.global);
  if (p.stride !== undefined) plain.stride = numberOrNaN(p.stride);
  return plain;
}

function causalOnly(options: unknown): { causal?: boolean } {
  return { causal: checkFlag(checkOptions(options, '{ causal? }'), 'causal') };
}

/** Each named field as a number (NaN for anything else: the C++ side names it in its message). */
function numbers<K extends string>(value: unknown, keys: readonly K[], shape: string): Record<K, number> {
  if (!isObject(value)) throw new EngineError(`${shape} must be an object`);
  return Object.fromEntries(keys.map((key) => [key, numberOrNaN(value[key])])) as Record<K, number>;
}

/** Attention over the pattern's cells only: Q, K (n, d_k), V (n, d_v); scores scaled by 1/√d_k. */
export function sparseAttention(engine: AttentionEngine, Q: Matrix, K: Matrix, V: Matrix, pattern: SparsePattern): SparseResult {
  const [q, k, v] = [checkMatrix('Q', Q), checkMatrix('K', K), checkMatrix('V', V)];
  const p = checkPattern(pattern);
  return engine.withLaterInstance('sparseAttention', (m) => raw(m).sparseAttention(q, k, v, p));
}

/** sparseAttention() with a window only. */
export function slidingWindowAttention(
  engine: AttentionEngine,
  Q: Matrix,
  K: Matrix,
  V: Matrix,
  window: number,
  causal = true,
): SparseResult {
  return sparseAttention(engine, Q, K, V, { window, causal });
}

/** The pattern's cell count for n tokens (up to 65,536), without computing anything. */
export function sparsePatternCells(engine: AttentionEngine, n: number, pattern: SparsePattern): number {
  const p = checkPattern(pattern);
  return engine.withLaterInstance('sparsePatternCells', (m) => raw(m).sparsePatternCells(numberOrNaN(n), p)).cells;
}

/** The pattern as an (n, n) 0/1 mask (n up to 1,024), for the figure. */
export function sparsePatternMask(engine: AttentionEngine, n: number, pattern: SparsePattern): PatternMask {
  const p = checkPattern(pattern);
  return engine.withLaterInstance('sparsePatternMask', (m) => raw(m).sparsePatternMask(numberOrNaN(n), p));
}

/** Linear attention with φ(x) = elu(x) + 1: Q, K (n, d_k), V (n, d_v) -> (n, d_v), O(n d_k d_v). */
export function linearAttention(engine: AttentionEngine, Q: Matrix, K: Matrix, V: Matrix, options: { causal?: boolean } = {}): Matrix {
  const [q, k, v] = [checkMatrix('Q', Q), checkMatrix('K', K), checkMatrix('V', V)];
  const o = causalOnly(options);
  return engine.withLaterInstance('linearAttention', (m) => raw(m).linearAttention(q, k, v, o)).output;
}

/** The (n, n) weights linear attention implies (n up to 1,024): rows sum to 1; weights × V is its output. */
export function linearAttentionWeights(engine: AttentionEngine, Q: Matrix, K: Matrix, options: { causal?: boolean } = {}): Matrix {
  const [q, k] = [checkMatrix('Q', Q), checkMatrix('K', K)];
  const o = causalOnly(options);
  return engine.withLaterInstance('linearAttentionWeights', (m) => raw(m).linearAttentionWeights(q, k, o)).weights;
}

/**
 * The last token's attention without a cache: causal attention over all t tokens again. Q (t, heads d_k),
 * K and V (t, kvHeads d_k), each head's columns side by side; query head h reads KV head h / (heads / kvHeads).
 */
export function decodeRecompute(
  engine: AttentionEngine,
  Q: Matrix,
  K: Matrix,
  V: Matrix,
  options: { heads: number; kvHeads: number },
): DecodeResult {
  const [q, k, v] = [checkMatrix('Q', Q), checkMatrix('K', K), checkMatrix('V', V)];
  const o = numbers(options, ['heads', 'kvHeads'], 'options { heads, kvHeads }');
  return engine.withLaterInstance('decodeRecompute', (m) => raw(m).decodeRecompute(q, k, v, o));
}

/** 2 · layers · kvHeads · dK · bytesPerValue: a model's KV cache per token of context. */
export function kvCacheBytesPerToken(engine: AttentionEngine, shape: ModelShape): number {
  const s = numbers(shape, ['layers', 'kvHeads', 'dK', 'bytesPerValue'], 'the model shape { layers, kvHeads, dK, bytesPerValue }');
  return engine.withLaterInstance('kvCacheBytesPerToken', (m) => raw(m).kvCacheBytesPerToken(s)).bytes;
}

/** Keys and values of the tokens so far, per layer and KV head, in the wasm instance. */
export class KVCache extends EngineObject<RawKVCache> {
  private constructor(
    engine: AttentionEngine,
    instance: RawLaterModule,
    handle: RawKVCache,
    /** 2 (K and V) · layers · kvHeads · dK · 4 bytes. */
    readonly bytesPerToken: number,
  ) {
    super(engine, instance, handle, { className: 'KVCache', words: 'cache', remake: 'create it again', module: 'later' });
  }

  static create(engine: AttentionEngine, shape: CacheShape): KVCache {
    const s = numbers(shape, ['layers', 'kvHeads', 'dK', 'capacity'], 'the cache shape { layers, kvHeads, dK, capacity }');
    return EngineObject.made(
      engine,
      'later',
      'KVCache.create',
      (module) => new (raw(module).KVCache)(),
      (handle) => handle.configure(s),
      (module, handle, configured) => new KVCache(engine, module, handle, configured.bytesPerToken),
    );
  }

  /** One token's K and V for `layer`, each (kvHeads, dK); returns the layer's new length. */
  append(layer: number, K: Matrix, V: Matrix): number {
    const [k, v] = [checkMatrix('K', K), checkMatrix('V', V)];
    return this.call('append', (h) => h.append(numberOrNaN(layer), k, v)).length;
  }

  /** The new token's queries (heads, dK) against every cached token of `layer` (append its K and V first). */
  decode(layer: number, Q: Matrix): DecodeResult {
    const q = checkMatrix('Q', Q);
    return this.call('decode', (h) => h.decode(numberOrNaN(layer), q));
  }

  /** Tokens cached in `layer`. */
  length(layer: number): number {
    if (!Number.isInteger(layer)) throw new EngineError(`layer must be a whole number (got ${String(layer)})`);
    return this.call('length', (h) => ({ length: h.length(layer) })).length;
  }
}
