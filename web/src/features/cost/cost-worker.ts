// The "Run it on my machine" measurements, off the main thread so the page never freezes. The page
// (cost-run.ts) starts this worker only when the reader presses Run, sends one CostRunRequest,
// and terminates the worker to cancel. The worker has its own engines, separate from the page's:
// one for the naive kernel and one shared by the others (cost-plan.ts, engineGroup), so the naive
// kernel's WebAssembly memory high-water mark is its own (wasm memory only grows, and sizes run in
// ascending order, so after size n it is the peak that size needed: the inputs, the result, the
// engine's 16 MiB start, and for the naive kernel the (n, n) weight matrix).
import { createEngine, type AttentionEngine, type Matrix } from '../../engine/engine';
import { decodeRecompute, KVCache, linearAttention, sparseAttention } from '../../engine/long-context';
import { engineWasmUrl, laterWasmUrl } from '../../engine/wasm-url';
import {
  COST_BLOCK,
  COST_D,
  COST_SUITES,
  RUN_PATTERN,
  clampDecodeShape,
  engineGroup,
  planCost,
  type CostSuiteId,
  type DecodeShape,
  type EngineGroup,
  type CostItem,
  type CostKernel,
  type CostMeasurement,
  type CostRunRequest,
  type CostWorkerMessage,
} from './cost-plan';
import { fastestCall } from './timed-call';

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

/** The page's URL of a .wasm when it sent one (the worker's may be stale), else the worker's own. */
const urlOr = (sent: unknown, own: () => string) => (typeof sent === 'string' && sent ? sent : own());

/** The bytes at `url`, or undefined: createEngine downloads it again and says precisely what went wrong. */
async function bytesAt(url: string): Promise<ArrayBuffer | undefined> {
  try {
    const response = await fetch(url, { credentials: 'same-origin' });
    if (response.ok) return await response.arrayBuffer();
  } catch {
    // said by createEngine
  }
  return undefined;
}

/**
 * The engine instances of the suite's groups, from one download of each module: fetched once and
 * compiled per instance. The naive kernel's engine is the core alone; the others need the later module.
 */
async function createEngines(request: CostRunRequest, groups: readonly EngineGroup[]): Promise<Map<EngineGroup, AttentionEngine>> {
  const url = urlOr(request.wasmUrl, engineWasmUrl);
  const laterUrl = urlOr(request.laterWasmUrl, laterWasmUrl);
  const needsLater = groups.some((group) => group !== 'naive');
  const [wasmBinary, laterWasmBinary] = await Promise.all([bytesAt(url), needsLater ? bytesAt(laterUrl) : undefined]);
  const engines = new Map<EngineGroup, AttentionEngine>();
  for (const group of groups)
    engines.set(group, await createEngine({ wasmUrl: url, wasmBinary, laterWasmUrl: laterUrl, laterWasmBinary, later: group !== 'naive' }));
  return engines;
}

interface Inputs {
  Q: Matrix;
  K: Matrix;
  V: Matrix;
}

/** A kernel ready to be timed at one size: call() runs it once; dispose() frees what it holds in the engine. */
interface Prepared {
  call(): void;
  dispose(): void;
}

/** Every attention kernel sees the whole sequence (no causal mask), as full attention does. */
function attentionCall(engine: AttentionEngine, kernel: CostKernel, { Q, K, V }: Inputs): () => unknown {
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
    default:
      return () => linearAttention(engine, Q, K, V, { causal: false });
  }
}

/** Row i of a (t, heads · d) matrix as (heads, d). */
const rowOf = (m: Matrix, i: number, heads: number): Matrix => ({
  rows: heads,
  cols: m.cols / heads,
  data: m.data.subarray(i * m.cols, (i + 1) * m.cols),
});

/**
 * Generating token t: with a cache of the t tokens' keys and values (filled before the timing), one
 * query row per head against them; without, causal attention over all t tokens again (the last row is
 * the new token's). Multi-head: a KV head per query head; grouped: the chosen KV heads.
 */
function prepareDecode(engine: AttentionEngine, kernel: CostKernel, t: number, shape: DecodeShape): Prepared {
  const { heads } = shape;
  const kvHeads = kernel === 'grouped' ? shape.kvHeads : heads;
  const K = randomMatrix(t, kvHeads * COST_D, 2);
  const V = randomMatrix(t, kvHeads * COST_D, 3);
  if (kernel === 'recompute') {
    const Q = randomMatrix(t, heads * COST_D, 1);
    return {
      call: () => decodeRecompute(engine, Q, K, V, { heads, kvHeads }),
      dispose: () => {},
    };
  }
  const cache = KVCache.create(engine, { layers: 1, kvHeads, dK: COST_D, capacity: t });
  for (let i = 0; i < t; i++) cache.append(0, rowOf(K, i, kvHeads), rowOf(V, i, kvHeads));
  const q = randomMatrix(heads, COST_D, 1);
  return {
    call: () => cache.decode(0, q),
    dispose: () => cache.dispose(),
  };
}

const DECODE_KERNELS: readonly CostKernel[] = COST_SUITES.decode.kernels;

function prepare(engine: AttentionEngine, item: Pick<CostItem, 'kernel' | 'n'>, inputs: () => Inputs, shape: DecodeShape): Prepared {
  if (DECODE_KERNELS.includes(item.kernel)) return prepareDecode(engine, item.kernel, item.n, shape);
  return { call: attentionCall(engine, item.kernel, inputs()), dispose: () => {} };
}

/**
 * V8 first runs WebAssembly with its baseline compiler and swaps in optimised code, compiled in the
 * background, once a function is hot. Without this warm-up the first sizes would be timed on the slow
 * code and the line would bend. Timed calls at n = WARMUP_N until two in a row take the same time (10%).
 */
const WARMUP_N = 512;
function warmUp(engine: AttentionEngine, kernel: CostKernel, shape: DecodeShape): void {
  const inputs = () => ({
    Q: randomMatrix(WARMUP_N, COST_D, 7),
    K: randomMatrix(WARMUP_N, COST_D, 8),
    V: randomMatrix(WARMUP_N, COST_D, 9),
  });
  const prepared = prepare(engine, { kernel, n: WARMUP_N }, inputs, shape);
  const start = performance.now();
  let last = Infinity;
  try {
    for (let calls = 1; ; calls++) {
      // Timed like the measurement, so a decode step shorter than the timer's tick is not read as 0 = 0.
      const t = fastestCall(prepared.call, 1).ms;
      const elapsed = performance.now() - start;
      if ((calls >= 4 && elapsed > 250 && Math.abs(t - last) <= 0.1 * last) || elapsed > 3000) return;
      last = t;
    }
  } finally {
    prepared.dispose();
  }
}

function measure(engine: AttentionEngine, item: CostItem, prepared: Prepared): CostMeasurement {
  if (item.warmup) prepared.call();
  const { ms } = fastestCall(prepared.call, item.reps);
  return {
    kernel: item.kernel,
    n: item.n,
    ms,
    reps: item.reps,
    // The naive kernel runs in the engine's core, every other one in its later module: that instance's memory.
    memoryBytes: engine.heapStats(engineGroup(item.kernel) === 'naive' ? 'core' : 'later').memoryBytes,
  };
}

const SUITE_IDS = Object.keys(COST_SUITES) as CostSuiteId[];

async function run(request: CostRunRequest): Promise<void> {
  const suite = SUITE_IDS.find((id) => id === request.suite) ?? 'flash';
  const shape = clampDecodeShape(request.decode);
  const plan = planCost({ suite, maxN: request.maxN, budgetBytes: request.budgetBytes });
  const kernels = COST_SUITES[suite].kernels;
  const engines = await createEngines(request, [...new Set(kernels.map(engineGroup))]);
  const engineOf = (kernel: CostKernel) => engines.get(engineGroup(kernel))!;
  for (const kernel of kernels) warmUp(engineOf(kernel), kernel, shape);
  post({ type: 'started', plan, simd: engineOf(kernels[0]).info().simd });
  const workTotal = plan.reduce((sum, item) => sum + item.work, 0);
  let workDone = 0;
  // The attention kernels at one n share their inputs: made once per size, when first needed.
  let inputs = null as (Inputs & { n: number }) | null;
  const inputsAt = (n: number) => {
    if (inputs?.n !== n) inputs = { n, Q: randomMatrix(n, COST_D, 1), K: randomMatrix(n, COST_D, 2), V: randomMatrix(n, COST_D, 3) };
    return inputs;
  };
  for (const [index, item] of plan.entries()) {
    post({ type: 'measuring', item, index });
    let result: CostMeasurement;
    try {
      const prepared = prepare(engineOf(item.kernel), item, () => inputsAt(item.n), shape);
      try {
        result = measure(engineOf(item.kernel), item, prepared);
      } finally {
        prepared.dispose();
      }
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
