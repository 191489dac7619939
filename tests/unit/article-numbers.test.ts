// The article's printed numbers, computed by the engine (not by the test): softmax([1, 2, 3]),
// its saturated 8x version, the 2-d dot product 1.30, the weighted sum 1.13, d_model 512 / h 8,
// and the variance experiment behind the 1/sqrt(d_k) scaling.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AttentionEngine, Matrix } from '../../web/src/engine/engine';
import { loadSimdEngine } from './load-engine';
import { Rng } from './helpers';

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadSimdEngine();
});

const mat = (rows: number, cols: number, values: number[]): Matrix => {
  expect(values.length).toBe(rows * cols);
  return { rows, cols, data: Float32Array.from(values) };
};
const round2 = (values: ArrayLike<number>) => Array.from(values, (x) => Number(x.toFixed(2)));

function std(values: ArrayLike<number>): number {
  let mean = 0;
  for (let i = 0; i < values.length; ++i) mean += values[i]!;
  mean /= values.length;
  let v = 0;
  for (let i = 0; i < values.length; ++i) v += (values[i]! - mean) ** 2;
  return Math.sqrt(v / (values.length - 1));
}

describe('Step 2: softmax of small and large scores', () => {
  // attention(Q=[[q]], K=[[1],[2],[3]]) with scaling off has weights softmax([q, 2q, 3q]).
  const K = mat(3, 1, [1, 2, 3]);
  const V = mat(3, 1, [0, 0, 0]);

  it('softmax([1, 2, 3]) = [0.09 0.24 0.67]', () => {
    const { weights } = engine.attention(mat(1, 1, [1]), K, V, { scale: false });
    expect(round2(weights.data)).toEqual([0.09, 0.24, 0.67]);
    const e = [1, 2, 3].map(Math.exp);
    const total = e[0]! + e[1]! + e[2]!;
    e.forEach((x, i) => expect(weights.data[i]).toBeCloseTo(x / total, 6));
  });

  it('softmax([8, 16, 24]) = [0.00 0.00 1.00]: saturated, one-hot', () => {
    const { weights } = engine.attention(mat(1, 1, [8]), K, V, { scale: false });
    expect(round2(weights.data)).toEqual([0, 0, 1]);
    expect(weights.data[2]).toBeGreaterThan(0.999);
    expect(weights.data[0]).toBeLessThan(1e-6);
  });

  it('with d_k = 64 the scaling divides by exactly 8 (d_model 512, h 8 -> d_k 64)', () => {
    const s = engine.pipeline({ tokens: ['the', 'animal', 'was', 'tired.'], dModel: 512, heads: 8 });
    expect(s.dK).toBe(64);
    expect(s.scaleFactor).toBe(0.125);
    expect(s.weights.heads * s.weights.rows * s.weights.cols).toBe(8 * 4 * 4);
    expect([s.output.rows, s.output.cols]).toEqual([4, 512]);
  });
});

describe('Step 1: the highlighted score q_1 . k_1 = 1.0(1.1) + 0.5(0.4) = 1.30', () => {
  it('read from the pipeline scores with explicit matrices', () => {
    // X = [[1.0, 0.5]], W_q = I so q_1 = [1.0, 0.5]; W_k maps X to k_1 = [1.1, 0.4].
    const s = engine.pipeline({
      tokens: ['it'],
      dModel: 2,
      heads: 1,
      scale: false,
      X: Float32Array.from([1.0, 0.5]),
      W_q: Float32Array.from([1, 0, 0, 1]),
      W_k: Float32Array.from([1.1, 0.4, 0, 0]),
      W_v: Float32Array.from([1, 0, 0, 1]),
      W_o: Float32Array.from([1, 0, 0, 1]),
    });
    expect(Array.from(s.Q.data)).toEqual([1.0, 0.5]);
    expect(Array.from(s.K.data)).toEqual([Math.fround(1.1), Math.fround(0.4)]);
    expect(s.scores.data[0]!.toFixed(2)).toBe('1.30');
    expect(Math.abs(s.scores.data[0]! - 1.3)).toBeLessThan(1e-6);
  });

  it('recovered from attention weights: softmax([q.k, 0]) gives log(w_0 / w_1) = 1.30', () => {
    const { weights } = engine.attention(mat(1, 2, [1.0, 0.5]), mat(2, 2, [1.1, 0.4, 0, 0]), mat(2, 1, [0, 0]), { scale: false });
    const score = Math.log(weights.data[0]! / weights.data[1]!);
    expect(score.toFixed(2)).toBe('1.30');
    expect(Math.abs(score - 1.3)).toBeLessThan(1e-5);
  });
});

describe('Step 4: output row 1 = 0.31(2.0) + 0.26(0.5) + 0.25(1.5) + 0.18(0.0) = 1.13', () => {
  it('attention with scores log(w) reproduces the weights and the weighted sum', () => {
    const w = [0.31, 0.26, 0.25, 0.18];
    const { weights, output } = engine.attention(mat(1, 1, [1]), mat(4, 1, w.map(Math.log)), mat(4, 1, [2.0, 0.5, 1.5, 0.0]), {
      scale: false,
    });
    expect(round2(weights.data)).toEqual(w);
    w.forEach((x, i) => expect(Math.abs(weights.data[i]! - x)).toBeLessThan(1e-6));
    // The exact sum is 1.125, which the article prints as 1.13 (half rounds up).
    expect(Math.abs(output.data[0]! - 1.125)).toBeLessThan(1e-6);
    expect(Math.abs(output.data[0]! - 1.13)).toBeLessThanOrEqual(0.005 + 1e-6);
  });
});

describe('the variance argument for 1/sqrt(d_k)', () => {
  // d_model 256, h 4 (d_k 64). W_q = I and W_k rotates the columns by 64, so head h's score (i, j)
  // is x_i[block h] . x_j[block h - 1]: a dot product of two independent unit-normal 64-vectors,
  // and the four heads pair different blocks, giving 4 * 64 * 64 = 16384 distinct dot products.
  const n = 64;
  const dModel = 256;
  const rng = new Rng(0xd0d0);
  const X = rng.matrix(n, dModel).data;
  const identity = new Float32Array(dModel * dModel);
  const swap = new Float32Array(dModel * dModel);
  for (let i = 0; i < dModel; ++i) {
    identity[i * dModel + i] = 1;
    swap[i * dModel + ((i + 64) % dModel)] = 1; // (X swap)[:, c] = X[:, c - 64 mod 256]
  }
  const run = (scale: boolean) =>
    engine.pipeline({
      tokens: Array.from({ length: n }, (_, i) => `t${i}`),
      dModel,
      heads: 4,
      scale,
      X,
      W_q: identity,
      W_k: swap,
      W_v: identity,
      W_o: identity,
    });

  it('raw scores of d_k = 64 have std ~ sqrt(64) = 8, and ~1 after dividing by sqrt(d_k)', () => {
    const s = run(true);
    expect(s.dK).toBe(64);
    // Head 0, (0, 5) is x_0[0:64] . x_5[192:256] (checked in float64).
    let dot = 0;
    for (let t = 0; t < 64; ++t) dot += X[0 * dModel + t]! * X[5 * dModel + 192 + t]!;
    expect(Math.abs(s.scores.data[5]! - dot)).toBeLessThan(1e-4);
    expect(s.scores.data.length).toBe(4 * n * n); // 16384 dot products
    const raw = std(s.scores.data);
    const scaled = std(s.scoresScaled.data);
    console.log(
      `[article-numbers] d_k=64 over ${s.scores.data.length} dot products: raw std ${raw.toFixed(3)}, scaled std ${scaled.toFixed(3)}`,
    );
    expect(raw).toBeGreaterThanOrEqual(7);
    expect(raw).toBeLessThanOrEqual(9);
    expect(scaled).toBeGreaterThanOrEqual(0.85);
    expect(scaled).toBeLessThanOrEqual(1.15);
  });

  it('unscaled scores saturate the softmax; scaled ones stay soft', () => {
    const s = run(true);
    const meanRowMax = (data: Float32Array) => {
      let total = 0;
      for (let r = 0; r < data.length / n; ++r) total += Math.max(...data.subarray(r * n, (r + 1) * n));
      return total / (data.length / n);
    };
    // The comparison table is head 0's (comparisonHead defaults to 0): compare it with head 0.
    const soft = meanRowMax(s.weights.data.subarray(0, n * n));
    const saturated = meanRowMax(s.weightsUnscaled.data);
    console.log(
      `[article-numbers] mean largest weight per row over ${n} keys: unscaled ${saturated.toFixed(3)}, scaled ${soft.toFixed(3)}`,
    );
    expect(saturated).toBeGreaterThan(0.7);
    expect(soft).toBeLessThan(0.3);
    // scale: false makes the configured weights the unscaled ones.
    expect(Array.from(run(false).weights.data.subarray(0, n * n))).toEqual(Array.from(s.weightsUnscaled.data));
  });
});
