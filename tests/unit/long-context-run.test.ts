// @vitest-environment happy-dom
// The long-context step's measured run (features/long-context/run.ts on the 'longContext' suite of
// features/cost/cost-plan.ts): which sizes each kernel is timed at and why the others are skipped, the
// memory bound the step states, where a technique's time crosses full attention's (measured, or
// extrapolated along the fitted lines), and the figure driven through a fake worker with times that
// follow known power laws, so every printed crossing and slope has a value to be checked against.
import { describe, expect, test } from 'vitest';
import { bytes } from '../../web/src/ui/format';
import { crossing, mountLongContextRun, runIntro } from '../../web/src/features/long-context/run';
import { formatMs } from '../../web/src/features/cost/cost-run';
import { mountDecodeRun } from '../../web/src/features/long-context/decode-run';
import {
  COST_BUDGET_BYTES,
  ENGINE_START_BYTES,
  RUN_PATTERN,
  callWork,
  clampDecodeShape,
  fitLogLogSlope,
  ioBytes,
  naiveMatrixBytes,
  planCost,
  planSkips,
  runMemoryBound,
  type CostItem,
  type CostKernel,
} from '../../web/src/features/cost/cost-plan';
import { workerTimingService } from '../../web/src/features/cost/timing-service';
import { FakeWorker } from './fake-cost-worker';

const sizes = (kernel: CostKernel, plan: CostItem[]) => plan.filter((item) => item.kernel === kernel).map((item) => item.n);
const doubling = (from: number, to: number) => {
  const list: number[] = [];
  for (let n = from; n <= to; n *= 2) list.push(n);
  return list;
};

describe('the long-context plan', () => {
  const plan = planCost({ suite: 'longContext' });

  test('window, sparse and linear run 256 to 65,536; flash stops at 16,384 (time), full at 8,192 (memory)', () => {
    for (const kernel of ['window', 'global', 'strided', 'linear'] as const) expect(sizes(kernel, plan)).toEqual(doubling(256, 65536));
    expect(sizes('tiled', plan)).toEqual(doubling(256, 16384));
    expect(sizes('naive', plan)).toEqual(doubling(256, 8192));
    expect(planSkips({ suite: 'longContext' })).toEqual([
      { kernel: 'naive', n: 16384, reason: 'memory' },
      { kernel: 'tiled', n: 32768, reason: 'time' },
      { kernel: 'naive', n: 32768, reason: 'memory' },
      { kernel: 'tiled', n: 65536, reason: 'time' },
      { kernel: 'naive', n: 65536, reason: 'memory' },
    ]);
    // The flash step's suite is unchanged by the second one.
    expect(planSkips()).toEqual([{ kernel: 'naive', n: 16384, reason: 'memory' }]);
    expect(sizes('tiled', planCost())).toEqual(doubling(128, 16384));
  });

  test('the progress unit: n² for full attention and flash, the pattern’s cells for the sparse kernel, 2nd for linear', () => {
    const at = (kernel: CostKernel, n: number) => plan.find((item) => item.kernel === kernel && item.n === n)!;
    const band = 2 * RUN_PATTERN.window - 1;
    expect(at('naive', 8192).work).toBe(8192 * 8192 * at('naive', 8192).reps);
    expect(callWork('window', 65536)).toBe(65536 * band);
    expect(callWork('strided', 65536)).toBe(65536 * (band + 65536 / RUN_PATTERN.stride));
    expect(callWork('global', 1024)).toBe(1024 * band + 2 * 1024 * RUN_PATTERN.global);
    expect(callWork('linear', 1024)).toBe(2 * 1024 * 64);
    // At 256 the band covers all but the corners: never more cells than n².
    expect(callWork('window', 256)).toBeLessThanOrEqual(256 * 256);
  });

  test('a test cap keeps every kernel within it', () => {
    const small = planCost({ suite: 'longContext', maxN: 1000 });
    expect(new Set(small.map((item) => item.n))).toEqual(new Set([256, 512]));
    expect(new Set(small.map((item) => item.kernel)).size).toBe(6);
    expect(planSkips({ suite: 'longContext', maxN: 1000 })).toEqual([]);
  });

  test('the memory bound covers both engines at their largest n and the worker’s copies', () => {
    const bound = runMemoryBound(plan);
    // Full attention's engine at 8,192: inputs, output and its n × n matrices; the shared one at 65,536.
    const naiveNeeds = ENGINE_START_BYTES + ioBytes(8192) + 2 * naiveMatrixBytes(8192);
    const sharedNeeds = ENGINE_START_BYTES + ioBytes(65536);
    expect(bound).toBeGreaterThan(naiveNeeds + sharedNeeds + ioBytes(65536));
    // And stays a tab's worth: under 2 GiB.
    expect(bound).toBeLessThan(2 * 2 ** 30);
    expect(runMemoryBound(planCost({ suite: 'longContext', maxN: 1024 }))).toBeLessThan(bound / 10);
  });

  test('the intro states the sizes, the skip reasons and the bound, from the plan', () => {
    const intro = runIntro();
    expect(intro).toContain('n = 256 to 64k');
    expect(intro).toContain(
      `at 16k its n × n matrix alone would take ${bytes(naiveMatrixBytes(16384))}, over the ${bytes(COST_BUDGET_BYTES)} budget`,
    );
    expect(intro).toContain(`at 64k ${bytes(naiveMatrixBytes(65536))}`);
    expect(bytes(naiveMatrixBytes(65536))).toBe('16.0 GiB');
    expect(intro).toContain('FlashAttention up to 16k');
    expect(intro).toContain('full attention up to 8k');
    expect(intro).toContain(`at most ${bytes(runMemoryBound(plan))} in this tab`);
  });
});

describe('crossing full attention', () => {
  const ns = doubling(256, 8192);
  const line = (c: number, k: number) => ns.map((n) => [n, c * n ** k] as [number, number]);
  const full = line(1e-5, 2);
  const cross = (other: [number, number][]) => crossing(full, other, fitLogLogSlope(full), fitLogLogSlope(other));

  test('faster everywhere, from some n on, extrapolated past the last size, or never', () => {
    // 1e-3 n < 1e-5 n² from n = 100: faster at every size.
    expect(cross(line(1e-3, 1))).toEqual({ kind: 'always', n: 256 });
    // 1e-2 n < 1e-5 n² from n = 1,000: 1,024 is the first measured size past it.
    expect(cross(line(1e-2, 1))).toEqual({ kind: 'from', n: 1024 });
    // 1 · n < 1e-5 n² only from n = 100,000: the fitted lines meet there.
    const far = cross(line(1, 1));
    expect(far.kind).toBe('extrapolated');
    if (far.kind === 'extrapolated') {
      expect(far.n).toBeCloseTo(1e5, -1);
      expect(far.upTo).toBe(8192);
    }
    // Same slope, twice the constant: slower at every n, no crossing.
    expect(cross(line(2e-5, 2))).toEqual({ kind: 'never', upTo: 8192 });
    expect(crossing([], line(1, 1), null, null)).toEqual({ kind: 'pending' });
  });

  test('extrapolated times read as seconds, never in e-notation', () => {
    expect(formatMs(1.0912e6)).toBe('1,090 s');
    expect(formatMs(296_400)).toBe('296 s');
    expect(formatMs(0.0844)).toBe('84.4 µs');
  });

  test('one noisy slower point in the middle: the crossing is where it stays faster', () => {
    const other = line(1e-3, 1);
    other[3] = [other[3][0], full[3][1] * 1.5];
    expect(cross(other)).toEqual({ kind: 'from', n: ns[4] });
  });
});

/** Times that follow power laws: full 1e-5 n², flash 2e-5 n², window 2e-4 n, global and strided a bit more, linear 1e-5 n. */
const SYNTHETIC: Partial<Record<CostKernel, (n: number) => number>> = {
  naive: (n) => 1e-5 * n * n,
  tiled: (n) => 2e-5 * n * n,
  window: (n) => 2e-4 * n,
  global: (n) => 3e-4 * n,
  strided: (n) => 2e-3 * n,
  linear: (n) => 1e-5 * n,
};

describe('the run figure (fake worker)', () => {
  test('the request, the table’s skip reasons, slopes, crossings and memory, all from the measurements', () => {
    const worker = new FakeWorker();
    const figure = mountLongContextRun({ timing: workerTimingService(() => worker) });
    document.body.replaceChildren(figure.element);
    const root = figure.element;
    expect(root.id).toBe('lc-run');
    root.querySelector<HTMLButtonElement>('.flash-run-start')!.click();
    expect(worker.sent).toEqual([
      {
        type: 'run',
        suite: 'longContext',
        maxN: undefined,
        budgetBytes: COST_BUDGET_BYTES,
        wasmUrl: expect.stringMatching(/\/attention_engine\.wasm$/),
        laterWasmUrl: expect.stringMatching(/\/attention_engine_later\.wasm$/),
      },
    ]);
    const plan = planCost({ suite: 'longContext' });
    worker.emit({ type: 'started', plan, simd: true });
    const workTotal = plan.reduce((sum, item) => sum + item.work, 0);
    let workDone = 0;
    plan.forEach((item, index) => {
      workDone += item.work;
      const memoryBytes = item.kernel === 'naive' ? 16e6 + 12 * item.n * item.n : 16e6 + 200 * item.n;
      worker.emit({
        type: 'measured',
        index,
        workDone,
        workTotal,
        result: { kernel: item.kernel, n: item.n, reps: item.reps, ms: SYNTHETIC[item.kernel]!(item.n), memoryBytes },
      });
    });
    worker.emit({ type: 'done' });
    expect(root.dataset.phase).toBe('done');

    const cellText = (n: number, kernel: CostKernel) => root.querySelector(`tr[data-n="${n}"] td[data-kernel="${kernel}"]`)!.textContent;
    expect(cellText(65536, 'naive')).toBe(`over the ${bytes(COST_BUDGET_BYTES)} budget`);
    expect(cellText(65536, 'tiled')).toBe('not timed (n² work)');
    expect(cellText(65536, 'window')).toBe(`${(2e-4 * 65536).toPrecision(3)} ms`);

    const slope = root.querySelector<HTMLElement>('.flash-run-slope')!;
    expect(Number(slope.dataset.naiveSlope)).toBeCloseTo(2, 6);
    expect(Number(slope.dataset.windowSlope)).toBeCloseTo(1, 6);
    expect(Number(slope.dataset.linearSlope)).toBeCloseTo(1, 6);

    const crossings = (kernel: CostKernel) => root.querySelector(`.lc-run-crossings li[data-kernel="${kernel}"]`)!.textContent;
    // 2e-4 n < 1e-5 n² from n = 20: faster at every size.
    expect(crossings('window')).toMatch(/^window \(w = 128\): faster than full attention at every size both were timed at, from 256/);
    // 2e-3 n < 1e-5 n² from n = 200: at 256 already.
    expect(crossings('strided')).toMatch(/faster than full attention at every size/);
    expect(crossings('tiled')).toMatch(
      /^FlashAttention: slower than full attention up to 8k \(1.34 s against 671 ms at 8k\), and its fitted line does not cross/,
    );
    expect(root.querySelector('.lc-run-extrapolated')!.textContent).toContain(
      `full attention about ${((1e-5 * 65536 * 65536) / 1000).toPrecision(3)} s per call`,
    );
    expect([...root.querySelectorAll('thead th')].map((th) => th.textContent)).toContain('full attention engine memory');
    const memory = root.querySelector<HTMLElement>('.lc-run-memory')!;
    const used = 16e6 + 12 * 8192 * 8192 + 16e6 + 200 * 65536;
    expect(Number(memory.dataset.used)).toBe(used);
    expect(memory.textContent).toContain(`reached ${bytes(used)} together, within this run’s bound of ${bytes(runMemoryBound(plan))}`);
    expect(root.querySelectorAll('svg.line-chart circle.series-linear').length).toBe(9);
    expect(root.textContent).not.toMatch(/NaN|undefined|Infinity/);
  });
});

describe('the decode timing', () => {
  test('t = 16 to 512 for the cache (multi-head and grouped) and for recomputing, in progress units of scores', () => {
    const plan = planCost({ suite: 'decode' });
    for (const kernel of ['cached', 'grouped', 'recompute'] as const) expect(sizes(kernel, plan)).toEqual(doubling(16, 512));
    expect(callWork('cached', 16)).toBe(16);
    expect(callWork('recompute', 512)).toBe((512 * 513) / 2);
    const item = plan.find((i) => i.kernel === 'recompute' && i.n === 512)!;
    expect(item.work).toBe(callWork('recompute', 512) * (item.reps + (item.warmup ? 1 : 0)));
  });

  test('the shape: heads 1 to 16, KV heads lowered to a divisor', () => {
    expect(clampDecodeShape({ heads: 8, kvHeads: 3 })).toEqual({ heads: 8, kvHeads: 2 });
    expect(clampDecodeShape({ heads: 6, kvHeads: 4 })).toEqual({ heads: 6, kvHeads: 3 });
    expect(clampDecodeShape({ heads: 100, kvHeads: 100 })).toEqual({ heads: 16, kvHeads: 16 });
    expect(clampDecodeShape({ heads: Number.NaN, kvHeads: -2 })).toEqual({ heads: 4, kvHeads: 1 });
    expect(clampDecodeShape(undefined)).toEqual({ heads: 4, kvHeads: 1 });
  });

  test('the figure asks for the shown heads, tables no memory, and reads the last t', () => {
    const worker = new FakeWorker();
    let shape = { heads: 4, kvHeads: 2 };
    const figure = mountDecodeRun({ timing: workerTimingService(() => worker) }, () => shape);
    document.body.replaceChildren(figure.element);
    const root = figure.element;
    shape = { heads: 8, kvHeads: 2 }; // read at Run, not at mount
    root.querySelector<HTMLButtonElement>('.flash-run-start')!.click();
    expect(worker.sent[0]).toMatchObject({ type: 'run', suite: 'decode', decode: { heads: 8, kvHeads: 2 } });
    const plan = planCost({ suite: 'decode' });
    worker.emit({ type: 'started', plan, simd: true });
    // Per token: the cache 1e-4 t ms (multi-head), half that grouped; recomputing 1e-5 t² ms.
    const ms = (kernel: CostKernel, t: number) => (kernel === 'recompute' ? 1e-5 * t * t : kernel === 'cached' ? 1e-4 * t : 5e-5 * t);
    plan.forEach((item, index) =>
      worker.emit({
        type: 'measured',
        index,
        workDone: index + 1,
        workTotal: plan.length,
        result: { kernel: item.kernel, n: item.n, reps: item.reps, ms: ms(item.kernel, item.n), memoryBytes: 16e6 },
      }),
    );
    worker.emit({ type: 'done' });
    const slope = root.querySelector<HTMLElement>('.flash-run-slope')!;
    expect(Number(slope.dataset.cachedSlope)).toBeCloseTo(1, 6);
    expect(Number(slope.dataset.recomputeSlope)).toBeCloseTo(2, 6);
    // No memory chart or columns: one chart, and a row is t plus three times.
    expect(root.querySelectorAll('svg.line-chart')).toHaveLength(1);
    expect(root.querySelectorAll('tr[data-n="512"] td')).toHaveLength(3);
    expect(root.querySelector('thead th')!.textContent).toBe('token t');
    expect(slope.textContent).toMatch(
      /^Fitted by least squares on the log-log points from t = 64 on: .* grows like t², a slope of 1 like t\.$/,
    );
    expect(root.querySelector('tr[data-n="16"] td[data-kernel="cached"]')!.textContent).toBe('1.60 µs');
    const reading = root.querySelector<HTMLElement>('.kv-run-reading')!;
    expect(reading.dataset.t).toBe('512');
    expect(Number(reading.dataset.speedup)).toBeCloseTo((1e-5 * 512 * 512) / (1e-4 * 512), 3);
    expect(reading.textContent).toBe(
      'At token 512 (8 heads of dₖ = 64): 51.2 µs with the cache, 2.62 ms recomputing all 512 tokens, 51 times as long. ' +
        'With 2 KV heads the cache is 4 times smaller and a token takes 25.6 µs (2.0× faster than multi-head).',
    );
    expect(root.textContent).not.toMatch(/NaN|undefined|Infinity/);
  });
});
