// Our engine through its public API (web/src/engine/engine.ts), exactly as the page and authors call
// it: inputs are copied into wasm memory and outputs out of it on every call. The tiled kernel runs
// every head in one call (multiHeadFlashAttention, like onnxruntime-web's one session.run); the naive
// attention() takes one head per call.
import type { AttentionEngine, Matrix } from '../../../web/src/engine/engine';
import { ENGINE_LIMITS } from '../../../web/src/engine/limits';
import { head, type Inputs, type Shape } from '../data';
import type { Peer, Runner } from '../suite';

function perHead(inputs: Inputs): { Q: Matrix; K: Matrix; V: Matrix }[] {
  const s = inputs.shape;
  return Array.from({ length: s.heads }, (_, h) => ({
    Q: { rows: s.n, cols: s.d, data: head(inputs.Q, s, h).slice() },
    K: { rows: s.n, cols: s.d, data: head(inputs.K, s, h).slice() },
    V: { rows: s.n, cols: s.d, data: head(inputs.V, s, h).slice() },
  }));
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export const FLASH_BLOCKS = { blockQ: 64, blockK: 64 } as const;

/** (heads, n, d) -> (n, heads * d) and back: the layout of a projection before the heads are split. */
function interleave(data: Float32Array, s: Shape): Float32Array {
  const out = new Float32Array(data.length);
  for (let h = 0; h < s.heads; ++h)
    for (let r = 0; r < s.n; ++r) out.set(data.subarray((h * s.n + r) * s.d, (h * s.n + r + 1) * s.d), (r * s.heads + h) * s.d);
  return out;
}

function deinterleave(data: Float32Array, s: Shape): Float32Array {
  const out = new Float32Array(data.length);
  for (let h = 0; h < s.heads; ++h)
    for (let r = 0; r < s.n; ++r) out.set(data.subarray((r * s.heads + h) * s.d, (r * s.heads + h + 1) * s.d), (h * s.n + r) * s.d);
  return out;
}

/**
 * The tiled kernel, no (n, n) matrix: flashAttention for one head, multiHeadFlashAttention for several
 * (one call on (n, heads * d) matrices; the layout change happens here, outside the timed run).
 * reuseOutput: every run writes into one array (options.output) instead of a fresh one, which shows
 * what allocating the result costs (page faults for a fresh 128 KiB array on this VM).
 */
export function flashPeer(id: string, label: string, kind: 'ours', engine: AttentionEngine, reuseOutput = false): Peer {
  return {
    id,
    label,
    kind,
    async prepare(inputs: Inputs): Promise<Runner> {
      const s = inputs.shape;
      const output = reuseOutput ? new Float32Array(s.n * s.heads * s.d) : undefined;
      const options = { ...FLASH_BLOCKS, causal: s.causal, ...(output ? { output } : {}) };
      if (s.heads === 1) {
        const [h] = perHead(inputs);
        const run = () => engine.flashAttention(h!.Q, h!.K, h!.V, options).output.data;
        return { run, output: () => run().slice() };
      }
      const wide = (data: Float32Array) => ({ rows: s.n, cols: s.heads * s.d, data: interleave(data, s) });
      const [Q, K, V] = [wide(inputs.Q), wide(inputs.K), wide(inputs.V)];
      const run = () => engine.multiHeadFlashAttention(Q, K, V, { ...options, heads: s.heads }).output.data;
      return { run, output: () => deinterleave(run(), s) };
    },
  };
}

export function causalMask(n: number): Uint8Array {
  const mask = new Uint8Array(n * n);
  for (let i = 0; i < n; ++i) mask.fill(1, i * n, i * n + i + 1);
  return mask;
}

/** attention: the article's function, which also returns the (n, n) weights. */
export function naivePeer(id: string, label: string, kind: 'ours', engine: AttentionEngine): Peer {
  return {
    id,
    label,
    kind,
    unsupported: (s: Shape) => (s.n * s.n > ENGINE_LIMITS.maxScoreElements ? 'n x n weights exceed the engine limit' : null),
    async prepare(inputs: Inputs): Promise<Runner> {
      const heads = perHead(inputs);
      const options = inputs.shape.causal ? { mask: causalMask(inputs.shape.n) } : {};
      const run = () => heads.map((h) => engine.attention(h.Q, h.K, h.V, options).output.data);
      return { run, output: () => concat(run()) };
    },
  };
}
