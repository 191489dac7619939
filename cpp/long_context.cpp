// Sparse (window, global, strided) and linear attention (long_context.h). The KV cache and decoding
// are in long_context_decode.cpp.
#include "long_context.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "attention.h"  // check_qkv_shapes, check_finite, all_finite, score_scale, kOutputOverflow
#include "engine_limits.h"
#include "kernels.h"
#include "microkernels.h"  // vf and its operations; exp_scalar

namespace abh {
namespace {

using namespace kernels::detail;

// a . b over d floats, four lanes at a time (two accumulators, so consecutive multiply-adds do not
// wait on each other), then the scalar tail.
ABH_INLINE float dot(const float* a, const float* b, int d) {
  vf acc0 = vzero(), acc1 = vzero();
  int t = 0;
  for (; t + 8 <= d; t += 8) {
    acc0 = vmadd(acc0, vload(a + t), vload(b + t));
    acc1 = vmadd(acc1, vload(a + t + 4), vload(b + t + 4));
  }
  for (; t + 4 <= d; t += 4) acc0 = vmadd(acc0, vload(a + t), vload(b + t));
  float sum = vhsum(vadd(acc0, acc1));
  for (; t < d; ++t) sum += a[t] * b[t];
  return sum;
}

// y += a x over d floats.
ABH_INLINE void axpy(float* y, float a, const float* x, int d) {
  const vf av = vsplat(a);
  int t = 0;
  for (; t + 4 <= d; t += 4) vstore(y + t, vmadd(vload(y + t), av, vload(x + t)));
  for (; t < d; ++t) y[t] += a * x[t];
}

Status check_self_attention_shapes(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v) {
  using namespace limits;
  using std::to_string;
  if (auto shapes = check_qkv_shapes(n_q, n_k, d_k, k_cols, v_rows, d_v); !shapes.ok()) return shapes;
  if (n_q != n_k)
    return Failure{"these patterns attend within one sequence: Q and K need as many rows (got " + to_string(n_q) +
                   " and " + to_string(n_k) + ")"};
  if (auto sizes = check_qkv_limits(n_q, n_k, d_k, d_v, kMaxLongSequence); !sizes.ok()) return sizes;
  if (std::int64_t(n_q) * std::max(d_k, d_v) > kMaxLongMatrixElements)
    return Failure{"Q, K and V are limited to " + to_string(kMaxLongMatrixElements / (1 << 20)) + "M entries each"};
  return Ok{};
}

// ---- the pattern, row by row -------------------------------------------------------------------

struct KeyRange {
  int begin, end;  // keys [begin, end)
};

// What query i may see: its window [lo, hi), keys [0, limit) at all, and the global keys [0, global).
struct RowBounds {
  int lo, hi, limit, global;
};

RowBounds row_bounds(int n, const SparsePattern& p, int i) {
  const int w = std::min(p.window, n);
  const int limit = p.causal ? i + 1 : n;
  return {std::max(0, i - w + 1), p.causal ? i + 1 : std::min(n, i + w), limit, std::min(p.global, limit)};
}

// The smallest j >= x with j = residue (mod s).
int next_in_stride(int x, int residue, int s) { return x + ((residue - x) % s + s) % s; }

// How many j in [0, x) have j = residue (mod s), 0 <= residue < s.
std::int64_t count_in_stride(int x, int residue, int s) { return x > residue ? (x - residue - 1) / s + 1 : 0; }

void add_range(std::vector<KeyRange>& keys, int begin, int end) {
  if (begin >= end) return;
  if (!keys.empty() && keys.back().end == begin)
    keys.back().end = end;  // strided singles next to each other, or next to the window, become one run
  else
    keys.push_back({begin, end});
}

// The strided keys in [from, to) that are (i - j) multiples of s, as single keys.
void add_strided(std::vector<KeyRange>& keys, int from, int to, int i, int s) {
  for (int j = next_in_stride(from, i % s, s); j < to; j += s) add_range(keys, j, j + 1);
}

// Query i's keys as disjoint runs in increasing order: the global keys, the strided keys between
// them and the window, the window, the strided keys after it. Each key appears once.
void row_keys(int n, const SparsePattern& p, int i, std::vector<KeyRange>& keys) {
  keys.clear();
  const RowBounds b = row_bounds(n, p, i);
  if (i < p.global) {  // a global token attends to every key it may see
    add_range(keys, 0, b.limit);
    return;
  }
  const int before_window = std::min(b.global, b.lo);  // globals that are not in the window
  add_range(keys, 0, before_window);
  if (p.stride > 0) add_strided(keys, before_window, b.lo, i, p.stride);
  add_range(keys, b.lo, b.hi);
  if (p.stride > 0) add_strided(keys, b.hi, b.limit, i, p.stride);
}

// The same count in closed form, independently of row_keys: window + globals outside it + strided keys
// outside both.
std::int64_t row_cells(int n, const SparsePattern& p, int i) {
  const RowBounds b = row_bounds(n, p, i);
  if (i < p.global) return b.limit;
  const int before_window = std::min(b.global, b.lo);
  std::int64_t cells = (b.hi - b.lo) + before_window;
  if (p.stride > 0) {
    const int r = i % p.stride;
    cells += count_in_stride(b.lo, r, p.stride) - count_in_stride(before_window, r, p.stride);
    cells += count_in_stride(b.limit, r, p.stride) - count_in_stride(b.hi, r, p.stride);
  }
  return cells;
}

// ---- linear attention's feature map ------------------------------------------------------------

// phi(x) / phi(top) for x <= top: in (0, 1], with 1 at x = top. phi is increasing, so top is the
// largest input of the row (or matrix) that shares the factor. For top <= 0 every x is too, and
// phi(x) / phi(top) = exp(x - top): no underflow however negative the inputs.
ABH_INLINE float scaled_feature(float x, float top) {
  if (top <= 0.0f) return exp_scalar(x - top);
  return elu_plus_one(x) / (top + 1.0f);
}

// out (rows, cols) = phi(x) with one factor per row (per_row) or one for the whole matrix.
void features(const Matrix& x, bool per_row, Matrix& out) {
  out.resize(x.rows(), x.cols());
  const float whole_top = x.size() ? x.maxCoeff() : 0.0f;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float top = per_row ? x.row(i).maxCoeff() : whole_top;
    for (Eigen::Index t = 0; t < x.cols(); ++t) out(i, t) = scaled_feature(x(i, t), top);
  }
}

// Tokens per block of linear attention's summary: a (256, d_v) block of V is 64 KiB at d_v = 64.
constexpr int kTokenBlock = 256;

const char* const kLinearNormaliserUnderflow =
    "linear attention's normaliser phi(q) . sum phi(k) underflowed float32: the queries' and keys' "
    "features are too far apart in size";

}  // namespace

float elu_plus_one(float x) { return x > 0.0f ? x + 1.0f : exp_scalar(x); }

// ---- checks --------------------------------------------------------------------------------------

Status check_sparse_pattern(int n, const SparsePattern& pattern) {
  using std::to_string;
  if (pattern.window < 1) return Failure{"the window must be at least 1 token (got " + to_string(pattern.window) + ")"};
  if (pattern.global < 0 || pattern.global > n)
    return Failure{"the number of global tokens must be from 0 to n = " + to_string(n) + " (got " +
                   to_string(pattern.global) + ")"};
  if (pattern.stride < 0)
    return Failure{"the stride must be 0 (none) or at least 1 (got " + to_string(pattern.stride) + ")"};
  return Ok{};
}

Status check_sparse_inputs(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v, const SparsePattern& pattern) {
  if (auto shapes = check_self_attention_shapes(n_q, n_k, d_k, k_cols, v_rows, d_v); !shapes.ok()) return shapes;
  return check_sparse_pattern(n_q, pattern);
}

Status check_linear_inputs(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v) {
  return check_self_attention_shapes(n_q, n_k, d_k, k_cols, v_rows, d_v);
}

Status check_figure_size(int n) {
  using std::to_string;
  if (n < 1 || n > limits::kMaxPatternMaskSequence)
    return Failure{"the (n, n) figure is limited to n from 1 to " + to_string(limits::kMaxPatternMaskSequence) +
                   " (got " + to_string(n) + ")"};
  return Ok{};
}

// ---- sparse attention ----------------------------------------------------------------------------

Expected<std::int64_t> sparse_pattern_cells(int n, const SparsePattern& pattern) {
  if (n < 1 || n > limits::kMaxLongSequence)
    return Failure{"n must be from 1 to " + std::to_string(limits::kMaxLongSequence) + " (got " + std::to_string(n) +
                   ")"};
  if (auto ok = check_sparse_pattern(n, pattern); !ok.ok()) return Failure{ok.error()};
  std::int64_t cells = 0;
  for (int i = 0; i < n; ++i) cells += row_cells(n, pattern, i);
  return cells;
}

Expected<Mask> sparse_pattern_mask(int n, const SparsePattern& pattern) {
  if (auto size = check_figure_size(n); !size.ok()) return Failure{size.error()};
  if (auto ok = check_sparse_pattern(n, pattern); !ok.ok()) return Failure{ok.error()};
  Mask mask = Mask::Zero(n, n);
  std::vector<KeyRange> keys;
  for (int i = 0; i < n; ++i) {
    row_keys(n, pattern, i, keys);
    for (const KeyRange& r : keys) mask.row(i).segment(r.begin, r.end - r.begin).setOnes();
  }
  return mask;
}

Expected<SparseAttentionResult> sparse_attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                                                 const SparsePattern& pattern) {
  const int n = int(Q.rows()), d_k = int(Q.cols()), d_v = int(V.cols());
  if (auto inputs = check_sparse_inputs(n, int(K.rows()), d_k, int(K.cols()), int(V.rows()), d_v, pattern);
      !inputs.ok())
    return Failure{inputs.error()};
  if (auto finite = check_finite({{"Q", &Q}, {"K", &K}, {"V", &V}}); !finite.ok()) return Failure{finite.error()};
  const float scale = score_scale(d_k, true);

  SparseAttentionResult result;
  result.output.setZero(n, d_v);
  std::vector<KeyRange> keys;
  std::vector<float> scores(static_cast<std::size_t>(n));  // one row's scores, then its weights: at most n
  for (int i = 0; i < n; ++i) {
    row_keys(n, pattern, i, keys);
    const float* q = Q.data() + std::size_t(i) * d_k;
    // Step 1 on the row's cells only; overflowed scores are recomputed as attention() does.
    int cells = 0;
    for (const KeyRange& r : keys) {
      for (int j = r.begin; j < r.end; ++j)
        scores[std::size_t(cells + j - r.begin)] = dot(q, K.data() + std::size_t(j) * d_k, d_k);
      kernels::repair_overflowed_scores(q, d_k, K.data() + std::size_t(r.begin) * d_k, d_k, scores.data() + cells, 1,
                                        r.end - r.begin, d_k);
      cells += r.end - r.begin;
    }
    // Steps 2-3: scaled, max subtracted, normalised; the kernel attention() uses, on the row's cells.
    kernels::scale_mask_softmax(scores.data(), scores.data(), nullptr, 1, cells, scale, nullptr);
    // Step 4: the weighted sum of the row's values.
    float* out = result.output.data() + std::size_t(i) * d_v;
    int c = 0;
    for (const KeyRange& r : keys)
      for (int j = r.begin; j < r.end; ++j, ++c)
        axpy(out, scores[std::size_t(c)], V.data() + std::size_t(j) * d_v, d_v);
    result.cells += cells;
  }
  if (!all_finite(result.output)) return Failure{kOutputOverflow};
  return result;
}

Expected<SparseAttentionResult> sliding_window_attention(const Matrix& Q, const Matrix& K, const Matrix& V, int window,
                                                         bool causal) {
  SparsePattern pattern;
  pattern.window = window;
  pattern.causal = causal;
  return sparse_attention(Q, K, V, pattern);
}

// ---- linear attention ----------------------------------------------------------------------------

Expected<LinearAttentionResult> linear_attention(const Matrix& Q, const Matrix& K, const Matrix& V, bool causal) {
  const int n = int(Q.rows()), d_k = int(Q.cols()), d_v = int(V.cols());
  if (auto inputs = check_linear_inputs(n, int(K.rows()), d_k, int(K.cols()), int(V.rows()), d_v); !inputs.ok())
    return Failure{inputs.error()};
  if (auto finite = check_finite({{"Q", &Q}, {"K", &K}, {"V", &V}}); !finite.ok()) return Failure{finite.error()};

  // phi(q_i) rescaled per row and phi(K) by one factor: both cancel in the ratio.
  Matrix phi_q, phi_k;
  features(Q, true, phi_q);
  features(K, false, phi_k);

  LinearAttentionResult result;
  result.output.resize(n, d_v);
  std::vector<float> denominators(static_cast<std::size_t>(n));
  if (!causal) {
    // summary (d_k, d_v) = phi(K)^T V and normaliser (d_k) = phi(K)^T 1, once for every query; then
    // numerators (n, d_v) = phi(Q) summary. The products run on the engine's matmul; the first one
    // over blocks of tokens, each with its block of phi(K) transposed into a small scratch, so that
    // the block of V that every 4 rows of phi(K)^T read again stays in cache. (Over all n at once,
    // V streamed from memory d_k / 4 times and the transpose wrote with a stride of n floats: slope
    // 1.19 instead of ~1 from n = 4,096 to 65,536, measured natively.)
    Matrix summary = Matrix::Zero(d_k, d_v), block_summary(d_k, d_v), block_t(d_k, kTokenBlock);
    for (int j0 = 0; j0 < n; j0 += kTokenBlock) {
      const int tokens = std::min(kTokenBlock, n - j0);
      block_t.leftCols(tokens) = phi_k.middleRows(j0, tokens).transpose();
      kernels::matmul(block_t.data(), kTokenBlock, V.data() + std::size_t(j0) * d_v, d_v, block_summary.data(), d_v,
                      d_k, tokens, d_v);
      summary += block_summary;
    }
    const Eigen::RowVectorXf normaliser = phi_k.colwise().sum();
    kernels::matmul(phi_q.data(), d_k, summary.data(), d_v, result.output.data(), d_v, n, d_k, d_v);
    for (int i = 0; i < n; ++i)
      denominators[std::size_t(i)] = dot(phi_q.data() + std::size_t(i) * d_k, normaliser.data(), d_k);
  } else {
    // The same sums as prefix sums: token i adds phi(k_i) v_i^T and phi(k_i), then reads them.
    Matrix summary = Matrix::Zero(d_k, d_v);
    std::vector<float> normaliser(static_cast<std::size_t>(d_k), 0.0f);
    for (int i = 0; i < n; ++i) {
      const float* phi_k_i = phi_k.data() + std::size_t(i) * d_k;
      const float* phi_q_i = phi_q.data() + std::size_t(i) * d_k;
      const float* v_i = V.data() + std::size_t(i) * d_v;
      float* out = result.output.data() + std::size_t(i) * d_v;
      std::fill(out, out + d_v, 0.0f);
      for (int t = 0; t < d_k; ++t) {
        float* summary_t = summary.data() + std::size_t(t) * d_v;
        axpy(summary_t, phi_k_i[t], v_i, d_v);
        normaliser[std::size_t(t)] += phi_k_i[t];
        axpy(out, phi_q_i[t], summary_t, d_v);
      }
      denominators[std::size_t(i)] = dot(phi_q_i, normaliser.data(), d_k);
    }
  }
  for (int i = 0; i < n; ++i) {
    const float den = denominators[std::size_t(i)];
    if (!(den > 0.0f) || !std::isfinite(1.0f / den)) return Failure{kLinearNormaliserUnderflow};
    result.output.row(i) /= den;
  }
  if (!all_finite(result.output)) return Failure{kOutputOverflow};
  return result;
}

Expected<Matrix> linear_attention_weights(const Matrix& Q, const Matrix& K, bool causal) {
  const int n = int(Q.rows()), d_k = int(Q.cols());
  if (auto shapes = check_linear_inputs(n, int(K.rows()), d_k, int(K.cols()), int(K.rows()), 1); !shapes.ok())
    return Failure{shapes.error()};
  if (auto size = check_figure_size(n); !size.ok()) return Failure{size.error()};
  if (auto finite = check_finite({{"Q", &Q}, {"K", &K}}); !finite.ok()) return Failure{finite.error()};
  Matrix phi_q, phi_k;
  features(Q, true, phi_q);
  features(K, false, phi_k);
  Matrix weights = Matrix::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    const int visible = causal ? i + 1 : n;
    float sum = 0.0f;
    for (int j = 0; j < visible; ++j) {
      weights(i, j) = dot(phi_q.data() + std::size_t(i) * d_k, phi_k.data() + std::size_t(j) * d_k, d_k);
      sum += weights(i, j);
    }
    if (!(sum > 0.0f) || !std::isfinite(1.0f / sum)) return Failure{kLinearNormaliserUnderflow};
    weights.row(i) /= sum;
  }
  return weights;
}

}  // namespace abh
