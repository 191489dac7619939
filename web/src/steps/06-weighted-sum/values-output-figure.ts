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
    // V and output are both (n, dₖ) per token, read the same way; only the output is selectable.
    const table = (caption: string, corner: string, what: string, select?: typeof onSelect) =>
      new MatrixTable({
        embed,
        caption,
        scale: 'diverging',
        corner,
        describe: (r, c, v) => (this.snapshot ? `${what} of ${quoted(this.snapshot.tokens[r] ?? '')}, dimension ${c + 1}: ${fmt(v)}` : ''),
        onSelect: select,
      });
    this.values = table('V', 'token', 'value');
    this.output = table('output', 'token ↓ dim →', 'output', onSelect);
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
    const shown = (data: Float32Array, baseline: Float32Array | undefined) => ({
      data,
      offset: h * n * p.dK,
      rows: n,
      cols: p.dK,
      rowLabels: labels,
      colLabels: dimensionLabels(p.dK),
      showNumbers: dimNumbers,
      baseline,
    });
    this.values.update(shown(p.V_heads.data, base?.V_heads.data), `V${headNote}: values, (n, dₖ) = (${n}, ${p.dK})`);
    this.output.update(shown(p.headOutputs.data, base?.headOutputs.data), `output = weights V${headNote}, (n, dₖ) = (${n}, ${p.dK})`);
  }

  /** Marks the column of V that makes the selected output column. */
  highlight(col: number): void {
    this.values.highlight([], [col]);
  }
}
