// The long-context kernels (web/src/engine/long-context.ts over cpp/long_context.h) through the real
// .wasm builds, against an independent float64 reference: sparse patterns written from their
// definition and run through reference.ts's attention(), linear attention from its formula, and each
// cached decoding step against attention of the new query over every token so far. Plus the cell
// counts, the cache's bytes per token, and the C++ side's messages as EngineErrors.
import { beforeAll, describe, expect, it } from 'vitest';
import { type AttentionEngine, EngineError, type Matrix } from '../../web/src/engine/engine';
import {
  KVCache,
  decodeRecompute,
  kvCacheBytesPerToken,
  linearAttention,
  linearAttentionWeights,
  slidingWindowAttention,
  sparseAttention,
  sparsePatternCells,
  sparsePatternMask,
  type SparsePattern,
} from '../../web/src/engine/long-context';
import { MaxTracker, Rng, normwiseRelError, sum } from './helpers';
import { ENGINE_BUILDS } from './load-engine';
import { attention, matmul } from './reference';

/** The pattern's mask from its definition, cell by cell (not from the C++): 1 = query i attends key j. */
function patternMask(n: number, p: Required<SparsePattern>): Uint8Array {
  const mask = new Uint8Array(n * n);
  for (let i = 0; i < n; ++i)
    for (let j = 0; j < n; ++j) {
      const allowed = !p.causal || j <= i;
      const inWindow = p.causal ? i - j < p.window : Math.abs(i - j) < p.window;
      const global = i < p.global || j < p.global;
      const strided = p.stride > 0 && (i - j) % p.stride === 0;
      mask[i * n + j] = allowed && (inWindow || global || strided) ? 1 : 0;
    }
  return mask;
}

const elu1 = (x: number) => (x > 0 ? x + 1 : Math.exp(x));

/** Linear attention as its formula reads, in float64: φ(q_i)·Σ_j φ(k_j) v_jᵀ / φ(q_i)·Σ_j φ(k_j), j <= i if causal. */
function linearReference(Q: Matrix, K: Matrix, V: Matrix, causal: boolean): Float64Array {
  const n = Q.rows,
    d = Q.cols,
    dv = V.cols;
  const out = new Float64Array(n * dv);
  for (let i = 0; i < n; ++i) {
    const keys = causal ? i + 1 : n;
    let den = 0;
    const num = new Float64Array(dv);
    for (let j = 0; j < keys; ++j) {
      let w = 0;
      for (let t = 0; t < d; ++t) w += elu1(Q.data[i * d + t]!) * elu1(K.data[j * d + t]!);
      den += w;
      for (let c = 0; c < dv; ++c) num[c]! += w * V.data[j * dv + c]!;
    }
    for (let c = 0; c < dv; ++c) out[i * dv + c] = num[c]! / den;
  }
  return out;
}

/** Columns [from, from + width) of rows [0, rows) of M, as a matrix. */
function slice(M: Matrix, rows: number, from: number, width: number): Matrix {
  const data = new Float32Array(rows * width);
  for (let r = 0; r < rows; ++r) data.set(M.data.subarray(r * M.cols + from, r * M.cols + from + width), r * width);
  return { rows, cols: width, data };
}

/** Row `row` of M as a (parts, cols / parts) matrix: one token's heads, one per row. */
function rowAsHeads(M: Matrix, row: number, parts: number): Matrix {
  return { rows: parts, cols: M.cols / parts, data: M.data.slice(row * M.cols, (row + 1) * M.cols) };
}

describe.each(ENGINE_BUILDS)('long-context kernels (%s build)', (name, load) => {
  let engine: AttentionEngine;
  beforeAll(async () => {
    engine = await load();
  });

  it('sparse attention equals float64 attention under the pattern written from its definition, cells exact', () => {
    const rng = new Rng(0x5ba5);
    const worst = new MaxTracker();
    let cases = 0;
    for (const n of [1, 2, 7, 33])
      for (const d of [1, 3, 16]) {
        const dv = 1 + ((n + d) % 9);
        const [Q, K, V] = [rng.matrix(n, d), rng.matrix(n, d), rng.matrix(n, dv)];
        for (const window of [1, 2, n, n + 3])
          for (const global of [0, 1, 3].filter((g) => g <= n))
            for (const stride of [0, 1, 2, 5])
              for (const causal of [true, false]) {
                const pattern = { window, global, stride, causal };
                const where = `n=${n} d=${d} ${JSON.stringify(pattern)}`;
                const mask = patternMask(n, pattern);
                const result = sparseAttention(engine, Q, K, V, pattern);
                const error = normwiseRelError(result.output.data, attention(Q, K, V, mask).output.data);
                worst.update(error, where);
                if (!(error < 1e-5)) throw new Error(`relative error ${error} at ${where}`);
                expect(result.cells, where).toBe(sum(mask));
                expect(sparsePatternCells(engine, n, pattern), where).toBe(sum(mask));
                const figure = sparsePatternMask(engine, n, pattern);
                expect(figure.mask.rows).toBe(n);
                expect(figure.cells).toBe(sum(mask));
                expect(Array.from(figure.mask.data), where).toEqual(Array.from(mask));
                ++cases;
              }
      }
    console.info(`[long-context ${name}] ${cases} sparse patterns: max relative error ${worst.value.toExponential(2)} at ${worst.where}`);
  });

  it('a window covering the sequence is full attention; the counts scale to 65,536 tokens', () => {
    const rng = new Rng(3);
    const n = 20;
    const [Q, K, V] = [rng.matrix(n, 8), rng.matrix(n, 8), rng.matrix(n, 4)];
    const full = slidingWindowAttention(engine, Q, K, V, n, false);
    expect(normwiseRelError(full.output.data, attention(Q, K, V).output.data)).toBeLessThan(1e-5);
    expect(full.cells).toBe(n * n);
    expect(sparsePatternCells(engine, 65536, { window: 256 })).toBe(65536 * 256 - (256 * 255) / 2);
  });

  it('linear attention equals its float64 formula and its own implied weights times V', () => {
    const rng = new Rng(0x11ea);
    const worst = new MaxTracker();
    for (const n of [1, 2, 7, 33, 130])
      for (const d of [1, 3, 16, 64])
        for (const causal of [false, true]) {
          const where = `n=${n} d=${d} causal=${causal}`;
          const dv = 1 + ((3 * n + d) % 11);
          const [Q, K, V] = [rng.matrix(n, d), rng.matrix(n, d), rng.matrix(n, dv)];
          const output = linearAttention(engine, Q, K, V, { causal });
          const error = normwiseRelError(output.data, linearReference(Q, K, V, causal));
          worst.update(error, where);
          if (!(error < 1e-5)) throw new Error(`relative error ${error} at ${where}`);
          const W = linearAttentionWeights(engine, Q, K, { causal });
          for (let i = 0; i < n; ++i) {
            const row = W.data.subarray(i * n, (i + 1) * n);
            expect(sum(row), where).toBeCloseTo(1, 5);
            if (causal) expect(sum(row.subarray(i + 1)), where).toBe(0);
          }
          expect(normwiseRelError(output.data, matmul(W, V).data), where).toBeLessThan(1e-5);
        }
    console.info(`[long-context ${name}] linear attention: max relative error ${worst.value.toExponential(2)} at ${worst.where}`);
  });

  it('every cached decoding step equals float64 attention of the new query over all tokens so far (MHA, GQA, MQA)', () => {
    const rng = new Rng(0xdec0);
    const heads = 4,
      dK = 8,
      tokens = 33;
    const worst = new MaxTracker();
    for (const kvHeads of [4, 2, 1]) {
      const group = heads / kvHeads;
      const [Q, K, V] = [rng.matrix(tokens, heads * dK), rng.matrix(tokens, kvHeads * dK), rng.matrix(tokens, kvHeads * dK)];
      const cache = KVCache.create(engine, { layers: 2, kvHeads, dK, capacity: tokens });
      expect(cache.bytesPerToken).toBe(2 * 2 * kvHeads * dK * 4);
      try {
        for (let t = 1; t <= tokens; ++t) {
          expect(cache.append(1, rowAsHeads(K, t - 1, kvHeads), rowAsHeads(V, t - 1, kvHeads))).toBe(t);
          const step = cache.decode(1, rowAsHeads(Q, t - 1, heads));
          expect(step.cells).toBe(heads * t);
          const want = new Float64Array(heads * dK);
          for (let h = 0; h < heads; ++h) {
            const kv = Math.floor(h / group) * dK;
            const q = { rows: 1, cols: dK, data: Q.data.slice((t - 1) * Q.cols + h * dK, (t - 1) * Q.cols + (h + 1) * dK) };
            want.set(attention(q, slice(K, t, kv, dK), slice(V, t, kv, dK)).output.data, h * dK);
          }
          const where = `kvHeads=${kvHeads} t=${t}`;
          const error = normwiseRelError(step.output.data, want);
          worst.update(error, where);
          if (!(error < 1e-5)) throw new Error(`relative error ${error} at ${where}`);
          if (t === tokens) {
            const recomputed = decodeRecompute(engine, slice(Q, t, 0, heads * dK), K, V, { heads, kvHeads });
            expect(normwiseRelError(recomputed.output.data, want)).toBeLessThan(1e-5);
            expect(recomputed.cells).toBe((heads * t * (t + 1)) / 2);
          }
        }
        expect(cache.length(0)).toBe(0);
        expect(() => cache.append(1, rowAsHeads(K, 0, kvHeads), rowAsHeads(V, 0, kvHeads))).toThrow(`is full (${tokens} tokens)`);
      } finally {
        cache.dispose();
      }
    }
    console.info(`[long-context ${name}] decode: max relative error ${worst.value.toExponential(2)} at ${worst.where}`);
  });

  it("turns a model's shape into bytes per token", () => {
    // Llama 3 8B: 32 layers, 8 KV heads of 128, 16-bit values: 128 KiB per token.
    expect(kvCacheBytesPerToken(engine, { layers: 32, kvHeads: 8, dK: 128, bytesPerValue: 2 })).toBe(131072);
  });

  it("refuses bad input with the C++ side's message", () => {
    const rng = new Rng(9);
    const [Q, K, V] = [rng.matrix(4, 3), rng.matrix(4, 3), rng.matrix(4, 2)];
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(EngineError);
        return (error as Error).message;
      }
      throw new Error('expected an EngineError');
    };
    expect(refusal(() => sparseAttention(engine, Q, K, V, { window: 0 }))).toContain('window must be at least 1');
    expect(refusal(() => sparseAttention(engine, Q, K, V, { window: 2, global: 5 }))).toContain('global tokens must be from 0 to n = 4');
    expect(refusal(() => sparseAttention(engine, Q, K, V, { window: 1.5 }))).toContain('window must be a whole number');
    expect(refusal(() => sparseAttention(engine, Q, K, V, 'wide' as unknown as SparsePattern))).toContain('the pattern must be');
    expect(refusal(() => sparseAttention(engine, Q, rng.matrix(5, 3), rng.matrix(5, 2), { window: 2 }))).toContain('need as many rows');
    const nan = rng.matrix(4, 3);
    nan.data[4] = NaN;
    expect(refusal(() => linearAttention(engine, nan, K, V))).toContain('Q has a value that is not a finite number at row 2, column 2');
    expect(refusal(() => linearAttention(engine, Q, K, V, { causal: 'yes' as unknown as boolean }))).toContain(
      'causal must be true or false',
    );
    expect(refusal(() => linearAttentionWeights(engine, rng.matrix(1025, 1), rng.matrix(1025, 1)))).toContain(
      'limited to n from 1 to 1024',
    );
    expect(refusal(() => sparsePatternMask(engine, 1025, { window: 1 }))).toContain('limited to n from 1 to 1024');
    expect(
      refusal(() => decodeRecompute(engine, rng.matrix(5, 8), rng.matrix(5, 4), rng.matrix(5, 4), { heads: 4, kvHeads: 3 })),
    ).toContain('kv_heads (3) must divide');
    expect(refusal(() => kvCacheBytesPerToken(engine, { layers: 0, kvHeads: 8, dK: 128, bytesPerValue: 2 }))).toContain(
      'layers must be from 1 to 16384',
    );
    expect(refusal(() => KVCache.create(engine, { layers: 1, kvHeads: 65, dK: 4, capacity: 4 }))).toContain(
      'kv_heads must be from 1 to 64',
    );
    const cache = KVCache.create(engine, { layers: 1, kvHeads: 2, dK: 3, capacity: 4 });
    expect(refusal(() => cache.decode(0, rng.matrix(4, 3)))).toContain('is empty: append');
    expect(refusal(() => cache.append(0, rng.matrix(1, 3), rng.matrix(2, 3)))).toContain('must be (kv_heads, d_k) = (2, 3)');
    expect(refusal(() => cache.append(1, rng.matrix(2, 3), rng.matrix(2, 3)))).toContain('layer must be from 0 to 0');
    expect(cache.append(0, rng.matrix(2, 3), rng.matrix(2, 3))).toBe(1);
    expect(refusal(() => cache.decode(0, rng.matrix(3, 3)))).toContain('kv_heads (2) must divide');
    expect(cache.decode(0, rng.matrix(4, 3)).output.rows).toBe(4);
    cache.dispose();
    expect(refusal(() => cache.decode(0, rng.matrix(4, 3)))).toContain('this cache was disposed');
    // The engine keeps working after every refusal.
    expect(sparseAttention(engine, Q, K, V, { window: 2 }).cells).toBe(1 + 2 + 2 + 2);
  });
});
