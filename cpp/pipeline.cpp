#include "pipeline.h"

#include <cmath>

#include "attention.h"
#include "kernels.h"
#include "engine_limits.h"
#include "random.h"

namespace abh {
namespace {

constexpr std::uint64_t kEmbeddingTag = 0x454D4245ull << 32;  // "EMBE"
constexpr std::uint64_t kProjectionTag = 0x50524F4Aull << 32; // "PROJ"

std::string check_matrix(const char* name, const std::vector<float>& values, std::size_t rows, std::size_t cols) {
  if (values.empty()) return {};
  if (values.size() != rows * cols)
    return std::string(name) + " must have " + std::to_string(rows) + " x " + std::to_string(cols) + " = " +
           std::to_string(rows * cols) + " values (got " + std::to_string(values.size()) + ")";
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      return std::string(name) + " has a value that is not a finite number at row " + std::to_string(i / cols + 1) +
             ", column " + std::to_string(i % cols + 1);
  return {};
}

Matrix matrix_from(const std::vector<float>& values, int rows, int cols) {
  return Eigen::Map<const Matrix>(values.data(), rows, cols);
}

// (n, d_model) -> (h, n, d_k): the article's reshape(n, h, d_k).transpose(1, 0, 2).
Tensor3 split_heads(const Matrix& M, int h, int d_k) {
  Tensor3 out(h, int(M.rows()), d_k);
  for (int head = 0; head < h; ++head)
    for (int row = 0; row < M.rows(); ++row)
      for (int col = 0; col < d_k; ++col) out.head(head)[std::size_t(row) * d_k + col] = M(row, head * d_k + col);
  return out;
}

}  // namespace

Matrix generate_embeddings(const std::vector<std::uint32_t>& token_ids, int d_model, std::uint32_t seed) {
  Matrix X(int(token_ids.size()), d_model);
  for (int row = 0; row < X.rows(); ++row) {
    SplitMix64 stream(stream_seed(seed, kEmbeddingTag | token_ids[row]));
    for (int col = 0; col < d_model; ++col) X(row, col) = stream.normal();
  }
  return X;
}

Matrix generate_projection(char name, int d_model, std::uint32_t seed) {
  Matrix W(d_model, d_model);
  SplitMix64 stream(stream_seed(seed, kProjectionTag | std::uint8_t(name)));
  const float fan_in_scale = 1.0f / std::sqrt(float(d_model));
  for (int i = 0; i < W.size(); ++i) W.data()[i] = stream.normal() * fan_in_scale;
  return W;
}

std::string check_pipeline_config(const PipelineConfig& config) {
  using namespace limits;
  const std::int64_t n = std::int64_t(config.token_ids.size());
  if (n < 1) return "there must be at least one token";
  if (n > kMaxPipelineTokens) return "the walkthrough shows at most " + std::to_string(kMaxPipelineTokens) + " tokens (got " + std::to_string(n) + ")";
  if (config.d_model > kMaxDModel) return "d_model is limited to " + std::to_string(kMaxDModel) + " (got " + std::to_string(config.d_model) + ")";
  if (auto error = check_heads(config.d_model, config.heads); !error.empty()) return error;
  if (std::int64_t(config.heads) * n * n > kMaxPipelineHeadScoreElements)
    return "heads x n x n = " + std::to_string(std::int64_t(config.heads) * n * n) + " attention weights would exceed the walkthrough's budget of " +
           std::to_string(kMaxPipelineHeadScoreElements);
  const std::size_t rows = std::size_t(n), d = std::size_t(config.d_model);
  if (auto error = check_matrix("X", config.X, rows, d); !error.empty()) return error;
  for (auto [name, values] : {std::pair{"W_q", &config.W_q}, {"W_k", &config.W_k}, {"W_v", &config.W_v}, {"W_o", &config.W_o}})
    if (auto error = check_matrix(name, *values, d, d); !error.empty()) return error;
  if (!config.mask.empty() && config.mask.size() != rows * rows)
    return "the mask must have n x n = " + std::to_string(rows * rows) + " entries (got " + std::to_string(config.mask.size()) + ")";
  return {};
}

Expected<PipelineSnapshot> run_pipeline(const PipelineConfig& config) {
  if (auto error = check_pipeline_config(config); !error.empty()) return Expected<PipelineSnapshot>::failure(error);

  PipelineSnapshot s;
  const int n = int(config.token_ids.size()), d_model = config.d_model, h = config.heads, d_k = d_model / h;
  s.n = n;
  s.d_model = d_model;
  s.heads = h;
  s.d_k = d_k;
  s.scale_factor = config.scale ? 1.0f / std::sqrt(float(d_k)) : 1.0f;

  // Inputs: the reader's (or a preset's) matrices where given, generated from the seed otherwise.
  s.X = config.X.empty() ? generate_embeddings(config.token_ids, d_model, config.seed) : matrix_from(config.X, n, d_model);
  s.W_q = config.W_q.empty() ? generate_projection('q', d_model, config.seed) : matrix_from(config.W_q, d_model, d_model);
  s.W_k = config.W_k.empty() ? generate_projection('k', d_model, config.seed) : matrix_from(config.W_k, d_model, d_model);
  s.W_v = config.W_v.empty() ? generate_projection('v', d_model, config.seed) : matrix_from(config.W_v, d_model, d_model);
  s.W_o = config.W_o.empty() ? generate_projection('o', d_model, config.seed) : matrix_from(config.W_o, d_model, d_model);
  if (!config.mask.empty()) s.mask = Eigen::Map<const Mask>(config.mask.data(), n, n);
  else if (config.causal) s.mask = causal_mask(n);
  else s.mask = Mask::Ones(n, n);
  const Mask causal = causal_mask(n);

  // Projections: Q = X W_q, K = X W_k, V = X W_v, then split into heads.
  s.Q.resize(n, d_model);
  s.K.resize(n, d_model);
  s.V.resize(n, d_model);
  kernels::matmul(s.X.data(), d_model, s.W_q.data(), d_model, s.Q.data(), d_model, n, d_model, d_model);
  kernels::matmul(s.X.data(), d_model, s.W_k.data(), d_model, s.K.data(), d_model, n, d_model, d_model);
  kernels::matmul(s.X.data(), d_model, s.W_v.data(), d_model, s.V.data(), d_model, n, d_model, d_model);
  if (!s.Q.allFinite() || !s.K.allFinite() || !s.V.allFinite()) return Expected<PipelineSnapshot>::failure(kProjectionOverflow);
  s.Q_heads = split_heads(s.Q, h, d_k);
  s.K_heads = split_heads(s.K, h, d_k);
  s.V_heads = split_heads(s.V, h, d_k);

  s.scores = Tensor3(h, n, n);
  s.scores_scaled = Tensor3(h, n, n);
  s.weights = Tensor3(h, n, n);
  s.weights_unscaled = Tensor3(h, n, n);
  s.weights_causal = Tensor3(h, n, n);
  s.weights_masked_after = Tensor3(h, n, n);
  s.head_outputs = Tensor3(h, n, d_k);
  s.fully_masked_rows.assign(n, 0);
  std::vector<std::uint8_t> ignored_rows(n);

  for (int head = 0; head < h; ++head) {
    // Step 1: scores = Q K^T.
    kernels::scores_qkt(s.Q_heads.head(head), d_k, s.K_heads.head(head), d_k, s.scores.head(head), n, n, d_k);
    kernels::repair_overflowed_scores(s.Q_heads.head(head), d_k, s.K_heads.head(head), d_k, s.scores.head(head), n, n, d_k);
    // Step 2: scale by 1/sqrt(d_k) (kept separately so the page can show both).
    const std::size_t nn = std::size_t(n) * n;
    for (std::size_t i = 0; i < nn; ++i) s.scores_scaled.head(head)[i] = s.scores.head(head)[i] * s.scale_factor;
    // Step 3: mask with -inf, then softmax.
    kernels::scale_mask_softmax(s.scores_scaled.head(head), s.weights.head(head), s.mask.data(), n, n, 1.0f,
                                s.fully_masked_rows.data());
    // Step 4: weighted sum of values.
    kernels::weighted_sum(s.weights.head(head), s.V_heads.head(head), d_k, s.head_outputs.head(head), d_k, n, n, d_k);

    // The comparisons the walkthrough draws next to the configured path.
    kernels::scale_mask_softmax(s.scores.head(head), s.weights_unscaled.head(head), s.mask.data(), n, n, 1.0f,
                                ignored_rows.data());
    kernels::scale_mask_softmax(s.scores_scaled.head(head), s.weights_causal.head(head), causal.data(), n, n, 1.0f,
                                ignored_rows.data());
    float* after = s.weights_masked_after.head(head);
    kernels::scale_mask_softmax(s.scores_scaled.head(head), after, nullptr, n, n, 1.0f, nullptr);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) after[std::size_t(i) * n + j] = 0.0f;
  }

  // Concat heads back to (n, d_model), then the output projection.
  s.merged.resize(n, d_model);
  for (int head = 0; head < h; ++head)
    for (int row = 0; row < n; ++row)
      for (int col = 0; col < d_k; ++col) s.merged(row, head * d_k + col) = s.head_outputs.at(head, row, col);
  s.output.resize(n, d_model);
  kernels::matmul(s.merged.data(), d_model, s.W_o.data(), d_model, s.output.data(), d_model, n, d_model, d_model);
  if (!s.output.allFinite()) return Expected<PipelineSnapshot>::failure(kOutputOverflow);
  return s;
}

}  // namespace abh
