// Step 2 of the article: divide the scores by sqrt(d_k), and why. The division of one live score (the
// score matrix itself is drawn once, in step 3), the variance experiment (random dot products before and after), the saturation demo (softmax of
// [1, 2, 3] with and without the spread that d_k would cause, and how much gradient survives), and
// what scaling does to the current sentence's weights.
// Length: each step is one file; this one is long because it holds three figures: the live division, the
// variance experiment and the saturation demo.
import { BarChart } from '../../ui/bars';
import { el, replaceChildren, setText, showChildren } from '../../ui/dom';
import { count, fmt, formatPercentDelta, percent, quoted } from '../../ui/format';
import { tex } from '../../ui/formula';
import { figureTools } from '../../ui/export-toolbar';
import { Histogram } from '../../ui/histogram';
import { tokenLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { scrollRegion } from '../../ui/scroll-region';
import { Prediction } from '../../ui/predict';
import type { Matrix, Tensor3 } from '../../engine/types';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { workedExampleNote } from '../shared/worked-example';
import { widerHeadAdvice } from '../shared/which-model';

/** The d_k the article uses for its saturation example. */
const ARTICLE_DK = 64;
/** A row whose largest weight shows as this or more is "nearly one-hot". */
const ONE_HOT = 0.9;
/** Compares as the reader sees it: a weight shown as "90%" counts as 90%. */
const atLeastOneHot = (w: number) => Math.round(w * 100) >= ONE_HOT * 100;
/** Above this many tokens the per-row table folds into a <details>. */
const OPEN_TABLE_UP_TO = 16;

/** Largest weight of each row of head `head`. */
/** The largest entry of each row of head `head` of t (a Matrix is one head: pass 0). */
export function rowMaxima(t: Tensor3 | Matrix, head: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < t.rows; r++) {
    let best = 0;
    const base = (head * t.rows + r) * t.cols;
    for (let c = 0; c < t.cols; c++) best = Math.max(best, t.data[base + c]);
    out.push(best);
  }
  return out;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** Whole numbers without decimals (the article's [1, 2, 3] and [8, 16, 24]), others with two. */
const num = (v: number) => fmt(v, Number.isInteger(v) ? 0 : 2);

function rowText(row: Float32Array | number[]): string {
  return `[${Array.from(row, num).join(', ')}]`;
}

export const scaleStep: StepDefinition = {
  id: 'scale',
  number: 4,
  title: 'Scale by √dₖ, and why',
  summary:
    'Dividing the scores by √dₖ keeps their spread near 1 whatever the vector length, so softmax stays responsive and keeps passing gradient.',
  formula: tex`\text{scaled} = \frac{Q K^{\top}}{\sqrt{d_k}}`,
  mount(body, context) {
    const worked = workedExampleNote(context);
    let snapshot: Snapshot | null = null;

    const what = el('p', {});
    const division = el('div', { class: 'by-hand-box', 'aria-live': 'polite' });

    const experimentIntro = el('p', {});
    const histogram = new Histogram({
      title: 'Random dot products before and after dividing by √dₖ',
      xLabel: 'value of the dot product',
      className: 'scale-histogram',
    });
    const statsBody = el('tbody');
    const statsTable = el(
      'table',
      { class: 'data-table scale-stats' },
      el('caption', {}, 'Standard deviation of the dot products'),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col' }, 'dot products'),
          el('th', { scope: 'col' }, 'measured'),
          el('th', { scope: 'col' }, 'expected'),
        ),
      ),
      statsBody,
    );
    const experimentReading = el('p', { class: 'reading' });
    const tryButton = el('button', { type: 'button', class: 'scale-try' });
    tryButton.addEventListener('click', () => context.update({ weights: 'random', dModel: 512, heads: 8 }));

    const softBars = new BarChart({
      caption: '',
      labelHeader: 'score',
      valueHeader: 'probability',
      max: 1,
      format: (v) => fmt(v, 2),
      className: 'scale-soft',
    });
    const sharpBars = new BarChart({
      caption: '',
      labelHeader: 'score',
      valueHeader: 'probability',
      max: 1,
      format: (v) => fmt(v, 2),
      className: 'scale-sharp',
    });
    const softNorm = el('figcaption', { class: 'scale-gradient' });
    const sharpNorm = el('figcaption', { class: 'scale-gradient' });
    const saturationReading = el('p', {});

    const effect = el('p', { 'aria-live': 'polite' });
    const effectTable = new MatrixTable({
      embed: context.embedCode,
      caption: 'largest weight per row',
      scale: 'sequential',
      corner: 'token',
      format: (v) => percent(v),
      formatDelta: formatPercentDelta,
      legend: 'a larger weight',
      describe: (r, c, v) =>
        snapshot ? `largest weight of ${quoted(snapshot.tokens[r])}’s row, ${effectColumns[c] ?? ''}: ${percent(v)}` : '',
    });
    let effectColumns: string[] = [];
    const effectFigure = el('figure', { class: 'figure' }, effectTable.element);
    const effectDetails = el('details', {}, el('summary', {}, 'The largest weight of every row'));
    const effectHolder = el('div', { class: 'scale-effect' });
    const scaleButton = el('button', { type: 'button', class: 'scale-toggle' });
    scaleButton.addEventListener('click', () => context.update({ scale: !snapshot?.settings.scale }));

    const saturationFigure = el(
      'div',
      { class: 'figure-row scale-saturation' },
      el(
        'figure',
        { class: 'figure' },
        softBars.element,
        softNorm,
        figureTools(
          () => softBars.element,
          () => 'Softmax of 1, 2, 3',
          (palette) => softBars.svgFile(palette),
          context.embedCode,
        ),
      ),
      el(
        'figure',
        { class: 'figure' },
        sharpBars.element,
        sharpNorm,
        figureTools(
          () => sharpBars.element,
          () => 'Softmax of 1, 2, 3 stretched by the square root of dₖ',
          (palette) => sharpBars.svgFile(palette),
          context.embedCode,
        ),
      ),
    );
    // Predict first: without the division, what does a larger d_k do to the largest weight?
    const predict = context.predictions ? new Prediction([saturationFigure, saturationReading]) : null;

    body.append(
      worked.element,
      what,
      division,
      el('h3', { class: 'scale-heading' }, 'Why: longer vectors, wider scores'),
      el('p', {}, 'A score adds up dₖ products of variance about 1, and variances add: its standard deviation is about √dₖ.'),
      experimentIntro,
      el(
        'figure',
        { class: 'figure scale-experiment' },
        histogram.element,
        figureTools(
          () => histogram.element,
          () => 'Random dot products before and after dividing by the square root of dₖ',
          (palette) => histogram.svgFile(palette),
          context.embedCode,
        ),
        scrollRegion({ label: 'Standard deviation of the dot products' }, statsTable),
      ),
      experimentReading,
      el('h3', { class: 'scale-heading' }, 'Without it, softmax saturates'),
      el(
        'p',
        {},
        'Softmax (next step) exponentiates, so with spread-out inputs the largest takes almost everything. The row [1, 2, 3], and stretched by √dₖ:',
      ),
      ...(predict ? [predict.element] : []),
      saturationFigure,
      saturationReading,
      el('p', { class: 'scale-try-row' }, tryButton),
      el('h3', { class: 'scale-heading' }, 'What it does here'),
      effect,
      effectHolder,
    );

    /** The division of the first score (the article's q₁ · k₁ by default): every other cell is the same sum. */
    function showDivision(next: Snapshot): void {
      const { pipeline: p, tokens, settings } = next;
      const at = settings.head * p.n * p.n;
      const raw = p.scores.data[at];
      const result = p.scoresScaled.data[at];
      showChildren(
        division,
        el(
          'p',
          { class: 'by-hand scale-division' },
          el('span', { class: 'by-hand-label' }, 'scaled[1, 1]'),
          ' = ',
          el('span', { class: 'scale-raw', 'data-value': raw }, fmt(raw)),
          settings.scale ? ` ÷ √${p.dK} = ${fmt(raw)} ÷ ${fmt(Math.sqrt(p.dK))} = ` : ' × 1 = ',
          el('strong', { class: 'by-hand-result', 'data-value': result }, fmt(result)),
        ),
        el('p', { class: 'scale-division-note' }, `${quoted(tokens[0])} against itself, the first cell of step 3’s scores.`),
      );
    }

    let shownDots: Snapshot['dots'] | null = null;
    let shownSaturation: Snapshot['saturation']['soft'] | null = null;
    let shownHeads = 0;

    function showExperiment(next: Snapshot): void {
      const { dots } = next;
      const dK = dots.dK;
      const root = fmt(Math.sqrt(dK));
      const spread = Math.max(dots.rawStd, dots.scaledStd, 1);
      const limit = Math.max(4, Math.ceil(4 * spread));
      setText(
        experimentIntro,
        `${count(dots.raw.length)} dot products of random standard-normal vectors with dₖ = ${dK}, as they come (top) and divided by √dₖ (bottom):`,
      );
      histogram.update(
        [
          {
            label: `q · k: standard deviation ${fmt(dots.rawStd)}`,
            values: dots.raw,
            className: 'series-b',
            markers: [
              { at: -dots.rawStd, label: '−σ' },
              { at: dots.rawStd, label: '+σ' },
            ],
          },
          {
            label: `q · k / √${dK}: standard deviation ${fmt(dots.scaledStd)}`,
            values: dots.scaled,
            className: 'series-a',
            markers: [
              { at: -dots.scaledStd, label: '−σ' },
              { at: dots.scaledStd, label: '+σ' },
            ],
          },
        ],
        [-limit, limit],
        `Histogram of ${count(dots.raw.length)} random dot products with dₖ = ${dK}. Before scaling their standard deviation is ${fmt(dots.rawStd)}, close to √${dK} = ${root}; ` +
          `after dividing by ${root} it is ${fmt(dots.scaledStd)}, close to 1.`,
      );
      // The current dₖ's rows, then (beside the example's dₖ 4, or any other) the article's dₖ 64: its std ≈ 8 -> ≈ 1.
      const rowsFor = (samples: Snapshot['dots'], current: boolean) => {
        const d = samples.dK;
        const note = current ? '' : ' (the article’s)';
        return [
          el(
            'tr',
            { class: current ? null : 'scale-article-dk' },
            el('th', { scope: 'row' }, `q · k, dₖ = ${d}${note}`),
            el('td', { class: 'stat scale-raw-std' }, fmt(samples.rawStd)),
            el('td', { class: 'stat' }, `√${d} = ${fmt(Math.sqrt(d))}`),
          ),
          el(
            'tr',
            { class: current ? null : 'scale-article-dk' },
            el('th', { scope: 'row' }, `q · k / √${d}`),
            el('td', { class: 'stat scale-scaled-std' }, fmt(samples.scaledStd)),
            el('td', { class: 'stat' }, '1'),
          ),
        ];
      };
      const article = next.articleDots;
      showChildren(statsBody, ...rowsFor(dots, true), ...(article ? rowsFor(article, false) : []));
      const articleReading = article
        ? ` At the article’s dₖ = ${article.dK}: ${fmt(article.rawStd)} before (√${article.dK} = ${fmt(Math.sqrt(article.dK))}), ${fmt(article.scaledStd)} after.`
        : '';
      setText(
        experimentReading,
        (dK === 1
          ? `With dₖ = 1 each score is a single product, √1 = 1, and dividing changes nothing: both spreads are ${fmt(dots.rawStd)}.`
          : `Measured: ${fmt(dots.rawStd)} before (√${dK} = ${root} predicted), ${fmt(dots.scaledStd)} after.`) + articleReading,
      );
    }

    function showSaturation(next: Snapshot): void {
      // The dₖ the stretch stands for: the pipeline's, or the article's 64 beside its four-token example.
      const { row, soft, sharp, factor, dK } = next.saturation;
      const stretched = Array.from(row, (v) => v * factor);
      softBars.update(
        Array.from(soft.probabilities, (v, i) => ({ label: num(row[i]), value: v, emphasis: i === row.length - 1 })),
        `softmax(${rowText(row)})`,
      );
      sharpBars.update(
        Array.from(sharp.probabilities, (v, i) => ({ label: num(stretched[i]), value: v, emphasis: i === row.length - 1 })),
        `softmax(${rowText(row)} × √${dK}) = softmax(${rowText(stretched)})`,
      );
      softNorm.replaceChildren('Gradient that still flows: ', el('span', { class: 'stat scale-soft-norm' }, fmt(soft.jacobianNorm, 3)));
      sharpNorm.replaceChildren('Gradient that still flows: ', el('span', { class: 'stat scale-sharp-norm' }, fmt(sharp.jacobianNorm, 3)));
      const top = sharp.probabilities[sharp.probabilities.length - 1];
      if (factor === 1) {
        setText(
          saturationReading,
          `At dₖ = 1 there is nothing to stretch (√1 = 1), so both rows are the same. Choose ${widerHeadAdvice(next)} to see softmax saturate.`,
        );
      } else {
        const ratio = sharp.jacobianNorm > 0 ? soft.jacobianNorm / sharp.jacobianNorm : Infinity;
        saturationReading.textContent =
          `Stretched by √${dK} = ${fmt(factor)}, the largest score takes ${percent(top, top > 0.99 ? 1 : 0)} instead of ${percent(soft.probabilities[soft.probabilities.length - 1])}, ` +
          'and the gradient that still flows (the norm of softmax’s Jacobian, diag(p) − p pᵀ) ' +
          `falls from ${fmt(soft.jacobianNorm, 3)} to ${fmt(sharp.jacobianNorm, 3)}${Number.isFinite(ratio) && ratio >= 1.05 ? `, ${fmt(ratio, ratio < 10 ? 1 : 0)} times smaller` : ''}: ` +
          'W_q and W_k get almost no error signal, and training stalls.';
      }
      const before = soft.probabilities[soft.probabilities.length - 1];
      predict?.update({
        key: 'scale-saturation',
        question: 'Without the division by √dₖ, what happens to the largest weight of a softmax row as dₖ grows?',
        choices: [
          { id: 'grows', label: 'It grows' },
          { id: 'shrinks', label: 'It shrinks' },
          { id: 'stays', label: 'It stays the same' },
        ],
        correct: 'grows',
        explanation:
          `Unscaled scores spread about √dₖ times wider, and softmax turns a wider gap into a bigger share for the top score. ` +
          (factor === 1
            ? `Here dₖ = 1, so there is nothing to stretch yet; at the article’s dₖ = ${ARTICLE_DK} the row [1, 2, 3] would become [8, 16, 24] and its top weight would go from ${percent(before)} to almost 100%.`
            : `At this page’s dₖ = ${dK} the row [1, 2, 3] becomes ${rowText(stretched)}, and its top weight goes from ${percent(before)} to ${percent(top, top > 0.99 ? 1 : 0)}. `) +
          ' Near 100% the softmax stops responding to its inputs, and training stalls; that is what the division prevents.',
      });
      tryButton.hidden = dK === ARTICLE_DK;
      setText(tryButton, `Try the article’s dₖ = ${ARTICLE_DK} (d_model 512, 8 heads)`);
    }

    function showEffect(next: Snapshot): void {
      const { pipeline: p, tokens, settings } = next;
      const h = settings.head;
      const labels = tokenLabels(tokens);
      const withScaling = rowMaxima(p.weights, h);
      const without = rowMaxima(p.weightsUnscaled, 0); // computed for the shown head only
      const live = p.fullyMaskedRows;
      const rows = withScaling.map((_, i) => i).filter((i) => !live[i]);
      const nearlyOneHot = (values: number[]) => rows.filter((i) => atLeastOneHot(values[i])).length;
      const headNote = p.heads > 1 ? ` of head ${h + 1}` : '';
      setText(scaleButton, settings.scale ? 'Switch scaling off' : 'Switch scaling back on');

      if (!settings.scale) {
        replaceChildren(
          effect,
          `Scaling is switched off, so the weights in the next steps come from raw scores. Across the ${rows.length} rows${headNote}, the largest weight averages ${percent(mean(rows.map((i) => without[i])))}, ` +
            `and ${nearlyOneHot(without)} of them give ${percent(ONE_HOT)} or more to a single token. `,
          scaleButton,
          ' to compare.',
        );
      } else if (p.dK === 1) {
        replaceChildren(
          effect,
          'With dₖ = 1 the scores are divided by √1 = 1, so scaling changes nothing here: the weights with and without it are the same.',
        );
      } else {
        // The row that scaling changes most.
        let most = rows[0] ?? 0;
        for (const i of rows) if (without[i] - withScaling[i] > without[most] - withScaling[most]) most = i;
        replaceChildren(
          effect,
          `Without scaling, the largest weight in row ${most + 1} (${quoted(tokens[most])}) would be ${percent(without[most])} instead of ${percent(withScaling[most])}. ` +
            `Over the ${rows.length} rows${headNote}, the largest weight is ${percent(mean(rows.map((i) => withScaling[i])))} with scaling and would be ${percent(mean(rows.map((i) => without[i])))} without. `,
          scaleButton,
          ' to compare.',
        );
      }

      const both = settings.scale && p.dK > 1;
      const columns = both ? [withScaling, without] : [without];
      const colLabels = both ? ['with scaling', 'without'] : ['largest weight'];
      effectColumns = both ? ['with scaling', 'without scaling'] : [settings.scale ? 'with scaling' : 'without scaling'];
      const data = new Float32Array(p.n * columns.length);
      for (let i = 0; i < p.n; i++) columns.forEach((values, c) => (data[i * columns.length + c] = values[i]));
      // The same table before the reader's edits (step 2), to mark what moved.
      const base = next.baseline;
      const baseColumns = base
        ? both
          ? [rowMaxima(base.weights, h), rowMaxima(base.weightsUnscaled, 0)]
          : [rowMaxima(base.weightsUnscaled, 0)]
        : null;
      const baseline = baseColumns ? new Float32Array(p.n * columns.length) : null;
      if (baseline && baseColumns)
        for (let i = 0; i < p.n; i++) baseColumns.forEach((values, c) => (baseline[i * columns.length + c] = values[i]));
      effectTable.update(
        {
          data,
          rows: p.n,
          cols: columns.length,
          rowLabels: labels,
          colLabels,
          extent: 1,
          showNumbers: p.n <= LIMITS.maxTokensWithNumbers,
          baseline,
        },
        `Largest attention weight in each row${headNote}`,
      );
      // Long sentences fold the table away; short ones show it open.
      if (p.n <= OPEN_TABLE_UP_TO) {
        if (effectFigure.parentElement !== effectHolder) replaceChildren(effectHolder, effectFigure);
      } else if (effectFigure.parentElement !== effectDetails) {
        effectDetails.appendChild(effectFigure);
        replaceChildren(effectHolder, effectDetails);
      }
    }

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        const { pipeline: p, settings } = next;
        setText(
          what,
          settings.scale
            ? `Before softmax, every score is divided by √dₖ, here √${p.dK} = ${fmt(Math.sqrt(p.dK))}` +
                `${p.dK === 1 ? ', which leaves it as it was' : ''}. For the first score:`
            : `Normally every score is now divided by √dₖ, here √${p.dK} = ${fmt(Math.sqrt(p.dK))}. Scaling is switched off in the settings bar, so the scores pass on unchanged; this section shows what that costs.`,
        );
        showDivision(next);
        // The experiments depend only on (d_k, seed), and compute.ts hands back the same objects while
        // those stay: a causal or sentence change does not redraw the histogram or the bars.
        if (next.dots !== shownDots) {
          shownDots = next.dots;
          showExperiment(next);
        }
        // The heads too: at dₖ = 1 the reading's advice depends on them.
        if (next.saturation.soft !== shownSaturation || next.pipeline.heads !== shownHeads) {
          shownSaturation = next.saturation.soft;
          shownHeads = next.pipeline.heads;
          showSaturation(next);
        }
        showEffect(next);
      },
    };
  },
};
