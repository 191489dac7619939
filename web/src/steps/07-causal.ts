// Causal masking: a token may look at itself and earlier tokens only. Blocked scores become -inf
// before the softmax (weights exactly 0, rows still sum to 1); next to it, the wrong way (softmax
// first, zero afterwards) with its row sums, which fall short of 100%.
import { codeBlock, outputBlock } from '../figures/code-block';
import { el } from '../figures/dom';
import { fmt, percent, quoted } from '../figures/format';
import { tex } from '../figures/formula';
import { tokenLabels } from '../figures/labels';
import { MatrixTable } from '../figures/matrix-table';
import { LIMITS } from '../settings';
import type { Snapshot } from '../snapshot';
import type { StepDefinition } from './types';

/** The article's masking snippet, exactly as printed there. */
export const CAUSAL_SOURCE = `n = 4
mask = np.tril(np.ones((n, n), dtype=bool))     # lower triangular
out, w = attention(Q, K, V, mask=mask)

print(w.round(2))`;

/** Largest n whose weights are printed the way NumPy would. */
export const PRINT_MAX_TOKENS = 12;

/** (rows, cols) row sums of one head of a row-major (h, n, n) tensor. */
export function rowSums(data: Float32Array, head: number, n: number): number[] {
  return Array.from({ length: n }, (_, r) => {
    let sum = 0;
    for (let c = 0; c < n; c++) sum += data[(head * n + r) * n + c];
    return sum;
  });
}

/** NumPy's print of a rounded float array: "[[1.   0.  ]\n [0.51 0.49]]". */
export function numpyPrint(data: ArrayLike<number>, offset: number, rows: number, cols: number): string {
  const texts: string[] = [];
  for (let i = 0; i < rows * cols; i++) {
    const rounded = Number(Number(data[offset + i]).toFixed(2));
    let text = String(Object.is(rounded, -0) ? 0 : rounded);
    if (!text.includes('.')) text += '.';
    texts.push(text);
  }
  const intWidth = Math.max(...texts.map((t) => t.indexOf('.')));
  const fracWidth = Math.max(...texts.map((t) => t.length - t.indexOf('.') - 1));
  const cell = (t: string) => t.padStart(intWidth + (t.length - t.indexOf('.')), ' ').padEnd(intWidth + 1 + fracWidth, ' ');
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    const row = texts.slice(r * cols, (r + 1) * cols).map(cell).join(' ');
    lines.push(`${r === 0 ? '[[' : ' ['}${row}]${r === rows - 1 ? ']' : ''}`);
  }
  return lines.join('\n');
}

export const causalStep: StepDefinition = {
  id: 'causal',
  number: 7,
  title: 'Causal masking: no peeking at the future',
  summary: 'Scores for later tokens become −∞ before the softmax, so each token attends only to itself and what came before.',
  formula: tex`\text{mask}_{ij} = \begin{cases} 1 & j \le i \\ 0 & j > i \end{cases}, \qquad \text{weights} = \operatorname{softmax}\!\big(\text{scores} \text{ with } {-\infty} \text{ where } \text{mask}_{ij} = 0\big)`,
  mount(body, context) {
    let snapshot: Snapshot | null = null;
    let drawnMask = '';

    const toggle = el('input', { type: 'checkbox', class: 'causal-toggle-input' });
    const toggleState = el('p', { class: 'causal-toggle-state', 'aria-live': 'polite' });
    toggle.addEventListener('change', () => context.update({ causal: toggle.checked }));

    const lower = (r: number, c: number) => c > r;
    const mask = new MatrixTable({
      caption: 'mask',
      scale: 'sequential',
      corner: 'query ↓ key →',
      format: (v) => (v === 1 ? '1' : '0'),
      describe: (r, c) => (snapshot ? `${quoted(snapshot.tokens[r])} ${c > r ? 'may not' : 'may'} look at ${quoted(snapshot.tokens[c])}` : ''),
    });
    const scores = new MatrixTable({ caption: 'masked scores', scale: 'diverging', corner: 'query ↓ key →' });
    const right = new MatrixTable({
      caption: 'weights, masked before softmax',
      scale: 'sequential',
      corner: 'query ↓ key →',
      describe: (r, c, v) => (snapshot ? `${quoted(snapshot.tokens[r])} takes ${percent(v)} from ${quoted(snapshot.tokens[c])}` : ''),
    });
    const wrong = new MatrixTable({
      caption: 'weights, zeroed after softmax',
      scale: 'sequential',
      corner: 'query ↓ key →',
      className: 'causal-wrong-table',
      describe: (r, c, v) => (snapshot ? `${quoted(snapshot.tokens[r])} keeps ${percent(v)} from ${quoted(snapshot.tokens[c])}` : ''),
    });
    const reading = el('p', { class: 'reading causal-reading' });
    const printed = outputBlock('What print(w.round(2)) shows for this page');
    const printedLabel = el('p', { class: 'causal-print-label' });

    body.append(
      el('p', {}, 'A language model learns by guessing each next word. If position 3 could see positions 4 and 5, it would just read the answer off, and learn nothing useful. ' +
        'So in causal attention every token may look at itself and at the tokens before it, never after.'),
      el('p', {}, 'The rule is a lower-triangular table of ones. Where it says 0, the score is replaced by −∞ before the softmax. Because e to the −∞ is 0, those keys get exactly zero weight, ' +
        'and what is left in each row still adds up to 1.'),
      el('div', { class: 'causal-toggle' },
        el('label', {}, toggle, ' Use the causal mask in every step of this page'),
        toggleState),
      el('div', { class: 'figure-row causal-pair' }, el('figure', { class: 'figure' }, mask.element), el('figure', { class: 'figure' }, scores.element)),
      el('div', { class: 'figure-row causal-pair causal-compare' },
        el('figure', { class: 'figure causal-right' },
          el('p', { class: 'causal-verdict causal-verdict-right' }, el('span', { 'aria-hidden': 'true' }, '✓ '), 'Right: mask, then softmax'),
          right.element),
        el('figure', { class: 'figure causal-wrong' },
          el('p', { class: 'causal-verdict causal-verdict-wrong' }, el('span', { 'aria-hidden': 'true' }, '✗ '), 'Wrong: softmax, then zero the future'),
          wrong.element)),
      reading,
      el('h3', {}, 'In code'),
      el('p', {}, 'The article builds the mask with NumPy and passes it to the attention() function from the previous step:'),
      codeBlock(CAUSAL_SOURCE, { label: 'The article’s causal mask in NumPy' }),
      printedLabel,
      printed.element,
    );

    return {
      render(next) {
        snapshot = next;
        const { pipeline: p, tokens, settings } = next;
        const h = settings.head;
        const n = p.n;
        const labels = tokenLabels(tokens);
        const headNote = p.heads > 1 ? `, head ${h + 1} of ${p.heads}` : '';
        const numbers = n <= LIMITS.maxTokensWithNumbers;

        toggle.checked = settings.causal;
        toggleState.textContent = settings.causal
          ? 'On: the weights in every step of the page are masked like the ones below.'
          : 'Off: the steps above let every token see every token. The figures here show the masked version anyway, so you can compare.';

        // The mask depends on n only: redrawn when the tokens change, not on every head or seed.
        const maskKey = labels.join('\u0001');
        if (maskKey !== drawnMask) {
          drawnMask = maskKey;
          const tril = new Float32Array(n * n);
          for (let r = 0; r < n; r++) for (let c = 0; c <= r; c++) tril[r * n + c] = 1;
          mask.update(
            { data: tril, rows: n, cols: n, rowLabels: labels, colLabels: labels, extent: 1, showNumbers: numbers, blocked: lower, blockedText: '0' },
            `mask (${n}, ${n}): 1 = may look, 0 = blocked`,
          );
        }
        scores.update(
          { data: p.scoresScaled.data, offset: h * n * n, rows: n, cols: n, rowLabels: labels, colLabels: labels, showNumbers: numbers, blocked: lower, blockedText: '−∞' },
          `scores${p.scaleFactor !== 1 ? ' / √d_k' : ''}${headNote}, blocked set to −∞`,
        );
        const exactZero = (data: Float32Array) => (r: number, c: number) => c > r && data[(h * n + r) * n + c] === 0;
        const sumsRight = rowSums(p.weightsCausal.data, h, n);
        const sumsWrong = rowSums(p.weightsMaskedAfter.data, h, n);
        const short = (sums: number[]) => (r: number) => (sums[r] < 0.995 ? 'row-total-short' : undefined);
        right.update(
          {
            data: p.weightsCausal.data, offset: h * n * n, rows: n, cols: n, rowLabels: labels, colLabels: labels, extent: 1, showNumbers: numbers,
            blocked: exactZero(p.weightsCausal.data), blockedText: '0',
            rowTotals: { label: 'row sum', text: (r) => percent(sumsRight[r]), className: short(sumsRight) },
          },
          `softmax(masked scores)${headNote}`,
        );
        wrong.update(
          {
            data: p.weightsMaskedAfter.data, offset: h * n * n, rows: n, cols: n, rowLabels: labels, colLabels: labels, extent: 1, showNumbers: numbers,
            blocked: exactZero(p.weightsMaskedAfter.data), blockedText: '0',
            rowTotals: { label: 'row sum', text: (r) => percent(sumsWrong[r]), className: short(sumsWrong) },
          },
          `softmax(scores), then zeroed${headNote}`,
        );

        if (n === 1) {
          reading.textContent = 'With a single token there is no future to hide, so both ways give the same weight of 1. Add words to the sentence to see them part.';
        } else {
          let worst = 0;
          for (let r = 0; r < n - 1; r++) if (sumsWrong[r] < sumsWrong[worst]) worst = r;
          // Row 2 is the article's example; with two tokens row 2 is the last (whole) row, so use row 1.
          const second = Math.min(1, n - 2);
          const rowText = (r: number) => `row ${r + 1} (${quoted(tokens[r])})`;
          const pair = worst === second
            ? `${rowText(second)} would sum to only ${percent(sumsWrong[second])}`
            : `${rowText(second)} would sum to ${percent(sumsWrong[second])} and ${rowText(worst)} to just ${percent(sumsWrong[worst])}`;
          reading.textContent = `Zero the weights after the softmax instead, and ${pair}; only the last row, which has nothing to hide, still reaches ${percent(sumsWrong[n - 1])}. ` +
            `Each output row would then be a proper average shrunk by its own factor (${fmt(sumsWrong[second])} for row ${second + 1}), so positions would no longer be on the same scale. ` +
            `Masked first, every row sums to ${percent(sumsRight[second])}, and row 1 puts all of its weight, ${fmt(p.weightsCausal.data[h * n * n])}, on itself.`;
        }

        printedLabel.textContent = n <= PRINT_MAX_TOKENS
          ? `With this page’s ${n} token${n === 1 ? '' : 's'} instead of 4${headNote.replace(', ', ' (') + (headNote ? ')' : '')}, the print shows:`
          : `With this page’s ${n} tokens the printed array is ${n} × ${n}, too wide to show here; the left-hand weights table above holds the same numbers.`;
        printed.set(n <= PRINT_MAX_TOKENS ? numpyPrint(p.weightsCausal.data, h * n * n, n, n) : '');
        printed.element.hidden = n > PRINT_MAX_TOKENS;
      },
    };
  },
};
