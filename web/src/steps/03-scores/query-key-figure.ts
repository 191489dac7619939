// Step 3's first figure: the shown head's queries Q and its keys turned on their side Kᵀ, side by side.
import { el } from '../../ui/dom';
import { fmt, quoted } from '../../ui/format';
import { dimensionLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { modelLine, type Figure } from '../shared/figure';
import { headView } from '../shared/head-view';

/** (rows, cols) slice of head `head` of a Tensor3, transposed to (cols, rows). */
function transposeHead(data: Float32Array, head: number, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  const base = head * rows * cols;
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[base + r * cols + c];
  return out;
}

export class QueryKeyFigure implements Figure {
  readonly element: HTMLElement;
  private readonly line = modelLine();
  private readonly queries: MatrixTable;
  private readonly keysT: MatrixTable;
  private snapshot: Snapshot | null = null;

  constructor(embed: EmbedCode | undefined) {
    const tokens = () => this.snapshot?.tokens ?? [];
    this.queries = new MatrixTable({
      embed,
      caption: 'Q',
      scale: 'diverging',
      corner: 'token',
      describe: (r, c, v) => (this.snapshot ? `query of ${quoted(tokens()[r])}, dimension ${c + 1}: ${fmt(v)}` : ''),
    });
    this.keysT = new MatrixTable({
      embed,
      caption: 'Kᵀ',
      scale: 'diverging',
      corner: 'dim',
      describe: (r, c, v) => (this.snapshot ? `key of ${quoted(tokens()[c])}, dimension ${r + 1}: ${fmt(v)}` : ''),
    });
    this.element = el(
      'div',
      { class: 'figure-row' },
      this.line.element,
      el('figure', { class: 'figure' }, this.queries.element),
      el('figure', { class: 'figure' }, this.keysT.element),
    );
  }

  render(snapshot: Snapshot): void {
    this.snapshot = snapshot;
    this.line.render(snapshot);
    const p = snapshot.pipeline;
    const { h, labels, headNote, dimNumbers } = headView(snapshot);
    this.queries.update(
      {
        data: p.Q_heads.data,
        offset: h * p.n * p.dK,
        rows: p.n,
        cols: p.dK,
        rowLabels: labels,
        colLabels: dimensionLabels(p.dK),
        showNumbers: dimNumbers,
        baseline: snapshot.baseline?.Q_heads.data,
      },
      `Q${headNote}: queries, (n, dₖ) = (${p.n}, ${p.dK})`,
    );
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
