// Step 7's comparison, always with the causal mask: the right way (mask, then softmax) beside the
// wrong way (softmax, then zero the future), each with its row sums, short of 100% where the mask came
// too late. The comparison tables hold the shown head only: (n, n), no head offset.
import { el } from '../../ui/dom';
import { formatPercentDelta, percent, quoted } from '../../ui/format';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { modelLine, type Figure } from '../shared/figure';
import { headView, tokenMap } from '../shared/head-view';
import { rowSums } from './numpy-print';

export class CompareFigure implements Figure {
  readonly element: HTMLElement;
  /** The wrong way alone: a prediction may cover it (the right way, the article's rows, stays readable). */
  readonly wrongFigure: HTMLElement;
  private readonly line = modelLine();
  private readonly right: MatrixTable;
  private readonly wrong: MatrixTable;
  private snapshot: Snapshot | null = null;

  constructor(embed: EmbedCode | undefined) {
    const token = (r: number) => quoted(this.snapshot?.tokens[r] ?? '');
    this.right = new MatrixTable({
      embed,
      caption: 'weights, masked before softmax',
      scale: 'sequential',
      corner: 'query ↓ key →',
      describe: (r, c, v) => (this.snapshot ? `${token(r)} takes ${percent(v)} from ${token(c)}` : ''),
      formatDelta: formatPercentDelta,
      legend: 'more weight',
    });
    this.wrong = new MatrixTable({
      embed,
      caption: 'weights, zeroed after softmax',
      scale: 'sequential',
      corner: 'query ↓ key →',
      className: 'causal-wrong-table',
      describe: (r, c, v) => (this.snapshot ? `${token(r)} keeps ${percent(v)} from ${token(c)}` : ''),
      formatDelta: formatPercentDelta,
      legend: 'more weight',
    });
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

  render(snapshot: Snapshot): void {
    this.snapshot = snapshot;
    this.line.render(snapshot);
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
