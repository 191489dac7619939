// TensorFlow.js with the wasm backend (XNNPACK inside), single-threaded: matMul, scale, softmax,
// matMul on the same numbers, batched over heads. Causal adds a (n, n) 0 / -inf mask.
import type * as TfNamespace from '@tensorflow/tfjs-core';
import type { Inputs } from '../data';
import type { Peer, Runner } from '../suite';
import { additiveCausalMask } from './onnx-model';
import { scoresTooLarge } from './ort';

type Tf = typeof TfNamespace;

export function tfjsPeer(tf: Tf, version: string): Peer {
  return {
    id: 'tfjs-wasm',
    label: `tfjs-backend-wasm ${version} (1 thread)`,
    kind: 'peer',
    unsupported: scoresTooLarge,
    async prepare(inputs: Inputs): Promise<Runner> {
      const s = inputs.shape;
      const Q = tf.tensor3d(inputs.Q, [s.heads, s.n, s.d]);
      const K = tf.tensor3d(inputs.K, [s.heads, s.n, s.d]);
      const V = tf.tensor3d(inputs.V, [s.heads, s.n, s.d]);
      const mask = s.causal ? tf.tensor2d(additiveCausalMask(s.n), [s.n, s.n]) : null;
      const scale = tf.scalar(1 / Math.sqrt(s.d));
      const run = () => {
        const out = tf.tidy(() => {
          let scores = tf.mul(tf.matMul(Q, K, false, true), scale);
          if (mask) scores = tf.add(scores, mask);
          return tf.matMul(tf.softmax(scores), V);
        });
        const data = out.dataSync() as Float32Array;
        out.dispose();
        return data;
      };
      return {
        run,
        output: () => run().slice(),
        dispose: () => {
          for (const t of [Q, K, V, mask, scale]) t?.dispose();
        },
      };
    },
  };
}
