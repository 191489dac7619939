// Builds the list of participants for one environment from what that environment loaded. Node and the
// bench page differ only in how they load the wasm files.
import type * as OrtNamespace from 'onnxruntime-web';
import type * as TfNamespace from '@tensorflow/tfjs-core';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { type Shape } from './data';
import { flashPeer, naivePeer } from './peers/ours';
import { configureOrt, ortPeer } from './peers/ort';
import { plainPeer } from './peers/plain';
import { tfjsPeer } from './peers/tfjs';
import { runPipelineCases, runSuite, type CaseResult, type CpuClock, type PipelineCase, type Roof, type SuiteOptions } from './suite';

export const REFERENCE_ID = 'flash-simd';

export interface Loaded {
  simd: AttentionEngine;
  scalar: AttentionEngine;
  ort: typeof OrtNamespace | null;
  ortError?: string;
  tf: typeof TfNamespace | null;
  tfVersion: string;
  tfError?: string;
  roof: Roof;
}

export interface EnvironmentResult {
  environment: { name: string; version: string; userAgent?: string; clock: string };
  cases: CaseResult[];
  pipeline: PipelineCase[];
  unavailable: { id: string; reason: string }[];
  seconds: number;
}

export async function runEnvironment(
  name: string,
  version: string,
  loaded: Loaded,
  options: {
    shapes?: Shape[];
    budgetMs?: number;
    maxRunMs?: number;
    cpuClock?: CpuClock;
    cpuOverheadMs?: number;
    minSampleMs?: number;
    log: (line: string) => void;
  },
): Promise<EnvironmentResult> {
  const t0 = performance.now();
  const peers = [
    flashPeer(REFERENCE_ID, 'ours: flashAttention (heads in one call), wasm SIMD', 'ours', loaded.simd),
    flashPeer('flash-simd-out', 'ours: flashAttention into a reused output array (options.output), wasm SIMD', 'ours', loaded.simd, true),
    naivePeer('naive-simd', 'ours: attention (naive, returns weights), wasm SIMD', 'ours', loaded.simd),
    flashPeer('flash-scalar', 'ours: flashAttention (heads in one call), scalar wasm build', 'ours', loaded.scalar),
    plainPeer(),
  ];
  const unavailable: { id: string; reason: string }[] = [];
  if (loaded.ort) {
    configureOrt(loaded.ort);
    peers.push(ortPeer(loaded.ort));
  } else unavailable.push({ id: 'ort-wasm', reason: loaded.ortError ?? 'not loaded' });
  if (loaded.tf) peers.push(tfjsPeer(loaded.tf, loaded.tfVersion));
  else unavailable.push({ id: 'tfjs-wasm', reason: loaded.tfError ?? 'not loaded' });

  const suiteOptions: SuiteOptions = { referenceId: REFERENCE_ID, log: options.log };
  if (options.shapes) suiteOptions.shapes = options.shapes;
  if (options.budgetMs) suiteOptions.budgetMs = options.budgetMs;
  if (options.maxRunMs) suiteOptions.maxRunMs = options.maxRunMs;
  if (options.cpuClock) suiteOptions.cpuClock = options.cpuClock;
  if (options.cpuOverheadMs) suiteOptions.cpuOverheadMs = options.cpuOverheadMs;
  if (options.minSampleMs) suiteOptions.minSampleMs = options.minSampleMs;
  const cases = await runSuite(peers, loaded.roof, suiteOptions);

  // The walkthrough's own call: every intermediate, 8 heads, at the small n the page shows. Each call
  // rotates the sentence by one more word (three rotations in turn), as a reader's edit would: every
  // tensor but the seeded weights is new, so none is shared with the engine's last two results.
  const words = ['the', 'animal', 'did', 'not', 'cross', 'street', 'because', 'it', 'was', 'too', 'tired', 'wide'];
  const pipeline = await runPipelineCases(
    (n, dModel, heads) => {
      const tokens = Array.from({ length: n }, (_, i) => words[i % words.length]! + (i >= words.length ? String(i) : ''));
      const rotations = [0, 1, 2].map((k) => ({
        tokens: [...tokens.slice(k), ...tokens.slice(0, k)],
        dModel,
        heads,
        causal: false,
        scale: true,
        seed: 1,
      }));
      let call = 0;
      return () => loaded.simd.pipeline(rotations[call++ % 3]!);
    },
    options.log,
    options.cpuClock,
    options.minSampleMs ?? 2,
    options.cpuOverheadMs ?? 0,
  );

  const clock = options.cpuClock
    ? `CPU time of the thread running the benchmark${options.cpuOverheadMs ? ` (clock reads cost ${options.cpuOverheadMs.toFixed(2)} ms, subtracted)` : ''}`
    : 'wall time';
  return { environment: { name, version, clock }, cases, pipeline, unavailable, seconds: (performance.now() - t0) / 1000 };
}
