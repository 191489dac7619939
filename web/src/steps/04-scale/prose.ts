// Step 4's words: the fixed text around the figures, and the sentences made from the snapshot they drew.
import { el } from '../../ui/dom';
import { count, fmt, percent, quoted } from '../../ui/format';
import type { PredictQuestion } from '../../ui/predict';
import type { Snapshot } from '../../snapshot';
import { widerHeadAdvice } from '../shared/which-model';

/** The d_k the article uses for its saturation example. */
export const ARTICLE_DK = 64;
/** A row whose largest weight shows as this or more is "nearly one-hot". */
export const ONE_HOT = 0.9;

/** Whole numbers without decimals (the article's [1, 2, 3] and [8, 16, 24]), others with two. */
export const num = (v: number) => fmt(v, Number.isInteger(v) ? 0 : 2);

export function rowText(row: Float32Array | number[]): string {
  return `[${Array.from(row, num).join(', ')}]`;
}

/** What happens to the scores before softmax, with this page's √dₖ. */
export function whatText({ pipeline: p, settings }: Snapshot): string {
  return settings.scale
    ? `Before softmax, every score is divided by √dₖ, here √${p.dK} = ${fmt(Math.sqrt(p.dK))}` +
        `${p.dK === 1 ? ', which leaves it as it was' : ''}. For the first score:`
    : `Normally every score is now divided by √dₖ, here √${p.dK} = ${fmt(Math.sqrt(p.dK))}. Scaling is switched off in the settings bar, so the scores pass on unchanged; this section shows what that costs.`;
}

export function divisionNote({ tokens }: Snapshot): string {
  return `${quoted(tokens[0])} against itself, the first cell of step 3’s scores.`;
}

export function whyHeading(): HTMLElement[] {
  return [
    el('h3', { class: 'scale-heading' }, 'Why: longer vectors, wider scores'),
    el('p', {}, 'A score adds up dₖ products of variance about 1, and variances add: its standard deviation is about √dₖ.'),
  ];
}

export function saturationHeading(): HTMLElement[] {
  return [
    el('h3', { class: 'scale-heading' }, 'Without it, softmax saturates'),
    el(
      'p',
      {},
      'Softmax (next step) exponentiates, so with spread-out inputs the largest takes almost everything. The row [1, 2, 3], and stretched by √dₖ:',
    ),
  ];
}

export function effectHeading(): HTMLElement {
  return el('h3', { class: 'scale-heading' }, 'What it does here');
}

export function experimentIntroText({ dots }: Snapshot): string {
  return `${count(dots.raw.length)} dot products of random standard-normal vectors with dₖ = ${dots.dK}, as they come (top) and divided by √dₖ (bottom):`;
}

/** The spreads measured, at this dₖ and (beside another dₖ) at the article's. */
export function experimentReadingText({ dots, articleDots: article }: Snapshot): string {
  const dK = dots.dK;
  const articleReading = article
    ? ` At the article’s dₖ = ${article.dK}: ${fmt(article.rawStd)} before (√${article.dK} = ${fmt(Math.sqrt(article.dK))}), ${fmt(article.scaledStd)} after.`
    : '';
  return (
    (dK === 1
      ? `With dₖ = 1 each score is a single product, √1 = 1, and dividing changes nothing: both spreads are ${fmt(dots.rawStd)}.`
      : `Measured: ${fmt(dots.rawStd)} before (√${dK} = ${fmt(Math.sqrt(dK))} predicted), ${fmt(dots.scaledStd)} after.`) + articleReading
  );
}

/** What the stretch did to the top weight and to the gradient that still flows. */
export function saturationReadingText(snapshot: Snapshot): string {
  const { soft, sharp, factor, dK } = snapshot.saturation;
  if (factor === 1)
    return `At dₖ = 1 there is nothing to stretch (√1 = 1), so both rows are the same. Choose ${widerHeadAdvice(snapshot)} to see softmax saturate.`;
  const top = sharp.probabilities[sharp.probabilities.length - 1];
  const ratio = sharp.jacobianNorm > 0 ? soft.jacobianNorm / sharp.jacobianNorm : Infinity;
  return (
    `Stretched by √${dK} = ${fmt(factor)}, the largest score takes ${percent(top, top > 0.99 ? 1 : 0)} instead of ${percent(soft.probabilities[soft.probabilities.length - 1])}, ` +
    'and the gradient that still flows (the norm of softmax’s Jacobian, diag(p) − p pᵀ) ' +
    `falls from ${fmt(soft.jacobianNorm, 3)} to ${fmt(sharp.jacobianNorm, 3)}${Number.isFinite(ratio) && ratio >= 1.05 ? `, ${fmt(ratio, ratio < 10 ? 1 : 0)} times smaller` : ''}: ` +
    'W_q and W_k get almost no error signal, and training stalls.'
  );
}

/** The prediction asked before the saturation figure shows its answer. */
export function saturationQuestion({ saturation }: Snapshot): PredictQuestion {
  const { row, soft, sharp, factor, dK } = saturation;
  const before = soft.probabilities[soft.probabilities.length - 1];
  const top = sharp.probabilities[sharp.probabilities.length - 1];
  const stretched = Array.from(row, (v) => v * factor);
  return {
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
  };
}

export function tryArticleText(): string {
  return `Try the article’s dₖ = ${ARTICLE_DK} (d_model 512, 8 heads)`;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/**
 * What scaling does to this page's weights: the text before the scaling button ("… to compare"
 * follows it). `withScaling` and `without` are the largest weight of each row, `rows` the rows that
 * have any key.
 */
export function effectText(snapshot: Snapshot, withScaling: number[], without: number[], rows: number[]): string {
  const { pipeline: p, tokens, settings } = snapshot;
  const headNote = p.heads > 1 ? ` of head ${settings.head + 1}` : '';
  const nearlyOneHot = (values: number[]) => rows.filter((i) => Math.round(values[i] * 100) >= ONE_HOT * 100).length;
  if (!settings.scale)
    return (
      `Scaling is switched off, so the weights in the next steps come from raw scores. Across the ${rows.length} rows${headNote}, the largest weight averages ${percent(mean(rows.map((i) => without[i])))}, ` +
      `and ${nearlyOneHot(without)} of them give ${percent(ONE_HOT)} or more to a single token. `
    );
  if (p.dK === 1)
    return 'With dₖ = 1 the scores are divided by √1 = 1, so scaling changes nothing here: the weights with and without it are the same.';
  // The row that scaling changes most.
  let most = rows[0] ?? 0;
  for (const i of rows) if (without[i] - withScaling[i] > without[most] - withScaling[most]) most = i;
  return (
    `Without scaling, the largest weight in row ${most + 1} (${quoted(tokens[most])}) would be ${percent(without[most])} instead of ${percent(withScaling[most])}. ` +
    `Over the ${rows.length} rows${headNote}, the largest weight is ${percent(mean(rows.map((i) => withScaling[i])))} with scaling and would be ${percent(mean(rows.map((i) => without[i])))} without. `
  );
}
