// The seeded generator is bit-identical everywhere: the native build (tests/cpp/dump_generated.cpp,
// run here as build/native/abh_dump_generated), the SIMD wasm build and the scalar wasm build.
// The two wasm builds also agree on every result to float rounding.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AttentionEngine, Matrix, PipelineSnapshot } from '../../web/src/engine/engine';
import { loadScalarEngine, loadSimdEngine, rawOf } from './load-engine';
import { MaxTracker, Rng, divisors, floatBitsHex, normwiseRelError } from './helpers';

const ROOT = resolve(import.meta.dirname, '..', '..');
const NATIVE_DIR = resolve(ROOT, 'build', 'native');
const DUMP = resolve(NATIVE_DIR, 'abh_dump_generated');
// The sentence hard-coded in dump_generated.cpp.
const SENTENCE = ['the', 'animal', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired.'];
const MATRICES = ['X', 'W_q', 'W_k', 'W_v', 'W_o'] as const;

interface DumpLine {
  dModel: number;
  seed: number;
  X: string;
  W_q: string;
  W_k: string;
  W_v: string;
  W_o: string;
}

let simd: AttentionEngine;
let scalar: AttentionEngine;
let dump: DumpLine[];

beforeAll(async () => {
  [simd, scalar] = await Promise.all([loadSimdEngine(), loadScalarEngine()]);
  // Build the dump tool when it is missing or older than the generator's sources.
  const sources = ['cpp/random.h', 'cpp/pipeline.cpp', 'cpp/pipeline.h', 'tests/cpp/dump_generated.cpp'].map((f) => resolve(ROOT, f));
  const stale = !existsSync(DUMP) || sources.some((f) => existsSync(f) && statSync(f).mtimeMs > statSync(DUMP).mtimeMs);
  if (stale) {
    const run = (args: string[]) => execFileSync('cmake', args, { cwd: ROOT, stdio: 'pipe', timeout: 600_000 });
    if (!existsSync(resolve(NATIVE_DIR, 'CMakeCache.txt'))) run(['-S', '.', '-B', 'build/native']);
    run(['--build', 'build/native', '--target', 'abh_dump_generated', '-j2']);
  }
  const text = execFileSync(DUMP, { encoding: 'utf8', timeout: 60_000 });
  dump = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as DumpLine);
}, 600_000);

function generatedBits(s: PipelineSnapshot): Record<(typeof MATRICES)[number], string> {
  return {
    X: floatBitsHex(s.X.data),
    W_q: floatBitsHex(s.W_q.data),
    W_k: floatBitsHex(s.W_k.data),
    W_v: floatBitsHex(s.W_v.data),
    W_o: floatBitsHex(s.W_o.data),
  };
}

describe('native vs wasm generator', () => {
  it('the native dump has the four documented configurations', () => {
    expect(dump.map((d) => [d.dModel, d.seed])).toEqual([
      [8, 1],
      [16, 42],
      [64, 4294967295],
      [3, 0],
    ]);
    for (const d of dump) {
      expect(d.X.length).toBe(SENTENCE.length * d.dModel * 8);
      for (const key of ['W_q', 'W_k', 'W_v', 'W_o'] as const) expect(d[key].length).toBe(d.dModel * d.dModel * 8);
    }
  });

  for (const [name, engine] of [
    ['SIMD', () => simd],
    ['scalar', () => scalar],
  ] as const) {
    it(`the ${name} wasm build generates X, W_q, W_k, W_v, W_o bit for bit like the native build`, () => {
      for (const d of dump) {
        const s = engine().pipeline({ tokens: SENTENCE, dModel: d.dModel, seed: d.seed, heads: 1 });
        const bits = generatedBits(s);
        for (const key of MATRICES) {
          if (bits[key] !== d[key]) {
            const i = [...bits[key]].findIndex((ch, k) => ch !== d[key][k]);
            throw new Error(
              `dModel ${d.dModel} seed ${d.seed}: ${key} differs first at float ${Math.floor(i / 8)}: ` +
                `wasm ${bits[key].slice(i - (i % 8), i - (i % 8) + 8)}, native ${d[key].slice(i - (i % 8), i - (i % 8) + 8)}`,
            );
          }
        }
        // Sanity: the bits decode to plausible N(0, 1) numbers, and the same word gives the same row.
        expect(s.X.data.every((x) => Math.abs(x) <= 6)).toBe(true);
        expect(bits.X.slice(0, d.dModel * 8)).toBe(bits.X.slice(3 * d.dModel * 8, 4 * d.dModel * 8));
      }
    });
  }
});

describe('SIMD vs scalar wasm builds', () => {
  it('report their kind', () => {
    expect(simd.info().simd).toBe(true);
    expect(scalar.info().simd).toBe(false);
    expect(rawOf(scalar).engineInfo().limits).toEqual(rawOf(simd).engineInfo().limits);
  });

  it('generate bit-identical matrices and agree on weights and outputs on 100 random configurations', () => {
    const rng = new Rng(0xb17b17);
    const vocabulary = ['the', 'animal', 'crossed', 'road', 'because', 'it', 'was', 'tired.', 'x', 'y'];
    const errs = new MaxTracker();
    for (let trial = 0; trial < 100; ++trial) {
      const n = rng.logInt(1, 64);
      const dModel = trial === 0 ? 256 : rng.logInt(1, 128);
      const heads = rng.pick(divisors(dModel, 64));
      const causal = rng.bool();
      const scale = rng.bool(0.7);
      const seed = rng.int(0, 0xffffffff);
      const config = { tokens: Array.from({ length: n }, () => rng.pick(vocabulary)), dModel, heads, causal, scale, seed };
      const where = JSON.stringify({ ...config, tokens: n });
      const a = simd.pipeline(config);
      const b = scalar.pipeline(config);
      const bitsA = generatedBits(a);
      const bitsB = generatedBits(b);
      for (const key of MATRICES) expect(bitsA[key], `${where} ${key}`).toBe(bitsB[key]);
      for (const key of [
        'Q',
        'K',
        'V',
        'scores',
        'weights',
        'headOutputs',
        'output',
        'weightsUnscaled',
        'weightsCausal',
        'weightsMaskedAfter',
      ] as const) {
        const e = normwiseRelError(a[key].data, b[key].data);
        errs.update(e, `pipeline ${key} ${where}`);
        if (!(e <= 1e-5)) throw new Error(`${where}: ${key} SIMD vs scalar ${e}`);
      }
      expect(Array.from(a.fullyMaskedRows)).toEqual(Array.from(b.fullyMaskedRows));

      // multiHeadAttention and attention on fresh random inputs.
      const std = 1 / Math.sqrt(dModel);
      const X = rng.matrix(n, dModel);
      const [Wq, Wk, Wv, Wo] = [0, 1, 2, 3].map(() => rng.matrix(dModel, dModel, std)) as [Matrix, Matrix, Matrix, Matrix];
      const ma = simd.multiHeadAttention(X, Wq, Wk, Wv, Wo, { heads, causal, scale });
      const mb = scalar.multiHeadAttention(X, Wq, Wk, Wv, Wo, { heads, causal, scale });
      for (const key of ['output', 'weights'] as const) {
        const e = normwiseRelError(ma[key].data, mb[key].data);
        errs.update(e, `multiHeadAttention ${key} ${where}`);
        if (!(e <= 1e-5)) throw new Error(`${where}: multiHeadAttention ${key} SIMD vs scalar ${e}`);
      }
      const nk = rng.logInt(1, 64);
      const dk = rng.logInt(1, 64);
      const mask = new Uint8Array(n * nk).map(() => Number(rng.bool(0.8)));
      const Q = rng.matrix(n, dk),
        K = rng.matrix(nk, dk),
        V = rng.matrix(nk, rng.logInt(1, 64));
      const aa = simd.attention(Q, K, V, { mask, scale });
      const ab = scalar.attention(Q, K, V, { mask, scale });
      expect(Array.from(aa.fullyMaskedRows)).toEqual(Array.from(ab.fullyMaskedRows));
      for (const key of ['output', 'weights'] as const) {
        const e = normwiseRelError(aa[key].data, ab[key].data);
        errs.update(e, `attention ${key} ${where}`);
        if (!(e <= 1e-5)) throw new Error(`${where}: attention ${key} SIMD vs scalar ${e}`);
      }
    }
    console.log(`[generator-bits] SIMD vs scalar, 100 configs: max normwise difference ${errs.value.toExponential(2)} (${errs.where})`);
  });
});
