// Step 6's first figure: the shown head's attention weights, blocked cells written as 0.
import { el } from '../../ui/dom';
import { formatPercentDelta, percent, quoted } from '../../ui/format';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { modelLine, type Figure } from '../shared/figure';
import { headView, tokenMap } from '../shared/head-view';

export class WeightsFigure implements Figure {
  readonly element: HTMLElement;
  private readonly line = modelLine();
  private readonly table: MatrixTable;
  private snapshot: Snapshot | null = null;

  constructor(embed: EmbedCode | undefined) {
    this.table = new MatrixTable({
      embed,
      caption: 'weights',
      scale: 'sequential',
      corner: 'query ↓ key →',
      describe: (r, c, v) =>
        this.snapshot ? `${quoted(this.snapshot.tokens[r])} takes ${percent(v)} of ${quoted(this.snapshot.tokens[c])}’s value` : '',
      formatDelta: formatPercentDelta,
      legend: 'more weight',
    });
    this.element = el('figure', { class: 'figure' }, this.line.element, this.table.element);
  }

  render(snapshot: Snapshot): void {
    this.snapshot = snapshot;
    this.line.render(snapshot);
    const p = snapshot.pipeline;
    const { h, n, labels, headNote, numbers } = headView(snapshot);
    this.table.update(
      {
        data: p.weights.data,
        offset: h * n * n,
        ...tokenMap(n, labels, numbers),
        blocked: (r, c) => p.mask.data[r * n + c] === 0 && p.weights.data[(h * n + r) * n + c] === 0,
        blockedText: '0',
        baseline: snapshot.baseline?.weights.data,
      },
      `weights${headNote}, (n, n) = (${n}, ${n}); each row adds up to 1`,
    );
  }

  /** Marks the weights row that makes the selected output row. */
  highlight(row: number): void {
    this.table.highlight([row], []);
  }
}
