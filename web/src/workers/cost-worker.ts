// The "Run it on my machine" measurements, off the main thread so the page never freezes. The page
// (figures/cost-run.ts) starts this worker only when the reader presses Run, sends one CostRunRequest,
// and terminates the worker to cancel. The worker has its own engines, separate from the page's:
// one for the naive kernel and one shared by the others (cost-plan.ts, engineGroup), so the naive
// kernel's WebAssembly memory high-water mark is its own (wasm memory only grows, and sizes run in
// ascending order, so after size n it is the peak that size needed: the inputs, the result, the
// engine's 16 MiB start, and for the naive kernel the (n, n) weight matrix).
import { createEngine, type AttentionEngine, type Matrix } from '../engine/engine';
import { linearAttention, sparseAttention } from '../engine/long-context';
import { engineWasmUrl } from '../engine/wasm-url';
import {
  COST_BLOCK,
  COST_D,
  COST_SUITES,
  RUN_PATTERN,
  engineGroup,
  planCost,
  type EngineGroup,
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

/** The engine instances of the suite's groups, from one download: the wasm file is fetched once and compiled per instance. */
async function createEngines(pageWasmUrl: string | undefined, groups: readonly EngineGroup[]): Promise<Map<EngineGroup, AttentionEngine>> {
  const url = typeof pageWasmUrl === 'string' && pageWasmUrl ? pageWasmUrl : engineWasmUrl();
  let wasmBinary: ArrayBuffer | undefined;
  try {
    const response = await fetch(url, { credentials: 'same-origin' });
    if (response.ok) wasmBinary = await response.arrayBuffer();
  } catch {
    // createEngine downloads it again and says precisely what went wrong.
  }
  const options = wasmBinary ? { wasmBinary } : { wasmUrl: url };
  const engines = new Map<EngineGroup, AttentionEngine>();
  for (const group of groups) engines.set(group, await createEngine(options));
  return engines;
}

/** Every kernel sees the whole sequence (no causal mask), as full attention does. */
function kernelCall(engine: AttentionEngine, kernel: CostKernel, inputs: { Q: Matrix; K: Matrix; V: Matrix }): () => unknown {
  const { Q, K, V } = inputs;
  const { window, global, stride } = RUN_PATTERN;
  switch (kernel) {
    case 'naive':
      return () => engine.attention(Q, K, V, { scale: true });
    case 'tiled':
      return () => engine.flashAttention(Q, K, V, { blockQ: COST_BLOCK, blockK: COST_BLOCK, scale: true });
    case 'window':
      return () => sparseAttention(engine, Q, K, V, { window, causal: false });
    case 'global':
      return () => sparseAttention(engine, Q, K, V, { window, global, causal: false });
    case 'strided':
      return () => sparseAttention(engine, Q, K, V, { window, stride, causal: false });
    case 'linear':
      return () => linearAttention(engine, Q, K, V, { causal: false });
  }
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
  const suite = request.suite === 'longContext' ? 'longContext' : 'flash';
  const plan = planCost({ suite, maxN: request.maxN, budgetBytes: request.budgetBytes });
  const kernels = COST_SUITES[suite].kernels;
  const engines = await createEngines(request.wasmUrl, [...new Set(kernels.map(engineGroup))]);
  const engineOf = (kernel: CostKernel) => engines.get(engineGroup(kernel))!;
  for (const kernel of kernels) warmUp(engineOf(kernel), kernel);
  post({ type: 'started', plan, simd: engineOf(kernels[0]).info().simd });
  const workTotal = plan.reduce((sum, item) => sum + item.work, 0);
  let workDone = 0;
  let inputs = null as { n: number; Q: Matrix; K: Matrix; V: Matrix } | null;
  for (const [index, item] of plan.entries()) {
    post({ type: 'measuring', item, index });
    if (inputs?.n !== item.n)
      inputs = { n: item.n, Q: randomMatrix(item.n, COST_D, 1), K: randomMatrix(item.n, COST_D, 2), V: randomMatrix(item.n, COST_D, 3) };
    let result: CostMeasurement;
    try {
      result = measure(engineOf(item.kernel), item, inputs);
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
