// The wasm SIMD engine against the independent float64 TypeScript reference (reference.ts), on
// hundreds of seeded random configurations: multiHeadAttention(), attention() with random masks,
// and pipeline() recomputed from its own snapshot's inputs.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AttentionEngine, Matrix } from '../../web/src/engine/engine';
import { ENGINE_LIMITS } from '../../web/src/engine/limits';
import { loadSimdEngine } from './load-engine';
import { MaxTracker, Rng, divisors, normwiseRelError } from './helpers';
import * as ref from './reference';

const TOLERANCE = 1e-5;
const MAX_HEADS = ENGINE_LIMITS.maxHeads; // heads is a divisor of d_model no larger than this

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadSimdEngine();
  expect(engine.info().simd).toBe(true);
});

interface MhaConfig {
  n: number;
  dModel: number;
  heads: number;
  causal: boolean;
  scale: boolean;
}

function mhaConfigs(count: number, rng: Rng): MhaConfig[] {
  const configs: MhaConfig[] = [
    // The extremes, always present.
    { n: 128, dModel: 256, heads: 1, causal: false, scale: true },
    { n: 128, dModel: 256, heads: 64, causal: true, scale: true },
    { n: 128, dModel: 256, heads: 8, causal: true, scale: false },
    { n: 128, dModel: 256, heads: 4, causal: false, scale: false },
    { n: 1, dModel: 1, heads: 1, causal: false, scale: true },
    { n: 1, dModel: 256, heads: 16, causal: true, scale: true },
    { n: 128, dModel: 1, heads: 1, causal: true, scale: false },
    { n: 2, dModel: 7, heads: 7, causal: false, scale: true },
  ];
  while (configs.length < count) {
    const n = rng.logInt(1, 128);
    const dModel = rng.logInt(1, 256);
    configs.push({ n, dModel, heads: rng.pick(divisors(dModel, MAX_HEADS)), causal: rng.bool(), scale: rng.bool(0.7) });
  }
  return configs;
}

const describeConfig = (c: MhaConfig) => `n=${c.n} dModel=${c.dModel} heads=${c.heads} causal=${c.causal} scale=${c.scale}`;

describe('multiHeadAttention vs float64 reference', () => {
  it('agrees on 520 random configurations (normwise relative error <= 1e-5)', () => {
    const rng = new Rng(0x5eed_0001);
    const configs = mhaConfigs(520, rng);
    const outErr = new MaxTracker();
    const wErr = new MaxTracker();
    let sawN128 = false;
    let sawD256 = false;
    for (const c of configs) {
      const X = rng.matrix(c.n, c.dModel);
      const std = 1 / Math.sqrt(c.dModel);
      const [Wq, Wk, Wv, Wo] = [0, 1, 2, 3].map(() => rng.matrix(c.dModel, c.dModel, std)) as [Matrix, Matrix, Matrix, Matrix];
      const got = engine.multiHeadAttention(X, Wq, Wk, Wv, Wo, { heads: c.heads, causal: c.causal, scale: c.scale });
      const want = ref.multiHeadAttention(X, Wq, Wk, Wv, Wo, c.heads, { causal: c.causal, scale: c.scale });

      expect(got.output.rows).toBe(c.n);
      expect(got.output.cols).toBe(c.dModel);
      expect([got.weights.heads, got.weights.rows, got.weights.cols]).toEqual([c.heads, c.n, c.n]);
      expect(got.fullyMaskedRows).toEqual(new Uint8Array(c.n));

      const eo = normwiseRelError(got.output.data, want.output.data);
      const ew = normwiseRelError(got.weights.data, want.weights);
      outErr.update(eo, describeConfig(c));
      wErr.update(ew, describeConfig(c));
      if (!(eo <= TOLERANCE && ew <= TOLERANCE)) throw new Error(`${describeConfig(c)}: output error ${eo}, weights error ${ew}`);
      sawN128 ||= c.n === 128;
      sawD256 ||= c.dModel === 256;
    }
    expect(sawN128 && sawD256).toBe(true);
    console.log(
      `[engine-parity] multiHeadAttention ${configs.length} configs: max output error ${outErr.value.toExponential(2)} (${outErr.where}), ` +
        `max weights error ${wErr.value.toExponential(2)} (${wErr.where})`,
    );
  });
});

describe('attention vs float64 reference', () => {
  it('agrees on 300 random (n_q, n_k, d_k, d_v) with random masks, fully masked rows included', () => {
    const rng = new Rng(0x5eed_0002);
    const outErr = new MaxTracker();
    const wErr = new MaxTracker();
    let fullyMaskedSeen = 0;
    for (let trial = 0; trial < 300; ++trial) {
      const nq = trial === 0 ? 128 : rng.logInt(1, 96);
      const nk = trial === 0 ? 128 : rng.logInt(1, 96);
      const dk = trial === 0 ? 256 : rng.logInt(1, 160);
      const dv = trial === 0 ? 256 : rng.logInt(1, 160);
      const scale = rng.bool(0.7);
      const maskKind = trial % 4; // 0 none, 1 random, 2 random + fully masked rows, 3 causal-like (n_q x n_k)
      let mask: Uint8Array | undefined;
      if (maskKind !== 0) {
        mask = new Uint8Array(nq * nk);
        const p = rng.next();
        for (let i = 0; i < mask.length; ++i) mask[i] = maskKind === 3 ? Number(i % nk <= Math.floor(i / nk)) : Number(rng.next() < p);
        if (maskKind === 2) {
          const blocked = rng.int(1, Math.max(1, Math.floor(nq / 3)));
          for (let b = 0; b < blocked; ++b) {
            const row = rng.int(0, nq - 1);
            mask.fill(0, row * nk, (row + 1) * nk);
          }
        }
      }
      const Q = rng.matrix(nq, dk);
      const K = rng.matrix(nk, dk);
      const V = rng.matrix(nk, dv);
      const where = `trial ${trial}: nq=${nq} nk=${nk} dk=${dk} dv=${dv} scale=${scale} mask=${maskKind}`;
      const got = engine.attention(Q, K, V, { ...(mask ? { mask } : {}), scale });
      const want = ref.attention(Q, K, V, mask ?? null, scale);

      expect(got.fullyMaskedRows, where).toEqual(want.fullyMaskedRows);
      fullyMaskedSeen += want.fullyMaskedRows.reduce((a, b) => a + b, 0);
      for (let r = 0; r < nq; ++r) {
        if (!want.fullyMaskedRows[r]) continue;
        // A fully masked row: exactly zero weights and a zero output row, no NaN.
        expect(
          Array.from(got.weights.data.subarray(r * nk, (r + 1) * nk)).every((w) => w === 0),
          where,
        ).toBe(true);
        expect(
          Array.from(got.output.data.subarray(r * dv, (r + 1) * dv)).every((o) => o === 0),
          where,
        ).toBe(true);
      }
      if (mask)
        for (let i = 0; i < mask.length; ++i)
          if (!mask[i] && got.weights.data[i] !== 0) throw new Error(`${where}: masked weight ${i} is ${got.weights.data[i]}`);

      const eo = normwiseRelError(got.output.data, want.output.data);
      const ew = normwiseRelError(got.weights.data, want.weights.data);
      outErr.update(eo, where);
      wErr.update(ew, where);
      if (!(eo <= TOLERANCE && ew <= TOLERANCE)) throw new Error(`${where}: output error ${eo}, weights error ${ew}`);
    }
    expect(fullyMaskedSeen).toBeGreaterThan(50);
    console.log(
      `[engine-parity] attention 300 configs (${fullyMaskedSeen} fully masked rows): max output error ${outErr.value.toExponential(2)} (${outErr.where}), ` +
        `max weights error ${wErr.value.toExponential(2)} (${wErr.where})`,
    );
  });
});

describe('pipeline vs float64 reference recomputed from the snapshot', () => {
  const vocabulary = ['the', 'animal', 'crossed', 'road', 'because', 'it', 'was', 'tired.', 'a', 'cat', 'sat', 'on', 'mat'];

  it('reproduces weights, head outputs and output from the snapshot X and W_* on 80 configurations', () => {
    const rng = new Rng(0x5eed_0003);
    const errors: Record<string, MaxTracker> = {};
    const track = (name: string, got: ArrayLike<number>, want: ArrayLike<number>, where: string) => {
      const e = normwiseRelError(got, want);
      (errors[name] ??= new MaxTracker()).update(e, where);
      if (!(e <= TOLERANCE)) throw new Error(`${where}: ${name} error ${e}`);
    };
    for (let trial = 0; trial < 80; ++trial) {
      const n = trial === 0 ? 128 : rng.logInt(1, 64);
      const dModel = trial === 0 ? 256 : rng.logInt(1, 128);
      const heads = rng.pick(divisors(dModel, MAX_HEADS));
      const causal = rng.bool();
      const scale = rng.bool(0.7);
      const seed = rng.int(0, 0xffffffff);
      const tokens = Array.from({ length: n }, () => rng.pick(vocabulary));
      const where = `trial ${trial}: n=${n} dModel=${dModel} heads=${heads} causal=${causal} scale=${scale} seed=${seed}`;
      const comparisonHead = rng.int(0, heads - 1);
      const s = engine.pipeline({ tokens, dModel, heads, causal, scale, seed, comparisonHead });

      expect([s.n, s.dModel, s.heads, s.dK], where).toEqual([n, dModel, heads, dModel / heads]);
      expect(s.scaleFactor, where).toBe(scale ? Math.fround(1 / Math.fround(Math.sqrt(dModel / heads))) : 1);
      const want = ref.multiHeadAttention(s.X, s.W_q, s.W_k, s.W_v, s.W_o, heads, { causal, scale });
      track('Q', s.Q.data, want.Q.data, where);
      track('K', s.K.data, want.K.data, where);
      track('V', s.V.data, want.V.data, where);
      track('scores', s.scores.data, want.scores, where);
      track('weights', s.weights.data, want.weights, where);
      track('headOutputs', s.headOutputs.data, want.headOutputs, where);
      track('merged', s.merged.data, want.merged.data, where);
      track('output', s.output.data, want.output.data, where);
      // The comparison paths the walkthrough draws.
      // The comparison paths the walkthrough draws, for the comparison head only.
      const shown = (all: ArrayLike<number>) =>
        Array.prototype.slice.call(all, comparisonHead * n * n, (comparisonHead + 1) * n * n) as number[];
      const unscaled = ref.multiHeadAttention(s.X, s.W_q, s.W_k, s.W_v, s.W_o, heads, { causal, scale: false });
      track('weightsUnscaled', s.weightsUnscaled.data, shown(unscaled.weights), where);
      const causalRef = ref.multiHeadAttention(s.X, s.W_q, s.W_k, s.W_v, s.W_o, heads, { causal: true, scale });
      track('weightsCausal', s.weightsCausal.data, shown(causalRef.weights), where);
      // Q_heads is the article's reshape(n, h, d_k).transpose(1, 0, 2) of Q, exactly.
      const dk = dModel / heads;
      for (let h = 0; h < heads; ++h)
        for (let r = 0; r < n; ++r)
          for (let c = 0; c < dk; ++c) {
            const i = (h * n + r) * dk + c;
            const j = r * dModel + h * dk + c;
            if (s.Q_heads.data[i] !== s.Q.data[j] || s.K_heads.data[i] !== s.K.data[j] || s.V_heads.data[i] !== s.V.data[j])
              throw new Error(`${where}: head split differs at head ${h} row ${r} col ${c}`);
          }
    }
    console.log(
      '[engine-parity] pipeline 80 configs, max normwise errors: ' +
        Object.entries(errors)
          .map(([k, t]) => `${k} ${t.value.toExponential(2)}`)
          .join(', '),
    );
  });
});
