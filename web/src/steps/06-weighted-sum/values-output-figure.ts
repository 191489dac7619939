// Step 6's second figure: the shown head's values V beside its output, weights V; selecting an output
// cell tells the step, which works it out by hand.
import { el } from '../../ui/dom';
import { fmt, quoted } from '../../ui/format';
import { dimensionLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { modelLine, type Figure } from '../shared/figure';
import { headView } from '../shared/head-view';

export class ValuesOutputFigure implements Figure {
  readonly element: HTMLElement;
  readonly output: MatrixTable;
  private readonly line = modelLine();
  private readonly values: MatrixTable;
  private snapshot: Snapshot | null = null;

  constructor(embed: EmbedCode | undefined, onSelect: (row: number, col: number) => void) {
    const token = (r: number) => quoted(this.snapshot?.tokens[r] ?? '');
    this.values = new MatrixTable({
      embed,
      caption: 'V',
      scale: 'diverging',
      corner: 'token',
      describe: (r, c, v) => (this.snapshot ? `value of ${token(r)}, dimension ${c + 1}: ${fmt(v)}` : ''),
    });
    this.output = new MatrixTable({
      embed,
      caption: 'output',
      scale: 'diverging',
      corner: 'token ↓ dim →',
      describe: (r, c, v) => (this.snapshot ? `output of ${token(r)}, dimension ${c + 1}: ${fmt(v)}` : ''),
      onSelect,
    });
    this.element = el(
      'div',
      { class: 'figure-row' },
      this.line.element,
      el('figure', { class: 'figure' }, this.values.element),
      el('figure', { class: 'figure' }, this.output.element),
    );
  }

  render(snapshot: Snapshot): void {
    this.snapshot = snapshot;
    this.line.render(snapshot);
    const p = snapshot.pipeline;
    const { h, n, labels, headNote, dimNumbers } = headView(snapshot);
    const base = snapshot.baseline;
    this.values.update(
      {
        data: p.V_heads.data,
        offset: h * n * p.dK,
        rows: n,
        cols: p.dK,
        rowLabels: labels,
        colLabels: dimensionLabels(p.dK),
        showNumbers: dimNumbers,
        baseline: base?.V_heads.data,
      },
      `V${headNote}: values, (n, dₖ) = (${n}, ${p.dK})`,
    );
    this.output.update(
      {
        data: p.headOutputs.data,
        offset: h * n * p.dK,
        rows: n,
        cols: p.dK,
        rowLabels: labels,
        colLabels: dimensionLabels(p.dK),
        showNumbers: dimNumbers,
        baseline: base?.headOutputs.data,
      },
      `output = weights V${headNote}, (n, dₖ) = (${n}, ${p.dK})`,
    );
  }

  /** Marks the column of V that makes the selected output column. */
  highlight(col: number): void {
    this.values.highlight([], [col]);
  }
}
