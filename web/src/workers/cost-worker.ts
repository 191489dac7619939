// The "Run it on my machine" measurement, off the main thread so the page never freezes. The page
// (figures/cost-run.ts) starts this worker only when the reader presses Run, sends one CostRunRequest,
// and terminates the worker to cancel. The worker has its own engines, separate from the page's:
// one instance per kernel, so each instance's WebAssembly memory high-water mark belongs to one
// kernel (wasm memory only grows, and sizes run in ascending order, so after size n it is the peak
// that size needed: the inputs, the result, the engine's 16 MiB start, and for the naive kernel the
// (n, n) weight matrix).
import { createEngine, type AttentionEngine, type Matrix } from '../engine/engine';
import { engineWasmUrl } from '../engine/wasm-url';
import {
  COST_BLOCK,
  COST_D,
  planCost,
  type CostItem,
  type CostKernel,
  type CostMeasurement,
  type CostRunRequest,
  type CostWorkerMessage,
} from './cost-plan';

const scope = self as unknown as {
  postMessage(message: CostWorkerMessage): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<CostRunRequest>) => void): void;
};

const post = (message: CostWorkerMessage) => scope.postMessage(message);

/** Uniform in [-1, 1) from a small xorshift generator: the same inputs on every run. */
function randomMatrix(rows: number, cols: number, seed: number): Matrix {
  const data = new Float32Array(rows * cols);
  let s = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < data.length; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    data[i] = s / 2147483648 - 1;
  }
  return { rows, cols, data };
}

/** Two engine instances from one download: the wasm file is fetched once and compiled per instance. */
async function createEngines(pageWasmUrl: string | undefined): Promise<{ tiled: AttentionEngine; naive: AttentionEngine }> {
  const url = typeof pageWasmUrl === 'string' && pageWasmUrl ? pageWasmUrl : engineWasmUrl();
  let wasmBinary: ArrayBuffer | undefined;
  try {
    const response = await fetch(url, { credentials: 'same-origin' });
    if (response.ok) wasmBinary = await response.arrayBuffer();
  } catch {
    // createEngine downloads it again and says precisely what went wrong.
  }
  const options = wasmBinary ? { wasmBinary } : { wasmUrl: url };
  const tiled = await createEngine(options);
  const naive = await createEngine(options);
  return { tiled, naive };
}

function kernelCall(engine: AttentionEngine, kernel: CostKernel, inputs: { Q: Matrix; K: Matrix; V: Matrix }): () => unknown {
  const { Q, K, V } = inputs;
  return kernel === 'naive'
    ? () => engine.attention(Q, K, V, { scale: true })
    : () => engine.flashAttention(Q, K, V, { blockQ: COST_BLOCK, blockK: COST_BLOCK, scale: true });
}

/**
 * V8 first runs WebAssembly with its baseline compiler and swaps in optimised code, compiled in the
 * background, once a function is hot. Without this warm-up the first sizes would be timed on the slow
 * code and the line would bend. Calls at n = WARMUP_N until two in a row take the same time (10%).
 */
const WARMUP_N = 512;
function warmUp(engine: AttentionEngine, kernel: CostKernel): void {
  const call = kernelCall(engine, kernel, {
    Q: randomMatrix(WARMUP_N, COST_D, 7),
    K: randomMatrix(WARMUP_N, COST_D, 8),
    V: randomMatrix(WARMUP_N, COST_D, 9),
  });
  const start = performance.now();
  let last = Infinity;
  for (let calls = 1; ; calls++) {
    const t0 = performance.now();
    call();
    const t = performance.now() - t0;
    const elapsed = performance.now() - start;
    if ((calls >= 4 && elapsed > 250 && Math.abs(t - last) <= 0.1 * last) || elapsed > 3000) return;
    last = t;
  }
}

function measure(engine: AttentionEngine, item: CostItem, inputs: { Q: Matrix; K: Matrix; V: Matrix }): CostMeasurement {
  const call = kernelCall(engine, item.kernel, inputs);
  if (item.warmup) call();
  const times: number[] = [];
  for (let r = 0; r < item.reps; r++) {
    const start = performance.now();
    call();
    times.push(performance.now() - start);
  }
  return { kernel: item.kernel, n: item.n, ms: Math.min(...times), reps: item.reps, memoryBytes: engine.heapStats().memoryBytes };
}

async function run(request: CostRunRequest): Promise<void> {
  const plan = planCost({ maxN: request.maxN, budgetBytes: request.budgetBytes });
  const engines = await createEngines(request.wasmUrl);
  warmUp(engines.tiled, 'tiled');
  warmUp(engines.naive, 'naive');
  post({ type: 'started', plan, simd: engines.tiled.info().simd });
  const workTotal = plan.reduce((sum, item) => sum + item.work, 0);
  let workDone = 0;
  let inputs = null as { n: number; Q: Matrix; K: Matrix; V: Matrix } | null;
  for (const [index, item] of plan.entries()) {
    post({ type: 'measuring', item, index });
    if (inputs?.n !== item.n)
      inputs = { n: item.n, Q: randomMatrix(item.n, COST_D, 1), K: randomMatrix(item.n, COST_D, 2), V: randomMatrix(item.n, COST_D, 3) };
    let result: CostMeasurement;
    try {
      result = measure(engines[item.kernel], item, inputs);
    } catch (error) {
      post({ type: 'error', message: error instanceof Error ? error.message : String(error), item });
      return;
    }
    workDone += item.work;
    post({ type: 'measured', result, index, workDone, workTotal });
  }
  post({ type: 'done' });
}

let started = false;
scope.addEventListener('message', (event) => {
  if (event.data?.type !== 'run' || started) return;
  started = true;
  run(event.data).catch((error: unknown) => post({ type: 'error', message: error instanceof Error ? error.message : String(error) }));
});
