// The "Run it on my machine" measurement's plan and arithmetic (web/src/features/cost/cost-plan.ts): which
// sizes each kernel is timed at (the tiled one to 16384, the naive one until its n × n matrix would
// pass the memory budget), how many calls per size, and the log-log slope fit the figure prints.
import { describe, expect, test } from 'vitest';
import {
  COST_BUDGET_BYTES,
  COST_MAX_N,
  COST_MIN_N,
  clampMaxN,
  fitLogLogSlope,
  measuredRatio,
  naiveMatrixBytes,
  planCost,
  repetitions,
  tiledScratchFloats,
} from '../../web/src/features/cost/cost-plan';

const sizes = (kernel: 'naive' | 'tiled', plan = planCost()) => plan.filter((item) => item.kernel === kernel).map((item) => item.n);

describe('the plan', () => {
  test('tiled reaches n = 16384; naive stops where 4n² bytes would pass the 256 MiB budget (n = 8192)', () => {
    expect(COST_BUDGET_BYTES).toBe(256 * 2 ** 20);
    expect(sizes('tiled')).toEqual([128, 256, 512, 1024, 2048, 4096, 8192, 16384]);
    expect(sizes('naive')).toEqual([128, 256, 512, 1024, 2048, 4096, 8192]);
    expect(naiveMatrixBytes(8192)).toBe(COST_BUDGET_BYTES);
    expect(naiveMatrixBytes(16384)).toBeGreaterThan(COST_BUDGET_BYTES);
    expect(Math.max(...sizes('tiled'))).toBe(COST_MAX_N);
  });

  test('ascending n, tiled before naive at each size, so the chart fills from the left', () => {
    const plan = planCost();
    for (let i = 1; i < plan.length; i++) expect(plan[i].n).toBeGreaterThanOrEqual(plan[i - 1].n);
    expect(plan.slice(0, 2).map((item) => item.kernel)).toEqual(['tiled', 'naive']);
    expect(plan[plan.length - 1]).toMatchObject({ kernel: 'tiled', n: 16384 });
  });

  test('a smaller budget stops the naive kernel earlier; the tiled one is unaffected', () => {
    expect(sizes('naive', planCost({ budgetBytes: 4 * 1024 * 1024 }))).toEqual([128, 256, 512, 1024]);
    expect(sizes('tiled', planCost({ budgetBytes: 4 * 1024 * 1024 }))).toEqual(sizes('tiled'));
  });

  test('the test cap: maxN rounds down to a power of two between 128 and 16384', () => {
    expect(sizes('tiled', planCost({ maxN: 1024 }))).toEqual([128, 256, 512, 1024]);
    expect(sizes('naive', planCost({ maxN: 1024 }))).toEqual([128, 256, 512, 1024]);
    expect(clampMaxN(1500)).toBe(1024);
    expect(clampMaxN(5)).toBe(COST_MIN_N);
    expect(clampMaxN(1e9)).toBe(COST_MAX_N);
    expect(clampMaxN(Number.NaN)).toBe(COST_MAX_N);
    expect(clampMaxN(undefined)).toBe(COST_MAX_N);
  });

  test('repetitions adapt to n: many calls where one is quick, two where one takes seconds', () => {
    const reps = [128, 256, 512, 1024, 2048, 4096, 8192, 16384].map(repetitions);
    for (let i = 1; i < reps.length; i++) expect(reps[i]).toBeLessThanOrEqual(reps[i - 1]);
    expect(reps[0]).toBeGreaterThanOrEqual(10);
    expect(repetitions(16384)).toBe(2);
    // The progress bar counts work, n² per call: the large sizes dominate it, as they dominate the wait.
    const plan = planCost();
    expect(plan.find((item) => item.n === 128)!.work).toBe(128 * 128 * (repetitions(128) + 1));
    expect(plan.find((item) => item.n === 16384)!.work).toBe(16384 * 16384 * 2);
  });

  test('tile memory: b² + 3b floats whatever n is, with b clamped to n', () => {
    expect(tiledScratchFloats(16384, 64)).toBe(64 * 64 + 3 * 64);
    expect(tiledScratchFloats(128, 64)).toBe(64 * 64 + 3 * 64);
    expect(tiledScratchFloats(9, 16)).toBe(81 + 27);
  });
});

describe('the slope fit', () => {
  const ns = [128, 256, 512, 1024, 2048, 4096, 8192];

  test('exactly 2 on n² data, 1 on linear data, 3 on n³; the intercept recovers the constant', () => {
    const quadratic = fitLogLogSlope(ns.map((n) => [n, 3e-6 * n * n] as [number, number]))!;
    expect(quadratic.slope).toBeCloseTo(2, 12);
    expect(10 ** quadratic.intercept).toBeCloseTo(3e-6, 12);
    expect(quadratic.count).toBe(5); // n >= 512 only
    expect(fitLogLogSlope(ns.map((n) => [n, 0.5 * n] as [number, number]))!.slope).toBeCloseTo(1, 12);
    expect(fitLogLogSlope(ns.map((n) => [n, n ** 3] as [number, number]))!.slope).toBeCloseTo(3, 12);
  });

  test('~1 on noisy linear data, ~2 on noisy quadratic data', () => {
    const noise = [1.04, 0.97, 1.02, 0.95, 1.05, 0.99, 1.01];
    expect(fitLogLogSlope(ns.map((n, i) => [n, n * noise[i]] as [number, number]))!.slope).toBeCloseTo(1, 1);
    expect(fitLogLogSlope(ns.map((n, i) => [n, n * n * noise[i]] as [number, number]))!.slope).toBeCloseTo(2, 1);
  });

  test('only points from n = 512 on enter: a flat start (fixed per-call costs) does not bend the slope', () => {
    const points = ns.map((n) => [n, n < 512 ? 1 : n * n] as [number, number]);
    expect(fitLogLogSlope(points)!.slope).toBeCloseTo(2, 12);
    expect(fitLogLogSlope(points, 128)!.slope).not.toBeCloseTo(2, 1);
  });

  test('fewer than two usable points: no slope, not NaN', () => {
    expect(fitLogLogSlope([])).toBeNull();
    expect(fitLogLogSlope([[512, 1]])).toBeNull();
    expect(
      fitLogLogSlope([
        [128, 1],
        [256, 4],
      ]),
    ).toBeNull();
    expect(
      fitLogLogSlope([
        [512, 0],
        [1024, 4],
      ]),
    ).toBeNull();
    expect(
      fitLogLogSlope([
        [512, 1],
        [512, 2],
      ]),
    ).toBeNull();
  });

  test('the 2k -> 8k ratio is y(8192) / y(2048) when both were measured', () => {
    const points = ns.map((n) => [n, n * n] as [number, number]);
    expect(measuredRatio(points, 2048, 8192)).toBe(16);
    expect(measuredRatio(points.slice(0, 4), 2048, 8192)).toBeNull();
  });
});
