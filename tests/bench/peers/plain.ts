// The tutorial author's baseline: the article's NumPy, line for line, in plain TypeScript.
//
//   def attention(Q, K, V, mask=None):
//       scores = Q @ K.T / np.sqrt(Q.shape[-1])
//       if mask is not None:
//           scores = np.where(mask, scores, -np.inf)
//       weights = softmax(scores, axis=-1)
//       return weights @ V, weights
import { head, type Inputs } from '../data';
import type { Peer, Runner } from '../suite';

function softmaxRows(x: Float32Array, rows: number, cols: number): void {
  for (let r = 0; r < rows; ++r) {
    let max = -Infinity;
    for (let c = 0; c < cols; ++c) max = Math.max(max, x[r * cols + c]!);
    let sum = 0;
    for (let c = 0; c < cols; ++c) {
      const e = Math.exp(x[r * cols + c]! - max);
      x[r * cols + c] = e;
      sum += e;
    }
    for (let c = 0; c < cols; ++c) x[r * cols + c]! /= sum;
  }
}

export function plainAttention(Q: Float32Array, K: Float32Array, V: Float32Array, n: number, d: number, causal: boolean) {
  const scale = 1 / Math.sqrt(d);
  const scores = new Float32Array(n * n); // Q @ K.T / sqrt(d_k)
  for (let i = 0; i < n; ++i)
    for (let j = 0; j < n; ++j) {
      let dot = 0;
      for (let t = 0; t < d; ++t) dot += Q[i * d + t]! * K[j * d + t]!;
      scores[i * n + j] = dot * scale;
    }
  if (causal) for (let i = 0; i < n; ++i) for (let j = i + 1; j < n; ++j) scores[i * n + j] = -Infinity;
  softmaxRows(scores, n, n); // weights
  const out = new Float32Array(n * d); // weights @ V
  for (let i = 0; i < n; ++i)
    for (let c = 0; c < d; ++c) {
      let acc = 0;
      for (let j = 0; j < n; ++j) acc += scores[i * n + j]! * V[j * d + c]!;
      out[i * d + c] = acc;
    }
  return { output: out, weights: scores };
}

export function plainPeer(): Peer {
  return {
    id: 'plain-ts',
    label: "plain TypeScript (the article's NumPy)",
    kind: 'peer',
    async prepare(inputs: Inputs): Promise<Runner> {
      const s = inputs.shape;
      const run = () => {
        const out = new Float32Array(s.heads * s.n * s.d);
        for (let h = 0; h < s.heads; ++h)
          out.set(
            plainAttention(head(inputs.Q, s, h), head(inputs.K, s, h), head(inputs.V, s, h), s.n, s.d, s.causal).output,
            h * s.n * s.d,
          );
        return out;
      };
      return { run, output: run };
    },
  };
}
