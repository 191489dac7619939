// Properties that hold for every input: rows of weights are distributions, causal weights vanish
// above the diagonal, masking after softmax breaks the row sums (the article's warning), fully
// masked rows are defined zeros, the seeded generator is deterministic, and what the engine and the
// page keep between calls (embedding rows, experiments, shared arrays) is what a fresh call gives.
import { beforeAll, describe, expect, it } from 'vitest';
import { computeSnapshot } from '../../web/src/compute';
import type { AttentionEngine, Matrix, PipelineSnapshot, Tensor3 } from '../../web/src/engine/engine';
import { DEFAULT_SETTINGS } from '../../web/src/settings';
import { loadSimdEngine } from './load-engine';
import { Rng, bitDifference, causalMask, divisors, floatBitsHex, hasNaN, maxAbsDiff, sum, tensorRow } from './helpers';
import * as ref from './reference';

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadSimdEngine();
});

const SENTENCE = ['the', 'animal', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired.'];

/** Every Float32Array in a snapshot, by name. */
function floatArrays(s: PipelineSnapshot): Array<[string, Float32Array]> {
  const out: Array<[string, Float32Array]> = [];
  for (const [key, value] of Object.entries(s)) {
    if (value && typeof value === 'object' && 'data' in value && value.data instanceof Float32Array) out.push([key, value.data]);
  }
  return out;
}

/** Row sums of every row of every head. */
function rowSums(t: Tensor3): number[][] {
  const out: number[][] = [];
  for (let h = 0; h < t.heads; ++h) {
    const rows: number[] = [];
    for (let r = 0; r < t.rows; ++r) rows.push(sum(tensorRow(t, h, r)));
    out.push(rows);
  }
  return out;
}

/** A comparison table (one head, (n, n)) as a one-head tensor. */
const oneHead = (m: Matrix): Tensor3 => ({ heads: 1, rows: m.rows, cols: m.cols, data: m.data });

/** Head h of a (heads, n, n) tensor. */
const headData = (t: Tensor3, h: number) => t.data.subarray(h * t.rows * t.cols, (h + 1) * t.rows * t.cols);

function expectUpperTriangleZero(t: Tensor3, where: string): void {
  for (let h = 0; h < t.heads; ++h)
    for (let r = 0; r < t.rows; ++r)
      for (let c = r + 1; c < t.cols; ++c)
        if (!Object.is(t.data[(h * t.rows + r) * t.cols + c], 0))
          throw new Error(`${where}: head ${h} (${r}, ${c}) = ${t.data[(h * t.rows + r) * t.cols + c]}`);
}

describe('weights are distributions', () => {
  it('every row of multiHeadAttention weights sums to 1 within 1e-5 (200 random configs, causal and not)', () => {
    const rng = new Rng(0x1a1a);
    let rowsChecked = 0;
    for (let trial = 0; trial < 200; ++trial) {
      const n = rng.logInt(1, 96);
      const dModel = rng.logInt(1, 128);
      const heads = rng.pick(divisors(dModel, 64));
      const causal = rng.bool();
      const scale = rng.bool();
      const std = 1 / Math.sqrt(dModel);
      const [Wq, Wk, Wv, Wo] = [0, 1, 2, 3].map(() => rng.matrix(dModel, dModel, std)) as [Matrix, Matrix, Matrix, Matrix];
      const r = engine.multiHeadAttention(rng.matrix(n, dModel), Wq, Wk, Wv, Wo, { heads, causal, scale });
      const where = `trial ${trial} n=${n} dModel=${dModel} heads=${heads} causal=${causal} scale=${scale}`;
      for (const row of rowSums(r.weights).flat()) {
        if (!(Math.abs(row - 1) <= 1e-5)) throw new Error(`${where}: row sum ${row}`);
        ++rowsChecked;
      }
      for (const w of r.weights.data) if (!(w >= 0 && w <= 1)) throw new Error(`${where}: weight ${w} outside [0, 1]`);
      if (causal) expectUpperTriangleZero(r.weights, where);
    }
    expect(rowsChecked).toBeGreaterThan(2000);
  });

  it('attention() rows sum to 1 except fully masked rows, which are exactly 0; masked entries are exactly 0', () => {
    const rng = new Rng(0x1a1b);
    let fully = 0;
    for (let trial = 0; trial < 150; ++trial) {
      const nq = rng.logInt(1, 64);
      const nk = rng.logInt(1, 64);
      const dk = rng.logInt(1, 64);
      const mask = new Uint8Array(nq * nk);
      const p = rng.next();
      for (let i = 0; i < mask.length; ++i) mask[i] = Number(rng.next() < p);
      const r = engine.attention(rng.matrix(nq, dk), rng.matrix(nk, dk), rng.matrix(nk, 3), { mask });
      for (let i = 0; i < nq; ++i) {
        const row = r.weights.data.subarray(i * nk, (i + 1) * nk);
        const visible = mask.subarray(i * nk, (i + 1) * nk).some((m) => m === 1);
        expect(r.fullyMaskedRows[i]).toBe(visible ? 0 : 1);
        if (visible) expect(Math.abs(sum(row) - 1)).toBeLessThanOrEqual(1e-5);
        else {
          ++fully;
          expect(row.every((w) => Object.is(w, 0))).toBe(true);
        }
        for (let j = 0; j < nk; ++j) if (!mask[i * nk + j]) expect(row[j]).toBe(0);
      }
      expect(hasNaN(r.weights.data) || hasNaN(r.output.data)).toBe(false);
    }
    expect(fully).toBeGreaterThan(10);
  });
});

describe('causal masking, before vs after softmax (the article warning)', () => {
  it('causal weights are exactly 0 above the diagonal; weightsCausal rows sum to 1, for every comparison head', () => {
    for (const [n, dModel, heads] of [
      [9, 8, 2],
      [32, 64, 4],
      [128, 16, 1],
      [1, 4, 4],
    ] as const) {
      for (let head = 0; head < heads; ++head) {
        const s = engine.pipeline({
          tokens: Array.from({ length: n }, (_, i) => SENTENCE[i % SENTENCE.length]!),
          dModel,
          heads,
          causal: true,
          seed: 7,
          comparisonHead: head,
        });
        const where = `n=${n} dModel=${dModel} heads=${heads} head=${head}`;
        expect(s.comparisonHead).toBe(head);
        expectUpperTriangleZero(s.weights, where);
        expectUpperTriangleZero(oneHead(s.weightsCausal), where);
        expectUpperTriangleZero(oneHead(s.weightsMaskedAfter), where);
        expect(Array.from(s.mask.data)).toEqual(Array.from(causalMask(n)));
        for (const t of [s.weights, oneHead(s.weightsCausal), oneHead(s.weightsUnscaled)])
          for (const row of rowSums(t).flat()) expect(Math.abs(row - 1)).toBeLessThanOrEqual(1e-5);
        // The configured path with causal on is the causal path, for the comparison head.
        expect(floatBitsHex(s.weightsCausal.data)).toBe(floatBitsHex(headData(s.weights, head)));
      }
    }
  });

  it('masking AFTER softmax leaves rows 0..n-2 summing to less than 1 - 1e-3, the last row to 1', () => {
    const n = SENTENCE.length;
    for (let h = 0; h < 2; ++h) {
      const s = engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, causal: false, seed: 1, comparisonHead: h });
      const after = rowSums(oneHead(s.weightsMaskedAfter))[0]!;
      const causal = rowSums(oneHead(s.weightsCausal))[0]!;
      for (let r = 0; r < n - 1; ++r) {
        expect(after[r]!, `head ${h} row ${r}`).toBeLessThan(1 - 1e-3);
        expect(after[r]!).toBeGreaterThan(0);
      }
      expect(Math.abs(after[n - 1]! - 1)).toBeLessThanOrEqual(1e-5);
      for (const row of causal) expect(Math.abs(row - 1)).toBeLessThanOrEqual(1e-5);
      // Below the diagonal, masked-after keeps the unmasked softmax values (here: the configured weights of head h).
      const weights = headData(s.weights, h);
      for (let r = 0; r < n; ++r)
        for (let c = 0; c <= r; ++c)
          expect(Math.abs(s.weightsMaskedAfter.data[r * n + c]! - weights[r * n + c]!)).toBeLessThanOrEqual(1e-7);
      // Row 0 masked after softmax keeps only its own unmasked weight; masked before, it is 1.
      expect(s.weightsCausal.data[0]).toBeCloseTo(1, 6);
      expect(s.weightsMaskedAfter.data[0]!).toBeLessThan(0.999);
    }
  });
});

describe('fully masked rows in the pipeline', () => {
  it('a custom mask with an all-zero row gives zero weights, sets the flag, and no NaN anywhere', () => {
    const n = SENTENCE.length;
    const blockedRow = 3;
    const mask = new Uint8Array(n * n).fill(1);
    mask.fill(0, blockedRow * n, (blockedRow + 1) * n);
    for (const scale of [true, false]) {
      const s = engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, seed: 3, mask, scale });
      expect(Array.from(s.mask.data)).toEqual(Array.from(mask));
      expect(Array.from(s.fullyMaskedRows)).toEqual(Array.from({ length: n }, (_, i) => Number(i === blockedRow)));
      expect(Array.from(tensorRow(oneHead(s.weightsUnscaled), 0, blockedRow))).toEqual(new Array(n).fill(0));
      for (let h = 0; h < s.heads; ++h) {
        expect(Array.from(tensorRow(s.weights, h, blockedRow))).toEqual(new Array(n).fill(0));
        expect(Array.from(tensorRow(s.headOutputs, h, blockedRow))).toEqual(new Array(s.dK).fill(0));
        const sums = rowSums(s.weights)[h]!;
        sums.forEach((row, r) => {
          if (r !== blockedRow) expect(Math.abs(row - 1)).toBeLessThanOrEqual(1e-5);
        });
      }
      expect(Array.from(s.output.data.subarray(blockedRow * 8, blockedRow * 8 + 8))).toEqual(new Array(8).fill(0));
      // The causal comparison ignores the custom mask: its row 3 is a proper distribution.
      for (const row of rowSums(oneHead(s.weightsCausal)).flat()) expect(Math.abs(row - 1)).toBeLessThanOrEqual(1e-5);
      const arrays = floatArrays(s);
      expect(arrays.length).toBe(20);
      for (const [key, data] of arrays) expect(hasNaN(data), `${key} has NaN`).toBe(false);
      for (const [key, data] of arrays) expect(data.every(Number.isFinite), `${key} is finite`).toBe(true);
    }
  });
});

describe('the comparison paths are what they claim', () => {
  it('weightsUnscaled is softmax of the raw scores; scoresScaled is exactly scores * scaleFactor', () => {
    const rng = new Rng(0x1a1c);
    for (let trial = 0; trial < 30; ++trial) {
      const n = rng.int(1, 40);
      const dModel = rng.pick([4, 8, 12, 16, 32, 64]);
      const heads = rng.pick(divisors(dModel));
      const causal = rng.bool();
      const comparisonHead = rng.int(0, heads - 1);
      const s = engine.pipeline({
        tokens: Array.from({ length: n }, () => rng.pick(SENTENCE)),
        dModel,
        heads,
        causal,
        seed: rng.int(0, 1e6),
        comparisonHead,
      });
      expect(s.scaleFactor).toBe(Math.fround(1 / Math.fround(Math.sqrt(s.dK))));
      for (let i = 0; i < s.scores.data.length; ++i)
        if (s.scoresScaled.data[i] !== Math.fround(s.scores.data[i]! * s.scaleFactor))
          throw new Error(
            `trial ${trial}: scoresScaled[${i}] = ${s.scoresScaled.data[i]}, scores * scale = ${s.scores.data[i]! * s.scaleFactor}`,
          );
      for (let h = 0; h < heads; ++h) {
        const raw = Array.from(s.scores.data.subarray(h * n * n, (h + 1) * n * n), (x, i) => (s.mask.data[i] ? x : -Infinity));
        const want = ref.softmax({ rows: n, cols: n, data: raw }).data;
        if (h === comparisonHead) expect(maxAbsDiff(s.weightsUnscaled.data, want)).toBeLessThanOrEqual(1e-6);
        const scaled = Array.from(s.scoresScaled.data.subarray(h * n * n, (h + 1) * n * n), (x, i) => (s.mask.data[i] ? x : -Infinity));
        const wantScaled = ref.softmax({ rows: n, cols: n, data: scaled }).data;
        expect(maxAbsDiff(s.weights.data.subarray(h * n * n, (h + 1) * n * n), wantScaled)).toBeLessThanOrEqual(1e-6);
      }
    }
  });

  it('with scale off, scoresScaled equals scores and weightsUnscaled equals weights', () => {
    for (const comparisonHead of [0, 1]) {
      const s = engine.pipeline({ tokens: SENTENCE, dModel: 16, heads: 2, scale: false, seed: 11, comparisonHead });
      expect(s.scaleFactor).toBe(1);
      expect(floatBitsHex(s.scoresScaled.data)).toBe(floatBitsHex(s.scores.data));
      expect(floatBitsHex(s.weightsUnscaled.data)).toBe(floatBitsHex(headData(s.weights, comparisonHead)));
    }
  });
});

describe('determinism of the seeded generator', () => {
  const config = { tokens: SENTENCE, dModel: 16, heads: 4, causal: true, seed: 123456789 };

  it('the same seed gives a bit-identical snapshot', () => {
    const a = engine.pipeline(config);
    engine.pipeline({ ...config, seed: 5, dModel: 32 }); // unrelated work in between
    const b = engine.pipeline(config);
    const fa = floatArrays(a);
    const fb = floatArrays(b);
    expect(fa.map(([k]) => k)).toEqual(fb.map(([k]) => k));
    fa.forEach(([key, data], i) => expect(bitDifference(fb[i]![1], data), key).toBeUndefined());
    expect(Array.from(b.mask.data)).toEqual(Array.from(a.mask.data));
    expect(Array.from(b.fullyMaskedRows)).toEqual(Array.from(a.fullyMaskedRows));
    expect([b.n, b.dModel, b.heads, b.dK, b.scaleFactor]).toEqual([a.n, a.dModel, a.heads, a.dK, a.scaleFactor]);
  });

  it('a different seed gives different X, W_q, W_k, W_v, W_o and output', () => {
    const a = engine.pipeline(config);
    const b = engine.pipeline({ ...config, seed: 123456790 });
    for (const key of ['X', 'W_q', 'W_k', 'W_v', 'W_o', 'output'] as const) {
      const same = a[key].data.filter((x, i) => x === b[key].data[i]).length;
      expect(same, `${key}: entries equal across seeds`).toBeLessThan(a[key].data.length / 10);
    }
  });

  it('identical tokens get identical embedding rows; different tokens do not', () => {
    const s = engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, seed: 1 });
    const row = (i: number) => floatBitsHex(s.X.data.subarray(i * 8, (i + 1) * 8));
    expect(SENTENCE[0]).toBe(SENTENCE[3]);
    expect(row(0)).toBe(row(3)); // "the" ... "the"
    for (let i = 0; i < SENTENCE.length; ++i)
      for (let j = i + 1; j < SENTENCE.length; ++j) if (SENTENCE[i] !== SENTENCE[j]) expect(row(i)).not.toBe(row(j));
    // A token's row depends on the seed and the token only, not on its position or the sentence.
    const alone = engine.pipeline({ tokens: ['road'], dModel: 8, heads: 2, seed: 1 });
    expect(floatBitsHex(alone.X.data)).toBe(row(4));
    // Identical X rows give identical Q/K/V rows, hence identical attention rows in a non-causal config.
    for (const key of ['Q', 'K', 'V'] as const)
      expect(floatBitsHex(s[key].data.subarray(0, 8))).toBe(floatBitsHex(s[key].data.subarray(24, 32)));
    expect(floatBitsHex(tensorRow(s.weights, 0, 0))).toBe(floatBitsHex(tensorRow(s.weights, 0, 3)));
  });
});

describe('what the engine and the page keep between calls is what a fresh call gives', () => {
  it('embedding rows and weights after a sequence of calls are the ones a fresh engine generates', async () => {
    // 64 tokens at d_model 64: the heap block, not the fixed one. Then the same sentence shifted by one
    // word with one word replaced, a heads change (the generated weights kept), and another seed (none kept).
    const words = Array.from({ length: 65 }, (_, i) => `w${i}`);
    const calls = [
      { tokens: words.slice(0, 64), dModel: 64, heads: 8, seed: 7 },
      { tokens: [...words.slice(1, 30), 'new', ...words.slice(31, 65)], dModel: 64, heads: 8, seed: 7 },
      { tokens: [...words.slice(1, 30), 'new', ...words.slice(31, 65)], dModel: 64, heads: 4, seed: 7 },
      { tokens: [...words.slice(1, 30), 'new', ...words.slice(31, 65)], dModel: 64, heads: 4, seed: 8 },
    ];
    const kept = calls.map((c) => engine.pipeline(c));
    const fresh = await loadSimdEngine();
    calls.forEach((c, i) => {
      const expected = fresh.pipeline(c);
      for (const key of ['X', 'Q', 'output'] as const)
        expect(bitDifference(kept[i]![key].data, expected[key].data), `call ${i}: ${key}`).toBeUndefined();
    });
  });

  it('the page reuses the variance experiment of a d_k it has just shown, and it equals a fresh one', () => {
    const at = (heads: number) => computeSnapshot(engine, { ...DEFAULT_SETTINGS, weights: 'random', dModel: 16, heads, seed: 31 });
    const [two, four, twoAgain] = [at(2), at(4), at(2)];
    expect([two.pipeline.dK, four.pipeline.dK]).toEqual([8, 4]);
    expect(twoAgain.dots).toBe(two.dots);
    expect(four.dots).not.toBe(two.dots);
    const direct = engine.dotProductSamples(8, two.dots.raw.length, 31);
    expect(floatBitsHex(twoAgain.dots.raw)).toBe(floatBitsHex(direct.raw));
    expect(twoAgain.saturation.sharp.probabilities).toEqual(
      engine.softmaxSaturation(new Float32Array([1, 2, 3]), Math.sqrt(8)).probabilities,
    );
  });
});

describe('results share the arrays a change left bit for bit the same', () => {
  // Over 256 KB (here 128 tokens, 8 heads of 8: about 2.2 MB); smaller results are copied in one piece.
  const tokens = Array.from({ length: 128 }, (_, i) => `${SENTENCE[i % SENTENCE.length]}${i}`);
  const n = tokens.length;
  const base = { tokens, dModel: 64, heads: 8, seed: 42 };

  it('a result up to 256 KB is one copy of the published block, every array a view into it, and shares nothing', () => {
    const small = { ...base, tokens: tokens.slice(0, 24), seed: 77 }; // (8, 24, 24) tables: about 190 KB in all
    const open = engine.pipeline(small);
    const buffer = open.X.data.buffer;
    for (const key of ['W_q', 'W_o', 'Q', 'K_heads', 'scores', 'weights', 'output', 'weightsCausal'] as const)
      expect(open[key].data.buffer, key).toBe(buffer);
    expect(open.mask.data.buffer).toBe(buffer);
    expect(open.fullyMaskedRows.buffer).toBe(buffer);
    // The block: four (64, 64) weights, eight (24, 64) matrices, four (8, 24, 8) and three (8, 24, 24) tensors,
    // three (24, 24) tables, then the mask and the rows' bytes (floats 16-byte aligned: every size here is a multiple of 4).
    expect(buffer.byteLength).toBe(4 * (4 * 64 * 64 + 6 * 24 * 64 + 4 * 8 * 24 * 8 + 3 * 8 * 24 * 24 + 3 * 24 * 24) + 24 * 24 + 24);
    expect(open.W_q.data.byteOffset).toBe(0);
    const causal = engine.pipeline({ ...small, causal: true });
    expect(causal.X.data.buffer).not.toBe(buffer);
    for (const key of ['W_q', 'W_k', 'scores', 'weights'] as const) expect(causal[key].data.buffer, key).toBe(causal.X.data.buffer);
    // Equal inputs, equal bits: the weights and scores of the causal run are copies of the same numbers.
    for (const key of ['W_q', 'W_o', 'X', 'scores'] as const) expect(bitDifference(causal[key].data, open[key].data), key).toBeUndefined();
    expect(floatBitsHex(causal.weights.data)).not.toBe(floatBitsHex(open.weights.data));
  });

  it('toggling causal shares the scores, not the weights; switching the comparison head shares all but its tables', () => {
    const open = engine.pipeline(base);
    const causal = engine.pipeline({ ...base, causal: true });
    for (const key of ['X', 'W_q', 'Q', 'K_heads', 'scores', 'scoresScaled'] as const) expect(causal[key].data, key).toBe(open[key].data);
    // The causal comparison is the same computation either way; the configured path and the mask are not.
    expect(causal.weightsCausal.data).toBe(open.weightsCausal.data);
    for (const key of ['weights', 'headOutputs', 'output', 'weightsUnscaled'] as const)
      expect(causal[key].data, key).not.toBe(open[key].data);
    expect(causal.mask.data).not.toBe(open.mask.data);
    expect(floatBitsHex(causal.weights.data)).not.toBe(floatBitsHex(open.weights.data));

    const otherHead = engine.pipeline({ ...base, causal: true, comparisonHead: 3 });
    for (const key of ['X', 'scores', 'weights', 'headOutputs', 'output'] as const) expect(otherHead[key].data, key).toBe(causal[key].data);
    expect(otherHead.mask.data).toBe(causal.mask.data);
    for (const key of ['weightsUnscaled', 'weightsCausal', 'weightsMaskedAfter'] as const)
      expect(otherHead[key].data, key).not.toBe(causal[key].data);
    // Shared or not, every array holds what a fresh run computes: head 3's comparison is head 3 of the weights.
    expect(bitDifference(otherHead.weightsCausal.data, otherHead.weights.data.subarray(3 * n * n, 4 * n * n))).toBeUndefined();
  });

  it('a walk through the settings shares what its inputs leave alone, and every result is what a fresh run computes', async () => {
    const mask = causalMask(n);
    mask[5 * n + 2] = 0; // a custom mask: its tensors are compared, not keyed
    const walk: Array<Record<string, unknown>> = [
      base,
      { ...base, heads: 16 },
      base,
      { ...base, scale: false },
      base,
      { ...base, causal: true },
      { ...base, causal: true, comparisonHead: 5 },
      { ...base, mask },
      { ...base, causal: true },
      { ...base, W_q: new Float32Array(64 * 64).fill(0.01) },
      { ...base, W_q: new Float32Array(64 * 64).fill(0.02) },
      { ...base, seed: 43 },
      { ...base, dModel: 32 },
      base,
      // Small results (one copy each) after large ones and after each other.
      { ...base, tokens: tokens.slice(0, 24) },
      { ...base, tokens: tokens.slice(0, 4), causal: true },
      { ...base, tokens: tokens.slice(0, 4), seed: 43 },
      { ...base, tokens: tokens.slice(0, 4), dModel: 32, heads: 4 },
      { ...base, tokens: tokens.slice(0, 4), W_o: new Float32Array(64 * 64).fill(0.5) },
      base,
    ];
    const results = walk.map((c) => engine.pipeline(c as typeof base));
    // heads 8 -> 16 -> 8: the third result is the first one's tables, unchanged inputs and all.
    for (const key of ['scores', 'scoresScaled', 'weights', 'weightsCausal'] as const)
      expect(results[2]![key].data, key).toBe(results[0]![key].data);
    // scaling off and on again: the scores stay, the scaled scores and weights come back to the first ones.
    expect(results[3]!.scores.data).toBe(results[0]!.scores.data);
    expect(results[3]!.scoresScaled.data).not.toBe(results[0]!.scoresScaled.data);
    expect(results[4]!.weights.data).toBe(results[2]!.weights.data);
    const fresh = await loadSimdEngine();
    const unrelated = { tokens: ['x', 'y'], dModel: 8, heads: 2 };
    walk.forEach((c, i) => {
      fresh.pipeline(unrelated); // the reference shares nothing: its recent results are unrelated
      fresh.pipeline({ ...unrelated, seed: 9 });
      const expected = fresh.pipeline(c as typeof base);
      const got = floatArrays(results[i]!);
      floatArrays(expected).forEach(([key, data], k) => expect(bitDifference(got[k]![1], data), `step ${i}: ${key}`).toBeUndefined());
      expect(Array.from(results[i]!.mask.data), `step ${i}: mask`).toEqual(Array.from(expected.mask.data));
      expect(Array.from(results[i]!.fullyMaskedRows), `step ${i}: fully masked rows`).toEqual(Array.from(expected.fullyMaskedRows));
    });
  });

  it('a new seed shares nothing it computed; arrays of different sizes are never shared', () => {
    const a = engine.pipeline({ ...base, seed: 1 });
    const b = engine.pipeline({ ...base, seed: 2 });
    for (const key of ['X', 'W_q', 'W_o', 'Q', 'scores', 'weights', 'output', 'weightsUnscaled'] as const)
      expect(b[key].data, key).not.toBe(a[key].data);
    const shorter = engine.pipeline({ ...base, tokens: tokens.slice(0, 120), seed: 2 });
    expect(shorter.W_q.data).toBe(b.W_q.data); // the weights depend on seed and d_model only
    expect(shorter.X.data).not.toBe(b.X.data);
    expect(shorter.X.data.length).toBe(120 * 64);
    expect(Array.from(shorter.X.data)).toEqual(Array.from(b.X.data.subarray(0, 120 * 64)));
  });
});
