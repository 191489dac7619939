// 10,000 engine calls, successful and failing, must leave malloc's live bytes exactly where they
// were after a warm-up, and must not grow the wasm memory.
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../web/src/engine/engine';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { loadSimdEngine } from './load-engine';
import { Rng, causalMask } from './helpers';

const SENTENCE = ['the', 'animal', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired.'];
const CALLS = 10_000;

function expectEngineError(call: () => unknown): void {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    return;
  }
  throw new Error('expected an EngineError');
}

/** One call of kind `k % 8`; sizes stay within what warmUp() covers. */
function call(engine: AttentionEngine, rng: Rng, k: number): void {
  const w = (d: number) => rng.matrix(d, d, 1 / Math.sqrt(d));
  switch (k % 8) {
    case 0:
    case 1: {
      const s = engine.pipeline({
        tokens: SENTENCE.slice(0, rng.int(1, 9)),
        dModel: 8,
        heads: rng.pick([1, 2, 4]),
        causal: rng.bool(),
        seed: rng.int(0, 1e9),
      });
      expect(s.output.data.length).toBe(s.n * 8);
      return;
    }
    case 2: {
      const nq = rng.int(1, 16),
        nk = rng.int(1, 16),
        dk = rng.int(1, 16);
      const mask = rng.bool() ? new Uint8Array(nq * nk).map(() => Number(rng.bool(0.7))) : undefined;
      const r = engine.attention(rng.matrix(nq, dk), rng.matrix(nk, dk), rng.matrix(nk, rng.int(1, 16)), mask ? { mask } : {});
      expect(r.weights.data.length).toBe(nq * nk);
      return;
    }
    case 3: {
      const n = rng.int(1, 16),
        d = rng.pick([4, 8, 16]);
      const r = engine.multiHeadAttention(rng.matrix(n, d), w(d), w(d), w(d), w(d), { heads: rng.pick([1, 2, 4]), causal: rng.bool() });
      expect(r.output.data.length).toBe(n * d);
      return;
    }
    case 4: // d_model not divisible by heads (C++ check)
      return expectEngineError(() => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 3 }));
    case 5: // shape mismatch in attention (C++ check, after the matrices were copied in)
      return expectEngineError(() => engine.attention(rng.matrix(4, 8), rng.matrix(5, 7), rng.matrix(5, 3)));
    case 6: {
      // a NaN in X, a wrong-length W_o, or a bad mask in the pipeline (C++ checks after copying)
      const variant = rng.int(0, 2);
      if (variant === 0) {
        const X = rng.matrix(6, 8);
        X.data[rng.int(0, 47)] = NaN;
        return expectEngineError(() => engine.multiHeadAttention(X, w(8), w(8), w(8), w(8), { heads: 2 }));
      }
      if (variant === 1)
        return expectEngineError(() => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, W_o: new Float32Array(63) }));
      return expectEngineError(() => engine.pipeline({ tokens: SENTENCE, dModel: 8, heads: 2, mask: causalMask(8) }));
    }
    default: // too many tokens; a mask of the wrong size in attention()
      if (rng.bool()) return expectEngineError(() => engine.pipeline({ tokens: new Array<string>(600).fill('a'), dModel: 8, heads: 2 }));
      return expectEngineError(() => engine.attention(rng.matrix(3, 4), rng.matrix(5, 4), rng.matrix(5, 2), { mask: new Uint8Array(14) }));
  }
}

/** The largest call of every kind, so later calls fit in memory malloc already has. */
function warmUp(engine: AttentionEngine, rng: Rng): void {
  const w = (d: number) => rng.matrix(d, d, 1 / Math.sqrt(d));
  for (let heads = 1; heads <= 4; heads *= 2) engine.pipeline({ tokens: SENTENCE, dModel: 8, heads, causal: true });
  engine.attention(rng.matrix(16, 16), rng.matrix(16, 16), rng.matrix(16, 16), { mask: new Uint8Array(256).fill(1) });
  engine.multiHeadAttention(rng.matrix(16, 16), w(16), w(16), w(16), w(16), { heads: 4, causal: true });
  for (let k = 0; k < 64; ++k) call(engine, rng, k);
}

describe('no leaks', () => {
  it(`${CALLS} mixed calls leave allocatedBytes and memoryBytes unchanged`, async () => {
    const engine: AttentionEngine = await loadSimdEngine();
    const rng = new Rng(0x1eaf);
    warmUp(engine, rng);
    const start = engine.heapStats();
    // Between calls the engine holds no malloc'd memory at all (every buffer lives inside one
    // call), so the baseline is 0 live bytes; any leak would show up as a positive drift.
    expect(start.allocatedBytes).toBeGreaterThanOrEqual(0);
    expect(start.memoryBytes % 65536).toBe(0);
    expect(start.memoryBytes).toBeGreaterThan(0);
    const checkpoints: number[] = [];
    for (let i = 0; i < CALLS; ++i) {
      call(engine, rng, i);
      if ((i + 1) % 2000 === 0) checkpoints.push(engine.heapStats().allocatedBytes - start.allocatedBytes);
    }
    const end = engine.heapStats();
    expect(checkpoints, 'allocatedBytes drift after every 2000 calls').toEqual([0, 0, 0, 0, 0]);
    expect(end.allocatedBytes).toBe(start.allocatedBytes);
    expect(end.memoryBytes).toBe(start.memoryBytes);
  });

  it('heapStats sees the heap grow for a big call, and the same call again reuses it', async () => {
    const engine: AttentionEngine = await loadSimdEngine(); // a fresh instance: minimal memory
    const before = engine.heapStats();
    const config = { tokens: Array.from({ length: 300 }, (_, i) => `w${i}`), dModel: 256, heads: 8 };
    const first = engine.pipeline(config); // 8 x 300 x 300 weights, three such tensors: >8 MB
    const grown = engine.heapStats();
    expect(grown.memoryBytes).toBeGreaterThan(before.memoryBytes);
    expect(grown.allocatedBytes).toBe(before.allocatedBytes);
    const second = engine.pipeline(config);
    expect(engine.heapStats()).toEqual(grown);
    // The results are JS copies, independent of wasm memory: the same numbers again are the first
    // result's arrays (shared, read-only), and a run with other numbers into the same wasm block
    // leaves them as they were.
    expect(second.weights.data).toBe(first.weights.data);
    const kept = Array.from(first.output.data);
    const third = engine.pipeline({ ...config, seed: 2 });
    expect(third.weights.data).not.toBe(first.weights.data);
    expect(Array.from(third.output.data)).not.toEqual(kept);
    expect(Array.from(first.output.data)).toEqual(kept);
  });
});
