// Step 3's first figure: the shown head's queries Q and its keys turned on their side Kᵀ, side by side.
import { fmt, quoted } from '../../ui/format';
import { dimensionLabels } from '../../ui/labels';
import type { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { headRows, headView } from '../shared/head-view';
import { MatrixFigure } from '../shared/matrix-figure';

/** (rows, cols) slice of head `head` of a Tensor3, transposed to (cols, rows). */
function transposeHead(data: Float32Array, head: number, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  const base = head * rows * cols;
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[base + r * cols + c];
  return out;
}

export class QueryKeyFigure extends MatrixFigure {
  readonly element: HTMLElement;
  private readonly queries: MatrixTable;
  private readonly keysT: MatrixTable;

  constructor(embed: EmbedCode | undefined) {
    super();
    this.queries = this.matrixTable(
      { embed, caption: 'Q', scale: 'diverging', corner: 'token' },
      ({ tokens }, r, c, v) => `query of ${quoted(tokens[r])}, dimension ${c + 1}: ${fmt(v)}`,
    );
    this.keysT = this.matrixTable(
      { embed, caption: 'Kᵀ', scale: 'diverging', corner: 'dim' },
      ({ tokens }, r, c, v) => `key of ${quoted(tokens[c])}, dimension ${r + 1}: ${fmt(v)}`,
    );
    this.element = this.pair(this.queries, this.keysT);
  }

  protected draw(snapshot: Snapshot): void {
    const p = snapshot.pipeline;
    const { h, labels, headNote, dimNumbers } = headView(snapshot);
    this.queries.update(headRows(snapshot, 'Q_heads'), `Q${headNote}: queries, (n, dₖ) = (${p.n}, ${p.dK})`);
    this.keysT.update(
      {
        data: transposeHead(p.K_heads.data, h, p.n, p.dK),
        rows: p.dK,
        cols: p.n,
        rowLabels: dimensionLabels(p.dK),
        colLabels: labels,
        showNumbers: dimNumbers,
        baseline: snapshot.baseline ? transposeHead(snapshot.baseline.K_heads.data, h, p.n, p.dK) : null,
      },
      `Kᵀ${headNote}: keys turned on their side, (dₖ, n) = (${p.dK}, ${p.n})`,
    );
  }

  /** Marks the query row and the key column that make the selected score. */
  highlight(row: number, col: number): void {
    this.queries.highlight([row], []);
    this.keysT.highlight([], [col]);
  }
}
