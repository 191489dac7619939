// The bench page: the same suite as the Node process, in Chromium. tests/bench/browser.ts builds it
// with Vite, serves it with the browser-test harness (cross-origin isolated, so onnxruntime-web's
// shared-memory wasm can load; every participant still runs on one thread) and calls
// window.runBench(). The wasm files of the peers are copied next to the page by browser.ts.
import * as ort from 'onnxruntime-web/wasm';
import * as tf from '@tensorflow/tfjs-core';
import { version_wasm } from '@tensorflow/tfjs-backend-wasm';
import { AttentionEngine, createEngine } from '../../../web/src/engine/engine';
import createScalarModule from '../../../web/src/engine/generated/attention_engine_scalar.mjs';
import createScalarLater from '../../../web/src/engine/generated/attention_engine_scalar_later.mjs';
import { selectedShapes } from '../options';
import { loadRoof } from '../peers/roof';
import { measureReader, READER_MODELS, type ReaderTiming } from '../reader-timing';
import { runEnvironment, type EnvironmentResult, type Loaded } from '../setup';
import { useTfjsWasmBackend } from '../peers/tfjs-wasm-backend';

declare global {
  interface Window {
    runBench(args: string[]): Promise<EnvironmentResult>;
    runReaderBench(): Promise<ReaderTiming[]>;
    /** This renderer's main-thread CPU time in ms (CDP Performance.getMetrics ThreadTime), exposed by browser.ts. */
    __threadTime?: () => Promise<number>;
  }
}

const status = document.getElementById('status')!;
const log = (line: string) => {
  status.textContent = line;
  console.log(`[chromium] ${line}`);
};

/**
 * CPU time over CDP: a pair of reads costs the renderer about a millisecond itself, measured here and
 * subtracted; samples of >= 15 ms keep what remains of that error to a few percent.
 */
async function cpuClock(): Promise<{ clock: (() => Promise<number>) | undefined; cpuOverheadMs: number }> {
  const clock = window.__threadTime;
  if (!clock) return { clock, cpuOverheadMs: 0 };
  const pairs: number[] = [];
  for (let i = 0; i < 21; ++i) {
    const a = await clock();
    pairs.push((await clock()) - a);
  }
  pairs.sort((x, y) => x - y);
  return { clock, cpuOverheadMs: pairs[10]! };
}

window.runReaderBench = async () => {
  const engine = await createEngine();
  const models = await Promise.all(
    READER_MODELS.map(async ({ label, file }) => ({ label, bytes: new Uint8Array(await (await fetch(`./${file}`)).arrayBuffer()) })),
  );
  const { clock, cpuOverheadMs } = await cpuClock();
  return measureReader(engine, models, { log, ...(clock ? { cpuClock: clock, cpuOverheadMs } : {}) });
};

window.runBench = async (args: string[]) => {
  const scalarUrl = new URL('../../../web/src/engine/generated/attention_engine_scalar.wasm', import.meta.url).href;
  const scalarLaterUrl = new URL('../../../web/src/engine/generated/attention_engine_scalar_later.wasm', import.meta.url).href;
  const simd = await createEngine({ later: true });
  const scalar = new AttentionEngine(await createScalarModule({ locateFile: () => scalarUrl }), undefined, () =>
    Promise.resolve(() => createScalarLater({ locateFile: () => scalarLaterUrl })),
  );
  await scalar.loadLater();
  const roof = await loadRoof(await (await fetch('./roof_probe.wasm')).arrayBuffer());
  const loaded: Loaded = { simd, scalar, ort: null, tf: null, tfVersion: '', roof };
  try {
    ort.env.wasm.wasmPaths = { wasm: new URL('./ort-wasm-simd-threaded.wasm', location.href).href };
    loaded.ort = ort as unknown as Loaded['ort'];
  } catch (error) {
    loaded.ortError = String(error);
  }
  try {
    await useTfjsWasmBackend(tf);
    loaded.tf = tf;
    loaded.tfVersion = version_wasm;
  } catch (error) {
    loaded.tfError = String(error);
  }
  const version = /Chrome\/([\d.]+)/.exec(navigator.userAgent)?.[1] ?? navigator.userAgent;
  const { clock, cpuOverheadMs } = await cpuClock();
  const result = await runEnvironment('Chromium', version, loaded, {
    shapes: selectedShapes(args),
    log,
    minSampleMs: clock ? 15 : 2,
    ...(clock ? { cpuClock: clock, cpuOverheadMs } : {}),
  });
  result.environment.userAgent = navigator.userAgent;
  return result;
};
status.textContent = 'ready';
document.documentElement.dataset.benchReady = 'true';
