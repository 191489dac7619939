// "Measured on this machine": the long-context step's timed run. The cost feature's machinery does the
// work (features/cost/: cost-plan.ts plans the 'longContext' suite, cost-worker.ts times it in a Web
// Worker, cost-run.ts draws time and memory on log-log axes with fitted slopes); this file
// gives that figure the step's words and its reading: where each technique crosses full attention
// on this machine, what was not run and why, and the memory the run is allowed in this tab. Every
// number is computed from the plan or from the measurements.
import { tokenCountLabel } from '../cost/cost-model';
import { CostRunFigure, formatMs, type CostRunState } from '../cost/cost-run';
import { el } from '../../ui/dom';
import { bytes, count } from '../../ui/format';
import type { StepContext } from '../../steps/types';
import {
  COST_BUDGET_BYTES,
  COST_D,
  COST_SUITES,
  ENGINE_START_BYTES,
  RUN_PATTERN,
  engineGroup,
  naiveMatrixBytes,
  planCost,
  planSkips,
  runMemoryBound,
  type CostKernel,
  type SlopeFit,
} from '../cost/cost-plan';

const SUITE = COST_SUITES.longContext;

/** The kernels of this run (the suite's). */
export type LongKernel = 'naive' | 'tiled' | 'window' | 'global' | 'strided' | 'linear';

/** Each kernel in the legend, the table and the status line of this step. */
export const RUN_WORDS: Record<LongKernel, string> = {
  naive: 'full attention',
  tiled: 'FlashAttention',
  window: `window (w = ${RUN_PATTERN.window})`,
  global: `window + ${RUN_PATTERN.global} global`,
  strided: `window + stride ${RUN_PATTERN.stride}`,
  linear: 'linear attention',
};

/** Beyond this n an extrapolated crossing is not a prediction worth printing. */
const EXTRAPOLATION_LIMIT = 2 ** 24;

/** Where a technique's time falls below full attention's. */
export type Crossing =
  /** Nothing timed at a size where full attention was too. */
  | { kind: 'pending' }
  /** Faster at every size both were timed at, from the smallest. */
  | { kind: 'always'; n: number }
  /** Slower below n, faster at n and every larger size both were timed at. */
  | { kind: 'from'; n: number }
  /** Slower at every size up to the largest both were timed at; the fitted lines cross near n. */
  | { kind: 'extrapolated'; n: number; upTo: number }
  /** Slower where both were timed, and the fitted lines do not cross (or only past EXTRAPOLATION_LIMIT). */
  | { kind: 'never'; upTo: number };

/**
 * The measured crossing with full attention: the first size from which the technique is faster at
 * every larger common size. When it is slower at the largest common size, the fitted lines' meeting
 * point (log t = a + k log n for each), if the technique's slope is the smaller one.
 */
export function crossing(
  full: readonly (readonly [number, number])[],
  other: readonly (readonly [number, number])[],
  fullFit: SlopeFit | null,
  otherFit: SlopeFit | null,
): Crossing {
  const common = other.filter(([n]) => full.some(([m]) => m === n)).sort((a, b) => a[0] - b[0]);
  if (common.length === 0) return { kind: 'pending' };
  const fullAt = (n: number) => full.find(([m]) => m === n)![1];
  let lastSlower = -1;
  common.forEach(([n, ms], i) => {
    if (ms >= fullAt(n)) lastSlower = i;
  });
  if (lastSlower === -1) return { kind: 'always', n: common[0][0] };
  if (lastSlower < common.length - 1) return { kind: 'from', n: common[lastSlower + 1][0] };
  const upTo = common[common.length - 1][0];
  if (fullFit && otherFit && otherFit.slope < fullFit.slope) {
    const n = 10 ** ((otherFit.intercept - fullFit.intercept) / (fullFit.slope - otherFit.slope));
    if (n <= EXTRAPOLATION_LIMIT) return { kind: 'extrapolated', n: Math.max(n, upTo), upTo };
  }
  return { kind: 'never', upTo };
}

/** "≈ 12k" for an extrapolated size: two significant figures, never more precise than the fit. */
function about(n: number): string {
  const rounded = Number(n.toPrecision(2));
  return rounded >= 1024 ? `${Number((rounded / 1024).toPrecision(2))}k` : count(rounded);
}

/** One technique's crossing in words, with the two times it rests on. */
export function crossingSentence(kernel: LongKernel, state: CostRunState): string {
  const found = crossing(state.times.naive, state.times[kernel], state.fits.naive, state.fits[kernel]);
  const name = RUN_WORDS[kernel];
  const at = (n: number) => {
    const mine = state.times[kernel].find(([m]) => m === n)![1];
    const full = state.times.naive.find(([m]) => m === n)![1];
    return `${formatMs(mine)} against ${formatMs(full)} at ${tokenCountLabel(n)}`;
  };
  switch (found.kind) {
    case 'pending':
      return `${name}: not timed beside full attention yet.`;
    case 'always':
      return `${name}: faster than full attention at every size both were timed at, from ${tokenCountLabel(found.n)} (${at(found.n)}).`;
    case 'from':
      return `${name}: crosses full attention at ${tokenCountLabel(found.n)} and stays faster (${at(found.n)}).`;
    case 'extrapolated':
      return `${name}: slower than full attention up to ${tokenCountLabel(found.upTo)} (${at(found.upTo)}); the fitted lines cross near n ≈ ${about(found.n)}.`;
    case 'never':
      return `${name}: slower than full attention up to ${tokenCountLabel(found.upTo)} (${at(found.upTo)}), and its fitted line does not cross full attention’s.`;
  }
}

/** Largest n of the plan a kernel runs at (0 when none). */
const largestN = (kernel: CostKernel, plan: readonly { kernel: CostKernel; n: number }[]) =>
  Math.max(0, ...plan.filter((item) => item.kernel === kernel).map((item) => item.n));

/** The sentence under the heading: sizes, patterns, what is skipped and why, and the memory bound, from the plan. */
export function runIntro(): string {
  const plan = planCost({ suite: 'longContext' });
  const skips = planSkips({ suite: 'longContext' });
  const fullStops = largestN('naive', plan);
  const flashStops = largestN('tiled', plan);
  const fullSkip = skips.find((skip) => skip.kernel === 'naive');
  return (
    `Run times the techniques here on random Q, K and V (one head, dₖ = ${COST_D}, no mask), n = ${tokenCountLabel(SUITE.minN)} to ${tokenCountLabel(SUITE.maxN)}: ` +
    `a window of |i − j| < ${RUN_PATTERN.window}, the window plus ${RUN_PATTERN.global} global tokens, the window plus every ${RUN_PATTERN.stride}th key, linear attention, ` +
    `FlashAttention up to ${tokenCountLabel(flashStops)} (all n² products: each doubling of n quadruples its time) and full attention up to ${tokenCountLabel(fullStops)}` +
    (fullSkip
      ? `: at ${tokenCountLabel(fullSkip.n)} its n × n matrix alone would take ${bytes(naiveMatrixBytes(fullSkip.n))}, over the ${bytes(COST_BUDGET_BYTES)} budget, ` +
        `and at ${tokenCountLabel(SUITE.maxN)} ${bytes(naiveMatrixBytes(SUITE.maxN))}, which no browser tab is given. `
      : '. ') +
    `The run holds at most ${bytes(runMemoryBound(plan))} in this tab: two engines at their largest n (${bytes(ENGINE_START_BYTES)} each to start) and the worker’s copies of the inputs.`
  );
}

/** The step's reading of the run: crossings, extrapolations for the sizes not run, and memory used against the bound. */
export function runReading(state: CostRunState): (Node | null)[] {
  const others = (Object.keys(RUN_WORDS) as LongKernel[]).filter((kernel) => kernel !== 'naive');
  const hasFull = state.times.naive.length > 0;
  const beyond = (kernel: LongKernel, fit: SlopeFit | null) => {
    const stop = largestN(kernel, state.plan);
    return fit && stop > 0 && stop < SUITE.maxN && largestN('linear', state.plan) === SUITE.maxN
      ? `${RUN_WORDS[kernel]} about ${formatMs(10 ** (fit.intercept + fit.slope * Math.log10(SUITE.maxN)))} per call`
      : null;
  };
  const extrapolated = [beyond('naive', state.fits.naive), beyond('tiled', state.fits.tiled)].filter((text) => text !== null);
  const peaks = new Map<string, number>();
  for (const m of state.measured) peaks.set(engineGroup(m.kernel), Math.max(peaks.get(engineGroup(m.kernel)) ?? 0, m.memoryBytes));
  const used = [...peaks.values()].reduce((a, b) => a + b, 0);
  const bound = runMemoryBound(state.plan);
  return [
    hasFull
      ? el(
          'ul',
          { class: 'lc-run-crossings', 'aria-label': 'Where each technique crosses full attention on this machine' },
          ...others.map((kernel) => el('li', { 'data-kernel': kernel }, crossingSentence(kernel, state))),
        )
      : null,
    extrapolated.length
      ? el(
          'p',
          { class: 'lc-run-extrapolated' },
          `Not run at ${tokenCountLabel(SUITE.maxN)}, extended along their fitted lines: ${extrapolated.join(', ')}.`,
        )
      : null,
    state.measured.length
      ? el(
          'p',
          { class: 'lc-run-memory', 'data-used': used, 'data-bound': bound },
          `Memory: the two engines reached ${bytes(used)} together, ${used <= bound ? 'within' : 'over'} this run’s bound of ${bytes(bound)}.`,
        )
      : null,
  ];
}

/** The run's figure, for the step to place; it starts nothing until the reader presses Run. */
export function mountLongContextRun(context: Pick<StepContext, 'timing'>): CostRunFigure {
  return new CostRunFigure(context.timing, {
    suite: 'longContext',
    id: 'lc-run',
    title: 'Measured on this machine',
    intro: runIntro(),
    words: RUN_WORDS,
    reading: runReading,
  });
}
