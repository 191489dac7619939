// Step 7's words: the fixed text around the figures, and the sentences made from the snapshot they drew.
import { el } from '../../ui/dom';
import { fmt, percent, quoted } from '../../ui/format';
import type { PredictQuestion } from '../../ui/predict';
import { describeMask, isCustomMask } from '../../features/hands-on/hands-on-settings';
import type { Snapshot } from '../../snapshot';
import { headView } from '../shared/head-view';
import { subheading } from '../shared/prose';
import { PRINT_MAX_TOKENS, rowSums } from './numpy-print';

/** The opening paragraph; its first sentence names a position of the sentence shown (futureText). */
export function intro(): { element: HTMLElement; future: HTMLElement } {
  const future = el('span');
  const element = el(
    'p',
    {},
    future,
    ' Where the mask says 0, the score becomes −∞ before the softmax: e',
    el('sup', {}, '−∞'),
    ' = 0, and each row still adds up to 1.',
  );
  return { element, future };
}

/**
 * Why a left-to-right model must not look ahead, on the tokens shown: token 3 (or the last but one of a
 * shorter sentence) against what follows it.
 */
export function futureText({ tokens }: Snapshot): string {
  const n = tokens.length;
  if (n < 2) return 'A language model learns by predicting each next word; with one token there is no later word to hide.';
  const at = Math.min(3, n - 1);
  const later = n - at === 1 ? `${quoted(tokens[at])} (position ${at + 1})` : `positions ${at + 1} to ${n}`;
  return `A language model learns by predicting each next word: at ${quoted(tokens[at - 1])} (position ${at}) it must not see ${later}, the words it is about to predict.`;
}

export function otherMasks(): HTMLElement {
  return el(
    'p',
    {},
    'Other masks: padding blocks a batch’s filler tokens, a sliding window shows only the nearest predecessors, a prefix-LM lets a prompt read itself both ways.',
  );
}

export function paintHelp(): HTMLElement {
  return el('p', { class: 'mask-help' }, 'To paint, click or drag across cells of the mask (or press ', el('kbd', {}, 'Space'), ').');
}

export function compareHeading(): HTMLElement[] {
  return subheading('Mask first, then softmax', 'Both tables use the causal mask, whatever is chosen above.');
}

export function codeHeading(): HTMLElement[] {
  return subheading('In code', 'In NumPy the causal mask is one comparison:');
}

/** The row of the article's example (row 2); with two tokens row 2 is the last (whole) row, so row 1. */
function articleRow(n: number): number {
  return Math.min(1, n - 2);
}

/** What zeroing after the softmax does to the row sums, against masking first. */
export function readingText({ pipeline: p, tokens }: Snapshot): string {
  const n = p.n;
  if (n === 1) return 'With a single token there is no future to hide, so both ways give the same weight of 1. Add words to see them part.';
  const sumsRight = rowSums(p.weightsCausal.data, 0, n);
  const sumsWrong = rowSums(p.weightsMaskedAfter.data, 0, n);
  let worst = 0;
  for (let r = 0; r < n - 1; r++) if (sumsWrong[r] < sumsWrong[worst]) worst = r;
  const second = articleRow(n);
  const rowText = (r: number) => `row ${r + 1} (${quoted(tokens[r])})`;
  const pair =
    worst === second
      ? `${rowText(second)} would sum to only ${percent(sumsWrong[second])}`
      : `${rowText(second)} would sum to ${percent(sumsWrong[second])} and ${rowText(worst)} to just ${percent(sumsWrong[worst])}`;
  return (
    `Zeroed after the softmax, ${pair}; only the last row still reaches ${percent(sumsWrong[n - 1])}, ` +
    `and each output shrinks by its own factor (${fmt(sumsWrong[second])} for row ${second + 1}). ` +
    `Masked first, every row sums to ${percent(sumsRight[second])}.`
  );
}

/** The prediction asked before the wrong way shows its row sums; none with a single token. */
export function zeroAfterQuestion({ pipeline: p, tokens }: Snapshot): PredictQuestion | null {
  const n = p.n;
  if (n < 2) return null;
  const row = articleRow(n);
  const kept = rowSums(p.weightsMaskedAfter.data, 0, n)[row];
  return {
    key: 'causal-zero-after',
    question: `Skip the mask and zero the future weights after the softmax instead: will row ${row + 1} (${quoted(tokens[row])}) still add up to 1?`,
    choices: [
      { id: 'yes', label: 'Yes, still 1' },
      { id: 'no', label: 'No, less than 1' },
    ],
    correct: kept >= 0.995 ? 'yes' : 'no',
    explanation:
      `Softmax already shared row ${row + 1}’s budget of 1 among all ${n} tokens, future ones included. Zeroing the future afterwards throws their share away and hands it to no one, ` +
      `so the row keeps only ${percent(kept)}. Masking first gives the future −∞ before the sharing, so the whole 100% goes to the tokens that are allowed.`,
  };
}

/** The label above the printed array, or why it is not printed. */
export function printedLabelText(snapshot: Snapshot): string {
  const { n, headNote } = headView(snapshot);
  return n <= PRINT_MAX_TOKENS
    ? `print(w.round(2)) for these ${n} token${n === 1 ? '' : 's'}${headNote.replace(', ', ' (') + (headNote ? ')' : '')}:`
    : `With ${n} tokens the printed array is ${n} × ${n}, too wide to show; the left-hand table above holds the same numbers.`;
}

/** Which mask is in force on every step. */
export function maskStateText({ settings }: Snapshot): string {
  return isCustomMask(settings.mask)
    ? `In force on every step: ${describeMask(settings.mask, false)}.`
    : settings.causal
      ? 'In force on every step: the causal mask.'
      : 'No mask: every token may look at every token.';
}

/** Which rows have no key left, and what that does; empty when none. */
export function emptyRowsText({ pipeline: p, tokens }: Snapshot): string {
  const empty = Array.from(p.fullyMaskedRows).flatMap((flag, r) => (flag ? [r] : []));
  if (empty.length === 0) return '';
  return (
    `${empty.length === 1 ? `Row ${empty[0] + 1} (${quoted(tokens[empty[0]])}) has` : `Rows ${empty.map((r) => r + 1).join(', ')} have`} no key left to look at, so ${empty.length === 1 ? 'its' : 'their'} weights are all 0 and ${empty.length === 1 ? 'its' : 'each'} row sums to 0%, not 100%. ` +
    'With every score at −∞, softmax would divide e^−∞ + … = 0 by a total of 0. NumPy does exactly that and prints nan (not a number), which then spreads into every number computed from that row. ' +
    'The engine instead gives such a row all-zero weights: the token takes nothing from anyone, and its output row is 0.'
  );
}
