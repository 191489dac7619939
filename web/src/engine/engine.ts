// The typed engine: loads the wasm once, checks argument types, turns the C++ side's { error }
// results into EngineError exceptions carrying the same message. Results are plain objects of
// copied typed arrays (the bindings copy before returning, into a fresh array or the caller's
// options.output of the tiled kernels), so nothing here needs .delete().
// Loading failures (no SIMD, a missing or damaged .wasm, a CSP that blocks WebAssembly) are
// EngineErrors that say which; a failure inside the instance (out of memory) is an EngineCrash,
// after which restart() re-creates the instance.
import createAttentionEngine from './generated/attention_engine.mjs';
import type {
  AttentionOptions, AttentionResult, DotProductSamples, EngineInfo, EngineLimits, FlashOptions, FlashResult, FlashTrace, HeapStats, Matrix,
  MultiHeadFlashOptions, MultiHeadOptions, MultiHeadResult, PipelineConfig, PipelineSnapshot, RawEngineModule, SoftmaxSaturation, Tensor3,
} from './types';

export type * from './types';

export class EngineError extends Error {
  override name = 'EngineError';
}

/**
 * A call failed inside the wasm instance itself (out of memory, an abort, a trap): not bad input.
 * The instance may have leaked or corrupted memory, so the engine refuses further calls (throwing
 * EngineCrash) until restart() has re-created it. `cause` holds what the instance threw.
 */
export class EngineCrash extends Error {
  override name = 'EngineCrash';
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

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A plain copy of the matrix's fields: getters on the caller's object run here, not inside the wasm call. */
function checkMatrix(name: string, m: Matrix): Matrix {
  if (!isObject(m) || !(m.data instanceof Float32Array)) throw new EngineError(`${name} must be { rows, cols, data: Float32Array }`);
  return { rows: m.rows, cols: m.cols, data: m.data };
}

function checkFlag(options: Record<string, unknown>, key: string): boolean | undefined {
  const value = options[key];
  if (value !== undefined && typeof value !== 'boolean') throw new EngineError(`${key} must be true or false`);
  return value;
}

function checkOptions(options: unknown, shape: string): Record<string, unknown> {
  if (options === undefined) return {};
  if (!isObject(options)) throw new EngineError(`options must be ${shape}`);
  return options;
}

function checkFlashOptions(options: FlashOptions, shape = '{ blockQ, blockK, causal?, scale?, output? }', takesOutput = true): FlashOptions {
  if (!isObject(options)) throw new EngineError(`options must be ${shape}`);
  for (const key of ['blockQ', 'blockK'] as const)
    if (typeof options[key] !== 'number') throw new EngineError(`${key} must be a whole number from 1 to 1024`);
  const plain: FlashOptions = { blockQ: options.blockQ, blockK: options.blockK, causal: checkFlag(options, 'causal'), scale: checkFlag(options, 'scale') };
  const output: unknown = options.output;
  if (output !== undefined) {
    if (!takesOutput) throw new EngineError('flashTrace takes no output array (it returns every step)');
    if (!(output instanceof Float32Array)) throw new EngineError('output must be a Float32Array');
    plain.output = output; // its length is checked by the C++ side, against the output's shape
  }
  return plain;
}

/** What the instance threw, in words: an Emscripten abort, a trap, or a C++ exception (a number). */
function crashReason(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : typeof error === 'number' ? `an uncaught C++ exception (${error})` : String(error);
  return text.replace(/\. Build with -s ASSERTIONS=1 for more info\.?/, '');
}

/** What cpp/bindings.cpp's is_whole_number accepted: a finite integer in [lo, hi]. */
const isWhole = (x: unknown, lo: number, hi: number): x is number =>
  typeof x === 'number' && Number.isFinite(x) && Math.floor(x) === x && x >= lo && x <= hi;

/**
 * A token's identity, as cpp/random.h's token_id(): FNV-1a over its UTF-8 bytes. The bytes are the
 * ones Emscripten's std::string conversion writes (stringToUTF8Array), which the engine used to
 * receive: a surrogate code unit is always paired with the next one (a lone one at the end with 0).
 * For well-formed strings that is plain UTF-8, the same as TextEncoder's.
 */
export function tokenId(token: string): number {
  let hash = 0x811c9dc5;
  const add = (byte: number) => {
    hash = Math.imul(hash ^ byte, 16777619);
  };
  for (let i = 0; i < token.length; i++) {
    let u = token.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdfff) u = (0x10000 + ((u & 1023) << 10)) | (token.charCodeAt(++i) & 1023);
    if (u <= 0x7f) add(u);
    else if (u <= 0x7ff) {
      add(0xc0 | (u >> 6));
      add(0x80 | (u & 63));
    } else if (u <= 0xffff) {
      add(0xe0 | (u >> 12));
      add(0x80 | ((u >> 6) & 63));
      add(0x80 | (u & 63));
    } else {
      add(0xf0 | (u >> 18));
      add(0x80 | ((u >> 12) & 63));
      add(0x80 | ((u >> 6) & 63));
      add(0x80 | (u & 63));
    }
  }
  return hash >>> 0;
}

/** The snapshot's float tensors in cpp/pipeline.h's PipelineTensor order: the result header's offset table. */
const PIPELINE_TENSORS = [
  'W_q', 'W_k', 'W_v', 'W_o', 'X', 'Q', 'K', 'V', 'Q_heads', 'K_heads', 'V_heads', 'scores', 'scoresScaled', 'weights',
  'headOutputs', 'merged', 'output', 'weightsUnscaled', 'weightsCausal', 'weightsMaskedAfter',
] as const;
type PipelineTensorName = (typeof PIPELINE_TENSORS)[number];
const TENSOR_INDEX = Object.fromEntries(PIPELINE_TENSORS.map((name, i) => [name, i])) as Record<PipelineTensorName, number>;
const HEADER_WORDS = 7 + PIPELINE_TENSORS.length + 2;

/**
 * What each result tensor is computed from, as strings in six nested levels: the seeded weights
 * (seed, d_model); X, Q, K, V (and the token ids); the heads split and the scores (and heads); the
 * scaled scores (and scaling); the weights and everything after them (and the mask); the comparison
 * tables (and the head they are for). The engine is deterministic, so a tensor of a recent result
 * with the same key at its level holds the same bits, and is shared without comparing (at 256 tokens
 * and 16 heads comparing took ~4 ms a change). A level is null when its inputs are not known by key
 * (given matrices, a custom mask): such tensors are compared as before.
 */
type InputKeys = readonly (string | null)[];
const TENSOR_LEVEL: Record<PipelineTensorName | 'mask' | 'fullyMaskedRows', number> = {
  W_q: 0, W_k: 0, W_v: 0, W_o: 0, X: 1, Q: 1, K: 1, V: 1, Q_heads: 2, K_heads: 2, V_heads: 2, scores: 2, scoresScaled: 3,
  weights: 4, headOutputs: 4, merged: 4, output: 4, mask: 4, fullyMaskedRows: 4, weightsUnscaled: 5, weightsCausal: 5,
  weightsMaskedAfter: 5,
};

function inputKeys(ids: Uint32Array, c: PipelineConfig): InputKeys {
  if (c.X || c.W_q || c.W_k || c.W_v || c.W_o) return [null, null, null, null, null, null];
  const seeded = `${c.seed ?? 1}/${c.dModel}`;
  const tokens = `${seeded}/${ids.join(',')}`;
  const heads = `${tokens}/h${c.heads}`;
  const scaled = `${heads}/s${c.scale === false ? 0 : 1}`;
  const masked = c.mask ? null : `${scaled}/c${c.causal ? 1 : 0}`;
  return [seeded, tokens, heads, scaled, masked, masked && `${masked}/ch${c.comparisonHead}`];
}

/** The input keys of each result copied tensor by tensor. */
const resultKeys = new WeakMap<PipelineSnapshot, InputKeys>();

/**
 * One pipeline call through wasm memory (the protocol: cpp/bindings.cpp): stage the token ids and any
 * given matrices, run, copy each result tensor out, release. Only typed-array views of wasm memory
 * read after the last call that could grow it are used.
 */
function runPipeline(raw: RawEngineModule, ids: Uint32Array, c: PipelineConfig, recent: readonly PipelineSnapshot[], keys: InputKeys,
  weights: KeptWeights | null): PipelineSnapshot | { error: string } {
  let result: PipelineSnapshot | { error: string };
  try {
    const given = [c.X, c.W_q, c.W_k, c.W_v, c.W_o] as const;
    const table = raw._abh_pipeline_stage(ids.length, ...given.map((m) => m?.length ?? 0) as [number, number, number, number, number], c.mask?.length ?? 0);
    if (table === 0) {
      result = { error: raw.pipelineError() };
    } else {
      const slots = raw.HEAPU32.subarray(table >>> 2, (table >>> 2) + 7); // read before the sets below, which cannot grow memory
      raw.HEAPU32.set(ids, slots[0]! >>> 2);
      given.forEach((m, i) => {
        if (m?.length) raw.HEAPF32.set(m, slots[i + 1]! >>> 2);
      });
      if (c.mask?.length) raw.HEAPU8.set(c.mask, slots[6]!);
      const comparisonHead = c.comparisonHead!; // pipeline() always sets it (default 0)
      const header = raw._abh_pipeline_run(c.dModel, c.heads, c.seed ?? 1, c.causal ? 1 : 0, c.scale === false ? 0 : 1, comparisonHead);
      result = header === 0 ? { error: raw.pipelineError() } : readPipeline(raw, header, comparisonHead, recent, keys, weights);
    }
  } catch (error) {
    try {
      raw._abh_pipeline_release();
    } catch {
      // the instance failed already; the first error is the one to report
    }
    throw error;
  }
  raw._abh_pipeline_release();
  return result;
}

/**
 * Results up to this size are copied out of wasm memory in one piece (see readPipeline). Every array is
 * an allocation of its own: in Node a new Float32Array of 1,024 floats measured 5-20 us on this VM, and
 * the ~20 arrays of a 16-token, d_model 64 result (150 KB) took ~400 us against ~60 us in one piece.
 * Above this, sharing the (h, n, n) tables a change left alone pays for its arrays: at 64 tokens and
 * 8 heads (550 KB), copying the whole result on a causal click added ~2 ms to the walkthrough's
 * drawing in Chromium.
 */
const WHOLE_COPY_BYTES = 256 * 1024;

/** Whether a result was copied tensor by tensor (it was larger than WHOLE_COPY_BYTES): later results may share its arrays. */
const copiedByTensor = (s: PipelineSnapshot) => s.weights.data.buffer !== s.X.data.buffer;

/**
 * The weight matrices of the last result and their key (seed, d_model), held strongly: a WeakRef keeps
 * its target alive until the current task ends, so a loop of small calls holding each result by
 * WeakRef would keep every one of them.
 */
interface KeptWeights {
  key: string;
  W_q: Matrix;
  W_k: Matrix;
  W_v: Matrix;
  W_o: Matrix;
}

/** Each compared array's bits as 32-bit words, made once per array (results are compared until dropped). */
const wordViews = new WeakMap<Float32Array, Uint32Array>();

/** old equals heap[at, at + old.length) bit for bit (integer compares: faster than floats, and exact). */
function sameFloats(old: Float32Array, heap: Uint32Array, at: number, count: number): boolean {
  if (old.length !== count) return false;
  let words = wordViews.get(old);
  if (!words) wordViews.set(old, (words = new Uint32Array(old.buffer, old.byteOffset, old.length)));
  for (let i = 0; i < count; i++) if (words[i] !== heap[at + i]) return false;
  return true;
}

function sameBytes(old: Uint8Array, heap: Uint8Array, at: number, count: number): boolean {
  if (old.length !== count) return false;
  for (let i = 0; i < count; i++) if (old[i] !== heap[at + i]) return false;
  return true;
}

/**
 * Copies the result block's tensors out of wasm memory. Over WHOLE_COPY_BYTES each goes into an array
 * of its own, except that a tensor bit-identical to the same tensor of a recent result reuses that
 * result's array: known equal by its input keys, or found equal by comparing. Snapshots are
 * read-only, so sharing is invisible, and most settings change a few tensors only: switching the mask
 * leaves the scores, switching the shown head leaves everything but the comparison tables. At 256
 * tokens and 8 heads a fresh copy of the whole block was most of a change's script time (new memory
 * on every change; comparing costs a fraction of copying into it).
 */
function readPipeline(raw: RawEngineModule, header: number, comparisonHead: number, recent: readonly PipelineSnapshot[], keys: InputKeys,
  weights: KeptWeights | null): PipelineSnapshot {
  // The header is read in place (nothing below can grow wasm memory): a copy would be one more
  // allocation.
  const words = raw.HEAPU32.subarray(header >>> 2, (header >>> 2) + HEADER_WORDS);
  const [n, dModel, heads, dK] = [words[0]!, words[1]!, words[2]!, words[3]!];
  const scaleFactor = raw.HEAPF32[(header >>> 2) + 4]!;
  const base = words[5]!;
  const sameInputs = (old: PipelineSnapshot, level: number) => keys[level] !== null && resultKeys.get(old)?.[level] === keys[level];
  // The four weight matrices depend on (seed, d_model) alone: with the last result's key they are that
  // result's arrays (`weights`). They come first in the block, so a result up to WHOLE_COPY_BYTES,
  // copied in one piece with its tensors views into the copy (there, making ~20 arrays and comparing
  // costs more than copying), then starts its copy at X: at d_model 64 the weights are 64 KB of a
  // 4-token result's 70 KB.
  const copiedFrom = weights ? base + 4 * words[7 + TENSOR_INDEX.X]! : base;
  const whole = words[6]! <= WHOLE_COPY_BYTES ? raw.HEAPU8.slice(copiedFrom, base + words[6]!).buffer : null;
  const candidates = whole ? [] : recent;
  const floats = (name: PipelineTensorName, count: number): Float32Array => {
    if (weights && TENSOR_LEVEL[name] === 0) return weights[name as 'W_q' | 'W_k' | 'W_v' | 'W_o'].data;
    const at = (base >>> 2) + words[7 + TENSOR_INDEX[name]]!;
    for (const old of candidates) {
      const data = old[name].data;
      if (data.length === count && (sameInputs(old, TENSOR_LEVEL[name]) || sameFloats(data, raw.HEAPU32, at, count))) return data;
    }
    return whole ? new Float32Array(whole, 4 * at - copiedFrom, count) : raw.HEAPF32.slice(at, at + count);
  };
  const bytes = (index: number, count: number, pick: (s: PipelineSnapshot) => Uint8Array): Uint8Array => {
    const at = base + words[7 + PIPELINE_TENSORS.length + index]!;
    for (const old of candidates) {
      const data = pick(old);
      if (data.length === count && (sameInputs(old, TENSOR_LEVEL.mask) || sameBytes(data, raw.HEAPU8, at, count))) return data;
    }
    return whole ? new Uint8Array(whole, at - copiedFrom, count) : raw.HEAPU8.slice(at, at + count);
  };
  const matrix = (name: PipelineTensorName, rows: number, cols: number): Matrix => ({ rows, cols, data: floats(name, rows * cols) });
  const tensor = (name: PipelineTensorName, cols: number): Tensor3 => ({ heads, rows: n, cols, data: floats(name, heads * n * cols) });
  return {
    n, dModel, heads, dK, scaleFactor,
    X: matrix('X', n, dModel), W_q: matrix('W_q', dModel, dModel), W_k: matrix('W_k', dModel, dModel),
    W_v: matrix('W_v', dModel, dModel), W_o: matrix('W_o', dModel, dModel),
    Q: matrix('Q', n, dModel), K: matrix('K', n, dModel), V: matrix('V', n, dModel),
    merged: matrix('merged', n, dModel), output: matrix('output', n, dModel),
    Q_heads: tensor('Q_heads', dK), K_heads: tensor('K_heads', dK), V_heads: tensor('V_heads', dK),
    scores: tensor('scores', n), scoresScaled: tensor('scoresScaled', n), weights: tensor('weights', n),
    headOutputs: tensor('headOutputs', dK), comparisonHead, weightsUnscaled: matrix('weightsUnscaled', n, n),
    weightsCausal: matrix('weightsCausal', n, n), weightsMaskedAfter: matrix('weightsMaskedAfter', n, n),
    mask: { rows: n, cols: n, data: bytes(0, n * n, (s) => s.mask.data) },
    fullyMaskedRows: bytes(1, n, (s) => s.fullyMaskedRows),
  };
}

export class AttentionEngine {
  private failure: EngineCrash | null = null;
  private restarting: Promise<void> | null = null;
  private cachedLimits: EngineLimits | null = null;
  /** The last pipeline results, whose arrays the next may share (see readPipeline); never kept alive by this. */
  private recentPipelines: WeakRef<PipelineSnapshot>[] = [];
  private keptWeights: KeptWeights | null = null;
  private restartCount = 0;

  /**
   * @param raw          the instantiated Emscripten module
   * @param reinstantiate makes a fresh instance of the same compiled module (restart()); createEngine passes it
   */
  constructor(
    private raw: RawEngineModule,
    private readonly reinstantiate?: () => Promise<RawEngineModule>,
  ) {}

  /** True after a call failed inside the wasm instance, until restart() has re-created it. */
  get crashed(): boolean {
    return this.failure !== null;
  }

  /** How many times restart() has re-created the instance. */
  get restarts(): number {
    return this.restartCount;
  }

  /**
   * Re-creates the wasm instance after an EngineCrash (from the already compiled module: no download).
   * Concurrent callers (several elements sharing the engine) share one restart.
   */
  restart(): Promise<void> {
    if (!this.reinstantiate) return Promise.reject(new EngineError('this engine was created without a way to restart it'));
    this.restarting ??= this.reinstantiate().then(
      (raw) => {
        this.raw = raw;
        this.failure = null;
        this.restartCount++;
        this.restarting = null;
      },
      (error: unknown) => {
        this.restarting = null;
        throw error;
      },
    );
    return this.restarting;
  }

  /**
   * Every call into the instance goes through here. EngineError (bad input) passes through; anything
   * else the instance throws (RuntimeError from an abort or a trap, a C++ exception) marks the engine as
   * crashed and becomes an EngineCrash: the instance is not trusted again until restart().
   */
  private call<T extends object>(name: string, run: (raw: RawEngineModule) => T | { error: string }): T {
    if (this.failure) throw new EngineCrash(`the engine is restarting after an earlier failure (${this.failure.message})`, { cause: this.failure });
    let result: T | { error: string };
    try {
      result = run(this.raw);
    } catch (error) {
      if (error instanceof EngineError) throw error;
      this.failure = new EngineCrash(`${name}() stopped inside WebAssembly (${crashReason(error)}), most likely out of memory`, { cause: error });
      throw this.failure;
    }
    return unwrap(result);
  }

  /** Runs `run` on the instance with every call's crash handling; the training wrapper (training.ts) uses it. */
  withInstance<T extends object>(name: string, run: (raw: RawEngineModule) => T | { error: string }): T {
    return this.call(name, run);
  }

  private get limits(): EngineLimits {
    this.cachedLimits ??= this.info().limits;
    return this.cachedLimits;
  }

  /** The article's attention(Q, K, V, mask): Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v). */
  attention(Q: Matrix, K: Matrix, V: Matrix, options: AttentionOptions = {}): AttentionResult {
    const [q, k, v] = [checkMatrix('Q', Q), checkMatrix('K', K), checkMatrix('V', V)];
    const o = checkOptions(options, '{ mask?, scale? }');
    if (o.mask !== undefined && !(o.mask instanceof Uint8Array))
      throw new EngineError('mask must be a Uint8Array of n_q x n_k entries (1 = allowed)');
    const plain: AttentionOptions = { mask: o.mask as Uint8Array | undefined, scale: checkFlag(o, 'scale') };
    this.checkScoreBudget(q, k, v);
    return this.call('attention', (raw) => raw.attention(q, k, v, plain));
  }

  /**
   * Refuses, before anything is copied into wasm memory, a well-shaped input whose score matrix is over
   * the budget (the C++ side would refuse it too, but only after copying Q, K and V in). Same messages.
   */
  private checkScoreBudget(Q: Matrix, K: Matrix, V: Matrix): void {
    const whole = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 1;
    if (![Q.rows, Q.cols, K.rows, K.cols, V.rows, V.cols].every(whole) || K.cols !== Q.cols || V.rows !== K.rows) return;
    const { maxSequence, maxDim, maxScoreElements } = this.limits;
    if (Q.rows > maxSequence || K.rows > maxSequence) throw new EngineError(`sequence length is limited to ${maxSequence} tokens`);
    if (Q.cols > maxDim || V.cols > maxDim) throw new EngineError(`d_k and d_v are limited to ${maxDim}`);
    if (Q.rows * K.rows > maxScoreElements)
      throw new EngineError(`the ${Q.rows} x ${K.rows} score matrix would exceed the memory budget of ${maxScoreElements / 2 ** 20}M entries; use the tiled (FlashAttention-style) kernel`);
  }

  /** The article's multi_head_attention(X, W_q, W_k, W_v, W_o, h). */
  multiHeadAttention(X: Matrix, W_q: Matrix, W_k: Matrix, W_v: Matrix, W_o: Matrix, options: MultiHeadOptions): MultiHeadResult {
    const m = ([['X', X], ['W_q', W_q], ['W_k', W_k], ['W_v', W_v], ['W_o', W_o]] as const).map(([name, matrix]) => checkMatrix(name, matrix));
    const o: unknown = options;
    if (!isObject(o)) throw new EngineError('options must be { heads, causal?, scale? }');
    const plain = { heads: o.heads, causal: checkFlag(o, 'causal'), scale: checkFlag(o, 'scale') } as MultiHeadOptions;
    return this.call('multiHeadAttention', (raw) => raw.multiHeadAttention(m[0], m[1], m[2], m[3], m[4], plain));
  }

  /** Every intermediate the walkthrough shows, for one configuration. */
  pipeline(config: PipelineConfig): PipelineSnapshot {
    if (!isObject(config) || !Array.isArray(config.tokens)) throw new EngineError('tokens must be an array of strings');
    const plain: PipelineConfig = { tokens: config.tokens, dModel: config.dModel, heads: config.heads, seed: config.seed, comparisonHead: config.comparisonHead ?? 0 };
    const c = config as unknown as Record<string, unknown>;
    plain.causal = checkFlag(c, 'causal');
    plain.scale = checkFlag(c, 'scale');
    const { maxPipelineTokens, maxDModel } = this.limits;
    for (const key of ['X', 'W_q', 'W_k', 'W_v', 'W_o'] as const) {
      const values = config[key];
      if (values === undefined) continue;
      if (!(values instanceof Float32Array)) throw new EngineError(`${key} must be a Float32Array`);
      // Larger than any accepted configuration: refuse before copying it into wasm memory.
      const most = key === 'X' ? maxPipelineTokens * maxDModel : maxDModel * maxDModel;
      if (values.length > most) throw new EngineError(`${key} has ${values.length} values; the walkthrough accepts at most ${most}`);
      plain[key] = values;
    }
    if (config.mask !== undefined) {
      if (!(config.mask instanceof Uint8Array)) throw new EngineError('mask must be a Uint8Array');
      if (config.mask.length > maxPipelineTokens ** 2) throw new EngineError(`the mask has ${config.mask.length} entries; the walkthrough accepts at most ${maxPipelineTokens ** 2}`);
      plain.mask = config.mask;
    }
    const tokens = plain.tokens;
    if (tokens.length > maxPipelineTokens) throw new EngineError(`the walkthrough shows at most ${maxPipelineTokens} tokens (got ${tokens.length})`);
    const ids = new Uint32Array(tokens.length);
    for (let i = 0; i < ids.length; i++) {
      const token: unknown = tokens[i];
      if (typeof token !== 'string') throw new EngineError(`token ${i + 1} is not a string`);
      ids[i] = tokenId(token);
    }
    for (const key of ['dModel', 'heads', 'comparisonHead'] as const) if (!isWhole(plain[key], -1e9, 1e9)) throw new EngineError(`${key} must be a whole number`);
    if (plain.seed !== undefined && !isWhole(plain.seed, 0, 4294967295)) throw new EngineError('seed must be a whole number from 0 to 4294967295');
    const recent = this.recentPipelines.map((ref) => ref.deref()).filter((s) => s !== undefined);
    const keys = inputKeys(ids, plain);
    const weights = keys[0] !== null && this.keptWeights?.key === keys[0] ? this.keptWeights : null;
    const result = this.call('pipeline', (raw) => runPipeline(raw, ids, plain, recent, keys, weights));
    if (keys[0] !== null) this.keptWeights = { key: keys[0], W_q: result.W_q, W_k: result.W_k, W_v: result.W_v, W_o: result.W_o };
    if (copiedByTensor(result)) {
      resultKeys.set(result, keys);
      // Two: the walkthrough with edits alternates between the seeded baseline and the edited run.
      this.recentPipelines = [new WeakRef(result), ...this.recentPipelines.slice(0, 1)];
    }
    return result;
  }

  /** The article's variance experiment: dot products of unit-normal d_k-vectors, raw and scaled. */
  dotProductSamples(dK: number, samples: number, seed: number): DotProductSamples {
    return this.call('dotProductSamples', (raw) => raw.dotProductSamples({ dK, samples, seed }));
  }

  /** softmax(row * factor) and the norm of its Jacobian (how much gradient still flows). */
  softmaxSaturation(row: Float32Array, factor: number): SoftmaxSaturation {
    if (!(row instanceof Float32Array)) throw new EngineError('row must be a Float32Array');
    if (typeof factor !== 'number' || !Number.isFinite(factor)) throw new EngineError('the factor must be a finite number');
    return this.call('softmaxSaturation', (raw) => raw.softmaxSaturation(row, factor));
  }

  /**
   * attention(Q, K, V) computed in (blockQ, blockK) tiles with an online softmax, FlashAttention-2 style:
   * Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v) -> output (n_q, d_v), equal to attention()'s up to float
   * rounding. Never materialises the (n_q, n_k) matrix, so it accepts up to 65536 tokens. The output is a
   * fresh array, or options.output when given (reusing one array saves a fresh allocation per call).
   */
  flashAttention(Q: Matrix, K: Matrix, V: Matrix, options: FlashOptions): FlashResult {
    const [q, k, v] = [checkMatrix('Q', Q), checkMatrix('K', K), checkMatrix('V', V)];
    const plain = checkFlashOptions(options);
    return this.call('flashAttention', (raw) => raw.flashAttention(q, k, v, plain));
  }

  /**
   * Every head in one call, on projections before they are split: Q (n_q, heads * d_k), K (n_k, heads * d_k),
   * V (n_k, heads * d_v) -> output (n_q, heads * d_v), head h in columns [h * d_v, (h + 1) * d_v) (the heads
   * concatenated). Each head's columns equal flashAttention() on that head's column slices, exactly.
   */
  multiHeadFlashAttention(Q: Matrix, K: Matrix, V: Matrix, options: MultiHeadFlashOptions): FlashResult {
    const [q, k, v] = [checkMatrix('Q', Q), checkMatrix('K', K), checkMatrix('V', V)];
    const plain = checkFlashOptions(options, '{ heads, blockQ, blockK, causal?, scale?, output? }');
    // The range and the column split are checked by the C++ side (one source for the messages).
    const heads = options.heads;
    return this.call('multiHeadFlashAttention', (raw) => raw.flashMultiHead(q, k, v, { ...plain, heads }));
  }

  /**
   * The same computation on a small input (n_q, n_k <= 64; d_k, d_v <= 256), recording every
   * (query block, key block) step: running max m, sum l, rescale factor and accumulator per row.
   */
  flashTrace(Q: Matrix, K: Matrix, V: Matrix, options: FlashOptions): FlashTrace {
    const [q, k, v] = [checkMatrix('Q', Q), checkMatrix('K', K), checkMatrix('V', V)];
    const plain = checkFlashOptions(options, '{ blockQ, blockK, causal?, scale? }', false);
    return this.call('flashTrace', (raw) => raw.flashTrace(q, k, v, plain));
  }

  info(): EngineInfo {
    return this.call('engineInfo', (raw) => raw.engineInfo());
  }

  heapStats(): HeapStats {
    return this.call('heapStats', (raw) => raw.heapStats());
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

/**
 * The smallest module that uses a SIMD128 instruction (i8x16.splat, i8x16.popcnt): a browser that
 * validates it runs the engine's SIMD kernels. Validating compiles nothing, so no CSP applies.
 */
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

/** Throws an EngineError saying what is missing, before anything is downloaded or compiled. */
export function requireWasmSimd(): void {
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.validate !== 'function')
    throw new EngineError('this browser has no WebAssembly (or it is switched off), which the engine needs');
  if (!WebAssembly.validate(SIMD_PROBE))
    throw new EngineError('this browser’s WebAssembly has no SIMD support, which the engine needs: any current Chrome, Edge, Firefox or Safari (16.4 or later) has it');
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function download(url: string, name: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch (error) {
    throw new EngineError(`the engine file ${name} could not be downloaded (${reasonOf(error)}): the network is offline, the page’s Content-Security-Policy (connect-src) blocks it, or another origin serves it without CORS headers`);
  }
  if (!response.ok) throw new EngineError(`the engine file ${name} could not be downloaded: the server answered ${response.status} ${response.statusText}`.trimEnd());
  return response;
}

/**
 * Compiles while the bytes arrive when the server says application/wasm (streaming insists on it).
 * Any failure there compiles the bytes again the plain way, whose errors say what went wrong.
 */
async function compileResponse(response: Response, name: string): Promise<WebAssembly.Module> {
  const type = response.headers.get('content-type') ?? '';
  if (typeof WebAssembly.compileStreaming === 'function' && /^application\/wasm\b/i.test(type)) {
    const copy = response.clone();
    try {
      return await WebAssembly.compileStreaming(response);
    } catch {
      return compile(await copy.arrayBuffer(), name);
    }
  }
  return compile(await response.arrayBuffer(), name);
}

async function compile(bytes: ArrayBuffer | Uint8Array, name: string): Promise<WebAssembly.Module> {
  try {
    return await WebAssembly.compile(bytes as BufferSource);
  } catch (error) {
    const reason = reasonOf(error);
    if (/Content[- ]Security[- ]Policy|unsafe-eval/i.test(reason))
      throw new EngineError('this page’s Content-Security-Policy does not allow WebAssembly: add \'wasm-unsafe-eval\' to its script-src');
    const view = new Uint8Array(bytes instanceof ArrayBuffer ? bytes : bytes.buffer, bytes instanceof ArrayBuffer ? 0 : bytes.byteOffset, Math.min(4, bytes.byteLength));
    if (view.length < 4 || view[0] !== 0 || view[1] !== 0x61 || view[2] !== 0x73 || view[3] !== 0x6d)
      throw new EngineError(`the engine file ${name} is not WebAssembly: the server sent something else (${bytes.byteLength} bytes)`);
    throw new EngineError(`the engine file ${name} is damaged (${reason})`);
  }
}

/** One instance of the compiled module, through Emscripten's glue (embind needs it). */
function instantiate(module: WebAssembly.Module): Promise<RawEngineModule> {
  return new Promise<RawEngineModule>((resolve, reject) => {
    const fail = (error: unknown) => reject(error instanceof EngineError ? error : new EngineError(`the engine could not start (${crashReason(error)})`));
    createAttentionEngine({
      instantiateWasm: (imports, receive) => {
        WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), fail);
        return {};
      },
      printErr: (text: string) => console.warn(`[attention engine] ${text}`),
    }).then(resolve, fail);
  });
}

/**
 * A fresh, unshared instance (tests, benchmarks). Checks for SIMD, downloads and compiles the .wasm
 * (every failure is an EngineError that says which and what to do), then instantiates it; the engine
 * keeps the compiled module, so restart() after an EngineCrash re-instantiates without a download.
 */
/**
 * Where this build's .wasm is, as resolved by whatever bundled this module. A worker bundled apart from
 * the page (an author's bundler renames the .wasm but copies the worker as is) is sent this URL.
 */
export function engineWasmUrl(): string {
  return new URL('./generated/attention_engine.wasm', import.meta.url).href;
}

export async function createEngine(options: LoadOptions = {}): Promise<AttentionEngine> {
  requireWasmSimd();
  const url = options.wasmUrl ?? engineWasmUrl();
  const name = url.slice(url.lastIndexOf('/') + 1);
  const module = options.wasmBinary ? await compile(options.wasmBinary, name) : await compileResponse(await download(url, name), name);
  const raw = await instantiate(module);
  return new AttentionEngine(raw, () => instantiate(module));
}
