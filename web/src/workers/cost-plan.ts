// What the "Run it on my machine" measurement times, and how its numbers are read. Pure: no DOM, no
// engine, no worker, so the plan (which sizes, how many repetitions) and the fit are unit-tested
// directly (tests/unit/cost-plan.test.ts); the worker (cost-worker.ts) only executes a plan.

export type CostKernel = 'naive' | 'tiled';

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
  /** Largest n to measure (rounded down to a power of two, at least COST_MIN_N). */
  maxN?: number;
  /** Memory budget for the naive kernel's (n, n) float32 matrix. */
  budgetBytes?: number;
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

export function clampMaxN(maxN: number | undefined): number {
  if (maxN === undefined || !Number.isFinite(maxN)) return COST_MAX_N;
  let n = COST_MIN_N;
  while (n * 2 <= Math.min(maxN, COST_MAX_N)) n *= 2;
  return n;
}

/**
 * The measurement, in the order it runs: n = 128, 256, … doubling up to maxN; at each n the tiled
 * kernel, then the naive one while its matrix fits the budget. Ascending, so the chart fills from
 * the left and the memory high-water mark of each kernel's engine is the one of the current n.
 */
export function planCost(options: CostPlanOptions = {}): CostItem[] {
  const maxN = clampMaxN(options.maxN);
  const budget = options.budgetBytes ?? COST_BUDGET_BYTES;
  const items: CostItem[] = [];
  for (let n = COST_MIN_N; n <= maxN; n *= 2) {
    const kernels: CostKernel[] = naiveMatrixBytes(n) <= budget ? ['tiled', 'naive'] : ['tiled'];
    for (const kernel of kernels) {
      const reps = repetitions(n);
      const warmup = needsWarmup(n);
      items.push({ kernel, n, reps, warmup, work: n * n * (reps + (warmup ? 1 : 0)) });
    }
  }
  return items;
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
  maxN?: number;
  budgetBytes?: number;
  /** The page's own engine URL: the worker's may be stale when an author's bundler renamed the .wasm. */
  wasmUrl?: string;
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
 * (workers/timing-service.ts) through the step context; steps and figures only see this interface.
 */
export interface TimingService {
  /**
   * Starts one run up to maxN tokens (COST_MAX_N when absent); every event goes to `report`, in order.
   * Throws when the page cannot start the background thread (a Content-Security-Policy without workers).
   */
  start(options: { maxN?: number }, report: (event: CostRunEvent) => void): CostRun;
}
