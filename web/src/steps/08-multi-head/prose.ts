// Step 8's words: the fixed text around the figures, and the sentences made from the snapshot they drew.
import { el } from '../../ui/dom';
import { count, percent, quoted } from '../../ui/format';
import { LABELLED_TOKENS } from '../../ui/head-grid';
import type { PredictQuestion } from '../../ui/predict';
import { costOfShape, type LayerCost } from '../../features/cost/cost-model';
import { LIMITS, maxHeadsFor } from '../../settings';
import type { Snapshot } from '../../snapshot';
import { subheading } from '../shared/prose';

/** At most this many heads get a map; the rest are counted in words. */
export const MAX_HEAD_MAPS = 16;

export function intro(): HTMLElement {
  return el(
    'p',
    {},
    'One head gives each token one set of weights, but “it” asks several questions. Multi-head attention cuts Q, K and V into h slices of dₖ = d_model / h columns, runs each, and joins the results.',
  );
}

export function costHeading(): HTMLElement[] {
  return subheading(
    'The same work, however you slice it',
    'h heads of width dₖ do h · n² · dₖ = n² · d_model multiply-adds for the scores, as one wide head would:',
  );
}

export function mapsHeading(): HTMLElement[] {
  return subheading(
    'Every head’s attention map',
    'Each square is one head’s weights; a stronger blue means more weight. Point at or click a token on the left to highlight its row in every head; pick a map to show that head in the steps above.',
  );
}

export function outputHeading(): HTMLElement[] {
  return subheading(
    'Concatenate, then mix with W_o',
    'Side by side the head outputs are (n, d_model) again; one more learned matrix, W_o, mixes them:',
  );
}

export function codeHeading(): HTMLElement[] {
  return subheading('In code', 'In step 6’s function, split() makes the h slices and the last two lines join them and apply W_o.');
}

/** What h gives dₖ, and which other h the reader may choose. */
export function choicesText(dModel: number, n: number, current: number, trained: boolean): string {
  return (
    `h = ${current}: dₖ = ${dModel} / ${current} = ${dModel / current}. ` +
    (trained
      ? `The model was trained with h = ${current}; random weights allow other divisors of ${dModel}.`
      : `d_model stays; these are the values that divide d_model = ${dModel}${maxHeadsFor(n) < Math.min(dModel, LIMITS.maxHeads) ? ` up to ${maxHeadsFor(n)}, the most heads ${n} tokens may have` : dModel > LIMITS.maxHeads ? ` (up to ${LIMITS.maxHeads})` : ''}.`)
  );
}

/** Why a head count other than the trained model's is disabled. */
export function fixedHeadsTitle(current: number): string {
  return `The trained model has h = ${current}: choose random weights (Numbers) for other h.`;
}

/** Whether the work changes with h, read from the counts for every h offered. */
export function costReadingText({ pipeline: p }: Snapshot, actual: LayerCost, options: readonly number[], same: boolean): string {
  const attentionShare = (actual.scores + actual.weightedSum) / actual.total;
  return same
    ? `Every column is identical: ${count(actual.total)} multiply-adds and ${count(actual.params)} parameters, whether ${options.length === 1 ? 'h is 1' : `h is ${options[0]} or ${options[options.length - 1]}`}. ` +
        `At n = ${p.n} the n × n products are ${percent(attentionShare)} of the work.`
    : `With these shapes the count changes with h: ${count(actual.total)} multiply-adds at h = ${p.heads}.`;
}

/** The prediction asked before the cost table shows its answer; none with a single choice of h. */
export function workQuestion({ pipeline: p }: Snapshot, options: readonly number[]): PredictQuestion | null {
  if (options.length < 2) return null;
  const one = costOfShape(p.n, p.dModel, 1);
  const most = options[options.length - 1];
  const grows = costOfShape(p.n, p.dModel, most).total > one.total * 1.01;
  return {
    key: 'multi-head-work',
    question: `Splitting d_model = ${p.dModel} into more heads: does the total work of the layer grow with h?`,
    choices: [
      { id: 'grows', label: 'Yes, about h times more' },
      { id: 'same', label: 'No, about the same' },
      { id: 'shrinks', label: 'It shrinks' },
    ],
    correct: grows ? 'grows' : 'same',
    explanation:
      `Each head works on dₖ = d_model / h columns only. h heads doing n² · dₖ multiply-adds each add up to n² · d_model, the same as one wide head, ` +
      `and the projections do not depend on h at all. For this page: ${count(one.total)} multiply-adds with 1 head, ${count(costOfShape(p.n, p.dModel, most).total)} with ${most}. ` +
      'What more heads buy is variety: several smaller attention maps instead of one.',
  };
}

/** One head's map described for a screen reader: its strongest cell, and what picking it does. */
export function headMapDescription(s: Snapshot, head: number, row: number, col: number, value: number, beside: boolean): string {
  const p = s.pipeline;
  return (
    `Head ${head + 1} of ${p.heads}: attention map, ${p.n} × ${p.n}. Strongest: ${quoted(s.tokens[row])} takes ${percent(value)} from ${quoted(s.tokens[col])}.` +
    (beside
      ? ' Show this head, on this sentence, in the steps above.'
      : head === s.settings.head
        ? ' Shown in the steps above.'
        : ' Show this head in the steps above.')
  );
}

/** How many maps are drawn, and what to read in them. */
export function gridNoteText({ pipeline: p, settings }: Snapshot): string {
  const n = p.n;
  return p.heads > MAX_HEAD_MAPS
    ? `Showing the first ${MAX_HEAD_MAPS} of ${p.heads} heads; the others are computed too, and the steps above can show any of them.`
    : `${p.heads} head${p.heads === 1 ? '' : 's'}, each map ${n} × ${n}.${settings.causal ? ' The causal mask is on, so everything above each map’s diagonal is empty.' : ''}` +
        (n > LABELLED_TOKENS
          ? ` At ${n} tokens a row is too thin for a label: point at a row of a map to highlight it in every head.`
          : '');
}
