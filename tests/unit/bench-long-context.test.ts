// The long-context benchmark's participants (tests/bench/long-context.ts) compute what ours computes:
// every onnxruntime-web graph built by tests/bench/peers/onnx-long.ts and onnx-model.ts (GroupQueryAttention
// with and without local_window_size, decoding with past key/value, the masked and linear plain graphs)
// against our kernel on the same inputs, at an n past the window and the stride so that every part of
// each pattern is exercised. The benchmark makes the same check before it times anything; this keeps the
// graphs and the window's off-by-one right without running it.
import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { sparsePatternMask } from '../../web/src/engine/long-context';
import { D_K, makeInputs, maxRelError } from '../bench/data';
import { KERNELS, kernelPeers, patternAllows, PATTERNS } from '../bench/long-context';
import { configureOrt } from '../bench/peers/ort';
import { loadSimdEngine } from './load-engine';

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadSimdEngine();
  configureOrt(ort);
});

describe('the long-context benchmark', () => {
  it("builds the plain graphs' masks with the engine's own pattern rule", () => {
    const n = 600; // past the 256-wide window, the 16 global tokens and two strides of 256
    for (const pattern of [...Object.values(PATTERNS), { window: 5, global: 3, stride: 7, causal: false }]) {
      const { mask } = sparsePatternMask(engine, n, pattern);
      let differ = 0;
      for (let i = 0; i < n; ++i) for (let j = 0; j < n; ++j) if (Number(patternAllows(pattern, i, j)) !== mask.data[i * n + j]) ++differ;
      expect(differ, JSON.stringify(pattern)).toBe(0);
    }
  });

  for (const kernel of KERNELS.filter((k) => k.compared))
    it(`gives onnxruntime-web's ${kernel.id} the inputs that reproduce ours`, async () => {
      const shape = { n: 300, heads: kernel.heads, d: D_K, causal: kernel.id !== 'linear' };
      const inputs = makeInputs(shape);
      const [ours, ...theirs] = kernelPeers(kernel, engine, ort);
      expect(theirs.length).toBeGreaterThan(0);
      const oursRunner = await ours!.prepare(inputs);
      const want = await oursRunner.output();
      oursRunner.dispose?.();
      for (const peer of theirs) {
        const runner = await peer.prepare(inputs);
        const got = await runner.output();
        runner.dispose?.();
        expect(got.length, peer.id).toBe(want.length);
        expect(maxRelError(got, want), peer.id).toBeLessThan(1e-5);
      }
    });
});
