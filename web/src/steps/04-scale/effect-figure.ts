// Step 4's last figure: the largest weight of each row of the shown head, with scaling and without,
// so the reader sees what the division does to this page's weights. Long sentences fold it away.
import { el, replaceChildren } from '../../ui/dom';
import { formatPercentDelta, percent, quoted } from '../../ui/format';
import { tokenLabels } from '../../ui/labels';
import type { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Matrix, Tensor3 } from '../../engine/types';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { MatrixFigure } from '../shared/matrix-figure';

/** Above this many tokens the per-row table folds into a <details>. */
const OPEN_TABLE_UP_TO = 16;

/** The largest entry of each row of head `head` of t (a Matrix is one head: pass 0). */
export function rowMaxima(t: Tensor3 | Matrix, head: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < t.rows; r++) {
    let best = 0;
    const base = (head * t.rows + r) * t.cols;
    for (let c = 0; c < t.cols; c++) best = Math.max(best, t.data[base + c]);
    out.push(best);
  }
  return out;
}

/** The columns the table shows: with and without scaling when both differ, else the one computed. */
function shownColumns({ settings, pipeline: p }: Snapshot): { both: boolean; names: string[] } {
  const both = settings.scale && p.dK > 1;
  return { both, names: both ? ['with scaling', 'without scaling'] : [settings.scale ? 'with scaling' : 'without scaling'] };
}

export class EffectFigure extends MatrixFigure {
  /** Where the figure sits: open, or folded in a <details> for long sentences. */
  readonly element = el('div', { class: 'scale-effect' });
  private readonly table: MatrixTable;
  private readonly figure: HTMLElement;
  private readonly details = el('details', {}, el('summary', {}, 'The largest weight of every row'));

  constructor(embed: EmbedCode | undefined) {
    super();
    this.table = this.matrixTable(
      {
        embed,
        caption: 'largest weight per row',
        scale: 'sequential',
        corner: 'token',
        format: (v) => percent(v),
        formatDelta: formatPercentDelta,
        legend: 'a larger weight',
      },
      (snapshot, r, c, v) =>
        `largest weight of ${quoted(snapshot.tokens[r])}’s row, ${shownColumns(snapshot).names[c] ?? ''}: ${percent(v)}`,
    );
    this.figure = el('figure', { class: 'figure' }, this.line.element, this.table.element);
  }

  protected draw(snapshot: Snapshot): void {
    const { pipeline: p, tokens, settings } = snapshot;
    const h = settings.head;
    const withScaling = rowMaxima(p.weights, h);
    const without = rowMaxima(p.weightsUnscaled, 0); // computed for the shown head only
    const headNote = p.heads > 1 ? ` of head ${h + 1}` : '';
    const { both } = shownColumns(snapshot);
    const columns = both ? [withScaling, without] : [without];
    const colLabels = both ? ['with scaling', 'without'] : ['largest weight'];
    const data = new Float32Array(p.n * columns.length);
    for (let i = 0; i < p.n; i++) columns.forEach((values, c) => (data[i * columns.length + c] = values[i]));
    // The same table before the reader's edits (step 2), to mark what moved.
    const base = snapshot.baseline;
    const baseColumns = base
      ? both
        ? [rowMaxima(base.weights, h), rowMaxima(base.weightsUnscaled, 0)]
        : [rowMaxima(base.weightsUnscaled, 0)]
      : null;
    const baseline = baseColumns ? new Float32Array(p.n * columns.length) : null;
    if (baseline && baseColumns)
      for (let i = 0; i < p.n; i++) baseColumns.forEach((values, c) => (baseline[i * columns.length + c] = values[i]));
    this.table.update(
      {
        data,
        rows: p.n,
        cols: columns.length,
        rowLabels: tokenLabels(tokens),
        colLabels,
        extent: 1,
        showNumbers: p.n <= LIMITS.maxTokensWithNumbers,
        baseline,
      },
      `Largest attention weight in each row${headNote}`,
    );
    // Long sentences fold the table away; short ones show it open.
    if (p.n <= OPEN_TABLE_UP_TO) {
      if (this.figure.parentElement !== this.element) replaceChildren(this.element, this.figure);
    } else if (this.figure.parentElement !== this.details) {
      this.details.appendChild(this.figure);
      replaceChildren(this.element, this.details);
    }
  }
}
