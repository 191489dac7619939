// Step 3's second figure: the shown head's score table Q Kᵀ, one cell per (query, key) pair; selecting
// a cell tells the step, which works it out by hand.
import { el } from '../../ui/dom';
import { fmt, quoted } from '../../ui/format';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { modelLine, type Figure } from '../shared/figure';
import { headView } from '../shared/head-view';

export class ScoresFigure implements Figure {
  readonly element: HTMLElement;
  readonly table: MatrixTable;
  private readonly line = modelLine();
  private snapshot: Snapshot | null = null;

  constructor(embed: EmbedCode | undefined, onSelect: (row: number, col: number) => void) {
    this.table = new MatrixTable({
      embed,
      caption: 'scores',
      scale: 'diverging',
      corner: 'query ↓ key →',
      describe: (r, c, v) =>
        this.snapshot ? `${quoted(this.snapshot.tokens[r])} against ${quoted(this.snapshot.tokens[c])}: ${fmt(v)}` : '',
      onSelect,
    });
    this.element = el('figure', { class: 'figure' }, this.line.element, this.table.element);
  }

  render(snapshot: Snapshot): void {
    this.snapshot = snapshot;
    this.line.render(snapshot);
    const p = snapshot.pipeline;
    const { h, labels, headNote, numbers } = headView(snapshot);
    this.table.update(
      {
        data: p.scores.data,
        offset: h * p.n * p.n,
        rows: p.n,
        cols: p.n,
        rowLabels: labels,
        colLabels: labels,
        showNumbers: numbers,
        baseline: snapshot.baseline?.scores.data,
      },
      `scores = Q Kᵀ${headNote}, (n, n) = (${p.n}, ${p.n}); row = query token, column = key token`,
    );
  }
}
