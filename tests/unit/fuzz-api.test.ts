// Fuzz of the engine API (the third outside boundary, for authors who call the engine directly):
// 2,400 random calls of every entry point with random shapes, types and values — right and wrong.
// Each call either returns finite numbers whose softmax rows sum to 1 (0 for a fully masked row), or
// throws an EngineError with a message. Never another exception, never an aborted instance (the
// engine is never `crashed`), and afterwards the instance computes bit-identical results and holds
// no more malloc'd memory than before. FUZZ_SEED=<n> replays a run; FUZZ_API_CASES changes the count.
import { beforeAll, describe, expect, test } from 'vitest';
import { EngineError, type AttentionEngine, type FlashOptions, type Matrix, type PipelineSnapshot } from '../../web/src/engine/engine';
import { FuzzRng, fuzzSeed, randomText, rawSentence } from './fuzz-values';
import { floatBitsHex } from './helpers';
import { loadSimdEngine } from './load-engine';

const CASES = Number(process.env.FUZZ_API_CASES ?? 2400);
const SEED = fuzzSeed(77_031);
const NORMAL = {
  tokens: ['the', 'animal', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired.'],
  dModel: 8,
  heads: 2,
  causal: true,
  seed: 99,
};

let engine: AttentionEngine;
let baseline: string;
const fingerprint = (s: PipelineSnapshot) => floatBitsHex(s.output.data) + floatBitsHex(s.weights.data);

beforeAll(async () => {
  engine = await loadSimdEngine();
  baseline = fingerprint(engine.pipeline(NORMAL));
});

// ---- random arguments ---------------------------------------------------------------------------

/** Each argument is wrong with this probability, so about half of all calls are valid. */
const BAD = 0.06;

/** Numbers a caller might pass where a whole number is expected: usually fine, else edge, wrong, not numbers. */
function anyNumber(rng: FuzzRng, lo: number, hi: number): unknown {
  if (!rng.bool(BAD * 2)) return rng.bool(0.7) ? rng.int(lo, Math.min(hi, lo + 8)) : rng.int(lo, hi);
  switch (rng.int(0, 3)) {
    case 0:
      return rng.pick([lo - 1, hi + 1, 0, -1, 1e6, 1e9, -1e9, 2 ** 31, 2 ** 32, 2 ** 53]);
    case 1:
      return rng.pick([0.5, 1.5, -0.5, 2.000001, Number.EPSILON, 1e-300]);
    case 2:
      return rng.pick([NaN, Infinity, -Infinity]);
    default:
      return rng.pick(['4', '', null, undefined, true, {}, [], [4], 4n, Symbol('x')]);
  }
}

function anyFlag(rng: FuzzRng): unknown {
  return rng.bool(BAD) ? rng.pick([0, 1, 'yes', null, {}, 'false']) : rng.pick([true, false, undefined]);
}

/** Float values of one scale; occasionally huge (their products overflow float32) or not finite. */
function floats(rng: FuzzRng, length: number, scale: number): Float32Array {
  const data = new Float32Array(length);
  const constant = rng.bool(0.1); // all-equal rows: every score in a row equal
  const fill = (rng.next() * 2 - 1) * scale;
  for (let i = 0; i < length; i++) data[i] = constant ? fill : (rng.next() * 2 - 1) * scale;
  if (length > 0 && rng.bool(BAD)) data[rng.int(0, length - 1)] = rng.pick([NaN, Infinity, -Infinity]);
  if (length > 0 && rng.bool(BAD)) data[rng.int(0, length - 1)] = rng.pick([3e38, -3e38, 1e30, -1e20, 1e-40, -0]);
  return data;
}

const SCALES = [1e-30, 1e-3, 1, 1, 1, 1, 1, 10, 1e3, 1e10, 1e19];

/** A matrix, usually well formed; sometimes wrong length, wrong type, wrong fields or not a matrix. */
function anyMatrix(rng: FuzzRng, rows: number, cols: number): Matrix {
  const scale = rng.pick(SCALES);
  if (!rng.bool(BAD)) return { rows, cols, data: floats(rng, rows * cols, scale) };
  switch (rng.int(0, 3)) {
    case 0:
      return { rows, cols, data: floats(rng, Math.max(0, rows * cols + rng.pick([-1, 1, 7])), scale) };
    case 1:
      return {
        rows,
        cols,
        data: rng.pick([new Float64Array(rows * cols), Array.from({ length: rows * cols }, () => 1), new Int32Array(rows * cols)]),
      } as unknown as Matrix;
    case 2:
      return rng.pick([null, undefined, 7, 'matrix', {}, { rows, cols }]) as unknown as Matrix;
    default:
      return {
        rows: rng.pick([rows + 0.5, -rows, NaN, String(rows), 2 ** 31, 1e9]),
        cols,
        data: floats(rng, rows * cols, 1),
      } as unknown as Matrix;
  }
}

function anyMask(rng: FuzzRng, nq: number, nk: number): Uint8Array | undefined {
  const k = rng.int(0, 9);
  if (k < 5) return undefined;
  if (k === 5) return new Uint8Array(Math.max(0, nq * nk + rng.pick([-1, 1, 5])));
  if (k === 6) return new Uint8Array(nq * nk); // every row fully masked
  const mask = new Uint8Array(nq * nk);
  for (let i = 0; i < mask.length; i++) mask[i] = rng.bool(0.6) ? 1 : rng.pick([0, 0, 2, 255]);
  return mask;
}

const dim = (rng: FuzzRng) => (rng.bool(1 - BAD) ? rng.int(1, 24) : rng.pick([0, 1, 64, 257, 4097]));
const tokensOf = (rng: FuzzRng): unknown => {
  const k = rng.int(0, 29);
  if (k === 0) return rng.pick([[], 'a b c', null, [1, 2], ['a', undefined], new Array(3)]);
  if (k === 1) return Array.from({ length: rng.pick([513, 600, 100_000]) }, () => 'w');
  if (k === 2) return Array.from({ length: rng.int(1, 4) }, () => randomText(rng, rng.int(0, 3000)));
  if (k === 3) return Array.from({ length: rng.int(100, 512) }, (_, i) => `w${i % 50}`);
  return rawSentence(rng).split(/\s+/).filter(Boolean).slice(0, rng.int(1, 40));
};

// ---- what every result must satisfy -------------------------------------------------------------

function expectFinite(name: string, data: ArrayLike<number>, allowMinusInfinity = false): void {
  for (let i = 0; i < data.length; i++) {
    const ok = Number.isFinite(data[i]) || (allowMinusInfinity && data[i] === -Infinity);
    if (!ok) throw new Error(`${name}[${i}] = ${data[i]}`);
  }
}

/** Rows of (rows x n) weights sum to 1, or to 0 exactly where the row was fully masked. */
function expectRowSums(name: string, data: Float32Array, n: number, fullyMasked: Uint8Array): void {
  for (let r = 0; r < data.length / n; r++) {
    let sum = 0;
    for (let c = 0; c < n; c++) sum += data[r * n + c];
    const expected = fullyMasked[r % fullyMasked.length] ? 0 : 1;
    if (Math.abs(sum - expected) > 1e-4) throw new Error(`${name} row ${r} sums to ${sum}, expected ${expected}`);
  }
}

type Kind =
  | 'pipeline'
  | 'attention'
  | 'multiHeadAttention'
  | 'flashAttention'
  | 'multiHeadFlashAttention'
  | 'flashTrace'
  | 'dotProductSamples'
  | 'softmaxSaturation';
const KINDS: Kind[] = [
  'pipeline',
  'pipeline',
  'attention',
  'attention',
  'multiHeadAttention',
  'flashAttention',
  'multiHeadFlashAttention',
  'flashTrace',
  'dotProductSamples',
  'softmaxSaturation',
];

/** Refusal messages with their numbers blanked, counted: the log shows what the fuzz exercised. */
const refusals = new Map<string, number>();

function runCase(rng: FuzzRng, kind: Kind): 'ok' | 'refused' {
  const bad = <T>(v: unknown) => v as T;
  try {
    switch (kind) {
      case 'pipeline': {
        const tokens = tokensOf(rng);
        const n = Array.isArray(tokens) ? tokens.length : 3;
        const dModel = rng.bool(0.8) ? rng.pick([1, 2, 4, 8, 12, 16, 32, 64, 512]) : anyNumber(rng, 1, 64);
        const heads = rng.bool(0.8) ? rng.pick([1, 2, 4, 8]) : anyNumber(rng, 1, 64);
        const d = typeof dModel === 'number' && Number.isInteger(dModel) && dModel > 0 && dModel < 2000 ? dModel : 8;
        const config: Record<string, unknown> = { tokens, dModel, heads, causal: anyFlag(rng), scale: anyFlag(rng) };
        if (rng.bool(0.5)) config.seed = anyNumber(rng, 0, 4294967295);
        if (rng.bool(0.2)) config.X = floats(rng, n * d + (rng.bool(0.8) ? 0 : 1), rng.pick(SCALES));
        if (rng.bool(0.15)) config[rng.pick(['W_q', 'W_k', 'W_v', 'W_o'])] = floats(rng, d * d, rng.pick(SCALES));
        if (rng.bool(0.15)) config.mask = anyMask(rng, n, n);
        if (rng.bool(0.3)) config.comparisonHead = rng.bool(0.8) ? rng.int(0, 7) : anyNumber(rng, -2, 70);
        if (rng.bool(0.02)) config.X = new Float32Array(3_000_000); // larger than any configuration
        const s = engine.pipeline(bad(config));
        for (const key of [
          'X',
          'Q',
          'K',
          'V',
          'merged',
          'output',
          'scores',
          'scoresScaled',
          'weights',
          'headOutputs',
          'weightsUnscaled',
          'weightsCausal',
          'weightsMaskedAfter',
        ] as const)
          expectFinite(key, s[key].data);
        expectRowSums('weights', s.weights.data, s.n, s.fullyMaskedRows);
        expectRowSums('weightsUnscaled', s.weightsUnscaled.data, s.n, s.fullyMaskedRows);
        return 'ok';
      }
      case 'attention': {
        const nq = dim(rng),
          nk = rng.bool(0.8) ? dim(rng) : nq,
          dk = dim(rng),
          dv = dim(rng);
        const K = anyMatrix(rng, nk, rng.bool(0.9) ? dk : dk + 1);
        const V = anyMatrix(rng, rng.bool(0.9) ? nk : nk + 1, dv);
        const options = rng.bool(BAD / 2) ? rng.pick([null, 5, 'x']) : { mask: anyMask(rng, nq, nk), scale: anyFlag(rng) };
        if (rng.bool(0.01)) {
          // Over the score budget: refused before Q, K and V are copied in.
          expect(() =>
            engine.attention(
              { rows: 16384, cols: 1, data: new Float32Array(16384) },
              { rows: 8192, cols: 1, data: new Float32Array(8192) },
              { rows: 8192, cols: 1, data: new Float32Array(8192) },
            ),
          ).toThrow(/use the tiled \(FlashAttention-style\) kernel/);
        }
        const r = engine.attention(anyMatrix(rng, nq, dk), K, V, bad(options));
        expectFinite('output', r.output.data);
        expectFinite('weights', r.weights.data);
        expectRowSums('weights', r.weights.data, r.weights.cols, r.fullyMaskedRows);
        return 'ok';
      }
      case 'multiHeadAttention': {
        const n = dim(rng),
          d = rng.pick([1, 2, 4, 6, 8, 12, 16]);
        const W = () => anyMatrix(rng, d, rng.bool(0.95) ? d : d + 1);
        const options = rng.bool(BAD / 2)
          ? rng.pick([null, undefined, 3])
          : { heads: rng.bool(0.8) ? rng.pick([1, 2]) : anyNumber(rng, 1, 16), causal: anyFlag(rng), scale: anyFlag(rng) };
        const r = engine.multiHeadAttention(anyMatrix(rng, n, d), W(), W(), W(), W(), bad(options));
        expectFinite('output', r.output.data);
        expectFinite('weights', r.weights.data);
        expectRowSums('weights', r.weights.data, r.weights.cols, r.fullyMaskedRows);
        return 'ok';
      }
      case 'flashAttention':
      case 'flashTrace': {
        const nq = kind === 'flashTrace' ? rng.int(1, 70) : dim(rng);
        const nk = rng.bool(0.7) ? nq : kind === 'flashTrace' ? rng.int(1, 64) : dim(rng),
          dk = dim(rng),
          dv = dim(rng);
        const options = rng.bool(BAD / 2)
          ? rng.pick([null, {}, 'x'])
          : { blockQ: anyNumber(rng, 1, 32), blockK: anyNumber(rng, 1, 32), causal: anyFlag(rng), scale: anyFlag(rng) };
        const args = [anyMatrix(rng, nq, dk), anyMatrix(rng, nk, dk), anyMatrix(rng, nk, dv), bad<FlashOptions>(options)] as const;
        if (kind === 'flashAttention') {
          const r = engine.flashAttention(...args);
          expectFinite('output', r.output.data);
        } else {
          const t = engine.flashTrace(...args);
          expectFinite('output', t.output.data);
          for (const step of t.steps) {
            expectFinite('scores', step.scores.data, true); // −∞ marks masked or skipped entries, by design
            expectFinite('m', step.m, true);
            expectFinite('probabilities', step.probabilities.data);
            expectFinite('l', step.l);
            expectFinite('acc', step.acc.data);
          }
        }
        return 'ok';
      }
      case 'multiHeadFlashAttention': {
        const heads = rng.bool(0.8) ? rng.pick([1, 2, 3, 8]) : anyNumber(rng, 1, 64);
        const h = typeof heads === 'number' && Number.isInteger(heads) && heads >= 1 && heads <= 64 ? heads : 2;
        const nq = dim(rng),
          nk = rng.bool(0.7) ? nq : dim(rng),
          dk = rng.int(1, 9),
          dv = rng.int(1, 9);
        const options = rng.bool(BAD / 2)
          ? rng.pick([null, {}, 'x'])
          : { heads, blockQ: anyNumber(rng, 1, 32), blockK: anyNumber(rng, 1, 32), causal: anyFlag(rng), scale: anyFlag(rng) };
        const r = engine.multiHeadFlashAttention(
          anyMatrix(rng, nq, h * dk + (rng.bool(0.9) ? 0 : 1)),
          anyMatrix(rng, nk, h * dk),
          anyMatrix(rng, nk, h * dv),
          bad(options),
        );
        expectFinite('output', r.output.data);
        return 'ok';
      }
      case 'dotProductSamples': {
        const r = engine.dotProductSamples(bad(anyNumber(rng, 1, 256)), bad(anyNumber(rng, 2, 2000)), bad(anyNumber(rng, 0, 4294967295)));
        expectFinite('raw', r.raw);
        expectFinite('scaled', r.scaled);
        expect(Number.isFinite(r.rawStd) && Number.isFinite(r.scaledStd)).toBe(true);
        return 'ok';
      }
      case 'softmaxSaturation': {
        const row = rng.bool(1 - BAD)
          ? floats(rng, rng.bool(1 - BAD) ? rng.pick([1, 3, 8, 64]) : rng.pick([0, 4097]), rng.pick(SCALES))
          : rng.pick([[1, 2, 3], null, 'row']);
        const factor = rng.bool(0.8) ? rng.pick([1, 2, 8, 64, 1e3, 1e30, -5, 0]) : anyNumber(rng, -10, 10);
        const r = engine.softmaxSaturation(bad(row), bad(factor));
        expectFinite('probabilities', r.probabilities);
        expect(Number.isFinite(r.jacobianNorm)).toBe(true);
        const sum = r.probabilities.reduce((a, b) => a + b, 0);
        if (Math.abs(sum - 1) > 1e-4) throw new Error(`probabilities sum to ${sum}`);
        return 'ok';
      }
    }
  } catch (error) {
    if (error instanceof EngineError && error.message.length > 0) {
      const key = `${kind}: ${error.message.replace(/-?\d[\d.e+-]*/g, '#').slice(0, 90)}`;
      refusals.set(key, (refusals.get(key) ?? 0) + 1);
      return 'refused';
    }
    throw error;
  }
}

describe(`engine API fuzz (seed ${SEED})`, () => {
  test(`${CASES} random calls: a finite result or an EngineError, never anything else`, () => {
    const rng = new FuzzRng(SEED);
    const counts: Record<string, { ok: number; refused: number }> = {};
    let warmedHeap = 0;
    for (let i = 0; i < CASES; i++) {
      const kind = rng.pick(KINDS);
      const caseSeed = rng.int(0, 2 ** 31);
      let outcome: 'ok' | 'refused';
      try {
        outcome = runCase(new FuzzRng(caseSeed), kind);
      } catch (error) {
        throw new Error(
          `case ${i} (${kind}, case seed ${caseSeed}): ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
        );
      }
      expect(engine.crashed, `case ${i} (${kind}) left the engine crashed`).toBe(false);
      (counts[kind] ??= { ok: 0, refused: 0 })[outcome]++;
      if (i === 199) warmedHeap = engine.heapStats().allocatedBytes;
      if (i % 100 === 99) expect(fingerprint(engine.pipeline(NORMAL)), `after case ${i}`).toBe(baseline);
    }
    // Every failed call released what it had allocated.
    expect(engine.heapStats().allocatedBytes).toBeLessThanOrEqual(warmedHeap + 4096);
    expect(fingerprint(engine.pipeline(NORMAL))).toBe(baseline);
    const total = Object.values(counts).reduce((a, c) => a + c.ok + c.refused, 0);
    expect(total).toBe(CASES);
    console.log(
      `[fuzz-api] seed ${SEED}: ${total} calls — ${Object.entries(counts)
        .map(([k, c]) => `${k} ${c.ok} ok / ${c.refused} refused`)
        .join(', ')}`,
    );
    const top = [...refusals].sort((a, b) => b[1] - a[1]);
    console.log(
      `[fuzz-api] ${refusals.size} distinct refusal messages; most frequent:\n${top
        .slice(0, 12)
        .map(([m, c]) => `  ${c} × ${m}`)
        .join('\n')}`,
    );
  }, 600_000);
});
