// Step 7's comparison, always with the causal mask: the right way (mask, then softmax) beside the
// wrong way (softmax, then zero the future), each with its row sums, short of 100% where the mask came
// too late. The comparison tables hold the shown head only: (n, n), no head offset.
import { el } from '../../ui/dom';
import { formatPercentDelta, percent, quoted } from '../../ui/format';
import type { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { headView, tokenMap } from '../shared/head-view';
import { MatrixFigure } from '../shared/matrix-figure';
import { rowSums } from './numpy-print';

export class CompareFigure extends MatrixFigure {
  readonly element: HTMLElement;
  /** The wrong way alone: a prediction may cover it (the right way, the article's rows, stays readable). */
  readonly wrongFigure: HTMLElement;
  private readonly right: MatrixTable;
  private readonly wrong: MatrixTable;

  constructor(embed: EmbedCode | undefined) {
    super();
    // Both are weights, read the same way; the wrong way keeps less of each row.
    const table = (caption: string, verb: string, className?: string) =>
      this.matrixTable(
        { embed, caption, scale: 'sequential', corner: 'query ↓ key →', className, formatDelta: formatPercentDelta, legend: 'more weight' },
        ({ tokens }, r, c, v) => `${quoted(tokens[r] ?? '')} ${verb} ${percent(v)} from ${quoted(tokens[c] ?? '')}`,
      );
    this.right = table('weights, masked before softmax', 'takes');
    this.wrong = table('weights, zeroed after softmax', 'keeps', 'causal-wrong-table');
    this.wrongFigure = el(
      'figure',
      { class: 'figure causal-wrong' },
      el(
        'p',
        { class: 'causal-verdict causal-verdict-wrong' },
        el('span', { 'aria-hidden': 'true' }, '✗ '),
        'Wrong: softmax, then zero the future',
      ),
      this.wrong.element,
    );
    this.element = el(
      'div',
      { class: 'figure-row causal-pair causal-compare' },
      this.line.element,
      el(
        'figure',
        { class: 'figure causal-right' },
        el('p', { class: 'causal-verdict causal-verdict-right' }, el('span', { 'aria-hidden': 'true' }, '✓ '), 'Right: mask, then softmax'),
        this.right.element,
      ),
      this.wrongFigure,
    );
  }

  protected draw(snapshot: Snapshot): void {
    const p = snapshot.pipeline;
    const { n, labels, headNote, numbers } = headView(snapshot);
    const base = snapshot.baseline;
    // Each is the weights with blocked cells shown as 0 and its row sums.
    const show = (table: MatrixTable, data: Float32Array, baseline: Float32Array | undefined, caption: string) => {
      const sums = rowSums(data, 0, n);
      table.update(
        {
          data,
          ...tokenMap(n, labels, numbers),
          blocked: (r, c) => c > r && data[r * n + c] === 0,
          blockedText: '0',
          rowTotals: {
            label: 'row sum',
            text: (r) => percent(sums[r]),
            className: (r) => (sums[r] < 0.995 ? 'row-total-short' : undefined),
          },
          baseline,
        },
        caption,
      );
    };
    show(this.right, p.weightsCausal.data, base?.weightsCausal.data, `softmax(masked scores)${headNote}`);
    show(this.wrong, p.weightsMaskedAfter.data, base?.weightsMaskedAfter.data, `softmax(scores), then zeroed${headNote}`);
  }
}
