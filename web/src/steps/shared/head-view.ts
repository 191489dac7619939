// What the single-head steps (3, 5, 6, 7) read first from a snapshot: the head they show, its token
// labels, the caption suffix that names the head, and whether the numbers fit in the cells.
// Also the reads every step shares: one row of a head, its largest entry, and the shown head's slice of
// a per-head tensor as a table draws it.
import { dimensionLabels, tokenLabels } from '../../ui/labels';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { MatrixView } from '../../ui/matrix-table/view';

export interface HeadView {
  /** The head shown, from 0. */
  h: number;
  n: number;
  labels: string[];
  /** `, head 2 of 4` after a caption; nothing with one head. */
  headNote: string;
  /** The (n, n) tables are small enough to show their numbers. */
  numbers: boolean;
  /** So are the (n, dₖ) ones. */
  dimNumbers: boolean;
}

export function headView({ pipeline: p, tokens, settings }: Snapshot): HeadView {
  const h = settings.head;
  const numbers = p.n <= LIMITS.maxTokensWithNumbers;
  return {
    h,
    n: p.n,
    labels: tokenLabels(tokens),
    headNote: p.heads > 1 ? `, head ${h + 1} of ${p.heads}` : '',
    numbers,
    dimNumbers: numbers && p.dK <= LIMITS.maxTokensWithNumbers,
  };
}

/** Row `row` of head `head` of an (h, n, n) tensor (scores, weights). */
export function headRow(data: Float32Array, n: number, head: number, row: number): Float32Array {
  return data.subarray((head * n + row) * n, (head * n + row + 1) * n);
}

/** The index of the largest value, the first one on a tie. */
export function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let j = 1; j < values.length; j++) if (values[j] > values[best]) best = j;
  return best;
}

/** An (n, n) map of weights or mask bits between the tokens: tokens on both sides, colours from 0 to 1. */
export function tokenMap(
  n: number,
  labels: string[],
  showNumbers: boolean,
): Pick<MatrixView, 'rows' | 'cols' | 'rowLabels' | 'colLabels' | 'extent' | 'showNumbers'> {
  return { rows: n, cols: n, rowLabels: labels, colLabels: labels, extent: 1, showNumbers };
}

/** What a table reads of one head's slice of a tensor: its numbers, shape, labels and the baseline's slice. */
export type HeadSlice = Pick<MatrixView, 'data' | 'offset' | 'rows' | 'cols' | 'rowLabels' | 'colLabels' | 'showNumbers' | 'baseline'>;

type HeadTensor = 'Q_heads' | 'V_heads' | 'headOutputs' | 'scores' | 'weights';

/** The shown head of an (h, n, cols) tensor, a row per token, with the columns' labels. */
function headSlice(snapshot: Snapshot, tensor: HeadTensor, colLabels: string[], showNumbers: boolean): HeadSlice {
  const { h, n, labels } = headView(snapshot);
  const cols = colLabels.length;
  return {
    data: snapshot.pipeline[tensor].data,
    offset: h * n * cols,
    rows: n,
    cols,
    rowLabels: labels,
    colLabels,
    showNumbers,
    baseline: snapshot.baseline?.[tensor].data,
  };
}

/** The shown head of an (h, n, dₖ) tensor: a row per token, a column per dimension. */
export function headRows(snapshot: Snapshot, tensor: 'Q_heads' | 'V_heads' | 'headOutputs'): HeadSlice {
  return headSlice(snapshot, tensor, dimensionLabels(snapshot.pipeline.dK), headView(snapshot).dimNumbers);
}

/** The shown head of an (h, n, n) tensor: a query token per row, a key token per column. */
export function headSquare(snapshot: Snapshot, tensor: 'scores' | 'weights'): HeadSlice {
  const { labels, numbers } = headView(snapshot);
  return headSlice(snapshot, tensor, labels, numbers);
}
