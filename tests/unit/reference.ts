// An independent float64 implementation of the article's three functions, transcribed from the
// article's NumPy (not from the C++), with flat row-major Float64Arrays:
//
//   def softmax(x, axis=-1):
//       x = x - x.max(axis=axis, keepdims=True)     # numerical stability
//       e = np.exp(x)
//       return e / e.sum(axis=axis, keepdims=True)
//
//   def attention(Q, K, V, mask=None):
//       scores = Q @ K.T / np.sqrt(Q.shape[-1])
//       if mask is not None:
//           scores = np.where(mask, scores, -np.inf)
//       weights = softmax(scores, axis=-1)
//       return weights @ V, weights
//
//   def multi_head_attention(X, W_q, W_k, W_v, W_o, h=8): reshape(n, h, d_k).transpose(1, 0, 2),
//       per-head softmax(Q K^T / sqrt(d_k)) V, concat, @ W_o.
//
// Additions to the article, each one of the engine's documented options:
//   - `scale: false` skips the / sqrt(d_k) (the article's "why scale" comparison);
//   - a row whose every key is masked (all -inf) gets all-zero weights instead of NumPy's 0/0 = NaN;
//   - `causal` masks the future with -inf before the softmax, as the article's masking section says.

export interface RefMatrix {
  rows: number;
  cols: number;
  data: Float64Array;
}

type Input = { rows: number; cols: number; data: ArrayLike<number> };

function toRef(m: Input): RefMatrix {
  return { rows: m.rows, cols: m.cols, data: Float64Array.from(m.data) };
}

/** A @ B for row-major matrices, in float64. */
export function matmul(A: Input, B: Input): RefMatrix {
  if (A.cols !== B.rows) throw new Error(`matmul: (${A.rows}, ${A.cols}) @ (${B.rows}, ${B.cols})`);
  const out = new Float64Array(A.rows * B.cols);
  const a = A.data;
  const b = B.data;
  for (let i = 0; i < A.rows; ++i) {
    const o = i * B.cols;
    for (let p = 0; p < A.cols; ++p) {
      const aip = a[i * A.cols + p]!;
      if (aip === 0) continue;
      const bp = p * B.cols;
      for (let j = 0; j < B.cols; ++j) out[o + j]! += aip * b[bp + j]!;
    }
  }
  return { rows: A.rows, cols: B.cols, data: out };
}

export function transpose(A: Input): RefMatrix {
  const out = new Float64Array(A.rows * A.cols);
  for (let i = 0; i < A.rows; ++i) for (let j = 0; j < A.cols; ++j) out[j * A.rows + i] = A.data[i * A.cols + j]!;
  return { rows: A.cols, cols: A.rows, data: out };
}

/**
 * softmax(x, axis=-1) over the rows of a (rows, cols) matrix: subtract the row max, exponentiate,
 * divide by the row sum. A row that is entirely -inf becomes zeros (the article would give NaN).
 */
export function softmax(x: Input): RefMatrix {
  const out = new Float64Array(x.rows * x.cols);
  for (let r = 0; r < x.rows; ++r) {
    const start = r * x.cols;
    let max = -Infinity;
    for (let c = 0; c < x.cols; ++c) max = Math.max(max, x.data[start + c]!);
    if (max === -Infinity) continue; // every entry masked: zeros
    let total = 0;
    for (let c = 0; c < x.cols; ++c) {
      const e = Math.exp(x.data[start + c]! - max);
      out[start + c] = e;
      total += e;
    }
    for (let c = 0; c < x.cols; ++c) out[start + c]! /= total;
  }
  return { rows: x.rows, cols: x.cols, data: out };
}

/** softmax of a plain vector. */
export function softmaxVector(x: readonly number[]): number[] {
  return Array.from(softmax({ rows: 1, cols: x.length, data: x }).data);
}

export interface RefAttention {
  output: RefMatrix; // (n_q, d_v)
  weights: RefMatrix; // (n_q, n_k)
  scores: RefMatrix; // (n_q, n_k) Q K^T (times the scale), before the mask
  fullyMaskedRows: Uint8Array;
}

/** attention(Q, K, V, mask): mask is (n_q, n_k), nonzero = allowed. */
export function attention(Q: Input, K: Input, V: Input, mask?: ArrayLike<number> | null, scale = true): RefAttention {
  const dk = Q.cols;
  const raw = matmul(Q, transpose(K));
  const factor = scale ? 1 / Math.sqrt(dk) : 1;
  const scores = { rows: raw.rows, cols: raw.cols, data: raw.data.map((s) => s * factor) };
  const masked = { rows: scores.rows, cols: scores.cols, data: Float64Array.from(scores.data) };
  const fullyMaskedRows = new Uint8Array(Q.rows);
  if (mask) {
    for (let i = 0; i < masked.data.length; ++i) if (!mask[i]) masked.data[i] = -Infinity;
    for (let r = 0; r < Q.rows; ++r) {
      let any = false;
      for (let c = 0; c < K.rows; ++c) if (mask[r * K.rows + c]) any = true;
      if (!any) fullyMaskedRows[r] = 1;
    }
  }
  const weights = softmax(masked);
  return { output: matmul(weights, V), weights, scores, fullyMaskedRows };
}

/** Lower-triangular (n, n): token i sees tokens 0..i (the article's np.tril(np.ones((n, n)))). */
export function causalMask(n: number): Uint8Array {
  const m = new Uint8Array(n * n);
  for (let i = 0; i < n; ++i) for (let j = 0; j <= i; ++j) m[i * n + j] = 1;
  return m;
}

/** (n, d_model) -> h matrices (n, d_k): reshape(n, h, d_k).transpose(1, 0, 2). */
export function splitHeads(M: RefMatrix, h: number): RefMatrix[] {
  const dk = M.cols / h;
  const out: RefMatrix[] = [];
  for (let head = 0; head < h; ++head) {
    const data = new Float64Array(M.rows * dk);
    for (let r = 0; r < M.rows; ++r) for (let c = 0; c < dk; ++c) data[r * dk + c] = M.data[r * M.cols + head * dk + c]!;
    out.push({ rows: M.rows, cols: dk, data });
  }
  return out;
}

/** h matrices (n, d_k) -> (n, h * d_k): heads.transpose(1, 0, 2).reshape(n, d_model). */
export function mergeHeads(heads: RefMatrix[]): RefMatrix {
  const n = heads[0]!.rows;
  const dk = heads[0]!.cols;
  const dModel = dk * heads.length;
  const data = new Float64Array(n * dModel);
  heads.forEach((m, head) => {
    for (let r = 0; r < n; ++r) for (let c = 0; c < dk; ++c) data[r * dModel + head * dk + c] = m.data[r * dk + c]!;
  });
  return { rows: n, cols: dModel, data };
}

export interface RefMultiHead {
  output: RefMatrix; // (n, d_model)
  weights: Float64Array; // (h, n, n) flat
  Q: RefMatrix;
  K: RefMatrix;
  V: RefMatrix;
  scores: Float64Array; // (h, n, n) raw Q K^T, unscaled
  headOutputs: Float64Array; // (h, n, d_k) flat
  merged: RefMatrix;
}

export interface MultiHeadOptions {
  causal?: boolean;
  scale?: boolean;
  /** (n, n) nonzero = allowed; overrides causal. */
  mask?: ArrayLike<number>;
}

/** multi_head_attention(X, W_q, W_k, W_v, W_o, h), plus causal/scale/mask options. */
export function multiHeadAttention(
  X: Input,
  W_q: Input,
  W_k: Input,
  W_v: Input,
  W_o: Input,
  h: number,
  options: MultiHeadOptions = {},
): RefMultiHead {
  const n = X.rows;
  const dModel = X.cols;
  if (dModel % h !== 0) throw new Error(`reference: d_model ${dModel} not divisible by h ${h}`);
  const dk = dModel / h;
  const x = toRef(X);
  const Q = matmul(x, W_q);
  const K = matmul(x, W_k);
  const V = matmul(x, W_v);
  const Qh = splitHeads(Q, h);
  const Kh = splitHeads(K, h);
  const Vh = splitHeads(V, h);
  const mask = options.mask ?? (options.causal ? causalMask(n) : null);
  const weights = new Float64Array(h * n * n);
  const scores = new Float64Array(h * n * n);
  const headOutputs = new Float64Array(h * n * dk);
  const heads: RefMatrix[] = [];
  const factor = (options.scale ?? true) ? 1 / Math.sqrt(dk) : 1;
  for (let head = 0; head < h; ++head) {
    // scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_k), masked with -inf, softmax, @ V
    const raw = matmul(Qh[head]!, transpose(Kh[head]!));
    scores.set(raw.data, head * n * n);
    const scaled = raw.data.map((s, i) => (mask && !mask[i] ? -Infinity : s * factor));
    const w = softmax({ rows: n, cols: n, data: scaled });
    weights.set(w.data, head * n * n);
    const out = matmul(w, Vh[head]!);
    headOutputs.set(out.data, head * n * dk);
    heads.push(out);
  }
  const merged = mergeHeads(heads);
  return { output: matmul(merged, W_o), weights, Q, K, V, scores, headOutputs, merged };
}
