// Step 6's second figure: the shown head's values V beside its output, weights V; selecting an output
// cell tells the step, which works it out by hand.
import { fmt, quoted } from '../../ui/format';
import type { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { headRows, headView } from '../shared/head-view';
import { MatrixFigure } from '../shared/matrix-figure';

export class ValuesOutputFigure extends MatrixFigure {
  readonly element: HTMLElement;
  readonly output: MatrixTable;
  private readonly values: MatrixTable;

  constructor(embed: EmbedCode | undefined, onSelect: (row: number, col: number) => void) {
    super();
    // V and output are both (n, dₖ) per token, read the same way; only the output is selectable.
    const table = (caption: string, corner: string, what: string, select?: typeof onSelect) =>
      this.matrixTable(
        { embed, caption, scale: 'diverging', corner, onSelect: select },
        ({ tokens }, r, c, v) => `${what} of ${quoted(tokens[r] ?? '')}, dimension ${c + 1}: ${fmt(v)}`,
      );
    this.values = table('V', 'token', 'value');
    this.output = table('output', 'token ↓ dim →', 'output', onSelect);
    this.element = this.pair(this.values, this.output);
  }

  protected draw(snapshot: Snapshot): void {
    const { n, headNote } = headView(snapshot);
    const dK = snapshot.pipeline.dK;
    this.values.update(headRows(snapshot, 'V_heads'), `V${headNote}: values, (n, dₖ) = (${n}, ${dK})`);
    this.output.update(headRows(snapshot, 'headOutputs'), `output = weights V${headNote}, (n, dₖ) = (${n}, ${dK})`);
  }

  /** Marks the column of V that makes the selected output column. */
  highlight(col: number): void {
    this.values.highlight([], [col]);
  }
}
