// Counting the work and the memory of one multi-head attention layer, the way the article does:
// a multiply-add per term of every matrix product, four bytes per float32. Pure arithmetic on
// shapes, so the steps can count what the snapshot actually computed (from its tensors' shapes) and
// what any other size would cost (from n, d_model and h).
import type { PipelineSnapshot } from '../../engine/types';
import { groupDigits } from '../../ui/format';

export interface LayerCost {
  /** Multiply-adds of Q = X W_q, K = X W_k, V = X W_v. */
  projections: number;
  /** Q_i K_iᵀ over every head. */
  scores: number;
  /** weights_i V_i over every head. */
  weightedSum: number;
  /** merged W_o. */
  output: number;
  total: number;
  /** Entries of W_q, W_k, W_v, W_o. */
  params: number;
}

export const FLOAT32_BYTES = 4;

function layer(projections: number, scores: number, weightedSum: number, output: number, params: number): LayerCost {
  return { projections, scores, weightedSum, output, total: projections + scores + weightedSum + output, params };
}

/** What the engine did for this snapshot, counted from the shapes of the tensors it returned. */
export function costOfSnapshot(p: PipelineSnapshot): LayerCost {
  const matmul = (rows: number, inner: number, cols: number) => rows * inner * cols;
  return layer(
    matmul(p.X.rows, p.X.cols, p.W_q.cols) + matmul(p.X.rows, p.X.cols, p.W_k.cols) + matmul(p.X.rows, p.X.cols, p.W_v.cols),
    p.scores.heads * matmul(p.scores.rows, p.Q_heads.cols, p.scores.cols),
    p.headOutputs.heads * matmul(p.weights.rows, p.weights.cols, p.headOutputs.cols),
    matmul(p.merged.rows, p.merged.cols, p.W_o.cols),
    [p.W_q, p.W_k, p.W_v, p.W_o].reduce((sum, w) => sum + w.rows * w.cols, 0),
  );
}

/** The same count for any shape: 3·n·d² + h·n²·d_k + h·n²·d_k + n·d², with d_k = d / h. */
export function costOfShape(n: number, dModel: number, heads: number): LayerCost {
  const dK = dModel / heads;
  return layer(3 * n * dModel * dModel, heads * n * n * dK, heads * n * n * dK, n * dModel * dModel, 4 * dModel * dModel);
}

/** Entries of the (n, n) score matrix of one head. */
export function scoreEntries(n: number): number {
  return n * n;
}

/** Multiply-adds of the two n × n products (scores and weighted sum) over all heads: 2·n²·d_model. */
export function attentionMultiplyAdds(n: number, dModel: number): number {
  return 2 * n * n * dModel;
}

/** "1k" for 1,024, "128k" for 131,072, plain digits otherwise. */
export function tokenCountLabel(n: number): string {
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024}k` : groupDigits(n);
}

/** A ratio as the reader checks it: "×16", "×4", "×1.5". */
export function ratioLabel(ratio: number): string {
  if (!Number.isFinite(ratio)) return '?';
  const rounded = Math.abs(ratio - Math.round(ratio)) < 1e-9 ? String(Math.round(ratio)) : ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(1);
  const [whole, fraction = ''] = rounded.split('.');
  const digits = fraction.replace(/0+$/, '');
  return `×${whole.startsWith('-') ? '-' : ''}${groupDigits(Math.abs(Number(whole)))}${digits ? `.${digits}` : ''}`;
}
