// Bad input is an EngineError carrying the C++ side's message (never an abort), and the engine keeps
// working afterwards: after every failure a normal call returns the same bits as before any failure.
import { beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../web/src/engine/engine';
import { ENGINE_LIMITS } from '../../web/src/engine/limits';
import type { AttentionEngine, Matrix, PipelineConfig, PipelineSnapshot } from '../../web/src/engine/engine';
import { loadSimdEngine } from './load-engine';
import { floatBitsHex, hasNaN } from './helpers';

const SENTENCE = ['the', 'animal', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired.'];
const NORMAL: PipelineConfig = { tokens: SENTENCE, dModel: 8, heads: 2, causal: true, seed: 99 };

let engine: AttentionEngine;
let baseline: string;

const fingerprint = (s: PipelineSnapshot) => floatBitsHex(s.output.data) + floatBitsHex(s.weights.data);
const mat = (rows: number, cols: number, fill = 0.5): Matrix => ({ rows, cols, data: new Float32Array(rows * cols).fill(fill) });
const square = (d: number) => mat(d, d, 1 / d);
/** Casts a deliberately mistyped argument past the compiler. */
const bad = <T>(value: unknown) => value as T;

beforeAll(async () => {
  engine = await loadSimdEngine();
  baseline = fingerprint(engine.pipeline(NORMAL));
});

/** The call fails with an EngineError whose message matches; then the engine still works. */
function expectFailure(call: () => unknown, message: string | RegExp): void {
  let caught: unknown;
  try {
    call();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected an EngineError matching ${message}`).toBeInstanceOf(EngineError);
  const error = caught as EngineError;
  expect(error.name).toBe('EngineError');
  expect(error).toBeInstanceOf(Error);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
  // Still working, with identical results.
  expect(fingerprint(engine.pipeline(NORMAL))).toBe(baseline);
  const r = engine.attention(mat(2, 3), mat(4, 3), mat(4, 2, 1));
  expect(Array.from(r.weights.data)).toEqual(new Array(8).fill(0.25));
  expect(Array.from(r.output.data)).toEqual([1, 1, 1, 1]);
}

describe('heads and d_model', () => {
  it('d_model not divisible by heads names both numbers', () => {
    expectFailure(
      () => engine.pipeline({ tokens: SENTENCE, dModel: 10, heads: 3 }),
      'd_model (10) must be divisible by the number of heads (3)',
    );
    expectFailure(
      () => engine.pipeline({ tokens: SENTENCE, dModel: 256, heads: 48 }),
      'd_model (256) must be divisible by the number of heads (48)',
    );
    expectFailure(
      () => engine.multiHeadAttention(mat(3, 10), square(10), square(10), square(10), square(10), { heads: 4 }),
      'd_model (10) must be divisible by the number of heads (4)',
    );
  });

  it('heads 0, negative, fractional, NaN, infinite, a string, missing, above the limit', () => {
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 0 }), 'the number of heads must be at least 1 (got 0)');
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: -2 }), 'the number of heads must be at least 1 (got -2)');
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 1.5 }), 'heads must be a whole number');
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: NaN }), 'heads must be a whole number');
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: Infinity }), 'heads must be a whole number');
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: bad<number>('2') }), 'heads must be a whole number');
    expectFailure(() => engine.pipeline(bad<PipelineConfig>({ tokens: SENTENCE, dModel: 8 })), 'heads must be a whole number');
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 130, heads: 65 }), 'the number of heads is limited to 64');
    const W = square(8);
    expectFailure(() => engine.multiHeadAttention(mat(3, 8), W, W, W, W, { heads: 0 }), 'the number of heads must be at least 1 (got 0)');
    expectFailure(() => engine.multiHeadAttention(mat(3, 8), W, W, W, W, { heads: -1 }), 'the number of heads must be at least 1 (got -1)');
    expectFailure(() => engine.multiHeadAttention(mat(3, 8), W, W, W, W, { heads: 2.5 }), 'heads must be a whole number');
    expectFailure(() => engine.multiHeadAttention(mat(3, 8), W, W, W, W, { heads: NaN }), 'heads must be a whole number');
  });

  it('comparisonHead outside 0 .. heads - 1, fractional or not a number', () => {
    expectFailure(
      () => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, comparisonHead: 2 }),
      'the comparison head must be 0 to 1 (got 2)',
    );
    expectFailure(
      () => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, comparisonHead: -1 }),
      'the comparison head must be 0 to 1 (got -1)',
    );
    expectFailure(
      () => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, comparisonHead: 0.5 }),
      'comparisonHead must be a whole number',
    );
    expectFailure(
      () => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, comparisonHead: NaN }),
      'comparisonHead must be a whole number',
    );
    expectFailure(
      () => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, comparisonHead: bad<number>('1') }),
      'comparisonHead must be a whole number',
    );
    // Refusals leave the engine working: the last head is accepted.
    expect(engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, comparisonHead: 1 }).comparisonHead).toBe(1);
  });

  it('dModel 1e6, 0, negative, beyond 1e9', () => {
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 1e6, heads: 1 }), 'd_model is limited to 1024 (got 1000000)');
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 1025, heads: 1 }), 'd_model is limited to 1024 (got 1025)');
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 0, heads: 1 }), 'd_model must be at least 1 (got 0)');
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: -8, heads: 1 }), 'd_model must be at least 1 (got -8)');
    expectFailure(() => engine.pipeline({ tokens: SENTENCE, dModel: 1e10, heads: 1 }), 'dModel must be a whole number');
  });
});

describe('tokens and budgets', () => {
  it('600 tokens is over the 512 limit; 512 is accepted', () => {
    expect(ENGINE_LIMITS.maxPipelineTokens).toBe(512);
    expectFailure(
      () => engine.pipeline({ tokens: new Array<string>(600).fill('a'), dModel: 8, heads: 1 }),
      'the walkthrough shows at most 512 tokens (got 600)',
    );
    expectFailure(
      () => engine.pipeline({ tokens: new Array<string>(513).fill('a'), dModel: 8, heads: 1 }),
      'the walkthrough shows at most 512 tokens (got 513)',
    );
    expect(engine.pipeline({ tokens: new Array<string>(512).fill('a'), dModel: 8, heads: 1 }).n).toBe(512);
  });

  it('empty, non-array and non-string tokens', () => {
    expectFailure(() => engine.pipeline({ tokens: [], dModel: 8, heads: 1 }), 'there must be at least one token');
    expectFailure(
      () => engine.pipeline({ tokens: bad<string[]>('the animal'), dModel: 8, heads: 1 }),
      'tokens must be an array of strings',
    );
    expectFailure(() => engine.pipeline({ tokens: bad<string[]>(['the', 3]), dModel: 8, heads: 1 }), 'token 2 is not a string');
    expectFailure(() => engine.pipeline(bad<PipelineConfig>(null)), 'tokens must be an array of strings');
  });

  it('heads x n x n over the pipeline budget; seed out of range', () => {
    expectFailure(
      () => engine.pipeline({ tokens: new Array<string>(512).fill('a'), dModel: 64, heads: 64 }),
      "heads x n x n = 16777216 attention weights would exceed the walkthrough's budget of 2097152",
    );
    expectFailure(() => engine.pipeline({ ...NORMAL, seed: -1 }), 'seed must be a whole number from 0 to 4294967295');
    expectFailure(() => engine.pipeline({ ...NORMAL, seed: 2 ** 32 }), 'seed must be a whole number from 0 to 4294967295');
    expectFailure(() => engine.pipeline({ ...NORMAL, seed: 0.5 }), 'seed must be a whole number from 0 to 4294967295');
  });

  it('attention beyond the sequence and score-matrix limits', () => {
    expectFailure(() => engine.attention(mat(16385, 1), mat(1, 1), mat(1, 1)), 'sequence length is limited to 16384 tokens');
    expectFailure(() => engine.attention(mat(1, 4097), mat(1, 4097), mat(1, 1)), 'd_k and d_v are limited to 4096');
    expectFailure(
      () => engine.attention(mat(16384, 1), mat(8192, 1), mat(8192, 1)),
      'the 16384 x 8192 score matrix would exceed the memory budget of 64M entries; use the tiled (FlashAttention-style) kernel',
    );
  });
});

describe('explicit matrices', () => {
  it('NaN or Infinity inside X, W_q, or multiHeadAttention X names the row and column', () => {
    const X = new Float32Array(72).fill(0.1);
    X[13] = NaN; // row 2, column 6
    expectFailure(() => engine.pipeline({ ...NORMAL, X }), 'X has a value that is not a finite number at row 2, column 6');
    const Xi = new Float32Array(72).fill(0.1);
    Xi[71] = Infinity;
    expectFailure(() => engine.pipeline({ ...NORMAL, X: Xi }), 'X has a value that is not a finite number at row 9, column 8');
    const W = new Float32Array(64).fill(0.1);
    W[0] = -Infinity;
    expectFailure(() => engine.pipeline({ ...NORMAL, W_q: W }), 'W_q has a value that is not a finite number at row 1, column 1');
    const Xm = mat(3, 8);
    Xm.data[10] = NaN;
    expectFailure(
      () => engine.multiHeadAttention(Xm, square(8), square(8), square(8), square(8), { heads: 2 }),
      'X has a value that is not a finite number at row 2, column 3',
    );
    const Wv = square(8);
    Wv.data[63] = Infinity;
    expectFailure(
      () => engine.multiHeadAttention(mat(3, 8), square(8), square(8), Wv, square(8), { heads: 2 }),
      'W_v has a value that is not a finite number at row 8, column 8',
    );
    const K = mat(4, 3);
    K.data[5] = NaN;
    expectFailure(() => engine.attention(mat(2, 3), K, mat(4, 2)), 'K has a value that is not a finite number at row 2, column 3');
  });

  it('wrong-length matrices', () => {
    expectFailure(() => engine.pipeline({ ...NORMAL, X: new Float32Array(71) }), 'X must have 9 x 8 = 72 values (got 71)');
    expectFailure(() => engine.pipeline({ ...NORMAL, W_o: new Float32Array(65) }), 'W_o must have 8 x 8 = 64 values (got 65)');
    expectFailure(() => engine.pipeline({ ...NORMAL, mask: new Uint8Array(80) }), 'the mask must have n x n = 81 entries (got 80)');
    expectFailure(
      () =>
        engine.multiHeadAttention({ rows: 3, cols: 8, data: new Float32Array(23) }, square(8), square(8), square(8), square(8), {
          heads: 2,
        }),
      'X.data has 23 values, expected rows x cols = 24',
    );
    expectFailure(
      () => engine.multiHeadAttention(mat(3, 8), mat(8, 4), square(8), square(8), square(8), { heads: 2 }),
      'every projection must be d_model x d_model (8 x 8)',
    );
    expectFailure(
      () => engine.multiHeadAttention(mat(0, 8), square(8), square(8), square(8), square(8), { heads: 2 }),
      'Q and K need at least one row (got 0 and 0)',
    );
    expectFailure(
      () =>
        engine.multiHeadAttention({ rows: 1.5, cols: 8, data: new Float32Array(12) }, square(8), square(8), square(8), square(8), {
          heads: 2,
        }),
      'X must be { rows, cols, data } with whole-number rows and cols',
    );
  });
});

describe('attention() shapes', () => {
  it('mismatched Q/K/V/mask shapes', () => {
    expectFailure(() => engine.attention(mat(2, 4), mat(3, 5), mat(3, 2)), 'K has 5 columns but Q has 4: queries and keys must share d_k');
    expectFailure(() => engine.attention(mat(2, 4), mat(3, 4), mat(4, 2)), 'V has 4 rows but K has 3: every key needs a value');
    expectFailure(() => engine.attention(mat(0, 4), mat(3, 4), mat(3, 2)), 'Q and K need at least one row (got 0 and 3)');
    expectFailure(() => engine.attention(mat(2, 0), mat(3, 0), mat(3, 2)), 'Q and V need at least one column (got d_k = 0, d_v = 2)');
    expectFailure(
      () => engine.attention(mat(2, 4), mat(3, 4), mat(3, 2), { mask: new Uint8Array(5) }),
      'the mask must be 2 x 3 (got 5 entries)',
    );
    expectFailure(
      () => engine.attention(mat(2, 4), mat(3, 4), mat(3, 2), { mask: new Uint8Array(7) }),
      'the mask must be 2 x 3 (got 7 entries)',
    );
  });
});

describe('wrong types (caught by the TypeScript wrapper)', () => {
  it('data that is not a Float32Array, null matrices, masks that are not Uint8Array', () => {
    const f64 = { rows: 1, cols: 1, data: bad<Float32Array>(new Float64Array(1)) };
    expectFailure(() => engine.attention(f64, mat(1, 1), mat(1, 1)), 'Q must be { rows, cols, data: Float32Array }');
    expectFailure(
      () => engine.attention(mat(1, 1), { rows: 1, cols: 1, data: bad<Float32Array>([1]) }, mat(1, 1)),
      'K must be { rows, cols, data: Float32Array }',
    );
    expectFailure(() => engine.attention(mat(1, 1), mat(1, 1), bad<Matrix>(null)), 'V must be { rows, cols, data: Float32Array }');
    expectFailure(
      () => engine.attention(mat(2, 1), mat(3, 1), mat(3, 1), { mask: bad<Uint8Array>([1, 1, 1, 1, 1, 1]) }),
      'mask must be a Uint8Array of n_q x n_k entries (1 = allowed)',
    );
    expectFailure(
      () =>
        engine.multiHeadAttention(
          mat(1, 2),
          square(2),
          square(2),
          square(2),
          { rows: 2, cols: 2, data: bad<Float32Array>(new Int32Array(4)) },
          { heads: 1 },
        ),
      'W_o must be { rows, cols, data: Float32Array }',
    );
    expectFailure(() => engine.pipeline({ ...NORMAL, X: bad<Float32Array>(new Array(72).fill(0)) }), 'X must be a Float32Array');
    expectFailure(() => engine.pipeline({ ...NORMAL, W_k: bad<Float32Array>(new Float64Array(64)) }), 'W_k must be a Float32Array');
    expectFailure(() => engine.pipeline({ ...NORMAL, mask: bad<Uint8Array>(new Array(81).fill(1)) }), 'mask must be a Uint8Array');
  });
});

describe('a burst of failures', () => {
  it('200 alternating failures and successes leave results bit-identical', () => {
    for (let i = 0; i < 100; ++i) {
      expect(() => engine.pipeline({ tokens: SENTENCE, dModel: 9, heads: 2 })).toThrow(EngineError);
      expect(fingerprint(engine.pipeline(NORMAL))).toBe(baseline);
    }
  });
});

describe('finite inputs whose float32 scores overflow', () => {
  // Q K^T can leave float32's range although every input is finite. The engine recomputes such
  // scores in double and clamps them (softmax then picks the true maximum), and refuses, with a
  // message, a projection or output that itself overflows. Never NaN, never a false "fully masked".
  const I2 = { rows: 2, cols: 2, data: Float32Array.from([1, 0, 0, 1]) };
  const rowSums = (data: Float32Array, n: number) =>
    Array.from({ length: data.length / n }, (_, r) => data.subarray(r * n, (r + 1) * n).reduce((a, b) => a + b, 0));

  it('attention(Q=[[3e38]], K=[[3e38],[-3e38]], V=[[5],[7]], scale off) puts all weight on the first key', () => {
    const r = engine.attention(
      { rows: 1, cols: 1, data: Float32Array.from([3e38]) },
      { rows: 2, cols: 1, data: Float32Array.from([3e38, -3e38]) },
      { rows: 2, cols: 1, data: Float32Array.from([5, 7]) },
      { scale: false },
    );
    expect(Array.from(r.weights.data)).toEqual([1, 0]);
    expect(Array.from(r.output.data)).toEqual([5]);
    expect(Array.from(r.fullyMaskedRows)).toEqual([0]);
  });

  it('multiHeadAttention(X=[[3e19,3e19],[1,1]], W_* = I, heads 1, scale off) gives exact one-hot rows', () => {
    const X = { rows: 2, cols: 2, data: Float32Array.from([3e19, 3e19, 1, 1]) };
    const r = engine.multiHeadAttention(X, I2, I2, I2, I2, { heads: 1, scale: false });
    expect(Array.from(r.weights.data)).toEqual([1, 0, 1, 0]);
    expect(hasNaN(r.output.data)).toBe(false);
    expect(r.output.data[0]).toBeCloseTo(3e19, -14);
  });

  it('pipeline with X filled with 1e20: finite weights, rows sum to 1, no row falsely flagged', () => {
    const s = engine.pipeline({ ...NORMAL, causal: false, X: new Float32Array(72).fill(1e20) });
    expect(Array.from(s.fullyMaskedRows)).toEqual(new Array(9).fill(0));
    expect(hasNaN(s.scores.data) || hasNaN(s.weights.data) || hasNaN(s.output.data)).toBe(false);
    for (const sum of rowSums(s.weights.data, 9)) expect(sum).toBeCloseTo(1, 5);
  });

  it('pipeline with X filled with 1e-30: scores underflow to 0 and every token gets 1/n', () => {
    const s = engine.pipeline({ ...NORMAL, causal: false, X: new Float32Array(72).fill(1e-30) });
    for (const w of s.weights.data) expect(w).toBeCloseTo(1 / 9, 6);
  });

  it('a projection that overflows float32 is refused with a message, not shown as inf', () => {
    expect(() => engine.pipeline({ ...NORMAL, X: new Float32Array(72).fill(3e38) })).toThrow(/too large/);
    const X = { rows: 1, cols: 2, data: Float32Array.from([3e38, 3e38]) };
    expect(() => engine.multiHeadAttention(X, I2, I2, I2, I2, { heads: 1 })).not.toThrow();
    const W = { rows: 2, cols: 2, data: Float32Array.from([3e38, 3e38, 3e38, 3e38]) };
    expect(() => engine.multiHeadAttention(X, W, W, W, W, { heads: 1 })).toThrow(/too large/);
  });

  it('the engine still works after these inputs', () => {
    expect(fingerprint(engine.pipeline(NORMAL))).toBe(baseline);
  });
});
