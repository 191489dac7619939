// The benchmark loop, the same in Node and in the bench page. For each shape: every peer computes
// the same attention once and is checked against ours (max rel err <= 1e-4) before it is timed;
// then rounds of interleaved samples, one per peer per round, in a rotating order, so a noisy
// neighbour slows every peer alike and the ratios stay meaningful. Repetitions adapt to the time a
// run takes: fast runs are batched into samples of >= MIN_SAMPLE_MS, and the number of rounds fits a
// per-shape time budget.
import {
  allShapes,
  flops as fullAttentionFlops,
  makeInputs,
  maxRelError,
  median,
  quantile,
  shapeKey,
  type Inputs,
  type Shape,
} from './data';

export const MAX_REL_ERROR = 1e-4;

export type CpuClock = () => number | Promise<number>;

export interface Runner {
  /** One full computation of the shape (every head). */
  run(): unknown;
  /** Run once and return the output, (heads, n, d) row-major. */
  output(): Float32Array | Promise<Float32Array>;
  dispose?(): void;
}

export interface Peer {
  id: string;
  label: string;
  /** 'ours' are the engine's own builds; the roof is reported separately. */
  kind: 'ours' | 'peer';
  /** A reason when this peer cannot run the shape (or would not finish in reasonable time). */
  unsupported?(shape: Shape): string | null;
  prepare(inputs: Inputs): Promise<Runner>;
}

export interface Roof {
  /** Runs `passes` passes of the multiply-add probe; each pass is `flopsPerPass` flops. */
  run(passes: number): void;
  flopsPerPass: number;
}

export interface PeerResult {
  id: string;
  label: string;
  kind: 'ours' | 'peer';
  status: 'ok' | 'skipped' | 'wrong' | 'error';
  reason?: string;
  maxRelError?: number;
  samples?: number;
  /** Median wall-clock time per run. */
  medianMs?: number;
  /** Median CPU time of this thread per run (Node only): immune to being descheduled on a busy host. */
  cpuMedianMs?: number;
  p10Ms?: number;
  p90Ms?: number;
  gflops?: number;
}

export interface CaseResult {
  shape: Shape;
  key: string;
  flops: number;
  reference: string;
  peers: PeerResult[];
  roofGflops: number;
  /** The roof from CPU time (Node only). */
  roofCpuGflops?: number;
}

export interface SuiteOptions {
  shapes?: Shape[];
  /** Interleaved timing budget per shape, ms. */
  budgetMs?: number;
  /** Skip a peer whose single run is estimated to take longer than this, ms. */
  maxRunMs?: number;
  minSampleMs?: number;
  log?: (line: string) => void;
  /** The id of the peer whose output is the reference (ours). */
  referenceId: string;
  /** CPU time in ms of the thread that runs the peers (Node: process.cpuUsage with V8 single-threaded;
   * Chromium: the renderer main thread's ThreadTime, read over CDP, hence possibly async). */
  cpuClock?: CpuClock;
  /** CPU time one pair of cpuClock() reads costs by itself (subtracted from every sample). */
  cpuOverheadMs?: number;
  /** The flops of one run of a shape, for GFLOP/s and the time estimates (default: full attention's, data.ts). */
  flops?: (shape: Shape) => number;
}

const now = () => performance.now();

async function timeOnce(r: Runner, calls: number, cpuClock?: CpuClock, overhead = 0): Promise<{ wall: number; cpu: number }> {
  const c0 = cpuClock ? await cpuClock() : 0;
  const t0 = now();
  for (let i = 0; i < calls; ++i) {
    const p = r.run();
    if (p instanceof Promise) await p;
  }
  const wall = (now() - t0) / calls;
  return { wall, cpu: cpuClock ? ((await cpuClock()) - c0 - overhead) / calls : NaN };
}

export async function runSuite(peers: Peer[], roof: Roof | null, options: SuiteOptions): Promise<CaseResult[]> {
  const shapes = options.shapes ?? allShapes();
  const budgetMs = options.budgetMs ?? 2500;
  const maxRunMs = options.maxRunMs ?? 1200;
  const minSampleMs = options.minSampleMs ?? 2;
  const log = options.log ?? (() => {});
  const flops = options.flops ?? fullAttentionFlops;
  const lastMs = new Map<string, { ms: number; shape: Shape }>(); // per peer, for the time estimate
  const results: CaseResult[] = [];

  // Warm-up, not recorded: every peer runs a few small and medium shapes first, so that lazy
  // compilation and tier-up (wasm and JS) do not land in the first measured case.
  for (const shape of [
    { n: 16, heads: 1, d: 64, causal: false },
    { n: 256, heads: 2, d: 64, causal: true },
  ]) {
    const inputs = makeInputs(shape);
    for (const peer of peers) {
      try {
        const runner = await peer.prepare(inputs);
        for (let i = 0; i < 3; ++i) await runner.output();
        runner.dispose?.();
      } catch {
        // reported when the measured shapes run
      }
    }
  }

  for (const shape of shapes) {
    const key = shapeKey(shape);
    const inputs = makeInputs(shape);
    const found: PeerResult[] = [];
    const live: { peer: Peer; runner: Runner; ms: number; batch: number; samples: number[]; cpu: number[] }[] = [];
    let reference: Float32Array | null = null;

    // Reference first, so every other peer can be checked against it.
    const ordered = [...peers].sort((a, b) => Number(b.id === options.referenceId) - Number(a.id === options.referenceId));
    for (const peer of ordered) {
      const base = { id: peer.id, label: peer.label, kind: peer.kind } as const;
      const why = peer.unsupported?.(shape) ?? null;
      if (why) {
        found.push({ ...base, status: 'skipped', reason: why });
        continue;
      }
      // Estimated from this peer's time on an earlier shape, scaled by the work. The reference always runs.
      const previous = lastMs.get(peer.id);
      if (previous && peer.id !== options.referenceId) {
        const estimate = previous.ms * (flops(shape) / flops(previous.shape));
        if (estimate > maxRunMs) {
          found.push({ ...base, status: 'skipped', reason: `too slow: ~${(estimate / 1000).toFixed(1)} s per run (estimated)` });
          continue;
        }
      }
      let runner: Runner;
      try {
        runner = await peer.prepare(inputs);
        const out = await runner.output(); // first run: warm-up and the check
        if (peer.id === options.referenceId) reference = out;
        if (!reference) {
          found.push({ ...base, status: 'skipped', reason: 'no reference output to check against' });
          runner.dispose?.();
          continue;
        }
        const err = maxRelError(out, reference);
        if (!(err <= MAX_REL_ERROR)) {
          found.push({ ...base, status: 'wrong', maxRelError: err, reason: `max rel err ${err.toExponential(2)} > ${MAX_REL_ERROR}` });
          runner.dispose?.();
          continue;
        }
        // The per-run time that sizes the batches: the fastest of up to three runs (on a busy host a
        // single run can be preempted, which would make the batches too small to time).
        let ms = Infinity;
        for (let k = 0; k < 3 && (k === 0 || ms < 200); ++k) ms = Math.min(ms, (await timeOnce(runner, 1)).wall);
        const batch = Math.max(1, Math.ceil(minSampleMs / Math.max(ms, 1e-3)));
        live.push({ peer, runner, ms, batch, samples: [], cpu: [] });
        found.push({ ...base, status: 'ok', maxRelError: err });
      } catch (error) {
        found.push({ ...base, status: 'error', reason: String(error instanceof Error ? error.message : error).slice(0, 200) });
      }
    }

    // Interleaved rounds; the roof probe (when given) is one more participant, sized like a ~2 ms sample.
    const roofPasses = roof ? Math.max(1, Math.round((minSampleMs * 1e-3 * 20e9) / roof.flopsPerPass)) : 0;
    const slots = live.length + (roof ? 1 : 0);
    const roofSamples: number[] = [];
    const roofCpu: number[] = [];
    const cpuClock = options.cpuClock;
    const perRound = live.reduce((sum, l) => sum + l.ms * l.batch, 0) + 2;
    const slowest = Math.max(0, ...live.map((l) => l.ms));
    // At least 5 rounds; 3 when a peer takes over half a second per run, 2 when one round takes over 3 s.
    const minRounds = perRound > 3000 ? 2 : slowest > 500 ? 3 : 5;
    const rounds = Math.max(minRounds, Math.min(41, Math.floor(budgetMs / perRound)));
    for (let round = 0; round < rounds; ++round) {
      for (let k = 0; k < slots; ++k) {
        const slot = (k + round) % slots;
        if (roof && slot === live.length) {
          const c0 = cpuClock ? await cpuClock() : 0;
          const t0 = now();
          roof.run(roofPasses);
          roofSamples.push((roofPasses * roof.flopsPerPass) / ((now() - t0) * 1e6));
          if (cpuClock) roofCpu.push((roofPasses * roof.flopsPerPass) / (((await cpuClock()) - c0 - (options.cpuOverheadMs ?? 0)) * 1e6));
          continue;
        }
        const l = live[slot]!;
        const t = await timeOnce(l.runner, l.batch, cpuClock, options.cpuOverheadMs ?? 0);
        l.samples.push(t.wall);
        if (cpuClock) l.cpu.push(t.cpu);
      }
    }
    for (const l of live) {
      const r = found.find((f) => f.id === l.peer.id)!;
      r.samples = l.samples.length;
      r.medianMs = median(l.samples);
      r.p10Ms = quantile(l.samples, 0.1);
      r.p90Ms = quantile(l.samples, 0.9);
      r.gflops = flops(shape) / (r.medianMs * 1e6);
      if (cpuClock) r.cpuMedianMs = median(l.cpu);
      lastMs.set(l.peer.id, { ms: cpuClock ? Math.min(r.cpuMedianMs!, r.medianMs) : r.medianMs, shape });
      l.runner.dispose?.();
    }
    const roofGflops = roof ? median(roofSamples) : NaN;
    const result: CaseResult = { shape, key, flops: flops(shape), reference: options.referenceId, peers: found, roofGflops };
    if (cpuClock && roof) result.roofCpuGflops = median(roofCpu);
    results.push(result);
    const ref = found.find((f) => f.id === options.referenceId);
    const basis = (f: PeerResult | undefined) => (cpuClock ? f?.cpuMedianMs : f?.medianMs);
    const refMs = basis(ref);
    log(
      `${key.padEnd(20)} ours ${refMs?.toFixed(3) ?? '-'} ms (${refMs ? (flops(shape) / (refMs * 1e6)).toFixed(1) : '-'} GFLOP/s, ` +
        `${roof ? `roof ${(cpuClock ? result.roofCpuGflops! : roofGflops).toFixed(1)}; ` : ''}${cpuClock ? 'CPU' : 'wall'} time), ${rounds} rounds; ` +
        found
          .filter((f) => f.id !== options.referenceId)
          .map((f) => `${f.id} ${basis(f) !== undefined ? basis(f)!.toFixed(3) : f.status}`)
          .join(', '),
    );
  }
  return results;
}

// ---- the walkthrough's pipeline call at small n (a target of its own: < 50 us per call) ----------

export interface PipelineCase {
  n: number;
  dModel: number;
  heads: number;
  /** Per call, on the environment's basis (CPU time where there is a CPU clock). */
  medianUs: number;
  p10Us: number;
  p90Us: number;
  wallMedianUs: number;
  samples: number;
}

export interface CallTiming {
  /** Per call, ms, on the environment's basis (CPU time where there is a CPU clock). */
  medianMs: number;
  p10Ms: number;
  p90Ms: number;
  wallMedianMs: number;
  samples: number;
}

/**
 * Times each closure in rounds, one sample of each per round in a rotating order (so that a noisy
 * neighbour slows all alike); a sample batches calls to at least `minSampleMs`, sized from the fastest
 * of three calls after a first, untimed one.
 */
export async function timeInterleaved(
  calls: (() => unknown)[],
  options: { cpuClock?: CpuClock; minSampleMs?: number; cpuOverheadMs?: number; rounds?: number } = {},
): Promise<CallTiming[]> {
  const { cpuClock, minSampleMs = 2, cpuOverheadMs = 0, rounds = 25 } = options;
  const runs = calls.map((f) => ({ f, samples: [] as number[], wall: [] as number[], batch: 1 }));
  for (const r of runs) {
    r.f();
    let ms = Infinity;
    for (let k = 0; k < 3; ++k) {
      const t0 = now();
      r.f();
      ms = Math.min(ms, now() - t0);
    }
    r.batch = Math.max(1, Math.ceil(minSampleMs / Math.max(ms, 1e-3)));
  }
  for (let round = 0; round < rounds; ++round)
    for (let k = 0; k < runs.length; ++k) {
      const r = runs[(k + round) % runs.length]!;
      const c0 = cpuClock ? await cpuClock() : 0;
      const t0 = now();
      for (let i = 0; i < r.batch; ++i) r.f();
      const wall = (now() - t0) / r.batch;
      r.wall.push(wall);
      r.samples.push(cpuClock ? ((await cpuClock()) - c0 - cpuOverheadMs) / r.batch : wall);
    }
  return runs.map((r) => ({
    medianMs: median(r.samples),
    p10Ms: quantile(r.samples, 0.1),
    p90Ms: quantile(r.samples, 0.9),
    wallMedianMs: median(r.wall),
    samples: r.samples.length,
  }));
}

export async function runPipelineCases(
  call: (n: number, dModel: number, heads: number) => () => unknown,
  log: (line: string) => void = () => {},
  cpuClock?: CpuClock,
  minSampleMs = 2,
  cpuOverheadMs = 0,
): Promise<PipelineCase[]> {
  const configs: { n: number; dModel: number; heads: number }[] = [];
  for (const dModel of [8, 64, 512]) for (const n of [4, 16, 64]) configs.push({ n, dModel, heads: 8 });
  const timings = await timeInterleaved(
    configs.map((c) => call(c.n, c.dModel, c.heads)),
    { minSampleMs, cpuOverheadMs, ...(cpuClock ? { cpuClock } : {}) },
  );
  const out = configs.map((c, i) => {
    const t = timings[i]!;
    return {
      ...c,
      medianUs: t.medianMs * 1000,
      p10Us: t.p10Ms * 1000,
      p90Us: t.p90Ms * 1000,
      wallMedianUs: t.wallMedianMs * 1000,
      samples: t.samples,
    };
  });
  for (const o of out)
    log(
      `pipeline n=${o.n} d_model=${o.dModel} h=${o.heads}: ${o.medianUs.toFixed(1)} us (p10 ${o.p10Us.toFixed(1)}, wall ${o.wallMedianUs.toFixed(1)})`,
    );
  return out;
}
