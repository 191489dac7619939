// Step 8's last figure: the layer's output, concat(heads) W_o, (n, d_model); past OUTPUT_MAX_COLUMNS
// only the first columns are drawn.
import { fmt, quoted } from '../../ui/format';
import { dimensionLabels, tokenLabels } from '../../ui/labels';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { OneTableFigure } from '../shared/matrix-figure';

/** Widest output drawn; past it, the first columns (the rest are computed, not drawn). */
export const OUTPUT_MAX_COLUMNS = 64;

function firstColumns(data: Float32Array, rows: number, cols: number, keep: number): Float32Array {
  const out = new Float32Array(rows * keep);
  for (let r = 0; r < rows; r++) out.set(data.subarray(r * cols, r * cols + keep), r * keep);
  return out;
}

export class OutputFigure extends OneTableFigure {
  constructor(embed: EmbedCode | undefined) {
    super(
      { embed, caption: 'output', scale: 'diverging', corner: 'token ↓ dim →' },
      ({ tokens }, r, c, v) => `layer output for ${quoted(tokens[r] ?? '')}, dimension ${c + 1}: ${fmt(v)}`,
    );
  }

  protected draw(s: Snapshot): void {
    const { pipeline: p, tokens } = s;
    const numbers = p.n <= LIMITS.maxTokensWithNumbers && p.dModel <= LIMITS.maxTokensWithNumbers;
    // A (128, 512) output would be 65,536 cells: past OUTPUT_MAX_COLUMNS only the first columns are drawn.
    const cols = Math.min(p.dModel, OUTPUT_MAX_COLUMNS);
    const first = (data: Float32Array) => (cols === p.dModel ? data : firstColumns(data, p.n, p.dModel, cols));
    this.table.update(
      {
        data: first(p.output.data),
        rows: p.n,
        cols,
        rowLabels: tokenLabels(tokens),
        colLabels: dimensionLabels(cols),
        showNumbers: numbers,
        baseline: s.baseline ? first(s.baseline.output.data) : null,
      },
      `output = concat(heads) W_o, (n, d_model) = (${p.n}, ${p.dModel})` +
        `${cols < p.dModel ? `, dimensions 1–${cols} of ${p.dModel} drawn` : ''}${numbers ? '' : ', colours only at this size'}`,
    );
  }
}
