// The training core in wasm (cpp/train/ through cpp/bindings/training.cpp and
// web/src/engine/training.ts): the SIMD and scalar builds train bit for bit like the native build,
// the shipped weights give their recorded held-out accuracy and answer the article's question, the
// page can reproduce the model's attention with the walkthrough's pipeline, the experiments of issue
// 20 (heads specialise on induction; why scale) measure what the page claims, and bad input is an
// EngineError after which the engine still works.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError, type AttentionEngine } from '../../web/src/engine/engine';
import { Trainer, type AttentionScores, type TrainingConfig } from '../../web/src/engine/training';
import { loadScalarEngine, loadSimdEngine } from './load-engine';

const ROOT = resolve(import.meta.dirname, '..', '..');
const NATIVE_TRAIN = resolve(ROOT, 'build', 'native', 'abh_train');
const MODEL_DIR = resolve(ROOT, 'web', 'src', 'model');
const SHIPPED = new Uint8Array(readFileSync(resolve(MODEL_DIR, 'who-is-it.bin')));
const RECORD = JSON.parse(readFileSync(resolve(MODEL_DIR, 'who-is-it.json'), 'utf8')) as {
  task: string;
  steps: number;
  seed: number;
  parameters: number;
  heldoutAccuracy: number;
  heldoutExamples: number;
  bytes: number;
};
const ARTICLE = ['The', 'animal', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired.'];
const WIDE = [...ARTICLE.slice(0, 8), 'wide.'];

let simd: AttentionEngine;
let scalar: AttentionEngine;
let scratch: string;

// A short run that touches every op: 3 layers, 4 heads, MLP, LayerNorm, SGD not used (AdamW).
const SMALL = { layers: 3, heads: 4, dModel: 16, mlp: true, batch: 8, seed: 7, learningRate: 0.01 } satisfies TrainingConfig;
const SMALL_STEPS = 12;
let nativeSmall: Uint8Array;

beforeAll(async () => {
  [simd, scalar] = await Promise.all([loadSimdEngine(), loadScalarEngine()]);
  const sources = [
    'cpp/train/ops.h',
    'cpp/train/model.h',
    'cpp/train/model.cpp',
    'cpp/train/trainer.cpp',
    'cpp/train/train_cli.cpp',
    'cpp/train/tasks.cpp',
    'cpp/train/optimizer.cpp',
    'cpp/train/weights_file.cpp',
  ].map((f) => resolve(ROOT, f));
  const stale = !existsSync(NATIVE_TRAIN) || sources.some((f) => statSync(f).mtimeMs > statSync(NATIVE_TRAIN).mtimeMs);
  if (stale) {
    const run = (args: string[]) => execFileSync('cmake', args, { cwd: ROOT, stdio: 'pipe', timeout: 600_000 });
    if (!existsSync(resolve(ROOT, 'build', 'native', 'CMakeCache.txt')))
      run(['-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release']);
    run(['--build', 'build/native', '--target', 'abh_train', '-j2']);
  }
  scratch = mkdtempSync(join(tmpdir(), 'abh-train-'));
  const out = join(scratch, 'small.bin');
  execFileSync(
    NATIVE_TRAIN,
    [
      '--layers',
      '3',
      '--heads',
      '4',
      '--d-model',
      '16',
      '--mlp',
      '1',
      '--batch',
      '8',
      '--seed',
      '7',
      '--lr',
      '0.01',
      '--steps',
      String(SMALL_STEPS),
      '--log-every',
      '0',
      '--out',
      out,
    ],
    { stdio: 'pipe', timeout: 120_000 },
  );
  nativeSmall = new Uint8Array(readFileSync(out));
}, 600_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function firstDifference(a: Uint8Array, b: Uint8Array): string {
  if (a.length !== b.length) return `lengths ${a.length} and ${b.length}`;
  const i = a.findIndex((x, k) => x !== b[k]);
  return i < 0 ? 'none' : `byte ${i} (parameter ${Math.floor((i - 84) / 4)})`;
}

describe.each([
  ['SIMD', () => simd],
  ['scalar', () => scalar],
] as const)('%s wasm training', (_name, engine) => {
  it('trains every op bit for bit like the native build', () => {
    const t = Trainer.create(engine(), SMALL);
    try {
      expect(t.step(SMALL_STEPS).step).toBe(SMALL_STEPS);
      const bytes = t.exportWeights();
      expect(firstDifference(bytes, nativeSmall)).toBe('none');
    } finally {
      t.dispose();
    }
  });

  it('loading the shipped weights gives the recorded held-out accuracy and answers the article', () => {
    const t = Trainer.fromWeights(engine(), SHIPPED);
    try {
      const d = t.describe();
      expect(d.config.task).toBe(RECORD.task);
      expect(d.steps).toBe(RECORD.steps);
      expect(d.parameterCount).toBe(RECORD.parameters);
      expect(d.config.seed).toBe(RECORD.seed);
      const e = t.evaluate();
      expect(e.examples).toBe(RECORD.heldoutExamples);
      expect(e.accuracy).toBe(RECORD.heldoutAccuracy);
      expect(e.accuracy).toBeGreaterThanOrEqual(0.99);
      const tired = t.analyze(ARTICLE);
      expect(tired.words).toEqual(['the', 'animal', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired']);
      expect(Array.from(tired.unknown)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
      expect(tired.query).toBe(6);
      expect(tired.top[0]!.word).toBe('animal');
      expect(t.analyze(WIDE).top[0]!.word).toBe('road');
      expect(t.exportWeights()).toEqual(SHIPPED);
    } finally {
      t.dispose();
    }
  });
});

describe('the shipped weights', () => {
  it('are at most 64 KB and the record beside them states their size', () => {
    expect(SHIPPED.length).toBeLessThanOrEqual(64 * 1024);
    expect(SHIPPED.length).toBe(RECORD.bytes);
    expect(new TextDecoder().decode(SHIPPED.subarray(0, 4))).toBe('ABHW');
  });

  it('are what the SIMD build trains from the recorded seed', () => {
    const t = Trainer.create(simd, { seed: RECORD.seed });
    try {
      t.step(RECORD.steps);
      expect(firstDifference(t.exportWeights(), SHIPPED)).toBe('none');
    } finally {
      t.dispose();
    }
  }, 120_000);

  it('give attention the walkthrough pipeline reproduces from the analysis inputs', () => {
    const t = Trainer.fromWeights(simd, SHIPPED);
    try {
      const a = t.analyze(ARTICLE);
      const { dModel, heads, scale } = t.describe().config;
      for (const layer of a.layers) {
        const s = simd.pipeline({
          tokens: a.words,
          dModel,
          heads,
          scale,
          causal: false,
          X: layer.attentionInput.data,
          W_q: layer.W_q.data,
          W_k: layer.W_k.data,
          W_v: layer.W_v.data,
          W_o: layer.W_o.data,
        });
        let worst = 0;
        layer.attention.data.forEach((w, i) => {
          worst = Math.max(worst, Math.abs(w - s.weights.data[i]!));
        });
        expect(worst).toBeLessThan(2e-6);
      }
      // the last layer has a head that resolves "it": more weight on "animal" than on "road"
      const last = a.layers[a.layers.length - 1]!.attention;
      const best = Math.max(
        ...Array.from({ length: last.heads }, (_, h) => last.data[(h * 9 + 6) * 9 + 1]! - last.data[(h * 9 + 6) * 9 + 4]!),
      );
      expect(best).toBeGreaterThan(0.3);
      const shares = t.headShares();
      expect(shares).toHaveLength(4);
      expect(Math.max(...shares.filter((s) => s.layer === 1).map((s) => s.referent - s.otherNoun))).toBeGreaterThan(0.3);
    } finally {
      t.dispose();
    }
  });

  it('mark words outside the vocabulary as unknown', () => {
    const t = Trainer.fromWeights(simd, SHIPPED);
    try {
      const a = t.analyze(['the', 'zebra', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired']);
      expect(Array.from(a.unknown)).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 0]);
      expect(a.ids[1]).toBe(t.describe().vocabulary.indexOf('<unk>'));
    } finally {
      t.dispose();
    }
  });
});

// The two experiments of issue 20, measured at seed 1 (the numbers in the comments are the native
// build's, which the SIMD build equals bit for bit). Thresholds sit between what was measured and
// what the claim's failure would give.
describe('experiments', () => {
  const withTrainer = <T>(config: TrainingConfig, run: (t: Trainer) => T): T => {
    const t = Trainer.create(simd, config);
    try {
      return run(t);
    } finally {
      t.dispose();
    }
  };
  const best = (scores: AttentionScores, layer: number, key: 'previousToken' | 'induction') =>
    Math.max(...scores.heads.filter((h) => h.layer === layer).map((h) => h[key]));

  // The page's induction recipe: 2 causal attention-only layers, 2 heads, d_model 32, batch 32,
  // AdamW 1e-2. Held-out loss 3.33 at step 0, 1.25 at 50, 0.35 at 150. Layer 1's best induction
  // score 0.38 at 50, 0.73 at 150 (both heads); layer 0's previous-token score (head 0) 0.21 at
  // 50, 0.46 at 150 (0.50 at 300, 0.85 at 800).
  it('heads specialise: layer 1 becomes an induction head while the loss falls, layer 0 a previous-token head', () => {
    withTrainer({ task: 'induction', layers: 2, heads: 2, dModel: 32, batch: 32, learningRate: 0.01, seed: 1 }, (t) => {
      const start = t.attentionScores();
      expect(best(start, 1, 'induction')).toBeLessThan(0.25); // 0.17: keys after copies get their uniform share
      t.step(50);
      const loss50 = t.evaluate().loss;
      const at50 = t.attentionScores();
      t.step(100);
      const e150 = t.evaluate();
      const at150 = t.attentionScores();
      expect(loss50).toBeGreaterThan(1.0);
      expect(e150.loss).toBeLessThan(0.5);
      expect(loss50 / e150.loss).toBeGreaterThan(2.5);
      expect(e150.accuracy).toBeGreaterThan(0.85); // 0.897
      expect(best(at50, 1, 'induction')).toBeLessThan(0.45);
      expect(best(at150, 1, 'induction')).toBeGreaterThan(0.65);
      for (const h of at150.heads.filter((x) => x.layer === 1)) expect(h.previousToken).toBeLessThan(0.2); // 0.09, 0.11
      expect(best(at150, 0, 'previousToken')).toBeGreaterThan(0.4);
      expect(best(at150, 0, 'previousToken')).toBeGreaterThan(best(at50, 0, 'previousToken') + 0.15);
      expect(best(at150, 0, 'induction')).toBeLessThan(0.25); // 0.19
      // the latest copy alone gets about half: the heads spread over every earlier copy
      expect(Math.max(...at150.heads.filter((h) => h.layer === 1).map((h) => h.inductionLatest))).toBeLessThan(0.5);
    });
  }, 60_000);

  // Why scale: who-is-it, 2 layers, 1 head, d_model = d_k = 64, AdamW 3e-3, the same seed and data.
  // Entropy at step 0: 0.35 nats unscaled, 1.91 scaled. Held-out accuracy at 200: 0.41 and 1.00.
  // |dL/dW_q|: larger unscaled at step 1 (layer 0: 2.2 against 0.37), then layer 1's collapses
  // (median over steps 11-50: 0.009 against 0.19) once the softmax is near one-hot.
  it('why scale: unscaled scores start near one-hot, the query gradient vanishes and the model stalls', () => {
    const config = { task: 'who-is-it', layers: 2, heads: 1, dModel: 64, learningRate: 0.003, seed: 1 } as const;
    const run = (scale: boolean) =>
      withTrainer({ ...config, scale }, (t) => {
        const entropy0 = t.attentionScores().entropy;
        t.step(1);
        const first = t.queryGradientNorms();
        const later: number[] = [];
        for (let s = 2; s <= 50; ++s) {
          t.step(1);
          if (s > 10) later.push(t.queryGradientNorms()[1]!);
        }
        t.step(150);
        later.sort((a, b) => a - b);
        return { entropy0, first, median: later[Math.floor(later.length / 2)]!, accuracy: t.evaluate().accuracy };
      });
    const on = run(true);
    const off = run(false);
    expect(on.entropy0).toBeGreaterThan(1.7);
    expect(off.entropy0).toBeLessThan(0.5);
    expect(on.accuracy).toBeGreaterThan(0.98);
    expect(off.accuracy).toBeLessThan(0.6);
    expect(off.first[0]!).toBeGreaterThan(2 * on.first[0]!); // not small at the start
    expect(off.median).toBeLessThan(on.median / 5); // small once the softmax has locked in
  }, 60_000);

  it('scores and gradient norms have the layout shapes, and gradient norms start empty', () => {
    withTrainer({ batch: 4 }, (t) => {
      expect(t.gradientNorms()).toEqual([]);
      const s = t.attentionScores();
      expect(s.heads.map((h) => [h.layer, h.head])).toEqual([
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ]);
      expect(s.layerEntropy).toHaveLength(2);
      for (const h of s.heads) expect(h.induction).toBe(0); // who-is-it has no period
      t.step(1);
      expect(t.gradientNorms().map((g) => g.name)).toEqual(t.describe().layout.map((e) => e.name));
      expect(t.queryGradientNorms()).toHaveLength(2);
    });
  });
});

describe('bad input', () => {
  const config = (c: Record<string, unknown>) => () => Trainer.create(simd, c as TrainingConfig);
  it.each([
    [{ task: 'poetry' }, /unknown task "poetry"/],
    [{ layers: 0 }, /layers must be 1 to 4/],
    [{ layers: 5 }, /layers must be 1 to 4/],
    [{ heads: 3 }, /must divide d_model/],
    [{ heads: 16 }, /heads must be 1 to 8/],
    [{ learningRate: Number.NaN }, /learning rate.*NaN/],
    [{ learningRate: -0.1 }, /learning rate/],
    [{ learningRate: 1e30 }, /at most 1/],
    [{ batch: 1000 }, /batch must be 1 to 256/],
    [{ seed: -1 }, /seed must be a whole number/],
    [{ layers: '2' }, /layers must be a whole number/],
    [{ scale: 1 }, /scale must be true or false/],
    [{ colour: 'red' }, /unknown training setting "colour"/],
  ])('%j is an EngineError', (c, message) => {
    expect(config(c)).toThrow(EngineError);
    expect(config(c)).toThrow(message);
  });

  it('damaged weights files and bad calls are EngineErrors, and the engine works afterwards', () => {
    const truncated = SHIPPED.slice(0, SHIPPED.length - 8);
    expect(() => Trainer.fromWeights(simd, truncated)).toThrow(/truncated/);
    const version = SHIPPED.slice();
    version[4] = 2;
    expect(() => Trainer.fromWeights(simd, version)).toThrow(/checksum|version/);
    const nan = SHIPPED.slice();
    new DataView(nan.buffer).setFloat32(84 + 4 * 5, Number.NaN, true);
    expect(() => Trainer.fromWeights(simd, nan)).toThrow(EngineError);
    expect(() => Trainer.fromWeights(simd, new Uint8Array(3))).toThrow(/too short/);
    expect(() => Trainer.fromWeights(simd, [1, 2] as unknown as Uint8Array)).toThrow(/Uint8Array/);
    const t = Trainer.create(simd, { batch: 4 });
    try {
      expect(() => t.step(0)).toThrow(/steps must be 1 to 10000/);
      expect(() => t.step(1e6)).toThrow(/steps must be 1 to 10000/);
      expect(() => t.step(1.5)).toThrow(/whole number/);
      expect(() => t.analyze([])).toThrow(/empty/);
      expect(() => t.analyze(new Array(17).fill('the'))).toThrow(/at most 16 words/);
      expect(() => t.analyze([1] as unknown as string[])).toThrow(/array of strings/);
      expect(t.step(2).step).toBe(2);
    } finally {
      t.dispose();
    }
    expect(() => t.step(1)).toThrow(/disposed/);
    expect(simd.pipeline({ tokens: ['a', 'b'], dModel: 4, heads: 2 }).weights.data.length).toBe(8);
  });
});
