// The long-context kernels (issue 40) against onnxruntime-web, in Node: ours through
// web/src/engine/long-context.ts (wasm SIMD), theirs on the wasm backend, one thread, either its
// GroupQueryAttention contrib op or a plain ONNX graph that computes the same thing
// (peers/onnx-long.ts, peers/onnx-model.ts). Every participant is checked against ours on the same
// inputs before it is timed, then timed in suite.ts's rotating rounds (CPU time of this process,
// started with V8's --single-threaded). Ours also runs alone at longer n, for the slope of log time
// against log n.
//
//   node --single-threaded --import tsx tests/bench/long-context.ts [build/bench/long-context.json] [--quick]
//
// `npm run bench` runs it after the Node suite (skip with --no-long-context).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type * as OrtNamespace from 'onnxruntime-web';
import { createEngine, type AttentionEngine } from '../../web/src/engine/engine';
import { KVCache, linearAttention, sparseAttention, sparsePatternCells, type SparsePattern } from '../../web/src/engine/long-context';
import type { Matrix } from '../../web/src/engine/types';
import { D_K, head, type Inputs, type Shape } from './data';
import { additiveCausalMask, buildAttentionModel } from './peers/onnx-model';
import { buildDecodeAttentionModel, buildGqaModel, buildLinearAttentionModel } from './peers/onnx-long';
import { configureOrt } from './peers/ort';
import { flashPeer } from './peers/ours';
import { longContextText } from './long-context-report';
import { runSuite, type CaseResult, type Peer, type Runner } from './suite';

type Ort = typeof OrtNamespace;

/** The sizes: onnxruntime-web is compared at `compareN`; ours alone is timed up to the last of `slopeN`. */
export const LONG_CONTEXT_SIZES = {
  full: { compareN: 4096, slopeN: [4096, 16384, 65536] },
  quick: { compareN: 512, slopeN: [512, 2048] },
} as const;

/** The patterns, as in the native long-context bench (tests/bench/native/long_context_bench.cpp). */
export const PATTERNS = {
  window: { window: 256, causal: true },
  global: { window: 256, global: 16, causal: true },
  strided: { window: 128, stride: 256, causal: true },
} as const satisfies Record<string, SparsePattern>;

/** Decoding: query heads and the KV heads they share (grouped-query attention). */
export const DECODE_HEADS = { heads: 8, kvHeads: 2 } as const;

export type KernelId = 'full' | keyof typeof PATTERNS | 'linear' | 'linear-causal' | 'decode';

export interface KernelSpec {
  id: KernelId;
  label: string;
  heads: number;
  /** Whether onnxruntime-web has an equivalent; slopes of ours are fitted for every kernel. */
  compared: boolean;
  /** The longest n timed (the flash kernel's limit; the n² work of full attention at 65,536 takes a minute). */
  maxN?: number;
}

export const KERNELS: KernelSpec[] = [
  { id: 'full', label: 'full causal attention (ours: the tiled flash kernel)', heads: 1, compared: true, maxN: 16384 },
  { id: 'window', label: 'causal sliding window, w = 256', heads: 1, compared: true },
  { id: 'global', label: 'window 256 + 16 global tokens', heads: 1, compared: true },
  { id: 'strided', label: 'window 128 + every 256th key', heads: 1, compared: true },
  { id: 'linear', label: 'linear attention, elu + 1', heads: 1, compared: true },
  { id: 'linear-causal', label: 'causal linear attention (prefix sums)', heads: 1, compared: false },
  {
    id: 'decode',
    label: `decode one token against n cached, ${DECODE_HEADS.heads} heads, ${DECODE_HEADS.kvHeads} KV heads`,
    heads: DECODE_HEADS.heads,
    compared: true,
  },
];

const matrix = (data: Float32Array, rows: number, cols: number): Matrix => ({ rows, cols, data });

/** One head's (n, d) Q, K, V as matrices (copies: the engine wants its own arrays). */
function headMatrices(inputs: Inputs, h = 0): { Q: Matrix; K: Matrix; V: Matrix } {
  const s = inputs.shape;
  const m = (data: Float32Array) => matrix(head(data, s, h).slice(), s.n, s.d);
  return { Q: m(inputs.Q), K: m(inputs.K), V: m(inputs.V) };
}

/** Whether key j is in the pattern for query i (the rule of SparsePattern in long-context.ts). */
export function patternAllows(p: SparsePattern, i: number, j: number): boolean {
  const causal = p.causal ?? true;
  if (causal && j > i) return false;
  if (causal ? i - j < p.window : Math.abs(i - j) < p.window) return true;
  const global = p.global ?? 0;
  if (i < global || j < global) return true;
  const stride = p.stride ?? 0;
  return stride > 0 && (i - j) % stride === 0;
}

/** The pattern as the plain graph's additive mask: 0 where attended, -inf elsewhere. */
export function additivePatternMask(n: number, p: SparsePattern): Float32Array {
  const mask = new Float32Array(n * n);
  for (let i = 0; i < n; ++i) for (let j = 0; j < n; ++j) if (!patternAllows(p, i, j)) mask[i * n + j] = -Infinity;
  return mask;
}

// ---- ours ---------------------------------------------------------------------------------------

function oursPeer(kernel: KernelId, engine: AttentionEngine): Peer {
  const id = `ours-${kernel}`;
  const label = 'ours (wasm SIMD)';
  if (kernel === 'full') return flashPeer(id, label, 'ours', engine);
  if (kernel === 'decode') return oursDecodePeer(id, label, engine);
  return {
    id,
    label,
    kind: 'ours',
    async prepare(inputs: Inputs): Promise<Runner> {
      const { Q, K, V } = headMatrices(inputs);
      const run =
        kernel === 'linear' || kernel === 'linear-causal'
          ? () => linearAttention(engine, Q, K, V, { causal: kernel === 'linear-causal' }).data
          : () => sparseAttention(engine, Q, K, V, PATTERNS[kernel]).output.data;
      return { run, output: () => run().slice() };
    },
  };
}

/** The new token is the last of n: `row(data, heads, r)` is row r of the first `heads` heads, side by side. */
function rowOf(inputs: Inputs) {
  const s = inputs.shape;
  return (data: Float32Array, heads: number, r: number) => {
    const out = new Float32Array(heads * s.d);
    for (let h = 0; h < heads; ++h) out.set(head(data, s, h).subarray(r * s.d, (r + 1) * s.d), h * s.d);
    return out;
  };
}

/** KV heads for a shape with `heads` query heads: DECODE_HEADS's ratio, at least 1. */
const kvHeadsOf = (heads: number) => Math.max(1, Math.floor((heads * DECODE_HEADS.kvHeads) / DECODE_HEADS.heads));

/**
 * KVCache.decode: the cache holds the n tokens (appended once, while preparing); a timed run is the
 * new token's query rows against it. The append of the new token's own K and V (one (kvHeads, d) row
 * each) is not in the timed run.
 */
function oursDecodePeer(id: string, label: string, engine: AttentionEngine): Peer {
  return {
    id,
    label,
    kind: 'ours',
    async prepare(inputs: Inputs): Promise<Runner> {
      const s = inputs.shape;
      const row = rowOf(inputs);
      const kvHeads = kvHeadsOf(s.heads);
      const cache = KVCache.create(engine, { layers: 1, kvHeads, dK: s.d, capacity: s.n });
      for (let t = 0; t < s.n; ++t)
        cache.append(0, matrix(row(inputs.K, kvHeads, t), kvHeads, s.d), matrix(row(inputs.V, kvHeads, t), kvHeads, s.d));
      const Q = matrix(row(inputs.Q, s.heads, s.n - 1), s.heads, s.d);
      const run = () => cache.decode(0, Q).output.data;
      return { run, output: () => run().slice(), dispose: () => cache.dispose() };
    },
  };
}

// ---- onnxruntime-web ----------------------------------------------------------------------------

async function session(ort: Ort, model: Uint8Array) {
  return ort.InferenceSession.create(model, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

function ortRunner(made: OrtNamespace.InferenceSession, feeds: Record<string, OrtNamespace.Tensor>, output: string): Runner {
  const run = async () => {
    const result = await made.run(feeds);
    const out = result[output]!;
    const data = (out.data as Float32Array).slice();
    for (const tensor of Object.values(result)) tensor.dispose();
    return data;
  };
  return { run, output: run, dispose: () => void made.release() };
}

const version = (ort: Ort) => ort.env.versions.web ?? '';

/** GroupQueryAttention over a prompt of n tokens (no past): one head, causal, with or without a window. */
function gqaPromptPeer(ort: Ort, kernel: 'full' | 'window'): Peer {
  return {
    id: `ort-gqa-${kernel}`,
    label: `onnxruntime-web ${version(ort)} GroupQueryAttention`,
    kind: 'peer',
    async prepare(inputs: Inputs): Promise<Runner> {
      const s = inputs.shape;
      // local_window_size W: query i sees keys i - W + 1 .. i in onnxruntime-web 1.31.1 (measured with
      // Q = 0 and V = the key's position), the same W keys as ours.
      const localWindow = kernel === 'window' ? PATTERNS.window.window : -1;
      const made = await session(ort, buildGqaModel({ heads: 1, kvHeads: 1, d: s.d, sequence: s.n, past: 0, localWindow }));
      const dims = [1, s.n, s.d];
      const { Q, K, V } = headMatrices(inputs);
      return ortRunner(
        made,
        {
          query: new ort.Tensor('float32', Q.data, dims),
          key: new ort.Tensor('float32', K.data, dims),
          value: new ort.Tensor('float32', V.data, dims),
          seqlens_k: new ort.Tensor('int32', Int32Array.of(s.n - 1), [1]),
          total_sequence_length: new ort.Tensor('int32', Int32Array.of(s.n), []),
        },
        'output',
      );
    },
  };
}

/** The plain graph (Transpose, MatMul, Mul, Add mask, Softmax, MatMul) with the pattern as an additive mask. */
function plainMaskedPeer(ort: Ort, kernel: 'full' | keyof typeof PATTERNS): Peer {
  return {
    id: `ort-plain-${kernel}`,
    label: `onnxruntime-web ${version(ort)} plain graph, additive mask`,
    kind: 'peer',
    async prepare(inputs: Inputs): Promise<Runner> {
      const s = inputs.shape;
      const made = await session(ort, buildAttentionModel(1, s.n, s.d, true));
      const dims = [1, s.n, s.d];
      const { Q, K, V } = headMatrices(inputs);
      const mask = kernel === 'full' ? additiveCausalMask(s.n) : additivePatternMask(s.n, PATTERNS[kernel]);
      return ortRunner(
        made,
        {
          Q: new ort.Tensor('float32', Q.data, dims),
          K: new ort.Tensor('float32', K.data, dims),
          V: new ort.Tensor('float32', V.data, dims),
          mask: new ort.Tensor('float32', mask, [s.n, s.n]),
        },
        'O',
      );
    },
  };
}

function plainLinearPeer(ort: Ort): Peer {
  return {
    id: 'ort-plain-linear',
    label: `onnxruntime-web ${version(ort)} plain graph (Elu, MatMul, ReduceSum, Div)`,
    kind: 'peer',
    async prepare(inputs: Inputs): Promise<Runner> {
      const s = inputs.shape;
      const made = await session(ort, buildLinearAttentionModel(s.n, s.d));
      const dims = [1, s.n, s.d];
      const { Q, K, V } = headMatrices(inputs);
      const feeds = {
        Q: new ort.Tensor('float32', Q.data, dims),
        K: new ort.Tensor('float32', K.data, dims),
        V: new ort.Tensor('float32', V.data, dims),
      };
      return ortRunner(made, feeds, 'O');
    },
  };
}

/** GroupQueryAttention decoding one token: past_key/past_value hold the n - 1 earlier tokens (BNSH). */
function gqaDecodePeer(ort: Ort): Peer {
  return {
    id: 'ort-gqa-decode',
    label: `onnxruntime-web ${version(ort)} GroupQueryAttention, past key/value`,
    kind: 'peer',
    async prepare(inputs: Inputs): Promise<Runner> {
      const s = inputs.shape;
      const kvHeads = kvHeadsOf(s.heads);
      const row = rowOf(inputs);
      const past = s.n - 1;
      const made = await session(ort, buildGqaModel({ heads: s.heads, kvHeads, d: s.d, sequence: 1, past, localWindow: -1 }));
      const pastOf = (data: Float32Array) => {
        const out = new Float32Array(kvHeads * past * s.d);
        for (let g = 0; g < kvHeads; ++g) out.set(head(data, s, g).subarray(0, past * s.d), g * past * s.d);
        return out;
      };
      return ortRunner(
        made,
        {
          query: new ort.Tensor('float32', row(inputs.Q, s.heads, past), [1, 1, s.heads * s.d]),
          key: new ort.Tensor('float32', row(inputs.K, kvHeads, past), [1, 1, kvHeads * s.d]),
          value: new ort.Tensor('float32', row(inputs.V, kvHeads, past), [1, 1, kvHeads * s.d]),
          past_key: new ort.Tensor('float32', pastOf(inputs.K), [1, kvHeads, past, s.d]),
          past_value: new ort.Tensor('float32', pastOf(inputs.V), [1, kvHeads, past, s.d]),
          seqlens_k: new ort.Tensor('int32', Int32Array.of(past), [1]),
          total_sequence_length: new ort.Tensor('int32', Int32Array.of(s.n), []),
        },
        'output',
      );
    },
  };
}

/** The plain graph decoding one token: each KV head's group of query rows against its n keys. */
function plainDecodePeer(ort: Ort): Peer {
  return {
    id: 'ort-plain-decode',
    label: `onnxruntime-web ${version(ort)} plain graph, (kv heads, group, d) queries`,
    kind: 'peer',
    async prepare(inputs: Inputs): Promise<Runner> {
      const s = inputs.shape;
      const kvHeads = kvHeadsOf(s.heads);
      const group = s.heads / kvHeads;
      const query = rowOf(inputs)(inputs.Q, s.heads, s.n - 1);
      const made = await session(ort, buildDecodeAttentionModel(kvHeads, group, s.n, s.d));
      const cacheOf = (data: Float32Array) => data.slice(0, kvHeads * s.n * s.d);
      return ortRunner(
        made,
        {
          Q: new ort.Tensor('float32', query, [kvHeads, group, s.d]),
          K: new ort.Tensor('float32', cacheOf(inputs.K), [kvHeads, s.n, s.d]),
          V: new ort.Tensor('float32', cacheOf(inputs.V), [kvHeads, s.n, s.d]),
        },
        'O',
      );
    },
  };
}

function theirPeers(ort: Ort, kernel: KernelId): Peer[] {
  switch (kernel) {
    case 'full':
    case 'window':
      return [gqaPromptPeer(ort, kernel), plainMaskedPeer(ort, kernel)];
    case 'global':
    case 'strided':
      return [plainMaskedPeer(ort, kernel)];
    case 'linear':
      return [plainLinearPeer(ort)];
    case 'decode':
      return [gqaDecodePeer(ort), plainDecodePeer(ort)];
    case 'linear-causal':
      return [];
  }
}

/**
 * The multiply-adds (× 2) a kernel needs for a shape: Q Kᵀ and weights × V over the cells it computes
 * (the pattern's exact count from the engine; full causal: the triangle), linear attention's φKᵀV and
 * φQ·summary (2 n d² each), decoding's heads × n cells.
 */
export function kernelFlops(kernel: KernelId, s: Shape, engine: AttentionEngine): number {
  switch (kernel) {
    case 'full':
      return 4 * s.d * ((s.n * (s.n + 1)) / 2);
    case 'window':
    case 'global':
    case 'strided':
      return 4 * s.d * sparsePatternCells(engine, s.n, PATTERNS[kernel]);
    case 'linear':
    case 'linear-causal':
      return 4 * s.n * s.d * s.d;
    case 'decode':
      return 4 * s.d * s.heads * s.n;
  }
}

/** Ours first (the reference), then onnxruntime-web's equivalents of the kernel (none without `ort`). */
export function kernelPeers(kernel: KernelSpec, engine: AttentionEngine, ort: Ort | null): Peer[] {
  return [oursPeer(kernel.id, engine), ...(ort && kernel.compared ? theirPeers(ort, kernel.id) : [])];
}

// ---- the run --------------------------------------------------------------------------------------

export interface KernelResult {
  kernel: KernelSpec;
  cases: CaseResult[];
  /** Least-squares slope of log(ours' CPU ms) against log(n) over the slope sizes. */
  slope: number;
}

export interface LongContextResult {
  ort: string;
  compareN: number;
  slopeN: number[];
  kernels: KernelResult[];
  unavailable: string | null;
  seconds: number;
}

export function fittedSlope(ns: readonly number[], ms: readonly number[]): number {
  const xs = ns.map(Math.log);
  const ys = ms.map(Math.log);
  const k = xs.length;
  const sx = xs.reduce((a, b) => a + b, 0);
  const sy = ys.reduce((a, b) => a + b, 0);
  const sxx = xs.reduce((a, x) => a + x * x, 0);
  const sxy = xs.reduce((a, x, i) => a + x * ys[i]!, 0);
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

export async function runLongContext(
  engine: AttentionEngine,
  ort: Ort | null,
  options: { quick: boolean; cpuClock: () => number; log: (line: string) => void; ortError?: string },
): Promise<LongContextResult> {
  const t0 = performance.now();
  const sizes = options.quick ? LONG_CONTEXT_SIZES.quick : LONG_CONTEXT_SIZES.full;
  if (ort) configureOrt(ort);
  const ns = [...new Set([sizes.compareN, ...sizes.slopeN])].sort((a, b) => a - b);
  const kernels: KernelResult[] = [];
  for (const kernel of KERNELS) {
    const peers = kernelPeers(kernel, engine, ort).map((peer) =>
      peer.kind === 'ours'
        ? peer
        : { ...peer, unsupported: (s: Shape) => (s.n === sizes.compareN ? null : `compared at n = ${sizes.compareN} only`) },
    );
    const upTo = (n: number) => n <= (kernel.maxN ?? Infinity);
    const shapes = ns.filter(upTo).map((n) => ({ n, heads: kernel.heads, d: D_K, causal: kernel.id !== 'linear' }));
    options.log(`${kernel.label}`);
    const cases = await runSuite(peers, null, {
      referenceId: peers[0]!.id,
      flops: (s) => kernelFlops(kernel.id, s, engine),
      shapes,
      cpuClock: options.cpuClock,
      maxRunMs: 5000,
      log: (line) => options.log(`  ${line}`),
    });
    const ours = (n: number) => cases.find((c) => c.shape.n === n)?.peers.find((p) => p.kind === 'ours')?.cpuMedianMs ?? NaN;
    const slopeN = sizes.slopeN.filter(upTo);
    kernels.push({ kernel, cases, slope: fittedSlope(slopeN, slopeN.map(ours)) });
  }
  return {
    ort: ort ? version(ort) : '',
    compareN: sizes.compareN,
    slopeN: [...sizes.slopeN],
    kernels,
    unavailable: ort ? null : (options.ortError ?? 'onnxruntime-web did not load'),
    seconds: (performance.now() - t0) / 1000,
  };
}

// ---- standalone ---------------------------------------------------------------------------------

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(import.meta.dirname, '..', '..');
  const args = process.argv.slice(2);
  const out = args.find((a) => !a.startsWith('--')) ?? join(root, 'build', 'bench', 'long-context.json');
  const log = (line: string) => console.error(`[long-context] ${line}`);
  const generated = join(root, 'web', 'src', 'engine', 'generated');
  const engine = await createEngine({
    wasmBinary: readFileSync(join(generated, 'attention_engine.wasm')),
    laterWasmBinary: readFileSync(join(generated, 'attention_engine_later.wasm')),
  });
  let ort: Ort | null = null;
  let ortError: string | undefined;
  try {
    ort = await import('onnxruntime-web');
  } catch (error) {
    ortError = String(error);
  }
  const cpuClock = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const result = await runLongContext(engine, ort, { quick: args.includes('--quick'), cpuClock, log, ...(ortError ? { ortError } : {}) });
  const text = longContextText(result);
  writeFileSync(out, JSON.stringify({ ...result, text }, null, 1));
  console.log(text);
  log(`done in ${result.seconds.toFixed(0)} s -> ${out}`);
  process.exit(0);
}
