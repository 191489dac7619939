// The typed engine: loads the wasm once, checks JavaScript types only (every other rule, and its
// message, is the C++ side's: cpp/attention.h, flash.h, pipeline.h), and turns the C++ side's
// { error } results into EngineError exceptions carrying its message. Results are plain objects of
// copied typed arrays (the bindings copy before returning, into a fresh array or the caller's
// options.output of the tiled kernels), so nothing here needs .delete().
// Loading failures (no SIMD, a missing or damaged .wasm, a CSP that blocks WebAssembly) are
// EngineErrors that say which; a failure inside the instance (out of memory) is an EngineCrash,
// after which restart() re-creates the instance.
// The engine is two wasm modules, each its own instance (CMakeLists.txt): the core, loaded first, and
// the later module (the tiled kernel, the long-context kernels, the KV cache), which only the later
// steps draw: loadLater() fetches it when one of them is first drawn, and its calls refuse until then.
// The pipeline's call through wasm memory and the reading of its result are pipeline-call.ts; the
// sharing of arrays between recent results is result-sharing.ts.
import createAttentionEngine from './generated/attention_engine.mjs';
import { crashReason, EngineCrash, EngineError, reasonOf } from './errors';
import { PipelineReader, runPipeline } from './pipeline-call';
import { RecentPipelines } from './result-sharing';
import { engineWasmUrl, laterWasmUrl } from './wasm-url';
import { compileFrom, instantiateWith, requireWasmSimd, type Glue } from './wasm-loading';
import type {
  AttentionOptions,
  AttentionResult,
  DotProductSamples,
  EngineInfo,
  FlashOptions,
  FlashResult,
  FlashTrace,
  HeapStats,
  Matrix,
  MultiHeadFlashOptions,
  MultiHeadOptions,
  MultiHeadResult,
  PipelineConfig,
  PipelineSnapshot,
  RawEngineModule,
  RawLaterModule,
  SoftmaxSaturation,
} from './types';

export type * from './types';
export { EngineCrash, EngineError, requireWasmSimd };

export interface LoadOptions {
  /** The .wasm bytes, when there is no fetch (Node, Vitest). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Override the .wasm location (embeds served from another origin). */
  wasmUrl?: string;
  /** The later module's bytes, when there is no fetch: given, it is loaded with the core unless `later` is false. */
  laterWasmBinary?: ArrayBuffer | Uint8Array;
  /** Override the later module's location (a worker is sent the page's: laterWasmUrl()). */
  laterWasmUrl?: string;
  /** Load the later module with the core (workers, benchmarks) instead of at the first loadLater(). */
  later?: boolean;
}

/**
 * Where the later module comes from: fetched and compiled once, at the first loadLater(); what it
 * resolves to makes an instance of it (again at a restart, without a download).
 */
export type LaterSource = () => Promise<() => Promise<RawLaterModule>>;

function unwrap<T extends object>(result: T | { error: string }): T {
  if ('error' in result) throw new EngineError(result.error);
  return result;
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A plain copy of the matrix's fields: getters on the caller's object run here, not inside the wasm call. */
export function checkMatrix(name: string, m: Matrix): Matrix {
  if (!isObject(m) || !(m.data instanceof Float32Array)) throw new EngineError(`${name} must be { rows, cols, data: Float32Array }`);
  return { rows: m.rows, cols: m.cols, data: m.data };
}

/**
 * A number as it is; anything else as NaN, which the C++ side refuses with its message for that
 * argument ("heads must be a whole number"): the rule and its words stay in one place.
 */
export const numberOrNaN = (value: unknown): number => (typeof value === 'number' ? value : NaN);

export function checkFlag(options: Record<string, unknown>, key: string): boolean | undefined {
  const value = options[key];
  if (value !== undefined && typeof value !== 'boolean') throw new EngineError(`${key} must be true or false`);
  return value;
}

export function checkOptions(options: unknown, shape: string): Record<string, unknown> {
  if (options === undefined) return {};
  if (!isObject(options)) throw new EngineError(`options must be ${shape}`);
  return options;
}

function checkFlashOptions(
  options: FlashOptions,
  shape = '{ blockQ, blockK, causal?, scale?, output? }',
  takesOutput = true,
): FlashOptions {
  if (!isObject(options)) throw new EngineError(`options must be ${shape}`);
  const plain: FlashOptions = {
    blockQ: numberOrNaN(options.blockQ),
    blockK: numberOrNaN(options.blockK),
    causal: checkFlag(options, 'causal'),
    scale: checkFlag(options, 'scale'),
  };
  const output: unknown = options.output;
  if (output !== undefined) {
    if (!takesOutput) throw new EngineError('flashTrace takes no output array (it returns every step)');
    if (!(output instanceof Float32Array)) throw new EngineError('output must be a Float32Array');
    plain.output = output; // its length is checked by the C++ side, against the output's shape
  }
  return plain;
}

export class AttentionEngine {
  private failure: EngineCrash | null = null;
  private restarting: Promise<void> | null = null;
  /** The pipeline's result format, read from the instance at its first pipeline call. */
  private pipelineReader: PipelineReader | null = null;
  private readonly recentPipelines = new RecentPipelines();
  private restartCount = 0;
  /** The later module's instance, once loadLater() has made it. */
  private laterRaw: RawLaterModule | null = null;
  private laterCompiled: Promise<() => Promise<RawLaterModule>> | null = null;
  private laterLoading: Promise<void> | null = null;

  /**
   * @param raw          the instantiated Emscripten module
   * @param reinstantiate makes a fresh instance of the same compiled module (restart()); createEngine passes it
   * @param laterSource  compiles the later module (loadLater()); createEngine passes it
   */
  constructor(
    private raw: RawEngineModule,
    private readonly reinstantiate?: () => Promise<RawEngineModule>,
    private readonly laterSource?: LaterSource,
  ) {}

  /** True once the later module (the tiled kernel, the long-context kernels, the KV cache) runs. */
  get hasLater(): boolean {
    return this.laterRaw !== null;
  }

  /**
   * Fetches, compiles and starts the later module once; concurrent callers share one load, and a failed
   * load (an EngineError saying why, as createEngine's) may be tried again.
   */
  loadLater(): Promise<void> {
    if (this.laterRaw) return Promise.resolve();
    const source = this.laterSource;
    if (!source)
      return Promise.reject(new EngineError('this engine was created without its later module (the tiled and long-context kernels)'));
    this.laterLoading ??= (this.laterCompiled ??= source())
      .then((instantiateLater) => instantiateLater())
      .then(
        (raw) => {
          this.laterRaw = raw;
          this.laterLoading = null;
        },
        (error: unknown) => {
          this.laterCompiled = null;
          this.laterLoading = null;
          throw error;
        },
      );
    return this.laterLoading;
  }

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
    // The later module's instance shares the crash (one failure stops both): it starts again too.
    const later =
      this.laterRaw && this.laterCompiled ? this.laterCompiled.then((instantiateLater) => instantiateLater()) : Promise.resolve(null);
    this.restarting ??= Promise.all([this.reinstantiate(), later]).then(
      ([raw, laterRaw]) => {
        this.raw = raw;
        if (laterRaw) this.laterRaw = laterRaw;
        this.pipelineReader = null;
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
    if (this.failure)
      throw new EngineCrash(`the engine is restarting after an earlier failure (${this.failure.message})`, { cause: this.failure });
    let result: T | { error: string };
    try {
      result = run(this.raw);
    } catch (error) {
      if (error instanceof EngineError) throw error;
      this.failure = new EngineCrash(`${name}() stopped inside WebAssembly (${crashReason(error)}), most likely out of memory`, {
        cause: error,
      });
      throw this.failure;
    }
    return unwrap(result);
  }

  /** Runs `run` on the instance with every call's crash handling; the training wrapper (training.ts) uses it. */
  withInstance<T extends object>(name: string, run: (raw: RawEngineModule) => T | { error: string }): T {
    return this.call(name, run);
  }

  /** withInstance on the later module's instance (long-context.ts); refused until loadLater() has resolved. */
  withLaterInstance<T extends object>(name: string, run: (raw: RawLaterModule) => T | { error: string }): T {
    const later = this.laterRaw;
    if (!later) throw new EngineError(`${name}() is in the engine’s later module, which is not loaded yet (loadLater() loads it)`);
    return this.call(name, () => run(later));
  }

  /** The article's attention(Q, K, V, mask): Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v). */
  attention(Q: Matrix, K: Matrix, V: Matrix, options: AttentionOptions = {}): AttentionResult {
    const [q, k, v] = [checkMatrix('Q', Q), checkMatrix('K', K), checkMatrix('V', V)];
    const o = checkOptions(options, '{ mask?, scale? }');
    if (o.mask !== undefined && !(o.mask instanceof Uint8Array))
      throw new EngineError('mask must be a Uint8Array of n_q x n_k entries (1 = allowed)');
    const plain: AttentionOptions = { mask: o.mask as Uint8Array | undefined, scale: checkFlag(o, 'scale') };
    return this.call('attention', (raw) => raw.attention(q, k, v, plain));
  }

  /** The article's multi_head_attention(X, W_q, W_k, W_v, W_o, h). */
  multiHeadAttention(X: Matrix, W_q: Matrix, W_k: Matrix, W_v: Matrix, W_o: Matrix, options: MultiHeadOptions): MultiHeadResult {
    const m = (
      [
        ['X', X],
        ['W_q', W_q],
        ['W_k', W_k],
        ['W_v', W_v],
        ['W_o', W_o],
      ] as const
    ).map(([name, matrix]) => checkMatrix(name, matrix));
    const o: unknown = options;
    if (!isObject(o)) throw new EngineError('options must be { heads, causal?, scale? }');
    const plain: MultiHeadOptions = { heads: numberOrNaN(o.heads), causal: checkFlag(o, 'causal'), scale: checkFlag(o, 'scale') };
    return this.call('multiHeadAttention', (raw) => raw.multiHeadAttention(m[0], m[1], m[2], m[3], m[4], plain));
  }

  /** Every intermediate the walkthrough shows, for one configuration. */
  pipeline(config: PipelineConfig): PipelineSnapshot {
    if (!isObject(config) || !Array.isArray(config.tokens)) throw new EngineError('tokens must be an array of strings');
    const tokens: unknown[] = config.tokens;
    for (let i = 0; i < tokens.length; i++) if (typeof tokens[i] !== 'string') throw new EngineError(`token ${i + 1} is not a string`); // holes too
    const c = config as unknown as Record<string, unknown>;
    const plain: PipelineConfig = {
      tokens: config.tokens,
      dModel: numberOrNaN(c.dModel),
      heads: numberOrNaN(c.heads),
      causal: checkFlag(c, 'causal'),
      scale: checkFlag(c, 'scale'),
      seed: c.seed === undefined ? undefined : numberOrNaN(c.seed),
      comparisonHead: c.comparisonHead === undefined ? 0 : numberOrNaN(c.comparisonHead),
    };
    for (const key of ['X', 'W_q', 'W_k', 'W_v', 'W_o'] as const) {
      const values = config[key];
      if (values === undefined) continue;
      if (!(values instanceof Float32Array)) throw new EngineError(`${key} must be a Float32Array`);
      plain[key] = values;
    }
    if (config.mask !== undefined) {
      if (!(config.mask instanceof Uint8Array)) throw new EngineError('mask must be a Uint8Array');
      plain.mask = config.mask;
    }
    return this.call('pipeline', (raw) => {
      const reader = () => (this.pipelineReader ??= new PipelineReader(raw.pipelineFormat()));
      return runPipeline(raw, reader, plain.tokens, plain, this.recentPipelines);
    });
  }

  /** The article's variance experiment: dot products of unit-normal d_k-vectors, raw and scaled. */
  dotProductSamples(dK: number, samples: number, seed: number): DotProductSamples {
    return this.call('dotProductSamples', (raw) => raw.dotProductSamples({ dK, samples, seed }));
  }

  /** softmax(row * factor) and the norm of its Jacobian (how much gradient still flows). */
  softmaxSaturation(row: Float32Array, factor: number): SoftmaxSaturation {
    if (!(row instanceof Float32Array)) throw new EngineError('row must be a Float32Array');
    return this.call('softmaxSaturation', (raw) => raw.softmaxSaturation(row, numberOrNaN(factor)));
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
    return this.withLaterInstance('flashAttention', (raw) => raw.flashAttention(q, k, v, plain));
  }

  /**
   * Every head in one call, on projections before they are split: Q (n_q, heads * d_k), K (n_k, heads * d_k),
   * V (n_k, heads * d_v) -> output (n_q, heads * d_v), head h in columns [h * d_v, (h + 1) * d_v) (the heads
   * concatenated). Each head's columns equal flashAttention() on that head's column slices, exactly.
   */
  multiHeadFlashAttention(Q: Matrix, K: Matrix, V: Matrix, options: MultiHeadFlashOptions): FlashResult {
    const [q, k, v] = [checkMatrix('Q', Q), checkMatrix('K', K), checkMatrix('V', V)];
    const plain = checkFlashOptions(options, '{ heads, blockQ, blockK, causal?, scale?, output? }');
    const heads = numberOrNaN(options.heads);
    return this.withLaterInstance('multiHeadFlashAttention', (raw) => raw.flashMultiHead(q, k, v, { ...plain, heads }));
  }

  /**
   * The same computation on a small input (n_q, n_k <= 64; d_k, d_v <= 256), recording every
   * (query block, key block) step: running max m, sum l, rescale factor and accumulator per row.
   */
  flashTrace(Q: Matrix, K: Matrix, V: Matrix, options: FlashOptions): FlashTrace {
    const [q, k, v] = [checkMatrix('Q', Q), checkMatrix('K', K), checkMatrix('V', V)];
    const plain = checkFlashOptions(options, '{ blockQ, blockK, causal?, scale? }', false);
    return this.withLaterInstance('flashTrace', (raw) => raw.flashTrace(q, k, v, plain));
  }

  /** Whether this build runs the SIMD kernels. The limits are ENGINE_LIMITS (limits.ts), read without an engine. */
  info(): EngineInfo {
    return this.call('engineInfo', (raw) => ({ simd: raw.engineInfo().simd }));
  }

  /**
   * The memory of one module's instance (each has its own: the later one's kernels grow only it), or
   * of both together (the later one's once it is loaded).
   */
  heapStats(module?: 'core' | 'later'): HeapStats {
    if (module === 'later') return this.withLaterInstance('heapStats', (raw) => raw.heapStats());
    const core = this.call('heapStats', (raw) => raw.heapStats());
    if (module === 'core' || !this.laterRaw) return core;
    const later = this.heapStats('later');
    return { allocatedBytes: core.allocatedBytes + later.allocatedBytes, memoryBytes: core.memoryBytes + later.memoryBytes };
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

const instantiate = (module: WebAssembly.Module) => instantiateWith(createAttentionEngine, module);

/** The later module's glue is a chunk of its own, fetched with its .wasm: going live loads neither. */
async function instantiateLater(module: WebAssembly.Module): Promise<RawLaterModule> {
  let glue: Glue<RawLaterModule>;
  try {
    glue = (await import('./generated/attention_engine_later.mjs')).default;
  } catch (error) {
    throw new EngineError(
      `the engine’s later module could not be loaded (${reasonOf(error)}): the network is offline or the page was updated; reload it`,
    );
  }
  return instantiateWith(glue, module);
}

/** The core module, compiled (kept for a restart) and instantiated. */
async function startCore(options: LoadOptions): Promise<{ raw: RawEngineModule; module: WebAssembly.Module }> {
  requireWasmSimd();
  const module = await compileFrom(options.wasmUrl ?? engineWasmUrl(), options.wasmBinary);
  return { raw: await instantiate(module), module };
}

/**
 * createEngine without the later module (its calls refuse), for a worker that never runs its kernels
 * (the training run): nothing here refers to the later module's glue, so such a worker's bundle leaves it out.
 */
export async function createCoreEngine(options: Pick<LoadOptions, 'wasmBinary' | 'wasmUrl'> = {}): Promise<AttentionEngine> {
  const { raw, module } = await startCore(options);
  return new AttentionEngine(raw, () => instantiate(module));
}

/**
 * A fresh, unshared instance (tests, benchmarks). Checks for SIMD, downloads and compiles the .wasm
 * (every failure is an EngineError that says which and what to do), then instantiates it; the engine
 * keeps the compiled module, so restart() after an EngineCrash re-instantiates without a download.
 */
export async function createEngine(options: LoadOptions = {}): Promise<AttentionEngine> {
  const { raw, module } = await startCore(options);
  const laterUrl = options.laterWasmUrl ?? laterWasmUrl();
  const laterSource: LaterSource = async () => {
    const later = await compileFrom(laterUrl, options.laterWasmBinary);
    return () => instantiateLater(later);
  };
  const engine = new AttentionEngine(raw, () => instantiate(module), laterSource);
  if (options.later ?? options.laterWasmBinary !== undefined) await engine.loadLater();
  return engine;
}
