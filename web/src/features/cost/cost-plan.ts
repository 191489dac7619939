// What the "Run it on my machine" measurements time, and how their numbers are read. Pure: no DOM, no
// engine, no worker, so the plan (which sizes, how many repetitions) and the fit are unit-tested
// directly (tests/unit/cost-plan.test.ts); the worker (cost-worker.ts) only executes a plan. Two
// suites share it: the flash step's (naive against tiled) and the long-context step's (full, flash,
// window, sparse and linear attention), each a list of kernels over a range of n.

/**
 * naive = full attention holding n × n; tiled = FlashAttention; window, global, strided = the sparse
 * kernel; linear attention. The decode suite's (n is the token t being generated): cached = one query
 * row per head against the t cached keys, multi-head; grouped = the same with the chosen KV heads;
 * recompute = causal attention over all t tokens again, no cache.
 */
export type CostKernel = 'naive' | 'tiled' | 'window' | 'global' | 'strided' | 'linear' | 'cached' | 'grouped' | 'recompute';

/** Head dimension of the random inputs: the article's d_k = 64. */
export const COST_D = 64;
/** Smallest and largest sequence lengths measured. */
export const COST_MIN_N = 128;
export const COST_MAX_N = 16384;
/**
 * The naive kernel holds the whole (n, n) weight matrix; it is measured only while that matrix fits
 * in this budget: 4 · 8192² bytes = 256 MiB, so it stops at n = 8192 (also the engine's own cap on
 * attention(): 2^26 score entries).
 */
export const COST_BUDGET_BYTES = 256 * 2 ** 20;
/** The tiled kernel's tile: 64 × 64, the engine's default and a typical GPU block. */
export const COST_BLOCK = 64;
/** Sizes from this one on enter the fitted slope (below it, fixed per-call costs bend the line). */
export const FIT_MIN_N = 512;

/** The long-context suite's largest n: the engine's own cap on the sparse and linear kernels. */
export const LONG_MAX_N = 65536;
/**
 * The tiled kernel does all n² products: at 16,384 one call takes seconds, at 65,536 sixteen times
 * that. It is measured up to here; the figure extrapolates its fitted line beyond.
 */
export const TILED_MAX_N = COST_MAX_N;
/**
 * The timed patterns of the long-context suite: a window of |i - j| < 128 (255 keys), 16 global
 * tokens, every 256th key (√65,536: the Sparse Transformer's stride for the largest n).
 */
export const RUN_PATTERN = { window: 128, global: 16, stride: 256 } as const;

export type CostSuiteId = 'flash' | 'longContext' | 'decode';
export interface CostSuite {
  /** In the order they run at each n. */
  kernels: readonly CostKernel[];
  minN: number;
  maxN: number;
  /** Sizes from this one on enter the fitted slopes. */
  fitMinN: number;
}
export const COST_SUITES: Record<CostSuiteId, CostSuite> = {
  flash: { kernels: ['tiled', 'naive'], minN: COST_MIN_N, maxN: COST_MAX_N, fitMinN: FIT_MIN_N },
  longContext: { kernels: ['linear', 'window', 'global', 'strided', 'tiled', 'naive'], minN: 256, maxN: LONG_MAX_N, fitMinN: FIT_MIN_N },
  // A decode step's fixed costs (copying one query in and out) fade sooner: from t = 64.
  decode: { kernels: ['cached', 'grouped', 'recompute'], minN: 16, maxN: 512, fitMinN: 64 },
};

/** The decode suite's model: query heads and the KV heads of its grouped cache (a divisor of heads). */
export interface DecodeShape {
  heads: number;
  kvHeads: number;
}
/** The decode suite's shape when the page gives none, and the largest heads it accepts. */
export const DECODE_DEFAULT: DecodeShape = { heads: 4, kvHeads: 1 };
export const DECODE_MAX_HEADS = 16;

/** heads a whole number from 1 to DECODE_MAX_HEADS; kvHeads lowered to a divisor of it. */
export function clampDecodeShape(shape: Partial<DecodeShape> | undefined): DecodeShape {
  const whole = (value: unknown, fallback: number, max: number) =>
    typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(1, Math.floor(value))) : fallback;
  const heads = whole(shape?.heads, DECODE_DEFAULT.heads, DECODE_MAX_HEADS);
  let kvHeads = whole(shape?.kvHeads, Math.min(DECODE_DEFAULT.kvHeads, heads), heads);
  while (heads % kvHeads !== 0) kvHeads--;
  return { heads, kvHeads };
}

/**
 * Kernels share a worker engine unless their memory is the point: naive's engine holds the n × n matrix
 * alone, every other kernel (whose memory grows like n) runs on the second one.
 */
export type EngineGroup = 'naive' | 'shared';
export const engineGroup = (kernel: CostKernel): EngineGroup => (kernel === 'naive' ? 'naive' : 'shared');

export interface CostItem {
  kernel: CostKernel;
  n: number;
  /** Timed calls (after one untimed warm-up call for small n); the fastest is reported. */
  reps: number;
  /** Whether one untimed call runs first. */
  warmup: boolean;
  /** Relative amount of work, n² · calls: the progress bar's unit. */
  work: number;
}

export interface CostPlanOptions {
  /** Which kernels and sizes; the flash step's when absent. */
  suite?: CostSuiteId;
  /** Largest n to measure (rounded down to a power of two within the suite's range). */
  maxN?: number;
  /** Memory budget for the naive kernel's (n, n) float32 matrix. */
  budgetBytes?: number;
}

/** A size a kernel is not measured at, and why. */
export interface CostSkip {
  kernel: CostKernel;
  n: number;
  reason: 'memory' | 'time';
}

/** Bytes of the (n, n) float32 matrix the naive kernel materialises. */
export function naiveMatrixBytes(n: number): number {
  return 4 * n * n;
}

/** Floats of working memory the tiled kernel holds besides inputs and output: one tile plus m, l and the rescale factors. */
export function tiledScratchFloats(n: number, block: number): number {
  const b = Math.max(1, Math.min(block, n));
  return b * b + 3 * b;
}

/**
 * Timed calls at size n: many where one call takes well under a millisecond (so the timer's
 * resolution does not dominate), two where one call takes seconds. The reported time is the fastest
 * call: other work on the machine only ever adds time, so the minimum is the steadiest estimate.
 */
export function repetitions(n: number): number {
  if (n <= 256) return 15;
  if (n <= 512) return 9;
  if (n <= 1024) return 5;
  if (n <= 4096) return 3;
  return 2;
}

/** Small sizes get one untimed call first (memory growth, lazy compilation); at 4096 and up one call is long enough to need none. */
export function needsWarmup(n: number): boolean {
  return n < 4096;
}

export function clampMaxN(maxN: number | undefined, suite: CostSuite = COST_SUITES.flash): number {
  if (maxN === undefined || !Number.isFinite(maxN)) return suite.maxN;
  let n = suite.minN;
  while (n * 2 <= Math.min(maxN, suite.maxN)) n *= 2;
  return n;
}

/**
 * Scores one call computes (linear attention: its multiply-adds over d, the same unit): the progress
 * bar's unit. The sparse counts are the pattern's, up to its edges (the engine counts them exactly).
 */
export function callWork(kernel: CostKernel, n: number): number {
  const band = Math.min(n, 2 * RUN_PATTERN.window - 1);
  switch (kernel) {
    case 'naive':
    case 'tiled':
      return n * n;
    case 'window':
      return n * band;
    case 'global':
      return n * band + 2 * n * Math.min(n, RUN_PATTERN.global);
    case 'strided':
      return n * Math.min(n, band + Math.floor(n / RUN_PATTERN.stride));
    case 'linear':
      return 2 * n * COST_D;
    case 'cached':
    case 'grouped':
      return n;
    case 'recompute':
      return (n * (n + 1)) / 2;
  }
}

/** Why kernel is not measured at n under this budget, or null when it is. */
export function skipReason(kernel: CostKernel, n: number, budgetBytes = COST_BUDGET_BYTES): CostSkip['reason'] | null {
  if (kernel === 'naive' && naiveMatrixBytes(n) > budgetBytes) return 'memory';
  if (kernel === 'tiled' && n > TILED_MAX_N) return 'time';
  return null;
}

/** Every (kernel, n) of the suite's range up to maxN that is not measured, with its reason. */
export function planSkips(options: CostPlanOptions = {}): CostSkip[] {
  const suite = COST_SUITES[options.suite ?? 'flash'];
  const skips: CostSkip[] = [];
  for (let n = suite.minN; n <= clampMaxN(options.maxN, suite); n *= 2)
    for (const kernel of suite.kernels) {
      const reason = skipReason(kernel, n, options.budgetBytes);
      if (reason) skips.push({ kernel, n, reason });
    }
  return skips;
}

/**
 * The measurement, in the order it runs: n doubling over the suite's range up to maxN; at each n the
 * suite's kernels in order, each while it fits (skipReason). Ascending, so the chart fills from the
 * left and the memory high-water mark of each engine is the one of the current n.
 */
export function planCost(options: CostPlanOptions = {}): CostItem[] {
  const suite = COST_SUITES[options.suite ?? 'flash'];
  const maxN = clampMaxN(options.maxN, suite);
  const items: CostItem[] = [];
  for (let n = suite.minN; n <= maxN; n *= 2) {
    for (const kernel of suite.kernels) {
      if (skipReason(kernel, n, options.budgetBytes)) continue;
      const reps = repetitions(n);
      const warmup = needsWarmup(n);
      items.push({ kernel, n, reps, warmup, work: callWork(kernel, n) * (reps + (warmup ? 1 : 0)) });
    }
  }
  return items;
}

/**
 * Bytes the suite's inputs and outputs take at n, in each engine and again in the worker's JavaScript:
 * Q, K, V and the output, (n, d) float32 each.
 */
export const ioBytes = (n: number) => 4 * 4 * n * COST_D;
/** What an engine starts with before any call (its initial WebAssembly memory). */
export const ENGINE_START_BYTES = 16 * 2 ** 20;
/** WebAssembly memory grows by up to a fifth more than a call asks for (Emscripten's geometric step). */
const GROWTH = 1.25;

/**
 * An upper bound on the memory the run holds at once, from its plan: each engine at its largest n
 * (the inputs, the output and a call's working copies; the naive one also its n × n weights) with
 * growth headroom, plus the worker's own copies: the inputs and, for the naive kernel, the weights
 * it returns (two of them: the last call's may not be collected yet when the next one returns).
 */
export function runMemoryBound(plan: readonly CostItem[]): number {
  const largest = (group: EngineGroup) => Math.max(0, ...plan.filter((item) => engineGroup(item.kernel) === group).map((item) => item.n));
  const shared = largest('shared');
  const naive = largest('naive');
  const sharedEngine = shared ? ENGINE_START_BYTES + GROWTH * 2 * ioBytes(shared) : 0;
  const naiveEngine = naive ? ENGINE_START_BYTES + GROWTH * (2 * ioBytes(naive) + naiveMatrixBytes(naive)) : 0;
  const worker = ioBytes(Math.max(shared, naive)) + 2 * naiveMatrixBytes(naive);
  return Math.ceil(sharedEngine + naiveEngine + worker);
}

export interface SlopeFit {
  /** Exponent k of time ∝ n^k: the slope of the least-squares line through (log n, log y). */
  slope: number;
  /** log10 y at log10 n = 0, so y ≈ 10^intercept · n^slope. */
  intercept: number;
  /** Points that entered the fit. */
  count: number;
}

/**
 * Least squares on log-log axes over the points with n ≥ minN and y > 0: the slope of
 * log y = a + k log n. Needs two distinct n; null otherwise.
 */
export function fitLogLogSlope(points: readonly (readonly [number, number])[], minN = FIT_MIN_N): SlopeFit | null {
  const used = points.filter(([n, y]) => n >= minN && n > 0 && y > 0 && Number.isFinite(n) && Number.isFinite(y));
  if (used.length < 2) return null;
  const xs = used.map(([n]) => Math.log10(n));
  const ys = used.map(([, y]) => Math.log10(y));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx, count: used.length };
}

/** y(to) / y(from) when both were measured, else null (e.g. the article's 2k -> 8k). */
export function measuredRatio(points: readonly (readonly [number, number])[], from: number, to: number): number | null {
  const a = points.find(([n]) => n === from)?.[1];
  const b = points.find(([n]) => n === to)?.[1];
  return a !== undefined && b !== undefined && a > 0 && Number.isFinite(b) ? b / a : null;
}

// ---- Messages between the page and the worker ----

export interface CostRunRequest {
  type: 'run';
  suite?: CostSuiteId;
  /** The decode suite's heads (clampDecodeShape). */
  decode?: DecodeShape;
  maxN?: number;
  budgetBytes?: number;
  /** The page's own engine URLs (core and later module): the worker's may be stale when an author's bundler renamed the .wasm. */
  wasmUrl?: string;
  laterWasmUrl?: string;
}

export interface CostMeasurement {
  kernel: CostKernel;
  n: number;
  /** Time of one call, milliseconds: the fastest of `reps` calls. */
  ms: number;
  reps: number;
  /** The kernel's engine instance: its WebAssembly memory after this size (a high-water mark: it never shrinks). */
  memoryBytes: number;
}

export type CostWorkerMessage =
  | { type: 'started'; plan: CostItem[]; simd: boolean }
  | { type: 'measuring'; item: CostItem; index: number }
  | { type: 'measured'; result: CostMeasurement; index: number; workDone: number; workTotal: number }
  | { type: 'done' }
  | { type: 'error'; message: string; item?: CostItem };

// ---- The timing service: how a page lets a figure run the measurement ----

/** What a running measurement reports: the worker's messages, or that the worker script could not load. */
export type CostRunEvent = CostWorkerMessage | { type: 'unavailable'; message: string };

/** A measurement in progress. */
export interface CostRun {
  /** Ends the measurement at once (the worker is terminated); nothing is reported after it. */
  stop(): void;
}

/**
 * Times the two kernels on the reader's machine, away from the page's own engine. The page provides it
 * (timing-service.ts) through the step context; steps and figures only see this interface.
 */
export interface TimingService {
  /**
   * Starts one run of the suite (the flash step's when absent) up to maxN tokens (the suite's own when absent); every event goes to `report`, in order.
   * Throws when the page cannot start the background thread (a Content-Security-Policy without workers).
   */
  start(
    options: { maxN?: number; suite?: CostSuiteId; budgetBytes?: number; decode?: DecodeShape },
    report: (event: CostRunEvent) => void,
  ): CostRun;
}
