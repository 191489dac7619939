// The training peer in TensorFlow.js (tests/bench/training.ts and its Chromium page): the same model,
// batch and update as our default Trainer (cpp/train/model.h, trainer.cpp), written the way a tfjs
// user would, with autograd (tf.variableGrads) and tf.train.adam, on whichever backend is active
// (wasm or cpu; the caller picks it with tf.setBackend before each call).
//
// The model (ours with its defaults: who-is-it, 2 layers, 2 heads, d_model 32, LayerNorm on, no MLP):
//   x = wte[tokens] + wpe[0..T)                               wte (V, C), wpe (16, C): 16 rows as ours
//   per layer: x = x + W_o(attention(LN1(x) W_q, LN1(x) W_k, LN1(x) W_v))   no biases, pre-LN
//              attention: per head softmax(q kᵀ / √d_k + padding mask) v, bidirectional
//   logits = LN_f(x at the target position) w_out             w_out (C, V): untied
//   loss = mean cross-entropy over the B target positions (one per sequence, at "it" in who-is-it)
//   gradient clipped to global norm 1, then Adam at lr 3e-3 (β 0.9 / 0.999, ε 1e-8). Ours is AdamW
//   with weight decay 0 by default, which is exactly Adam.
// Like ours, the last layer computes its queries, attention rows, W_o and the final LayerNorm at the
// target rows only (keys and values everywhere), since nothing else reaches the loss.
//
// tfjs-backend-wasm 4.22 has no UnsortedSegmentSum kernel, which is the gradient of tf.gather, so
// the embedding lookup is a one-hot matmul (B·T × V by V × C: ~0.7 M multiply-adds a step, some 5%
// of the model's) and the target rows are picked by a one-hot batched matmul. Both backends run
// this same graph.
//
// tfjs-core alone registers no gradients (the @tensorflow/tfjs bundle does): the caller imports
// '@tensorflow/tfjs-core/dist/register_all_gradients' first (in Node through a bundle, see training.ts).
import type * as TfNamespace from '@tensorflow/tfjs-core';

type Tf = typeof TfNamespace;
type Tensor = TfNamespace.Tensor;
type Variable = TfNamespace.Variable;

export interface TrainingShape {
  vocab: number;
  /** Rows of the position embedding (kMaxPositions: 16), of which the first `sequenceLength` are read. */
  positions: number;
  sequenceLength: number;
  batch: number;
  layers: number;
  heads: number;
  dModel: number;
  learningRate: number;
  clip: number;
}

/** who-is-it's sequence lengths (its seven frames' word counts; the batch pads to the longest). */
export const WHO_IS_IT_LENGTHS = [9, 12, 11, 9, 11, 13, 11];

export interface TrainingBatch {
  tokens: Int32Array; // (B, T), padding 0
  lengths: Int32Array; // (B): keys at >= length are padding
  query: Int32Array; // (B): the target position of each sequence
  targets: Int32Array; // (B): the target token there
}

/** Seeded batches. `learnable`: the target is the token at position 1 (the sanity run's toy task). */
export function batchMaker(shape: TrainingShape, seed: number, learnable = false): () => TrainingBatch {
  let s = seed >>> 0;
  const next = () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const lengths = WHO_IS_IT_LENGTHS.filter((n) => n <= shape.sequenceLength);
  return () => {
    const { batch: B, sequenceLength: T, vocab: V } = shape;
    const out: TrainingBatch = {
      tokens: new Int32Array(B * T),
      lengths: new Int32Array(B),
      query: new Int32Array(B),
      targets: new Int32Array(B),
    };
    for (let b = 0; b < B; ++b) {
      const n = lengths[Math.floor(next() * lengths.length)]!;
      out.lengths[b] = n;
      for (let t = 0; t < n; ++t) out.tokens[b * T + t] = 2 + Math.floor(next() * (V - 2));
      out.query[b] = learnable ? 2 + Math.floor(next() * (n - 2)) : Math.floor(next() * n);
      out.targets[b] = learnable ? out.tokens[b * T + 1]! : 2 + Math.floor(next() * (V - 2));
    }
    return out;
  };
}

export interface TfjsTrainer {
  parameterCount: number;
  /** `steps` training steps, each on the next batch; returns the last step's loss (one read-back per call). */
  step(steps: number): number;
  dispose(): void;
}

let instances = 0;

/**
 * @param nextBatch where batches come from; by default a pool of 16 seeded random batches, made into
 *   tensors once and cycled (the cost of a step does not depend on the token values).
 */
export function tfjsTrainer(tf: Tf, shape: TrainingShape, seed = 1, nextBatch?: () => TrainingBatch): TfjsTrainer {
  const { vocab: V, positions, sequenceLength: T, batch: B, layers: L, heads: NH, dModel: C } = shape;
  const HS = C / NH;
  const prefix = `abh-train-${++instances}-`;
  let seedCounter = seed * 1000;
  const variables: Variable[] = [];
  const param = (name: string, init: () => Tensor) => {
    const v = tf.variable(tf.tidy(init), true, prefix + name);
    variables.push(v);
    return v;
  };
  // Initialised like ours (model.cpp): embeddings N(0, 1), (in, out) matrices N(0, 1/in), LN gains 1, biases 0.
  const normal = (rows: number, cols: number, std: number) => () => tf.randomNormal([rows, cols], 0, std, 'float32', ++seedCounter);
  const wte = param('wte', normal(V, C, 1));
  const wpe = param('wpe', normal(positions, C, 1));
  const layers = Array.from({ length: L }, (_, l) => ({
    ln1w: param(`layer${l}.ln1_w`, () => tf.ones([C])),
    ln1b: param(`layer${l}.ln1_b`, () => tf.zeros([C])),
    Wq: param(`layer${l}.W_q`, normal(C, C, 1 / Math.sqrt(C))),
    Wk: param(`layer${l}.W_k`, normal(C, C, 1 / Math.sqrt(C))),
    Wv: param(`layer${l}.W_v`, normal(C, C, 1 / Math.sqrt(C))),
    Wo: param(`layer${l}.W_o`, normal(C, C, 1 / Math.sqrt(C))),
  }));
  const lnfw = param('lnf_w', () => tf.ones([C]));
  const lnfb = param('lnf_b', () => tf.zeros([C]));
  const wout = param('w_out', normal(C, V, 1 / Math.sqrt(C)));
  const parameterCount = variables.reduce((n, v) => n + v.size, 0);
  const optimizer = tf.train.adam(shape.learningRate, 0.9, 0.999, 1e-8);
  const scale = tf.scalar(1 / Math.sqrt(HS));
  const clip = tf.scalar(shape.clip);

  interface BatchTensors {
    tokens: Tensor; // (B*T, V) one-hot of the tokens
    mask: Tensor; // (B, 1, 1, T) 0 / -1e9 on padding keys
    pick: Tensor; // (B, 1, T) one-hot of the target position
    targets: Tensor; // (B, V) one-hot of the target token
  }
  const tensorsOf = (b: TrainingBatch): BatchTensors =>
    tf.tidy(() => {
      const mask = new Float32Array(B * T);
      const pick = new Float32Array(B * T);
      for (let i = 0; i < B; ++i) {
        for (let t = b.lengths[i]!; t < T; ++t) mask[i * T + t] = -1e9;
        pick[i * T + b.query[i]!] = 1;
      }
      return {
        tokens: tf.oneHot(tf.tensor1d(b.tokens, 'int32'), V),
        mask: tf.tensor4d(mask, [B, 1, 1, T]),
        pick: tf.tensor3d(pick, [B, 1, T]),
        targets: tf.oneHot(tf.tensor1d(b.targets, 'int32'), V),
      };
    });
  const disposeBatch = (b: BatchTensors) => tf.dispose([b.tokens, b.mask, b.pick, b.targets]);
  const pool: BatchTensors[] = [];
  if (!nextBatch) {
    const make = batchMaker(shape, seed);
    for (let i = 0; i < 16; ++i) pool.push(tensorsOf(make()));
  }
  let cursor = 0;

  const layerNorm = (x: Tensor, w: Tensor, b: Tensor) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, 1e-5))), w), b);
  };
  const heads = (x: Tensor, rows: number) => tf.transpose(tf.reshape(x, [B, rows, NH, HS]), [0, 2, 1, 3]); // (B, NH, rows, HS)
  const pickRows = (x: Tensor, pick: Tensor) => tf.reshape(tf.matMul(pick, tf.reshape(x, [B, T, C])), [B, C]); // (B, C)

  const loss = (batch: BatchTensors) => {
    let x = tf.add(tf.reshape(tf.matMul(batch.tokens, wte), [B, T, C]), tf.slice(wpe, [0, 0], [T, C]));
    x = tf.reshape(x, [B * T, C]);
    for (let l = 0; l < L; ++l) {
      const w = layers[l]!;
      const last = l === L - 1;
      const h = layerNorm(x, w.ln1w, w.ln1b); // (B*T, C)
      const rows = last ? 1 : T;
      const hq = last ? pickRows(h, batch.pick) : h;
      const residual = last ? pickRows(x, batch.pick) : x;
      const q = heads(tf.matMul(hq, w.Wq), rows);
      const k = heads(tf.matMul(h, w.Wk), T);
      const v = heads(tf.matMul(h, w.Wv), T);
      const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), scale), batch.mask)); // (B, NH, rows, T)
      const y = tf.reshape(tf.transpose(tf.matMul(att, v), [0, 2, 1, 3]), [B * rows, C]);
      x = tf.add(residual, tf.matMul(y, w.Wo));
    }
    const logits = tf.matMul(layerNorm(x, lnfw, lnfb), wout); // (B, V)
    return tf.neg(tf.mean(tf.sum(tf.mul(batch.targets, tf.logSoftmax(logits)), -1))) as TfNamespace.Scalar;
  };

  const oneStep = (batch: BatchTensors): Tensor =>
    tf.tidy(() => {
      const { value, grads } = tf.variableGrads(() => loss(batch), variables);
      const names = Object.keys(grads);
      const norm = tf.sqrt(tf.addN(names.map((n) => tf.sum(tf.square(grads[n]!)))));
      const factor = tf.div(clip, tf.maximum(norm, clip)); // ours: scale by clip / norm when norm > clip
      const clipped: Record<string, Tensor> = {};
      for (const name of names) clipped[name] = tf.mul(grads[name]!, factor);
      // A map, not a NamedTensor[] (the declared type wants Variables, but any tensor works): the array
      // form measured 1.2-1.4x slower per step on tfjs 4.22's wasm backend.
      optimizer.applyGradients(clipped as unknown as Parameters<typeof optimizer.applyGradients>[0]);
      return value;
    });

  return {
    parameterCount,
    step(steps: number) {
      let last: Tensor | null = null;
      for (let s = 0; s < steps; ++s) {
        last?.dispose();
        if (nextBatch) {
          const batch = tensorsOf(nextBatch());
          last = oneStep(batch);
          disposeBatch(batch);
        } else {
          last = oneStep(pool[cursor++ % pool.length]!);
        }
      }
      const value = last ? (last.dataSync() as Float32Array)[0]! : NaN;
      last?.dispose();
      return value;
    },
    dispose() {
      for (const b of pool) disposeBatch(b);
      optimizer.dispose();
      tf.dispose([...variables, scale, clip]);
    },
  };
}
