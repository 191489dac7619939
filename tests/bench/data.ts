// Shapes, deterministic inputs and the small statistics every part of the benchmark shares. Runs
// unchanged in Node and in the bench page (no Node or DOM APIs here).

export const D_K = 64;
export const SEQUENCE_LENGTHS = [4, 16, 64, 256, 512, 1024, 2048, 4096] as const;
export const HEAD_COUNTS = [1, 8] as const;

export interface Shape {
  n: number;
  heads: number;
  d: number;
  causal: boolean;
}

export function shapeKey(s: Shape): string {
  return `n=${s.n} h=${s.heads}${s.causal ? ' causal' : ''}`;
}

export function allShapes(lengths: readonly number[] = SEQUENCE_LENGTHS): Shape[] {
  const shapes: Shape[] = [];
  for (const heads of HEAD_COUNTS) for (const causal of [false, true]) for (const n of lengths) shapes.push({ n, heads, d: D_K, causal });
  return shapes;
}

/** The nominal work of attention: Q K^T and P V, 2 n^2 d multiply-adds per head = 4 n^2 d flops. */
export function flops(s: Shape): number {
  return 4 * s.n * s.n * s.d * s.heads;
}

/** mulberry32: deterministic across runs and platforms. */
export function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Q, K, V for one shape: (heads, n, d) row-major, uniform in [-1, 1), the same in every environment. */
export interface Inputs {
  shape: Shape;
  Q: Float32Array;
  K: Float32Array;
  V: Float32Array;
}

export function makeInputs(shape: Shape): Inputs {
  const next = rng(0xa77e ^ (shape.n * 131 + shape.heads));
  const fill = () => {
    const a = new Float32Array(shape.heads * shape.n * shape.d);
    for (let i = 0; i < a.length; ++i) a[i] = next() * 2 - 1;
    return a;
  };
  return { shape, Q: fill(), K: fill(), V: fill() };
}

/** One head's (n, d) slice. */
export function head(data: Float32Array, s: Shape, h: number): Float32Array {
  return data.subarray(h * s.n * s.d, (h + 1) * s.n * s.d);
}

/** max |got - want| / max |want|: the check every peer passes before it is timed. */
export function maxRelError(got: Float32Array, want: Float32Array): number {
  if (got.length !== want.length) return Infinity;
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < want.length; ++i) {
    const d = Math.abs(got[i]! - want[i]!);
    if (!(d <= diff)) diff = Number.isNaN(d) ? Infinity : d; // NaN counts as infinitely wrong
    scale = Math.max(scale, Math.abs(want[i]!));
  }
  return diff / Math.max(scale, 1e-30);
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}
