// The pipeline's wire format is the C++ side's (cpp/pipeline.h pipeline_fields, cpp/bindings/attention.cpp
// pipelineFormat): engine.ts reads it and mirrors nothing. This pins what it publishes and that a
// snapshot built from it has every field of PipelineSnapshot with the shape the walkthrough draws;
// and that the limits the page's settings read from cpp/engine_limits.h are the engine's.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AttentionEngine, PipelineSnapshot, RawEngineModule } from '../../web/src/engine/engine';
import { ENGINE_LIMITS } from '../../web/src/engine/limits';
import { LIMITS } from '../../web/src/settings';
import { loadSimdEngine } from './load-engine';

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadSimdEngine();
});
const raw = () => (engine as unknown as { raw: RawEngineModule }).raw;

const FIELDS = [
  'W_q',
  'W_k',
  'W_v',
  'W_o',
  'X',
  'Q',
  'K',
  'V',
  'Q_heads',
  'K_heads',
  'V_heads',
  'scores',
  'scoresScaled',
  'weights',
  'headOutputs',
  'merged',
  'output',
  'weightsUnscaled',
  'weightsCausal',
  'weightsMaskedAfter',
  'mask',
  'fullyMaskedRows',
];

describe('the published pipeline format', () => {
  it('names the header words, the arrays in block order and the words of each array record', () => {
    expect(raw().pipelineFormat()).toEqual({
      header: ['n', 'dModel', 'heads', 'dK', 'scaleFactor', 'comparisonHead', 'blockAddress', 'blockBytes'],
      floatWords: ['scaleFactor'],
      fields: FIELDS,
      fieldWords: 6,
      fieldWordNames: ['byteOffset', 'element', 'rank', 'dim0', 'dim1', 'dim2'],
      elements: ['float32', 'uint8'],
    });
  });

  it('a snapshot built from it has exactly the scalars and arrays of PipelineSnapshot, with their shapes', () => {
    const tokens = ['the', 'animal', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired.'];
    const s = engine.pipeline({ tokens, dModel: 8, heads: 2, causal: true, comparisonHead: 1, scale: false });
    expect(Object.keys(s).sort()).toEqual(['n', 'dModel', 'heads', 'dK', 'scaleFactor', 'comparisonHead', ...FIELDS].sort());
    expect([s.n, s.dModel, s.heads, s.dK, s.scaleFactor, s.comparisonHead]).toEqual([9, 8, 2, 4, 1, 1]);
    const shape = (value: PipelineSnapshot[keyof PipelineSnapshot]) => {
      if (value instanceof Uint8Array) return ['uint8', value.length];
      const v = value as { heads?: number; rows: number; cols: number; data: Float32Array | Uint8Array };
      return [
        v.data instanceof Float32Array ? 'float32' : 'uint8',
        ...(v.heads === undefined ? [] : [v.heads]),
        v.rows,
        v.cols,
        v.data.length,
      ];
    };
    const shapes = Object.fromEntries(FIELDS.map((name) => [name, shape(s[name as keyof PipelineSnapshot])]));
    expect(shapes).toEqual({
      W_q: ['float32', 8, 8, 64],
      W_k: ['float32', 8, 8, 64],
      W_v: ['float32', 8, 8, 64],
      W_o: ['float32', 8, 8, 64],
      X: ['float32', 9, 8, 72],
      Q: ['float32', 9, 8, 72],
      K: ['float32', 9, 8, 72],
      V: ['float32', 9, 8, 72],
      Q_heads: ['float32', 2, 9, 4, 72],
      K_heads: ['float32', 2, 9, 4, 72],
      V_heads: ['float32', 2, 9, 4, 72],
      scores: ['float32', 2, 9, 9, 162],
      scoresScaled: ['float32', 2, 9, 9, 162],
      weights: ['float32', 2, 9, 9, 162],
      headOutputs: ['float32', 2, 9, 4, 72],
      merged: ['float32', 9, 8, 72],
      output: ['float32', 9, 8, 72],
      weightsUnscaled: ['float32', 9, 9, 81],
      weightsCausal: ['float32', 9, 9, 81],
      weightsMaskedAfter: ['float32', 9, 9, 81],
      mask: ['uint8', 9, 9, 81],
      fullyMaskedRows: ['uint8', 9],
    });
    // The arrays are where the header says: the causal mask, and the comparison head's causal weights.
    expect(Array.from(s.mask.data.subarray(0, 18))).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0]);
    expect(Array.from(s.weightsCausal.data)).toEqual(Array.from(s.weights.data.subarray(81, 162)));
  });
});

describe('engine limits the page restates', () => {
  it('are read from cpp/engine_limits.h and equal what the engine publishes', () => {
    const { limits } = engine.info();
    expect(ENGINE_LIMITS).toEqual({ maxHeads: limits.maxHeads, maxSeed: limits.maxSeed });
    expect([ENGINE_LIMITS.maxHeads, ENGINE_LIMITS.maxSeed]).toEqual([64, 4294967295]);
    expect([LIMITS.maxHeads, LIMITS.maxSeed]).toEqual([limits.maxHeads, limits.maxSeed]);
  });
});
