#include "attention.h"

#include <algorithm>
#include <cmath>

#include "engine_limits.h"
#include "kernels.h"

namespace abh {

const char* const kProjectionOverflow =
    "the inputs are too large: X times a projection overflows float32 (keep |values| well below 1e19)";
const char* const kOutputOverflow = "the values are too large: the weighted sum of V overflows float32";

void fill_causal_mask(std::uint8_t* mask, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) mask[std::size_t(i) * n + j] = j <= i ? 1 : 0;
}

Mask causal_mask(int n) {
  Mask mask(n, n);
  fill_causal_mask(mask.data(), n);
  return mask;
}

float score_scale(int d_k, bool scale) { return scale ? 1.0f / std::sqrt(float(d_k)) : 1.0f; }

bool all_finite(const float* p, std::size_t count) { return kernels::first_non_finite(p, count) == count; }

Status check_whole_number(const char* name, double x, double lo, double hi) {
  if (std::isfinite(x) && x == std::floor(x) && x >= lo && x <= hi) return Ok{};
  return Failure{std::string(name) + " must be a whole number"};
}

Status check_seed(double seed) {
  if (check_whole_number("seed", seed, 0, double(limits::kMaxSeed)).ok()) return Ok{};
  return Failure{"seed must be a whole number from 0 to " + std::to_string(limits::kMaxSeed)};
}

Status check_qkv_shapes(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v) {
  using std::to_string;
  if (n_q < 1 || n_k < 1)
    return Failure{"Q and K need at least one row (got " + to_string(n_q) + " and " + to_string(n_k) + ")"};
  if (d_k < 1 || d_v < 1)
    return Failure{"Q and V need at least one column (got d_k = " + to_string(d_k) + ", d_v = " + to_string(d_v) + ")"};
  if (k_cols != d_k)
    return Failure{"K has " + to_string(k_cols) + " columns but Q has " + to_string(d_k) +
                   ": queries and keys must share d_k"};
  if (v_rows != n_k)
    return Failure{"V has " + to_string(v_rows) + " rows but K has " + to_string(n_k) + ": every key needs a value"};
  return Ok{};
}

Status check_qkv_limits(int n_q, int n_k, int d_k, int d_v, int max_sequence, const char* sequence) {
  using std::to_string;
  if (n_q > max_sequence || n_k > max_sequence)
    return Failure{std::string(sequence) + " is limited to " + to_string(max_sequence) + " tokens"};
  if (d_k > limits::kMaxDim || d_v > limits::kMaxDim)
    return Failure{"d_k and d_v are limited to " + to_string(limits::kMaxDim)};
  return Ok{};
}

Status check_attention_shapes(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v, std::int64_t mask_entries,
                              std::int64_t mask_rows) {
  using namespace limits;
  using std::to_string;
  if (auto shapes = check_qkv_shapes(n_q, n_k, d_k, k_cols, v_rows, d_v); !shapes.ok()) return shapes;
  if (auto sizes = check_qkv_limits(n_q, n_k, d_k, d_v, kMaxSequence); !sizes.ok()) return sizes;
  if (std::int64_t(n_q) * n_k > kMaxScoreElements)
    return Failure{"the " + to_string(n_q) + " x " + to_string(n_k) +
                   " score matrix would exceed the memory budget of " + to_string(kMaxScoreElements / (1 << 20)) +
                   "M entries; use the tiled (FlashAttention-style) kernel"};
  if (mask_entries >= 0 && (mask_entries != std::int64_t(n_q) * n_k || (mask_rows >= 0 && mask_rows != n_q)))
    return Failure{"the mask must be " + to_string(n_q) + " x " + to_string(n_k) + " (got " +
                   (mask_rows >= 0
                        ? to_string(mask_rows) + " x " + to_string(mask_entries / std::max<std::int64_t>(mask_rows, 1))
                        : to_string(mask_entries) + " entries") +
                   ")"};
  return Ok{};
}

Status check_finite(const char* name, const float* data, std::size_t count, std::size_t cols) {
  if (const std::size_t i = kernels::first_non_finite(data, count); i < count)
    return Failure{std::string(name) + " has a value that is not a finite number at row " +
                   std::to_string(i / cols + 1) + ", column " + std::to_string(i % cols + 1)};
  return Ok{};
}

Status check_finite(std::initializer_list<std::pair<const char*, const Matrix*>> matrices) {
  for (const auto& [name, m] : matrices)
    if (auto finite = check_finite(name, m->data(), std::size_t(m->size()), std::size_t(m->cols())); !finite.ok())
      return finite;
  return Ok{};
}

Status check_heads(int d_model, int h) {
  using std::to_string;
  if (d_model < 1) return Failure{"d_model must be at least 1 (got " + to_string(d_model) + ")"};
  if (h < 1) return Failure{"the number of heads must be at least 1 (got " + to_string(h) + ")"};
  if (h > limits::kMaxHeads) return Failure{"the number of heads is limited to " + to_string(limits::kMaxHeads)};
  if (d_model % h != 0)
    return Failure{"d_model (" + to_string(d_model) + ") must be divisible by the number of heads (" + to_string(h) +
                   ")"};
  return Ok{};
}

Status check_multi_head_shapes(int n, int d_model, std::initializer_list<std::pair<int, int>> projections, int h) {
  if (auto heads = check_heads(d_model, h); !heads.ok()) return heads;
  for (const auto& [rows, cols] : projections)
    if (rows != d_model || cols != d_model)
      return Failure{"every projection must be d_model x d_model (" + std::to_string(d_model) + " x " +
                     std::to_string(d_model) + ")"};
  const int d_k = d_model / h;
  if (auto shapes = check_attention_shapes(n, n, d_k, d_k, n, d_k, -1); !shapes.ok()) return shapes;
  if (std::int64_t(h) * n * n > limits::kMaxScoreElements)
    return Failure{"h x n x n weights would exceed the memory budget"};
  return Ok{};
}

Expected<AttentionResult> attention(const Matrix& Q, const Matrix& K, const Matrix& V, const Mask* mask,
                                    const AttentionOptions& options) {
  const int n_q = int(Q.rows()), n_k = int(K.rows()), d_k = int(Q.cols()), d_v = int(V.cols());
  const std::int64_t mask_entries = mask ? std::int64_t(mask->size()) : -1,
                     mask_rows = mask ? std::int64_t(mask->rows()) : -1;
  if (auto shapes = check_attention_shapes(n_q, n_k, d_k, int(K.cols()), int(V.rows()), d_v, mask_entries, mask_rows);
      !shapes.ok())
    return Failure{shapes.error()};
  if (auto finite = check_finite({{"Q", &Q}, {"K", &K}, {"V", &V}}); !finite.ok()) return Failure{finite.error()};

  AttentionResult result;
  result.weights.resize(n_q, n_k);
  result.output.resize(n_q, d_v);
  result.fully_masked_rows.assign(n_q, 0);
  const float scale = score_scale(d_k, options.scale);

  // Step 1: scores = Q K^T, written straight into the weights buffer.
  kernels::scores_qkt(Q.data(), d_k, K.data(), d_k, result.weights.data(), n_q, n_k, d_k);
  kernels::repair_overflowed_scores(Q.data(), d_k, K.data(), d_k, result.weights.data(), n_q, n_k, d_k);
  // Steps 2-3: scale, mask with -inf, softmax, in place.
  kernels::scale_mask_softmax(result.weights.data(), result.weights.data(), mask ? mask->data() : nullptr, n_q, n_k,
                              scale, result.fully_masked_rows.data());
  // Step 4: output = weights V.
  kernels::weighted_sum(result.weights.data(), V.data(), d_v, result.output.data(), d_v, n_q, n_k, d_v);
  if (!all_finite(result.output)) return Failure{kOutputOverflow};
  return result;
}

Expected<MultiHeadResult> multi_head_attention(const Matrix& X, const Matrix& W_q, const Matrix& W_k, const Matrix& W_v,
                                               const Matrix& W_o, int h, bool causal, const AttentionOptions& options) {
  const int n = int(X.rows()), d_model = int(X.cols());
  if (auto shapes = check_multi_head_shapes(n, d_model,
                                            {{int(W_q.rows()), int(W_q.cols())},
                                             {int(W_k.rows()), int(W_k.cols())},
                                             {int(W_v.rows()), int(W_v.cols())},
                                             {int(W_o.rows()), int(W_o.cols())}},
                                            h);
      !shapes.ok())
    return Failure{shapes.error()};
  if (auto finite = check_finite({{"X", &X}, {"W_q", &W_q}, {"W_k", &W_k}, {"W_v", &W_v}, {"W_o", &W_o}}); !finite.ok())
    return Failure{finite.error()};
  const int d_k = d_model / h;

  // Q, K, V are (n, d_model); head `head` reads columns [head*d_k, (head+1)*d_k) with stride d_model,
  // which is the article's reshape(n, h, d_k).transpose(1, 0, 2) without a copy.
  Matrix Q(n, d_model), K(n, d_model), V(n, d_model), merged(n, d_model);
  kernels::matmul(X.data(), d_model, W_q.data(), d_model, Q.data(), d_model, n, d_model, d_model);
  kernels::matmul(X.data(), d_model, W_k.data(), d_model, K.data(), d_model, n, d_model, d_model);
  kernels::matmul(X.data(), d_model, W_v.data(), d_model, V.data(), d_model, n, d_model, d_model);
  if (!all_finite(Q) || !all_finite(K) || !all_finite(V)) return Failure{kProjectionOverflow};

  MultiHeadResult result;
  result.weights = Tensor3(h, n, n);
  result.fully_masked_rows.assign(n, 0);
  const Mask mask = causal ? causal_mask(n) : Mask();
  const float scale = score_scale(d_k, options.scale);
  for (int head = 0; head < h; ++head) {
    float* W = result.weights.head(head);
    const int offset = head * d_k;
    kernels::scores_qkt(Q.data() + offset, d_model, K.data() + offset, d_model, W, n, n, d_k);
    kernels::repair_overflowed_scores(Q.data() + offset, d_model, K.data() + offset, d_model, W, n, n, d_k);
    kernels::scale_mask_softmax(W, W, causal ? mask.data() : nullptr, n, n, scale, result.fully_masked_rows.data());
    // The head's output lands in its own column slice of `merged`: that is the concat.
    kernels::weighted_sum(W, V.data() + offset, d_model, merged.data() + offset, d_model, n, n, d_k);
  }
  result.output.resize(n, d_model);
  kernels::matmul(merged.data(), d_model, W_o.data(), d_model, result.output.data(), d_model, n, d_model, d_model);
  if (!all_finite(result.output)) return Failure{kOutputOverflow};
  return result;
}

}  // namespace abh
