// Small shared helpers for the unit tests: a seeded PRNG (so every random configuration can be
// replayed from its seed), random matrices, the normwise relative error used by the parity tests, and the
// HTML decoding of the docs page's snippets.
import type { Matrix, Tensor3 } from '../../web/src/engine/engine';

/** mulberry32: a tiny 32-bit PRNG, deterministic across runs and platforms. */
export class Rng {
  private state: number;
  private spare: number | null = null;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Integer in [lo, hi], log-uniformly distributed: small sizes are common, the maximum still occurs. */
  logInt(lo: number, hi: number): number {
    const x = Math.exp(Math.log(lo) + this.next() * (Math.log(hi + 1) - Math.log(lo)));
    return Math.min(hi, Math.max(lo, Math.floor(x)));
  }

  bool(pTrue = 0.5): boolean {
    return this.next() < pTrue;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** rows x cols float32 entries ~ N(0, 1) * std. */
  matrix(rows: number, cols: number, std = 1): Matrix {
    const data = new Float32Array(rows * cols);
    for (let i = 0; i < data.length; ++i) data[i] = this.normal() * std;
    return { rows, cols, data };
  }
}

/** Divisors of m that are at most cap, ascending. */
export function divisors(m: number, cap = Infinity): number[] {
  const out: number[] = [];
  for (let d = 1; d <= m; ++d) if (m % d === 0 && d <= cap) out.push(d);
  return out;
}

/** max |a - b| / max |b|  (b is the reference). Returns 0 when both are all zeros. */
export function normwiseRelError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length mismatch: ${a.length} vs ${b.length}`);
  let maxDiff = 0;
  let maxRef = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(a[i]! - b[i]!);
    if (!(d <= maxDiff)) maxDiff = d; // NaN propagates as the max
    maxRef = Math.max(maxRef, Math.abs(b[i]!));
  }
  if (Number.isNaN(maxDiff)) return NaN;
  if (maxRef === 0) return maxDiff === 0 ? 0 : Infinity;
  return maxDiff / maxRef;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length mismatch: ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(a[i]! - b[i]!);
    if (!(d <= m)) m = d;
  }
  return m;
}

export function hasNaN(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; ++i) if (Number.isNaN(values[i])) return true;
  return false;
}

const bitsHex = (bits: number) => bits.toString(16).padStart(8, '0');

/** Float32 values as their 32-bit patterns in hex, 8 characters each (the native dump's format). */
export function floatBitsHex(values: Float32Array): string {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  let out = '';
  for (const b of bits) out += bitsHex(b);
  return out;
}

/**
 * Where two float arrays first differ bit for bit ("length 3, expected 4", or "at 17 of 64: 3f800001,
 * expected 3f800000"), or undefined when every bit is the same: the comparison of their floatBitsHex
 * strings, without building strings of several MB for a large snapshot.
 */
export function bitDifference(actual: Float32Array, expected: Float32Array): string | undefined {
  if (actual.length !== expected.length) return `length ${actual.length}, expected ${expected.length}`;
  const a = new Uint32Array(actual.buffer, actual.byteOffset, actual.length);
  const b = new Uint32Array(expected.buffer, expected.byteOffset, expected.length);
  for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) return `at ${i} of ${a.length}: ${bitsHex(a[i]!)}, expected ${bitsHex(b[i]!)}`;
  return undefined;
}

/** Row r of head h of a Tensor3. */
export function tensorRow(t: Tensor3, h: number, r: number): Float32Array {
  const start = (h * t.rows + r) * t.cols;
  return t.data.subarray(start, start + t.cols);
}

export function sum(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; ++i) s += values[i]!;
  return s;
}

/** A lower-triangular n x n mask (1 = allowed). */
export function causalMask(n: number): Uint8Array {
  const m = new Uint8Array(n * n);
  for (let i = 0; i < n; ++i) for (let j = 0; j <= i; ++j) m[i * n + j] = 1;
  return m;
}

/** Tracks the largest value seen, with the configuration that produced it (for the report). */
export class MaxTracker {
  value = 0;
  where = '';
  update(value: number, where: string): void {
    if (!(value <= this.value)) {
      this.value = value;
      this.where = where;
    }
  }
}

/** A docs-page snippet's text as an author copies it: the HTML entities the page escapes, decoded. */
export const decodeHtml = (html: string): string =>
  html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
