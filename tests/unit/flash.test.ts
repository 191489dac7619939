// The tiled (FlashAttention-2 style) kernel through the real .wasm builds: the same numbers as the naive
// attention() on many random shapes and tilings, memory that stays O(n d) where the naive kernel needs
// the n x n matrix, the step-through trace, errors, and SIMD in the SIMD build's tile loop.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AttentionEngine, EngineError, type FlashOptions, type Matrix, type MultiHeadFlashOptions } from '../../web/src/engine/engine';
import { causalMask, MaxTracker, normwiseRelError, Rng } from './helpers';
import { ENGINE_BUILDS, generatedDir, loadSimdEngine } from './load-engine';

const MiB = 1 << 20;

interface Case {
  Q: Matrix;
  K: Matrix;
  V: Matrix;
  options: FlashOptions;
  where: string;
}

/** A random case: n up to 300 (small sizes more often), blocks 1..130, causal and scaling random. */
function randomCase(rng: Rng, index: number): Case {
  const causal = rng.bool();
  const nQ = rng.logInt(1, 300);
  const nK = causal ? nQ : rng.logInt(1, 300);
  const dK = rng.int(1, 64);
  const dV = rng.int(1, 64);
  const options: FlashOptions = { blockQ: rng.logInt(1, 130), blockK: rng.logInt(1, 130), causal, scale: rng.bool(0.8) };
  return {
    Q: rng.matrix(nQ, dK),
    K: rng.matrix(nK, dK),
    V: rng.matrix(nK, dV),
    options,
    where: `case ${index}: nQ=${nQ} nK=${nK} dK=${dK} dV=${dV} ${JSON.stringify(options)}`,
  };
}

function naiveOutput(engine: AttentionEngine, c: Case): Float32Array {
  const mask = c.options.causal ? causalMask(c.Q.rows) : undefined;
  return engine.attention(c.Q, c.K, c.V, { ...(mask ? { mask } : {}), scale: c.options.scale ?? true }).output.data;
}

describe.each(ENGINE_BUILDS)('flashAttention (%s build)', (_name, load) => {
  let engine: AttentionEngine;
  beforeAll(async () => {
    engine = await load();
  });

  it('equals attention() within 1e-5 relative on 1200 random cases (n <= 300, random tiles, causal on/off)', () => {
    const rng = new Rng(0xf1a5);
    const worst = new MaxTracker();
    let causalCases = 0;
    for (let index = 0; index < 1200; ++index) {
      const c = randomCase(rng, index);
      const flash = engine.flashAttention(c.Q, c.K, c.V, c.options);
      expect(flash.output.rows).toBe(c.Q.rows);
      expect(flash.output.cols).toBe(c.V.cols);
      const error = normwiseRelError(flash.output.data, naiveOutput(engine, c));
      worst.update(error, c.where);
      if (!(error < 1e-5)) throw new Error(`relative error ${error} at ${c.where}`);
      causalCases += c.options.causal ? 1 : 0;
    }
    console.info(
      `[flash ${_name}] 1200 cases (${causalCases} causal): max relative error ${worst.value.toExponential(2)} at ${worst.where}`,
    );
    expect(worst.value).toBeLessThan(1e-5);
    expect(causalCases).toBeGreaterThan(400);
  });

  it('handles the edges: n = 1, blocks larger than n, blocks of 1, n not a multiple of the block', () => {
    const rng = new Rng(7);
    for (const n of [1, 2, 5, 17, 64, 65])
      for (const [blockQ, blockK] of [
        [1, 1],
        [1, 1024],
        [1024, 1],
        [3, 5],
        [64, 64],
        [16, 70],
      ] as const)
        for (const causal of [false, true]) {
          const c: Case = { Q: rng.matrix(n, 7), K: rng.matrix(n, 7), V: rng.matrix(n, 5), options: { blockQ, blockK, causal }, where: '' };
          const flash = engine.flashAttention(c.Q, c.K, c.V, c.options);
          expect(normwiseRelError(flash.output.data, naiveOutput(engine, c)), `n=${n} ${JSON.stringify(c.options)}`).toBeLessThan(1e-5);
        }
  });

  it('reports its scratch: one tile, three per-row vectors and packed copies of a Q and a K block, independent of n', () => {
    const rng = new Rng(3);
    const scratch = [64, 2048].map(
      (n) => engine.flashAttention(rng.matrix(n, 16), rng.matrix(n, 16), rng.matrix(n, 16), { blockQ: 32, blockK: 32 }).scratchFloats,
    );
    const perCall = 32 * 32 + 3 * 32 + 2 * 16 * 32; // tile, m, l, rescale, Q_b^T (16, 32), K_c panels (32, 16)
    expect(scratch).toEqual([perCall, perCall]);
  });

  it('leaves malloc where it found it', () => {
    const rng = new Rng(4);
    const Q = rng.matrix(40, 8);
    engine.flashAttention(Q, Q, Q, { blockQ: 8, blockK: 8 }); // warm up
    engine.flashTrace(Q, Q, Q, { blockQ: 8, blockK: 8, causal: true });
    const before = engine.heapStats();
    for (let i = 0; i < 200; ++i) {
      engine.flashAttention(Q, Q, Q, { blockQ: 8, blockK: 8, causal: i % 2 === 0 });
      engine.flashTrace(Q, Q, Q, { blockQ: 8, blockK: 8, causal: i % 2 === 0 });
    }
    expect(engine.heapStats()).toEqual(before);
  });

  it('returns errors as EngineError with the engine message', () => {
    const rng = new Rng(5);
    const Q = rng.matrix(4, 3);
    const V = rng.matrix(4, 2);
    const throws = (f: () => unknown, message: RegExp) => expect(f).toThrow(message);
    throws(() => engine.flashAttention(Q, Q, V, { blockQ: 0, blockK: 4 }), /block sizes must be from 1 to 1024/);
    throws(() => engine.flashAttention(Q, Q, V, { blockQ: 4, blockK: 1025 }), /block sizes must be from 1 to 1024/);
    throws(() => engine.flashAttention(Q, Q, V, { blockQ: 2.5, blockK: 4 }), /blockQ must be a whole number/);
    throws(() => engine.flashAttention(Q, rng.matrix(4, 5), V, { blockQ: 4, blockK: 4 }), /must share d_k/);
    throws(() => engine.flashAttention(Q, Q, rng.matrix(3, 2), { blockQ: 4, blockK: 4 }), /every key needs a value/);
    throws(
      () => engine.flashAttention(Q, rng.matrix(5, 3), rng.matrix(5, 2), { blockQ: 4, blockK: 4, causal: true }),
      /causal attention needs as many queries as keys/,
    );
    throws(() => engine.flashAttention(Q, Q, V, undefined as unknown as FlashOptions), /options must be/);
    throws(() => engine.flashAttention(Q, Q, V, { blockK: 4 } as unknown as FlashOptions), /blockQ must be a whole number/);
    throws(() => engine.flashAttention(Q, Q, V, { blockQ: 4, blockK: 4, causal: 1 as unknown as boolean }), /causal must be true or false/);
    throws(
      () => engine.flashTrace(rng.matrix(65, 3), rng.matrix(65, 3), rng.matrix(65, 2), { blockQ: 8, blockK: 8 }),
      /limited to 64 tokens/,
    );
    expect(() => engine.flashAttention(Q, Q, V, { blockQ: 0, blockK: 4 })).toThrow(EngineError);
  });

  it("options.output: the result is written into the caller's array (same bits as a fresh result), which is returned; bad ones are refused untouched", () => {
    const rng = new Rng(0x0a7);
    const [Q, K, V] = [rng.matrix(37, 12), rng.matrix(37, 12), rng.matrix(37, 6)];
    const options = { blockQ: 16, blockK: 8, causal: true };
    const fresh = engine.flashAttention(Q, K, V, options).output.data;
    const output = new Float32Array(37 * 6).fill(7);
    const before = engine.heapStats();
    for (let i = 0; i < 20; ++i) {
      const result = engine.flashAttention(Q, K, V, { ...options, output });
      expect(result.output.data).toBe(output);
      expect(result.output.rows).toBe(37);
      expect(result.output.cols).toBe(6);
    }
    expect(output).toEqual(fresh);
    // Several heads: the (n, heads * d_v) output.
    const [Q2, K2, V2] = [rng.matrix(9, 8), rng.matrix(9, 8), rng.matrix(9, 4)];
    const wide = new Float32Array(9 * 4);
    const multi = engine.multiHeadFlashAttention(Q2, K2, V2, { heads: 2, blockQ: 4, blockK: 4, output: wide });
    expect(multi.output.data).toBe(wide);
    expect(wide).toEqual(engine.multiHeadFlashAttention(Q2, K2, V2, { heads: 2, blockQ: 4, blockK: 4 }).output.data);
    // Refused: wrong length, wrong type, and the trace (which returns every step); the array is left as it was.
    const short = new Float32Array(37 * 6 - 1).fill(3);
    expect(() => engine.flashAttention(Q, K, V, { ...options, output: short })).toThrow(
      "output must be a Float32Array of 37 x 6 = 222 values, the output's shape",
    );
    expect(short.every((x) => x === 3)).toBe(true);
    expect(() => engine.multiHeadFlashAttention(Q2, K2, V2, { heads: 2, blockQ: 4, blockK: 4, output: new Float32Array(9 * 2) })).toThrow(
      'output must be a Float32Array of 9 x 4 = 36 values',
    );
    expect(() => engine.flashAttention(Q, K, V, { ...options, output: new Float64Array(222) as unknown as Float32Array })).toThrow(
      EngineError,
    );
    expect(() => engine.flashAttention(Q, K, V, { ...options, output: [] as unknown as Float32Array })).toThrow(
      'output must be a Float32Array',
    );
    expect(() => engine.flashTrace(Q, K, V, { ...options, output })).toThrow('flashTrace takes no output array');
    // Input errors come first, and leave the array alone too.
    output.fill(5);
    expect(() => engine.flashAttention(Q, rng.matrix(37, 11), V, { ...options, output })).toThrow(/must share d_k/);
    expect(output.every((x) => x === 5)).toBe(true);
    expect(engine.heapStats()).toEqual(before);
  });

  /** Columns [h w, (h + 1) w) of m as a matrix of its own. */
  const columns = (m: Matrix, h: number, w: number): Matrix => {
    const data = new Float32Array(m.rows * w);
    for (let r = 0; r < m.rows; ++r) data.set(m.data.subarray(r * m.cols + h * w, r * m.cols + (h + 1) * w), r * w);
    return { rows: m.rows, cols: w, data };
  };

  it('multiHeadFlashAttention: every head equals flashAttention on its column slices, exactly, and attention() to 1e-5', () => {
    const rng = new Rng(0x3ead);
    for (const [heads, n, dK, dV, causal] of [
      [8, 70, 16, 16, false],
      [8, 33, 8, 5, true],
      [3, 5, 7, 3, false],
      [1, 9, 4, 4, true],
      [2, 1, 1, 2, false],
    ] as const) {
      const Q = rng.matrix(n, heads * dK);
      const K = rng.matrix(n, heads * dK);
      const V = rng.matrix(n, heads * dV);
      const options = { heads, blockQ: 16, blockK: 12, causal };
      const all = engine.multiHeadFlashAttention(Q, K, V, options);
      expect(all.output.rows).toBe(n);
      expect(all.output.cols).toBe(heads * dV);
      for (let h = 0; h < heads; ++h) {
        const one = engine.flashAttention(columns(Q, h, dK), columns(K, h, dK), columns(V, h, dV), { blockQ: 16, blockK: 12, causal });
        const got = columns(all.output, h, dV).data;
        expect(got, `head ${h} of ${heads}, n=${n}`).toEqual(one.output.data);
        const c: Case = {
          Q: columns(Q, h, dK),
          K: columns(K, h, dK),
          V: columns(V, h, dV),
          options: { blockQ: 16, blockK: 12, causal },
          where: '',
        };
        expect(normwiseRelError(got, naiveOutput(engine, c))).toBeLessThan(1e-5);
      }
    }
  });

  it('multiHeadFlashAttention: bad inputs are EngineErrors with the engine message, and nothing leaks', () => {
    const rng = new Rng(6);
    const Q = rng.matrix(4, 6);
    const V = rng.matrix(4, 4);
    const before = engine.heapStats();
    const throws = (f: () => unknown, message: RegExp) => expect(f).toThrow(message);
    const call = (heads: unknown, q = Q, k = Q, v = V, more = {}) =>
      engine.multiHeadFlashAttention(q, k, v, { heads: heads as number, blockQ: 4, blockK: 4, ...more });
    throws(() => call(0), /heads must be from 1 to 64/);
    throws(() => call(65), /heads must be from 1 to 64/);
    throws(() => call(1.5), /heads must be a whole number/);
    throws(() => call(undefined), /heads must be a whole number/);
    throws(() => call('2'), /heads must be a whole number/);
    throws(() => call(4), /split into 4 heads/);
    throws(() => call(2, Q, rng.matrix(4, 4)), /must share heads \* d_k/);
    throws(() => call(2, Q, Q, rng.matrix(3, 4)), /every key needs a value/);
    throws(() => call(2, Q, rng.matrix(5, 6), rng.matrix(5, 4), { causal: true }), /causal attention needs as many queries as keys/);
    throws(() => call(2, Q, Q, V, { blockQ: 0 }), /block sizes must be from 1 to 1024/);
    throws(
      () => call(2, { rows: 4, cols: 6, data: new Float64Array(24) } as unknown as Matrix),
      /Q must be \{ rows, cols, data: Float32Array \}/,
    );
    throws(() => engine.multiHeadFlashAttention(Q, Q, V, null as unknown as MultiHeadFlashOptions), /options must be \{ heads, blockQ/);
    const nan = rng.matrix(4, 6);
    nan.data[7] = NaN;
    throws(() => call(2, nan), /Q has a value that is not a finite number at row 2, column 2/);
    expect(() => call(0)).toThrow(EngineError);
    for (let i = 0; i < 50; ++i) call(2, rng.matrix(40, 6), rng.matrix(40, 6), rng.matrix(40, 4));
    expect(engine.heapStats()).toEqual(before);
  });
});

describe('flashTrace', () => {
  let engine: AttentionEngine;
  beforeAll(async () => {
    engine = await loadSimdEngine();
  });

  it("on a small causal example: the final output equals attention()'s, and every step adds up", () => {
    const rng = new Rng(11);
    const n = 10;
    const Q = rng.matrix(n, 4);
    const K = rng.matrix(n, 4);
    const V = rng.matrix(n, 3);
    const options = { blockQ: 4, blockK: 3, causal: true };
    const trace = engine.flashTrace(Q, K, V, options);
    const naive = engine.attention(Q, K, V, { mask: causalMask(n) }).output.data;

    expect(normwiseRelError(trace.output.data, naive)).toBeLessThan(1e-5);
    expect(Array.from(trace.output.data)).toEqual(Array.from(engine.flashAttention(Q, K, V, options).output.data));
    expect([trace.nQ, trace.nK, trace.dK, trace.dV, trace.blockQ, trace.blockK]).toEqual([10, 10, 4, 3, 4, 3]);
    expect([trace.queryBlocks, trace.keyBlocks]).toEqual([3, 4]);
    expect(trace.scaleFactor).toBeCloseTo(0.5, 7);
    expect(trace.steps).toHaveLength(12);

    for (const [index, step] of trace.steps.entries()) {
      expect([step.queryBlock, step.keyBlock]).toEqual([Math.floor(index / 4), index % 4]);
      const rows = step.queryEnd - step.queryStart;
      const cols = step.keyEnd - step.keyStart;
      expect([step.scores.rows, step.scores.cols, step.probabilities.rows, step.probabilities.cols]).toEqual([rows, cols, rows, cols]);
      expect([step.m.length, step.l.length, step.rescale.length, step.acc.rows, step.acc.cols]).toEqual([rows, rows, rows, rows, 3]);
      // Skipped exactly when the key block starts after the query block's last row.
      expect(step.skipped).toBe(step.keyStart > step.queryEnd - 1);
      for (let i = 0; i < rows; ++i)
        for (let j = 0; j < cols; ++j) {
          const masked = step.keyStart + j > step.queryStart + i;
          if (masked) expect(step.scores.data[i * cols + j]).toBe(-Infinity);
          if (masked) expect(step.probabilities.data[i * cols + j]).toBe(0);
        }
    }
    // The last step of each query block: acc / l is the output.
    for (let qb = 0; qb < trace.queryBlocks; ++qb) {
      const last = trace.steps[qb * trace.keyBlocks + trace.keyBlocks - 1]!;
      for (let i = 0; i < last.queryEnd - last.queryStart; ++i)
        for (let c = 0; c < 3; ++c)
          expect(last.acc.data[i * 3 + c]! / last.l[i]!).toBeCloseTo(trace.output.data[(last.queryStart + i) * 3 + c]!, 6);
    }
    // The first computed step of every row rescales from -inf: factor 0.
    expect(Array.from(trace.steps[0]!.rescale)).toEqual([0, 0, 0, 0]);
  });

  it('rescale factors are below 1 exactly where the running max grew', () => {
    const rng = new Rng(12);
    let grew = 0;
    for (let trial = 0; trial < 40; ++trial) {
      const n = rng.int(1, 64);
      const trace = engine.flashTrace(rng.matrix(n, 8), rng.matrix(n, 8), rng.matrix(n, 8), {
        blockQ: rng.int(1, 20),
        blockK: rng.int(1, 20),
        causal: rng.bool(),
      });
      for (let qb = 0; qb < trace.queryBlocks; ++qb) {
        let previous: Float32Array | null = null;
        for (let kb = 0; kb < trace.keyBlocks; ++kb) {
          const step = trace.steps[qb * trace.keyBlocks + kb]!;
          for (let i = 0; i < step.m.length; ++i) {
            const before = previous ? previous[i]! : -Infinity;
            const after = step.m[i]!;
            expect(after).toBeGreaterThanOrEqual(before);
            if (after === before) expect(step.rescale[i]).toBe(1);
            if (step.rescale[i]! < 1) expect(after).toBeGreaterThan(before);
            if (after - before > 1e-6 * Math.max(1, Math.abs(after))) {
              expect(step.rescale[i]).toBeLessThan(1);
              ++grew;
            }
          }
          previous = step.m;
        }
      }
    }
    expect(grew).toBeGreaterThan(100);
  });
});

describe('memory: flashAttention at n = 8192, d = 64 stays O(n d)', () => {
  const n = 8192;
  const d = 64;
  const ioBytes = 4 * n * d * 4; // Q, K, V and the output: 8 MiB

  function inputs(): [Matrix, Matrix, Matrix] {
    const rng = new Rng(8192);
    return [rng.matrix(n, d), rng.matrix(n, d), rng.matrix(n, d)];
  }

  it('grows wasm memory by less than 8 MiB beyond its inputs and output; the naive kernel grows by >= n^2 floats', async () => {
    const [Q, K, V] = inputs();

    // A fresh instance, so no earlier test has already grown its memory.
    // The tiled kernel runs in the engine's later module, which has its own memory: that instance's.
    const flashEngine = await loadSimdEngine();
    const before = flashEngine.heapStats('later');
    const start = performance.now();
    const flash = flashEngine.flashAttention(Q, K, V, { blockQ: 64, blockK: 64 });
    const flashMs = performance.now() - start;
    const after = flashEngine.heapStats('later');
    const flashGrowth = after.memoryBytes - before.memoryBytes;
    expect(after.allocatedBytes).toBe(before.allocatedBytes); // nothing left behind
    expect(flash.scratchFloats).toBe(64 * 64 + 3 * 64 + 2 * d * 64);
    expect(flashGrowth).toBeLessThan(ioBytes + 8 * MiB);
    // A fresh instance starts with 16 MiB of linear memory (stack, static data, heap); the whole call,
    // 8 MiB of inputs and output included, fits in it or nearly so, so the absolute size is bounded too.
    expect(after.memoryBytes).toBeLessThan(before.memoryBytes + ioBytes + 8 * MiB);
    expect(after.memoryBytes).toBeLessThan(32 * MiB);

    // The naive kernel on the same input, in its own fresh instance: the (n, n) weights alone are n^2 floats.
    const naiveEngine = await loadSimdEngine({ later: false });
    const naiveBefore = naiveEngine.heapStats('core');
    const naiveStart = performance.now();
    const naive = naiveEngine.attention(Q, K, V);
    const naiveMs = performance.now() - naiveStart;
    const naiveGrowth = naiveEngine.heapStats('core').memoryBytes - naiveBefore.memoryBytes;
    expect(naiveGrowth).toBeGreaterThanOrEqual(n * n * 4);
    expect(flashGrowth * 10).toBeLessThan(naiveGrowth);
    expect(normwiseRelError(flash.output.data, naive.output.data)).toBeLessThan(1e-5);

    console.info(
      `[flash memory] n=${n} d=${d}: wasm memory ${(before.memoryBytes / MiB).toFixed(1)} -> ${(after.memoryBytes / MiB).toFixed(1)} MiB ` +
        `(+${(flashGrowth / MiB).toFixed(1)} MiB, inputs+output ${(ioBytes / MiB).toFixed(0)} MiB) in ${flashMs.toFixed(0)} ms; ` +
        `naive +${(naiveGrowth / MiB).toFixed(1)} MiB in ${naiveMs.toFixed(0)} ms`,
    );
  }, 120_000);
});

// The tile loop really runs in SIMD128: find it through the symbol map and look at its instructions.
// run_tiled drives four tile steps that are kept as separate functions (one loop nest each, which V8
// compiles better than one merged function): Q K^T, the online softmax, P V and the overflow repair.
describe('the tile loop is compiled to wasm SIMD128', () => {
  const TILE_FUNCTIONS = ['run_tiled', 'tile_scores', 'online_softmax', 'tile_accumulate'];

  function tileLoopOps(build: string): Map<string, number> {
    const symbols = readFileSync(resolve(generatedDir, `${build}.symbols`), 'utf8').split('\n');
    const indices = new Set<number>();
    for (const name of TILE_FUNCTIONS) {
      const entries = symbols.filter((line) => line.includes(`::${name}(`) || line.includes(`::${name}\\28`));
      expect(entries, `${name} in ${build}.symbols`).toHaveLength(1);
      indices.add(Number(entries[0]!.slice(0, entries[0]!.indexOf(':'))));
    }
    const disassembly = execFileSync('wasm-objdump', ['-d', resolve(generatedDir, `${build}.wasm`)], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    });
    const ops = new Map<string, number>();
    let inside = false;
    let lines = 0;
    for (const line of disassembly.split('\n')) {
      const header = /^[0-9a-f]+ func\[(\d+)\]/.exec(line);
      if (header) inside = indices.has(Number(header[1]));
      else if (inside) {
        ++lines;
        for (const m of (line.split('|')[1] ?? '').matchAll(/\b((?:f32x4|i32x4|v128)\.[a-z_0-9]+)/g))
          ops.set(m[1]!, (ops.get(m[1]!) ?? 0) + 1);
      }
    }
    expect(lines, `disassembly of the tile loop in ${build}`).toBeGreaterThan(100);
    return ops;
  }

  it('SIMD build: f32x4 multiply-adds, the vector exp and max; scalar build: none', () => {
    const simd = tileLoopOps('attention_engine_later'); // the later module holds the tiled kernel
    // pmax is the running max (one maxps on x86); i32x4.shl builds 2^k in the vector exp.
    for (const op of ['v128.load', 'v128.store', 'f32x4.mul', 'f32x4.add', 'f32x4.pmax', 'i32x4.shl', 'v128.load32_splat'])
      expect(simd.get(op) ?? 0, `${op} in ${JSON.stringify([...simd])}`).toBeGreaterThan(0);
    expect([...tileLoopOps('attention_engine_scalar_later')]).toEqual([]);
  }, 60_000);
});
