// onnxruntime-web, wasm execution provider, one thread, no proxy worker, on the attention graph built
// in onnx-model.ts. All heads go through one session.run (the graph's batch dimension is the head).
// Causal uses an additive mask input (0 / -inf), which is what a plain ONNX graph can express.
import type * as OrtNamespace from 'onnxruntime-web';
import type { Inputs, Shape } from '../data';
import type { Peer, Runner } from '../suite';
import { additiveCausalMask, buildAttentionModel } from './onnx-model';

type Ort = typeof OrtNamespace;

/** The wasm settings both environments use. */
export function configureOrt(ort: Ort): void {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.logLevel = 'error';
}

const MAX_SCORE_FLOATS = 1 << 26; // the (h, n, n) tensors the graph materialises: 256 MiB each

/** Why a peer that materialises the (h, n, n) scores cannot run this shape, or null if it can. */
export function scoresTooLarge(s: Shape): string | null {
  return s.heads * s.n * s.n > MAX_SCORE_FLOATS
    ? `memory: the (h, n, n) score tensors would take ${((s.heads * s.n * s.n * 8) / 2 ** 30).toFixed(1)} GiB`
    : null;
}

export function ortPeer(ort: Ort): Peer {
  return {
    id: 'ort-wasm',
    label: `onnxruntime-web ${ort.env.versions.web ?? ''} (wasm, 1 thread)`.replace('  ', ' '),
    kind: 'peer',
    unsupported: scoresTooLarge,
    async prepare(inputs: Inputs): Promise<Runner> {
      const s = inputs.shape;
      const session = await ort.InferenceSession.create(buildAttentionModel(s.heads, s.n, s.d, s.causal), {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
      });
      const dims = [s.heads, s.n, s.d];
      const feeds: Record<string, OrtNamespace.Tensor> = {
        Q: new ort.Tensor('float32', inputs.Q, dims),
        K: new ort.Tensor('float32', inputs.K, dims),
        V: new ort.Tensor('float32', inputs.V, dims),
      };
      if (s.causal) feeds.mask = new ort.Tensor('float32', additiveCausalMask(s.n), [s.n, s.n]);
      const run = async () => {
        const result = await session.run(feeds);
        const out = result.O!;
        const data = (out.data as Float32Array).slice();
        out.dispose();
        return data;
      };
      return { run, output: run, dispose: () => void session.release() };
    },
  };
}
