// The long-context step's second part: the KV cache at inference, drawn from snapshot.kvCache
// (features/long-context/kv-cache.ts). A stepper over the generated tokens (which is computed, which
// is reused), the scores per new token with and without the cache, the KV-heads control (setting
// lcKvHeads: URL lc_kv_heads, attribute kv-heads), the measured time per new token (decode-run.ts)
// and public models' cache sizes.
import { tokenCountLabel } from '../cost/cost-model';
import { columnHeads } from '../../ui/data-table';
import { controlForm, el, setText, showChildren } from '../../ui/dom';
import { chartTools } from '../../ui/export-toolbar';
import { bytes, count, fmt, quoted } from '../../ui/format';
import { LogLogChart } from '../../ui/line-chart';
import { scrollRegion } from '../../ui/scroll-region';
import type { Settings } from '../../settings';
import type { Snapshot } from '../../snapshot';
import { modelLine } from '../../steps/shared/figure';
import type { StepContext } from '../../steps/types';
import { mountDecodeRun } from './decode-run';
import { CONTEXT_LENGTHS, SERVED_BYTES_PER_VALUE, type KVCacheSnapshot } from './kv-cache';

/** Scores computed for new token t without a cache: causal attention over all t tokens, every head. */
export const recomputeScores = (heads: number, t: number) => (heads * t * (t + 1)) / 2;

/** "2 (multi-head)", "1 (multi-query)", "4 (grouped-query)". */
export function kvHeadsLabel(kvHeads: number, heads: number): string {
  const kind = kvHeads === heads ? 'multi-head' : kvHeads === 1 ? 'multi-query' : 'grouped-query';
  return `${kvHeads} (${kind})`;
}

/** The KV cache part's id, for links from other steps. */
export const KV_CACHE_ANCHOR = 'kv-cache';

let uid = 0;

export function mountKVCache(context: Pick<StepContext, 'update' | 'embedCode' | 'timing'>) {
  const id = ++uid;
  let shown: { kv: KVCacheSnapshot; tokens: string[] } | null = null;
  let position = -1;

  const stepId = `kv-step-${id}`;
  const stepInput = el('input', { type: 'range', id: stepId, name: 'kv-token', min: 1, step: 1 });
  const stepValue = el('output', { class: 'kv-step-value', for: stepId });
  const cacheRow = el('ol', { class: 'kv-tokens', 'aria-label': 'the cache while generating this token' });
  const stepReading = el('p', { class: 'reading kv-step-reading', 'aria-live': 'polite' });
  const kvId = `kv-heads-${id}`;
  const kvSelect = el('select', { id: kvId, name: 'kv-heads' });
  const kvReading = el('p', { class: 'reading kv-heads-reading' });
  const chart = new LogLogChart({ xLabel: 'token t being generated (log scale)', yLabel: 'scores computed (log scale)' });
  const modelsTable = el('table', { class: 'data-table kv-models' });
  // The cache holds the sentence model's keys and values (the public models' table below is from their papers).
  const whoseNumbers = modelLine();
  // Timed with the shown model's heads and the chosen KV heads, as they are when Run is pressed.
  const timed = mountDecodeRun(context, () => ({ heads: shown?.kv.heads ?? 1, kvHeads: shown?.kv.kvHeads ?? 1 }));

  const showStep = () => {
    if (!shown) return;
    const { kv, tokens } = shown;
    const t = Math.max(1, Math.min(kv.tokens, position));
    stepInput.value = String(t);
    setText(stepValue, String(t));
    showChildren(
      cacheRow,
      ...tokens
        .slice(0, t)
        .map((token, i) =>
          el(
            'li',
            { class: i === t - 1 ? 'kv-new' : 'kv-cached' },
            token,
            el('span', { class: 'visually-hidden' }, i === t - 1 ? ' (new: computed)' : ' (cached: reused)'),
          ),
        ),
    );
    const engineRecompute = kv.recomputeCells.find(([length]) => length === t)?.[1] ?? recomputeScores(kv.heads, t);
    setText(
      stepReading,
      `Generating token ${t}, ${quoted(tokens[t - 1] ?? '')}: its q, k and v rows are computed (${kv.heads} query head${kv.heads === 1 ? '' : 's'}, ${kv.kvHeads} KV head${kv.kvHeads === 1 ? '' : 's'}), ` +
        `its k and v join the ${t - 1} cached ones, and each query row is scored against the ${t} keys: ${count(kv.cachedCells[t - 1])} scores. ` +
        `Without the cache the model would recompute attention over all ${t} tokens: ${count(engineRecompute)} scores.`,
    );
  };
  stepInput.addEventListener('input', () => {
    position = stepInput.valueAsNumber;
    showStep();
  });
  kvSelect.addEventListener('change', () => context.update({ lcKvHeads: Number(kvSelect.value) }));

  const element = el(
    'section',
    // A stable anchor: the FAQ links it.
    { class: 'kv-cache', id: KV_CACHE_ANCHOR, 'aria-labelledby': `kv-title-${id}` },
    el('h3', { id: `kv-title-${id}` }, 'At inference: the KV cache'),
    el(
      'p',
      {},
      'A causal model generates one token at a time, and earlier tokens never see later ones: their keys and values do not change. ',
      'Kept in a cache, they are reused, and each new token computes one query row per head against them. The engine runs this sentence ',
      'through such a cache, token by token, with the shown heads’ Q, K and V.',
    ),
    controlForm(
      { class: 'kv-controls' },
      el(
        'div',
        { class: 'lc-control' },
        el('label', { for: stepId }, 'Generating token t'),
        el('div', { class: 'kv-step-row' }, stepInput, stepValue),
      ),
      el('div', { class: 'lc-control' }, el('label', { for: kvId }, 'KV heads'), kvSelect),
    ),
    whoseNumbers.element,
    cacheRow,
    stepReading,
    el(
      'figure',
      { class: 'figure kv-chart' },
      chart.element,
      chartTools(chart, 'Scores per new token with and without the KV cache (log-log)', context.embedCode),
      el('figcaption', {}, 'Scores per generated token, as the engine counted them: with the cache they grow like t, recomputing like t².'),
    ),
    kvReading,
    timed.element,
    scrollRegion({ label: 'KV cache of public models', className: 'matrix-scroll' }, modelsTable),
  );

  return {
    element,
    /** `view` is the sentence the step shows (its kvCache and tokens); `settings` the page's, with the KV heads asked for. */
    render(view: Snapshot, settings: Settings) {
      const { kvCache: kv, tokens } = view;
      if (!kv) return; // the engine's later module is on its way: the step says so (step.ts)
      whoseNumbers.render(view);
      const fresh = !shown || shown.kv.tokens !== kv.tokens;
      shown = { kv, tokens };
      stepInput.max = String(kv.tokens);
      if (fresh || position > kv.tokens) position = kv.tokens;
      showStep();

      showChildren(kvSelect, ...kv.kvChoices.map((g) => el('option', { value: g, selected: g === kv.kvHeads }, kvHeadsLabel(g, kv.heads))));
      kvSelect.value = String(kv.kvHeads);
      const lowered = settings.lcKvHeads !== kv.kvHeads && settings.lcKvHeads < kv.heads;
      setText(
        kvReading,
        `${kv.heads} query head${kv.heads === 1 ? '' : 's'} of dₖ = ${kv.dK} reading ${kvHeadsLabel(kv.kvHeads, kv.heads)} KV head${kv.kvHeads === 1 ? '' : 's'}` +
          `${lowered ? ` (${settings.lcKvHeads} does not divide ${kv.heads})` : ''}: the cache holds ${bytes(kv.bytesPerToken)} per token and layer in float32, ` +
          `against ${bytes(kv.multiHeadBytesPerToken)} with one KV head per query head. ` +
          (kv.kvHeads === kv.heads
            ? 'These are the model’s own keys and values. '
            : `Each group’s keys and values are the mean of its heads’: generating the sentence, the outputs move from multi-head attention’s by at most ${fmt(kv.fromMultiHead.max, 3)} (mean ${fmt(kv.fromMultiHead.mean, 3)}). `) +
          (kv.recomputeDifference === 0
            ? `At token ${kv.comparedToken} the cache’s output and recomputing everything are identical.`
            : `At token ${kv.comparedToken} the cache’s output and recomputing everything differ by at most ${kv.recomputeDifference.toExponential(1)} (float32 rounding).`),
      );

      const cached = kv.cachedCells.map((cells, i): [number, number] => [i + 1, cells]);
      const last = kv.recomputeCells[kv.recomputeCells.length - 1];
      const ticks = [1, 4, 16, 64, 256].filter((v) => v <= Math.max(4, kv.tokens)).map((v) => ({ value: v, label: String(v) }));
      const yTop = Math.max(last[1], cached[cached.length - 1][1], 1);
      const yTicks: { value: number; label: string }[] = [];
      for (let v = 1; v <= yTop * 10; v *= 10) yTicks.push({ value: v, label: count(v) });
      chart.update({
        series: [
          {
            label: 'recomputing all t tokens: grows like t²',
            className: 'series-quad',
            points: kv.recomputeCells,
            markers: kv.recomputeCells.length <= 32,
          },
          { label: 'with the KV cache: grows like t', className: 'series-lin', points: cached, markers: cached.length <= 32 },
        ],
        xTicks: ticks,
        yTicks,
        description:
          `Log-log chart of the scores computed per generated token, t = 1 to ${kv.tokens}: with the cache from ${count(cached[0][1])} to ${count(cached[cached.length - 1][1])}, ` +
          `recomputing (t = 1 to ${kv.comparedToken}) from ${count(kv.recomputeCells[0][1])} to ${count(last[1])}.`,
      });

      showChildren(
        modelsTable,
        el(
          'caption',
          {},
          `KV cache of public models, ${SERVED_BYTES_PER_VALUE * 8}-bit keys and values: 2 · layers · KV heads · dₖ · ${SERVED_BYTES_PER_VALUE} bytes per token`,
        ),
        columnHeads([
          'model',
          'layers',
          'heads',
          'KV heads',
          'dₖ',
          'per token',
          ...CONTEXT_LENGTHS.map((n) => `at ${tokenCountLabel(n)} tokens`),
        ]),
        el(
          'tbody',
          {},
          ...kv.models.map(({ model, bytesPerToken }) =>
            el(
              'tr',
              { 'data-model': model.name },
              el('th', { scope: 'row' }, model.name, ' ', el('cite', { class: 'lc-source' }, `(${model.source})`)),
              ...[model.layers, model.heads, model.kvHeads, model.dK].map((v) => el('td', { class: 'num' }, String(v))),
              el('td', { class: 'num', 'data-key': 'perToken' }, bytes(bytesPerToken)),
              ...CONTEXT_LENGTHS.map((n) => el('td', { class: 'num', 'data-key': `at-${n}` }, bytes(bytesPerToken * n))),
            ),
          ),
        ),
      );
    },
  };
}
