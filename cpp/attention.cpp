#include "attention.h"

#include <cmath>

#include "kernels.h"
#include "engine_limits.h"

namespace abh {

const char* const kProjectionOverflow =
    "the inputs are too large: X times a projection overflows float32 (keep |values| well below 1e19)";
const char* const kOutputOverflow = "the values are too large: the weighted sum of V overflows float32";

Mask causal_mask(int n) {
  Mask mask(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) mask(i, j) = j <= i ? 1 : 0;
  return mask;
}

std::string check_attention_shapes(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v,
                                   const Mask* mask) {
  using namespace limits;
  if (n_q < 1 || n_k < 1) return "Q and K need at least one row (got " + std::to_string(n_q) + " and " + std::to_string(n_k) + ")";
  if (d_k < 1 || d_v < 1) return "Q and V need at least one column (got d_k = " + std::to_string(d_k) + ", d_v = " + std::to_string(d_v) + ")";
  if (k_cols != d_k) return "K has " + std::to_string(k_cols) + " columns but Q has " + std::to_string(d_k) + ": queries and keys must share d_k";
  if (v_rows != n_k) return "V has " + std::to_string(v_rows) + " rows but K has " + std::to_string(n_k) + ": every key needs a value";
  if (n_q > kMaxSequence || n_k > kMaxSequence) return "sequence length is limited to " + std::to_string(kMaxSequence) + " tokens";
  if (d_k > kMaxDim || d_v > kMaxDim) return "d_k and d_v are limited to " + std::to_string(kMaxDim);
  if (std::int64_t(n_q) * n_k > kMaxScoreElements)
    return "the " + std::to_string(n_q) + " x " + std::to_string(n_k) + " score matrix would exceed the memory budget of " +
           std::to_string(kMaxScoreElements / (1 << 20)) + "M entries; use the tiled (FlashAttention-style) kernel";
  if (mask && (mask->rows() != n_q || mask->cols() != n_k))
    return "the mask must be " + std::to_string(n_q) + " x " + std::to_string(n_k) + " (got " + std::to_string(mask->rows()) +
           " x " + std::to_string(mask->cols()) + ")";
  return {};
}

std::string check_finite(std::initializer_list<std::pair<const char*, const Matrix*>> matrices) {
  for (const auto& [name, m] : matrices)
    for (Eigen::Index i = 0; i < m->size(); ++i)
      if (!std::isfinite(m->data()[i]))
        return std::string(name) + " has a value that is not a finite number at row " + std::to_string(i / m->cols() + 1) +
               ", column " + std::to_string(i % m->cols() + 1);
  return {};
}

std::string check_heads(int d_model, int h) {
  if (d_model < 1) return "d_model must be at least 1 (got " + std::to_string(d_model) + ")";
  if (h < 1) return "the number of heads must be at least 1 (got " + std::to_string(h) + ")";
  if (h > limits::kMaxHeads) return "the number of heads is limited to " + std::to_string(limits::kMaxHeads);
  if (d_model % h != 0)
    return "d_model (" + std::to_string(d_model) + ") must be divisible by the number of heads (" + std::to_string(h) + ")";
  return {};
}

Expected<AttentionResult> attention(const Matrix& Q, const Matrix& K, const Matrix& V, const Mask* mask,
                                    const AttentionOptions& options) {
  const int n_q = int(Q.rows()), n_k = int(K.rows()), d_k = int(Q.cols()), d_v = int(V.cols());
  if (auto error = check_attention_shapes(n_q, n_k, d_k, int(K.cols()), int(V.rows()), d_v, mask); !error.empty())
    return Expected<AttentionResult>::failure(error);
  if (auto error = check_finite({{"Q", &Q}, {"K", &K}, {"V", &V}}); !error.empty()) return Expected<AttentionResult>::failure(error);

  AttentionResult result;
  result.weights.resize(n_q, n_k);
  result.output.resize(n_q, d_v);
  result.fully_masked_rows.assign(n_q, 0);
  const float scale = options.scale ? 1.0f / std::sqrt(float(d_k)) : 1.0f;

  // Step 1: scores = Q K^T, written straight into the weights buffer.
  kernels::scores_qkt(Q.data(), d_k, K.data(), d_k, result.weights.data(), n_q, n_k, d_k);
  kernels::repair_overflowed_scores(Q.data(), d_k, K.data(), d_k, result.weights.data(), n_q, n_k, d_k);
  // Steps 2-3: scale, mask with -inf, softmax, in place.
  kernels::scale_mask_softmax(result.weights.data(), result.weights.data(), mask ? mask->data() : nullptr, n_q,
                              n_k, scale, result.fully_masked_rows.data());
  // Step 4: output = weights V.
  kernels::weighted_sum(result.weights.data(), V.data(), d_v, result.output.data(), d_v, n_q, n_k, d_v);
  if (!result.output.allFinite()) return Expected<AttentionResult>::failure(kOutputOverflow);
  return result;
}

Expected<MultiHeadResult> multi_head_attention(const Matrix& X, const Matrix& W_q, const Matrix& W_k,
                                               const Matrix& W_v, const Matrix& W_o, int h, bool causal,
                                               const AttentionOptions& options) {
  const int n = int(X.rows()), d_model = int(X.cols());
  if (auto error = check_heads(d_model, h); !error.empty()) return Expected<MultiHeadResult>::failure(error);
  for (const Matrix* W : {&W_q, &W_k, &W_v, &W_o})
    if (W->rows() != d_model || W->cols() != d_model)
      return Expected<MultiHeadResult>::failure("every projection must be d_model x d_model (" + std::to_string(d_model) +
                                                " x " + std::to_string(d_model) + ")");
  const int d_k = d_model / h;
  if (auto error = check_attention_shapes(n, n, d_k, d_k, n, d_k, nullptr); !error.empty())
    return Expected<MultiHeadResult>::failure(error);
  if (auto error = check_finite({{"X", &X}, {"W_q", &W_q}, {"W_k", &W_k}, {"W_v", &W_v}, {"W_o", &W_o}}); !error.empty())
    return Expected<MultiHeadResult>::failure(error);
  if (std::int64_t(h) * n * n > limits::kMaxScoreElements)
    return Expected<MultiHeadResult>::failure("h x n x n weights would exceed the memory budget");

  // Q, K, V are (n, d_model); head `head` reads columns [head*d_k, (head+1)*d_k) with stride d_model,
  // which is the article's reshape(n, h, d_k).transpose(1, 0, 2) without a copy.
  Matrix Q(n, d_model), K(n, d_model), V(n, d_model), merged(n, d_model);
  kernels::matmul(X.data(), d_model, W_q.data(), d_model, Q.data(), d_model, n, d_model, d_model);
  kernels::matmul(X.data(), d_model, W_k.data(), d_model, K.data(), d_model, n, d_model, d_model);
  kernels::matmul(X.data(), d_model, W_v.data(), d_model, V.data(), d_model, n, d_model, d_model);
  if (!Q.allFinite() || !K.allFinite() || !V.allFinite()) return Expected<MultiHeadResult>::failure(kProjectionOverflow);

  MultiHeadResult result;
  result.weights = Tensor3(h, n, n);
  result.fully_masked_rows.assign(n, 0);
  const Mask mask = causal ? causal_mask(n) : Mask();
  const float scale = options.scale ? 1.0f / std::sqrt(float(d_k)) : 1.0f;
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
  if (!result.output.allFinite()) return Expected<MultiHeadResult>::failure(kOutputOverflow);
  return result;
}

}  // namespace abh
