// The long-context step's numbers (compute.ts calls this; the step only renders them): on the shown
// head's Q, K and V of the sentence, full attention and four ways around its n × n matrix, each
// computed by the engine's own kernel (sparseAttention over the pattern's cells only, linearAttention
// in O(n d²)), with the weights each implies (the pattern's weights are full attention masked to the
// pattern, which the maths makes equal; linear attention's are linearAttentionWeights) and its
// output's distance from full attention.
import type { AttentionEngine } from '../../engine/engine';
import { linearAttention, linearAttentionWeights, sparseAttention, sparsePatternMask, type SparsePattern } from '../../engine/long-context';
import type { MaskMatrix, Matrix, PipelineSnapshot } from '../../engine/types';
import type { Settings } from '../../settings';
import type { ReaderEffect } from './reader-effect';

export type TechniqueId = 'window' | 'global' | 'strided' | 'linear';

export interface Technique {
  id: TechniqueId;
  /** The pattern the sparse kernel ran with; null for linear attention. */
  pattern: SparsePattern | null;
  /** (n, n) 1 = a score was computed; null for linear attention (it computes none). */
  mask: MaskMatrix | null;
  /** (n, n) the weights the technique gives each key; rows sum to 1. */
  weights: Matrix;
  /** (n, d_k) its output. */
  output: Matrix;
  /** Query-key scores computed (the sparse kernel's count; 0 for linear attention). */
  cells: number;
  /** Multiply-adds its kernel spends: 2 per cell and dimension (scores and weighted sum), or linear attention's sums. */
  multiplyAdds: number;
  /** max and mean |output − full attention's output| over the (n, d_k) entries. */
  maxDifference: number;
  meanDifference: number;
}

export interface LongContextSnapshot {
  tokens: number;
  dK: number;
  /** 0-based head of the sentence's pipeline whose Q, K, V these are. */
  head: number;
  causal: boolean;
  /** The settings as used: global tokens cannot outnumber the tokens. */
  window: number;
  global: number;
  stride: number;
  full: { weights: Matrix; output: Matrix; cells: number; multiplyAdds: number };
  techniques: Technique[];
  /** The fewest tokens at which linear attention spends fewer multiply-adds than full attention (same d_k, mask). */
  linearCheaperFrom: number;
  /** Step 1's answer under each pattern (reader-effect.ts; the snapshot adds it), null without one. */
  reader?: ReaderEffect | null;
}

/** Scores full attention computes: n², or n (n + 1) / 2 under the causal mask. */
export const fullCells = (n: number, causal: boolean) => (causal ? (n * (n + 1)) / 2 : n * n);
/** Scores and the weighted sum: d_k multiply-adds each per computed cell (d_v = d_k). */
export const cellMultiplyAdds = (cells: number, dK: number) => 2 * cells * dK;
/** Σ φ(k) vᵀ (n · d_k · d_v), φ(q) times it (n · d_k · d_v) and the normaliser φ(q)·Σ φ(k) (n · d_k). */
export const linearMultiplyAdds = (n: number, dK: number) => 2 * n * dK * dK + n * dK;

/** The fewest tokens at which linear attention's multiply-adds fall below full attention's. */
export function linearCrossover(dK: number, causal: boolean): number {
  let n = 1;
  while (linearMultiplyAdds(n, dK) >= cellMultiplyAdds(fullCells(n, causal), dK)) n++;
  return n;
}

function headMatrix(pipeline: PipelineSnapshot, key: 'Q_heads' | 'K_heads' | 'V_heads', head: number): Matrix {
  const t = pipeline[key];
  const start = head * t.rows * t.cols;
  return { rows: t.rows, cols: t.cols, data: t.data.slice(start, start + t.rows * t.cols) };
}

export function outputDifference(a: Matrix, b: Matrix): { max: number; mean: number } {
  let max = 0;
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) {
    const d = Math.abs(a.data[i] - b.data[i]);
    max = Math.max(max, d);
    sum += d;
  }
  return { max, mean: a.data.length ? sum / a.data.length : 0 };
}

/** The causal mask as 0/1, or all ones. */
function fullMask(n: number, causal: boolean): Uint8Array {
  const mask = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) mask[i * n + j] = !causal || j <= i ? 1 : 0;
  return mask;
}

export function computeLongContext(engine: AttentionEngine, pipeline: PipelineSnapshot, settings: Settings): LongContextSnapshot {
  const n = pipeline.n;
  const head = Math.min(settings.head, pipeline.heads - 1);
  const causal = settings.causal;
  const [Q, K, V] = [headMatrix(pipeline, 'Q_heads', head), headMatrix(pipeline, 'K_heads', head), headMatrix(pipeline, 'V_heads', head)];
  const dK = Q.cols;
  const window = settings.lcWindow;
  const global = Math.min(settings.lcGlobal, n);
  const stride = settings.lcStride;
  // Full attention as the reference, always scaled by 1/√d_k like the sparse kernel (the page's scaling
  // switch is step 4's experiment, not this comparison's).
  const full = engine.attention(Q, K, V, { mask: fullMask(n, causal), scale: true });
  const allCells = fullCells(n, causal);
  const compare = (output: Matrix) => {
    const d = outputDifference(output, full.output);
    return { maxDifference: d.max, meanDifference: d.mean };
  };
  const sparse = (id: TechniqueId, pattern: SparsePattern): Technique => {
    const { mask } = sparsePatternMask(engine, n, pattern);
    const { output, cells } = sparseAttention(engine, Q, K, V, pattern);
    const { weights } = engine.attention(Q, K, V, { mask: mask.data, scale: true });
    return { id, pattern, mask, weights, output, cells, multiplyAdds: cellMultiplyAdds(cells, dK), ...compare(output) };
  };
  const linearOutput = linearAttention(engine, Q, K, V, { causal });
  const linear: Technique = {
    id: 'linear',
    pattern: null,
    mask: null,
    weights: linearAttentionWeights(engine, Q, K, { causal }),
    output: linearOutput,
    cells: 0,
    multiplyAdds: linearMultiplyAdds(n, dK),
    ...compare(linearOutput),
  };
  return {
    tokens: n,
    dK,
    head,
    causal,
    window,
    global,
    stride,
    full: { weights: full.weights, output: full.output, cells: allCells, multiplyAdds: cellMultiplyAdds(allCells, dK) },
    techniques: [
      sparse('window', { window, causal }),
      sparse('global', { window, global, causal }),
      sparse('strided', { window, stride, causal }),
      linear,
    ],
    linearCheaperFrom: linearCrossover(dK, causal),
  };
}
