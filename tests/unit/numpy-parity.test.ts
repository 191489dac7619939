// The engine against the article's own NumPy code, run for real: numpy_driver.py holds the article's
// softmax / attention / multi_head_attention verbatim and computes a batch of 520 configurations in
// float64 in one Debian /usr/bin/python3 process. Missing Python or NumPy is a failure, not a skip.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttentionEngine, Matrix, MultiHeadResult } from '../../web/src/engine/engine';
import { loadSimdEngine } from './load-engine';
import { MaxTracker, Rng, divisors, normwiseRelError } from './helpers';
import * as ref from './reference';

const PYTHON = '/usr/bin/python3';
const DRIVER = resolve(import.meta.dirname, 'numpy_driver.py');
const ARTICLE = '/work/shared/article/attention-worked-out-by-hand.txt';
const TOLERANCE = 1e-5;
const COUNT = 520;

interface Case {
  n: number;
  dModel: number;
  heads: number;
  causal: boolean;
  offset: number; // element offset into inputs.bin
  inputs: Matrix[]; // X, W_q, W_k, W_v, W_o
}

let engine: AttentionEngine;
let work: string;
const cases: Case[] = [];
let numpyOut: Float64Array;
let numpyVersion = '';

function makeCases(): { cases: Case[]; inputs: Float32Array } {
  const rng = new Rng(0x5eed_00aa);
  const fixed: Array<[number, number, number, boolean]> = [
    [128, 256, 1, false],
    [128, 256, 64, true],
    [128, 256, 8, false],
    [1, 1, 1, false],
    [1, 1, 1, true],
    [128, 1, 1, true],
    [1, 256, 4, false],
    [3, 6, 3, true],
  ];
  const out: Case[] = [];
  let total = 0;
  for (let i = 0; i < COUNT; ++i) {
    let n: number, dModel: number, heads: number, causal: boolean;
    if (i < fixed.length) [n, dModel, heads, causal] = fixed[i]!;
    else {
      n = rng.logInt(1, 128);
      dModel = rng.logInt(1, 256);
      heads = rng.pick(divisors(dModel, 64));
      causal = rng.bool();
    }
    const std = 1 / Math.sqrt(dModel);
    const inputs = [rng.matrix(n, dModel), ...[0, 1, 2, 3].map(() => rng.matrix(dModel, dModel, std))];
    out.push({ n, dModel, heads, causal, offset: total, inputs });
    total += inputs.reduce((a, m) => a + m.data.length, 0);
  }
  const all = new Float32Array(total);
  let at = 0;
  for (const c of out)
    for (const m of c.inputs) {
      all.set(m.data, at);
      at += m.data.length;
    }
  return { cases: out, inputs: all };
}

beforeAll(async () => {
  engine = await loadSimdEngine();
  if (!existsSync(PYTHON))
    throw new Error(`${PYTHON} does not exist: the NumPy parity test needs Debian's python3 with numpy (apt-get install python3-numpy)`);
  work = mkdtempSync(join(tmpdir(), 'abh-numpy-'));
  const made = makeCases();
  cases.push(...made.cases);
  writeFileSync(
    join(work, 'manifest.json'),
    JSON.stringify({
      configs: cases.map(({ n, dModel, heads, causal, offset }) => ({ n, dModel, heads, causal, offset })),
    }),
  );
  writeFileSync(join(work, 'inputs.bin'), new Uint8Array(made.inputs.buffer));
  const run = spawnSync(PYTHON, [DRIVER, work], { encoding: 'utf8', timeout: 120_000 });
  if (run.error) throw new Error(`could not run ${PYTHON}: ${run.error.message}`);
  if (run.status !== 0)
    throw new Error(
      `${PYTHON} ${DRIVER} failed with status ${run.status}` +
        (run.status === 3 ? ' (numpy is missing: apt-get install python3-numpy)' : '') +
        `:\n${run.stderr}`,
    );
  const result = JSON.parse(readFileSync(join(work, 'result.json'), 'utf8')) as { count: number; numpy: string };
  expect(result.count).toBe(COUNT);
  numpyVersion = result.numpy;
  const bytes = readFileSync(join(work, 'outputs.bin'));
  numpyOut = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Splits the driver's output stream back into (output, weights) per case. */
function numpyResults(): Array<{ output: Float64Array; weights: Float64Array }> {
  const out: Array<{ output: Float64Array; weights: Float64Array }> = [];
  let at = 0;
  for (const c of cases) {
    const o = c.n * c.dModel;
    const w = c.heads * c.n * c.n;
    out.push({ output: numpyOut.subarray(at, at + o), weights: numpyOut.subarray(at + o, at + o + w) });
    at += o + w;
  }
  expect(at).toBe(numpyOut.length);
  return out;
}

const label = (c: Case) => `n=${c.n} dModel=${c.dModel} heads=${c.heads} causal=${c.causal}`;

describe('the article NumPy code, run by /usr/bin/python3', () => {
  it('the driver holds the article functions verbatim', () => {
    const article = readFileSync(ARTICLE, 'utf8');
    const driver = readFileSync(DRIVER, 'utf8');
    const block = (start: string, end: string) => {
      const i = article.indexOf(start);
      const j = article.indexOf(end, i);
      expect(i, `article contains ${start}`).toBeGreaterThanOrEqual(0);
      expect(j, `article contains ${end}`).toBeGreaterThan(i);
      return article.slice(i, j + end.length);
    };
    const functions = [
      block('def softmax(x, axis=-1):', 'return e / e.sum(axis=axis, keepdims=True)'),
      block('def attention(Q, K, V, mask=None):', 'return weights @ V, weights'),
      block('def multi_head_attention(X, W_q, W_k, W_v, W_o, h=8):', 'return merged @ W_o, weights'),
    ];
    for (const f of functions) expect(driver.includes(f), `driver contains verbatim:\n${f}`).toBe(true);
    expect(functions[2]!.split('\n').length).toBe(14);
  });

  it(`engine.multiHeadAttention matches NumPy float64 on ${COUNT} configurations (normwise <= 1e-5)`, () => {
    const np = numpyResults();
    expect(cases.some((c) => c.n === 128) && cases.some((c) => c.dModel === 256)).toBe(true);
    expect(cases.filter((c) => c.causal).length).toBeGreaterThan(200);
    expect(cases.filter((c) => !c.causal).length).toBeGreaterThan(200);
    const outErr = new MaxTracker();
    const wErr = new MaxTracker();
    cases.forEach((c, i) => {
      const [X, Wq, Wk, Wv, Wo] = c.inputs as [Matrix, Matrix, Matrix, Matrix, Matrix];
      const got: MultiHeadResult = engine.multiHeadAttention(X, Wq, Wk, Wv, Wo, { heads: c.heads, causal: c.causal });
      const eo = normwiseRelError(got.output.data, np[i]!.output);
      const ew = normwiseRelError(got.weights.data, np[i]!.weights);
      outErr.update(eo, label(c));
      wErr.update(ew, label(c));
      if (!(eo <= TOLERANCE && ew <= TOLERANCE)) throw new Error(`${label(c)}: output error ${eo}, weights error ${ew}`);
    });
    console.log(
      `[numpy-parity] numpy ${numpyVersion}, ${COUNT} configs: max output error ${outErr.value.toExponential(2)} (${outErr.where}), ` +
        `max weights error ${wErr.value.toExponential(2)} (${wErr.where})`,
    );
  });

  it('the TypeScript float64 reference agrees with NumPy to 1e-12 (checks the reference itself)', () => {
    const np = numpyResults();
    const err = new MaxTracker();
    cases.slice(0, 120).forEach((c, i) => {
      const [X, Wq, Wk, Wv, Wo] = c.inputs as [Matrix, Matrix, Matrix, Matrix, Matrix];
      const r = ref.multiHeadAttention(X, Wq, Wk, Wv, Wo, c.heads, { causal: c.causal });
      const e = Math.max(normwiseRelError(r.output.data, np[i]!.output), normwiseRelError(r.weights, np[i]!.weights));
      err.update(e, label(c));
      if (!(e <= 1e-12)) throw new Error(`${label(c)}: reference vs numpy ${e}`);
    });
    console.log(`[numpy-parity] reference.ts vs numpy, 120 configs: max error ${err.value.toExponential(2)}`);
  });
});
