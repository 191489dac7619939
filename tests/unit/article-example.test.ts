// The article's worked example (web/src/article-example.ts, written by web/scripts/article-example.py)
// run through the real engine, SIMD and scalar builds: every number the article prints comes out of
// the pipeline's snapshot where the article prints it, rounded as the article rounds it.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AttentionEngine, PipelineSnapshot } from '../../web/src/engine/engine';
import {
  ARTICLE_DEVIATIONS,
  ARTICLE_NUMBERS,
  EXAMPLE_D_K,
  EXAMPLE_D_MODEL,
  EXAMPLE_K,
  EXAMPLE_Q,
  EXAMPLE_TOKENS,
  EXAMPLE_V,
  EXAMPLE_W_K,
  EXAMPLE_W_Q,
  EXAMPLE_W_V,
  EXAMPLE_X,
  examplePipelineConfig,
  type ArticleNumber,
  type ExampleMatrix,
} from '../../web/src/article-example';
import { ENGINE_BUILDS } from './load-engine';

const n = EXAMPLE_TOKENS.length;

/** As the article prints it; a float32 -1e-8 is "0.0", not "-0.0". Every value in the example is at
 * least 0.0019 from a rounding boundary, so toFixed's binary rounding and the article's agree. */
function printed(x: number, digits: number): string {
  const text = x.toFixed(digits);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** head 0's (row, col) of a (h, rows, cols) tensor or an (rows, cols) matrix of the snapshot. */
function at(s: PipelineSnapshot, tensor: string, row: number, col: number): number {
  const t = s[tensor as keyof PipelineSnapshot] as { cols: number; data: Float32Array };
  return t.data[row * t.cols + col]!;
}
const head0Row = (s: PipelineSnapshot, tensor: 'scores' | 'weights', row: number) =>
  Array.from({ length: n }, (_, col) => at(s, tensor, row, col));

describe.each(ENGINE_BUILDS)('the reconstructed example on the %s engine', (_name, load) => {
  let engine: AttentionEngine;
  let full: PipelineSnapshot;
  let causal: PipelineSnapshot;
  beforeAll(async () => {
    engine = await load();
    full = engine.pipeline(examplePipelineConfig());
    causal = engine.pipeline(examplePipelineConfig({ causal: true }));
  });

  function engineValue(number: ArticleNumber): number {
    const where = number.locate;
    if ('softmax' in where) {
      // attention(q = [[1]], K = the scores as a column) with scaling off has weights softmax(scores).
      const K = { rows: where.softmax.length, cols: 1, data: Float32Array.from(where.softmax) };
      const V = { rows: where.softmax.length, cols: 1, data: new Float32Array(where.softmax.length) };
      return engine.attention({ rows: 1, cols: 1, data: Float32Array.from([1]) }, K, V, { scale: false }).weights.data[where.index]!;
    }
    return at(full, where.tensor, where.row, where.col);
  }

  it.each(ARTICLE_NUMBERS.map((number) => [number.id, number.printed, number] as const))('%s prints as %s', (_id, _printed, number) => {
    const value = engineValue(number);
    expect(printed(value, number.digits)).toBe(number.printed);
    expect(Math.abs(value - number.value)).toBeLessThan(2e-6);
  });

  it("has the article's shapes: 4 tokens, d_model 8, one head of d_k 4 scaled by 1/sqrt(4)", () => {
    expect([full.n, full.dModel, full.dK]).toEqual([4, 8, 4]);
    expect(full.scaleFactor).toBe(0.5);
    expect([full.Q_heads.rows, full.Q_heads.cols, full.scores.rows, full.scores.cols, full.headOutputs.cols]).toEqual([4, 4, 4, 4, 4]);
  });

  it('step 1: q_1 . k_1 = 1.0(1.1) + 0.5(0.4) = 1.30, and those two terms are the whole dot product', () => {
    const q1 = [0, 1, 2, 3].map((c) => at(full, 'Q_heads', 0, c));
    const k1 = [0, 1, 2, 3].map((c) => at(full, 'K_heads', 0, c));
    expect(q1.slice(0, 2).map((x) => printed(x, 1))).toEqual(['1.0', '0.5']);
    expect(k1.slice(0, 2).map((x) => printed(x, 1))).toEqual(['1.1', '0.4']);
    expect(Math.abs(q1[2]!) + Math.abs(q1[3]!)).toBeLessThan(1e-6);
    const score = at(full, 'scores', 0, 0);
    expect(printed(score, 2)).toBe('1.30');
    expect(Math.abs(score - (q1[0]! * k1[0]! + q1[1]! * k1[1]!))).toBeLessThan(1e-6);
    expect(Math.abs(score - 1.3)).toBeLessThan(1e-6);
  });

  it('step 1: row 2 of the scores has its largest values in columns 1 and 2', () => {
    const row2 = head0Row(full, 'scores', 1);
    expect(Math.min(row2[0]!, row2[1]!)).toBeGreaterThan(Math.max(row2[2]!, row2[3]!));
  });

  it('step 3: row 1 of the weights is 0.31 / 0.26 / 0.25 / 0.18 and every row sums to 1', () => {
    expect(head0Row(full, 'weights', 0).map((x) => printed(x, 2))).toEqual(['0.31', '0.26', '0.25', '0.18']);
    for (let row = 0; row < n; row++) expect(Math.abs(head0Row(full, 'weights', row).reduce((a, b) => a + b) - 1)).toBeLessThan(1e-6);
  });

  it('step 4: output row 1 = 0.31(2.0) + 0.26(0.5) + 0.25(1.5) + 0.18(0.0) = 1.13', () => {
    const v = [0, 1, 2, 3].map((row) => at(full, 'V_heads', row, 0));
    expect(v.map((x) => printed(x, 1))).toEqual(['2.0', '0.5', '1.5', '0.0']);
    const w = head0Row(full, 'weights', 0);
    const out = at(full, 'headOutputs', 0, 0);
    expect(printed(out, 2)).toBe('1.13');
    expect(Math.abs(out - w.reduce((sum, wj, j) => sum + wj * v[j]!, 0))).toBeLessThan(1e-6);
    // W_o is the identity, so the pipeline's final output carries the same number.
    expect(at(full, 'output', 0, 0)).toBeCloseTo(out, 6);
  });

  it("causal masking: print(w.round(2)) is the article's matrix, from the causal run and the comparison table alike", () => {
    const article = [
      ['1.00', '0.00', '0.00', '0.00'],
      ['0.51', '0.49', '0.00', '0.00'],
      ['0.38', '0.22', '0.40', '0.00'],
      ['0.24', '0.33', '0.20', '0.23'],
    ];
    const causalRows = [0, 1, 2, 3].map((row) => head0Row(causal, 'weights', row));
    expect(causalRows.map((row) => row.map((x) => printed(x, 2)))).toEqual(article);
    for (let row = 0; row < n; row++)
      for (let col = 0; col < n; col++) expect(Math.abs(at(full, 'weightsCausal', row, col) - causalRows[row]![col]!)).toBeLessThan(1e-7);
    // The last token sees every key, so its masked row is its unmasked row.
    head0Row(full, 'weights', 3).forEach((x, col) => expect(Math.abs(x - causalRows[3]![col]!)).toBeLessThan(1e-6));
  });

  it('the padding head (engine head 2) is inert: zero queries, uniform weights, zero output', () => {
    const head2 = (t: { rows: number; cols: number; data: Float32Array }) =>
      Array.from(t.data.subarray(t.rows * t.cols, 2 * t.rows * t.cols));
    expect(full.heads).toBe(2);
    expect(head2(full.Q_heads).every((x) => x === 0)).toBe(true);
    expect(head2(full.weights).every((x) => x === 0.25)).toBe(true);
    expect(head2(full.headOutputs).every((x) => x === 0)).toBe(true);
  });
});

describe("the example's inputs", () => {
  const integers = (M: ExampleMatrix, scale: number) =>
    M.data.map((x) => {
      const k = Math.round(x * scale);
      expect(Math.abs(k - x * scale)).toBeLessThan(1e-9); // the entry has at most log10(scale) decimals
      return k;
    });

  it('X has one-decimal entries, W_* two-decimal ones, and X W_* = Q, K, V exactly in decimal arithmetic', () => {
    expect([EXAMPLE_X.rows, EXAMPLE_X.cols]).toEqual([n, EXAMPLE_D_MODEL]);
    const X = integers(EXAMPLE_X, 10);
    for (const [W, target] of [
      [EXAMPLE_W_Q, EXAMPLE_Q],
      [EXAMPLE_W_K, EXAMPLE_K],
      [EXAMPLE_W_V, EXAMPLE_V],
    ] as const) {
      expect([W.rows, W.cols, target.rows, target.cols]).toEqual([EXAMPLE_D_MODEL, EXAMPLE_D_K, n, EXAMPLE_D_K]);
      const w = integers(W, 100);
      const t = integers(target, 10);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < EXAMPLE_D_K; j++) {
          let sum = 0; // tenths x hundredths = thousandths, all integers: no rounding anywhere
          for (let k = 0; k < EXAMPLE_D_MODEL; k++) sum += X[i * EXAMPLE_D_MODEL + k]! * w[k * EXAMPLE_D_K + j]!;
          expect(sum).toBe(t[i * EXAMPLE_D_K + j]! * 100);
        }
    }
  });

  it("lists the article's numbers once each, and its deviations", () => {
    const ids = ARTICLE_NUMBERS.map((x) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    // 4 factors of q_1 . k_1, the score, 4 weights, 4 values, the output, 16 causal weights, 2 x 3 softmax
    expect(ids.length).toBe(4 + 1 + 4 + 4 + 1 + 16 + 6);
    expect(ARTICLE_DEVIATIONS.length).toBeGreaterThan(0);
    for (const d of ARTICLE_DEVIATIONS)
      for (const text of [d.what, d.article, d.reconstructed, d.difference]) expect(text.length).toBeGreaterThan(0);
  });
});
