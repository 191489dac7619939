// The Chromium half of the training benchmark (tests/bench/training.ts builds it with Vite and drives
// it): our Trainer on the SIMD engine and the tfjs peer on tfjs-backend-wasm (one thread), in the
// renderer's main thread. Node reads the renderer's main-thread CPU time around each call over CDP.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import { version_wasm } from '@tensorflow/tfjs-backend-wasm';
import { createEngine } from '../../../../web/src/engine/engine';
import { Trainer } from '../../../../web/src/engine/training';
import { tfjsTrainer, type TfjsTrainer, type TrainingShape } from '../tfjs-training';
import { useTfjsWasmBackend } from '../tfjs-wasm-backend';

export interface TrainingPageInfo {
  userAgent: string;
  ours: { parameterCount: number };
  tfjs: { parameterCount: number; version: string } | { error: string };
}

declare global {
  interface Window {
    trainingBench: {
      init(shape: TrainingShape): Promise<TrainingPageInfo>;
      /** `steps` steps of ours; returns the last loss. */
      ours(steps: number): number;
      tfjs(steps: number): number;
    };
  }
}

let ours: Trainer | null = null;
let peer: TfjsTrainer | null = null;

window.trainingBench = {
  async init(shape) {
    ours = Trainer.create(await createEngine(), {});
    ours.step(5);
    let tfjs: TrainingPageInfo['tfjs'];
    try {
      await useTfjsWasmBackend(tf);
      peer = tfjsTrainer(tf, shape);
      peer.step(3);
      tfjs = { parameterCount: peer.parameterCount, version: version_wasm };
    } catch (error) {
      tfjs = { error: String(error) };
    }
    return { userAgent: navigator.userAgent, ours: { parameterCount: ours.describe().parameterCount }, tfjs };
  },
  ours: (steps) => ours!.step(steps).loss,
  tfjs: (steps) => peer!.step(steps),
};
document.getElementById('status')!.textContent = 'ready';
document.documentElement.dataset.benchReady = 'true';
