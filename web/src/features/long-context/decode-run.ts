// "Timed: one new token": the KV-cache part's measured decode. The flash step's run machinery times
// the 'decode' suite (features/cost/cost-plan.ts) in its worker: generating token t with the cache (one
// query row per head against t cached keys, multi-head and with the chosen KV heads) against
// recomputing attention over all t tokens, t = 16 to 512, dₖ = 64, as many heads as the shown model.
// This file gives that figure its words and reading; every number is the run's.
import { tokenCountLabel } from '../cost/cost-model';
import { CostRunFigure, formatMs, type CostRunState } from '../cost/cost-run';
import { el } from '../../ui/dom';
import type { StepContext } from '../../steps/types';
import { COST_D, COST_SUITES, type CostKernel, type DecodeShape } from '../cost/cost-plan';
import { MIN_TIMED_MS } from '../cost/timed-call';

const SUITE = COST_SUITES.decode;

/** The decode run's kernels in the legend, the table and the status line. */
export const DECODE_WORDS: Partial<Record<CostKernel, string>> = {
  cached: 'cache, multi-head',
  grouped: 'cache, chosen KV heads',
  recompute: 'no cache: recompute all t',
};

/** The time of kernel at the largest t it was measured at, with that t. */
function last(state: CostRunState, kernel: CostKernel): [number, number] | null {
  const points = state.times[kernel];
  return points.length ? points[points.length - 1] : null;
}

/** What the run says: per-token times at the last t, the cache's speed-up, and the chosen KV heads' time. */
export function decodeReading(state: CostRunState): (Node | null)[] {
  const shape = state.decode;
  const cached = last(state, 'cached');
  const recompute = last(state, 'recompute');
  const grouped = last(state, 'grouped');
  if (!shape || !cached || !recompute || cached[0] !== recompute[0]) return [];
  const t = cached[0];
  const groupedText =
    grouped && grouped[0] === t
      ? shape.kvHeads === shape.heads
        ? ` The chosen KV heads are the model’s ${shape.heads}: the same cache, ${formatMs(grouped[1])} in its own run.`
        : ` With ${shape.kvHeads} KV head${shape.kvHeads === 1 ? '' : 's'} the cache is ${shape.heads / shape.kvHeads} times smaller and a token takes ${formatMs(grouped[1])} ` +
          `(${grouped[1] <= cached[1] ? `${(cached[1] / grouped[1]).toFixed(1)}× faster than` : `${(grouped[1] / cached[1]).toFixed(1)}× the time of`} multi-head).`
      : '';
  return [
    el(
      'p',
      { class: 'kv-run-reading', 'data-t': t, 'data-speedup': (recompute[1] / cached[1]).toFixed(3) },
      `At token ${tokenCountLabel(t)} (${shape.heads} head${shape.heads === 1 ? '' : 's'} of dₖ = ${COST_D}): ${formatMs(cached[1])} with the cache, ` +
        `${formatMs(recompute[1])} recomputing all ${tokenCountLabel(t)} tokens, ${(recompute[1] / cached[1]).toFixed(0)} times as long.` +
        groupedText,
    ),
  ];
}

/** The decode timing's figure; `shape` is read when the reader presses Run (the shown model's heads, the chosen KV heads). */
export function mountDecodeRun(context: Pick<StepContext, 'timing'>, shape: () => DecodeShape): CostRunFigure {
  return new CostRunFigure(context.timing, {
    suite: 'decode',
    id: 'kv-run',
    title: 'Timed: one new token',
    intro:
      `Run times the engine generating token t, t = ${SUITE.minN} to ${SUITE.maxN}, on random keys and values with as many heads as the shown model: ` +
      'with the cache (its t keys and values stored, one query row per head scored against them), and without (causal attention over all t tokens again). ' +
      `Each step takes microseconds, so each timed call repeats it until it lasts ${MIN_TIMED_MS} ms and the time is divided by the repeats.`,
    words: DECODE_WORDS,
    reading: decodeReading,
    xLabel: 'token t being generated (log scale)',
    symbol: 't',
    timeCaption: 'Time per new token against t, log-log: the cache’s grows like t (slope 1), recomputing like t² (slope 2).',
    memory: false,
    decode: shape,
  });
}
