// libFuzzer target for the engine's entry points: every input, however odd (NaN, inf, 3e38, 1e-30,
// zero or negative sizes, heads that do not divide d_model, blocks larger than n, windows, strides
// and global counts out of range, KV heads that do not divide the query heads, a full or empty KV
// cache), must come back as a value or an error message: no crash, no sanitizer report, and a value
// never holds a NaN.
// Built with clang: npm run test:fuzz (bounded time; part of npm test).
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

#include "attention.h"
#include "flash.h"
#include "long_context.h"
#include "pipeline.h"

namespace {

float pick_value(FuzzedDataProvider& data) {
  static const float kSpecial[] = {0.0f,
                                   -0.0f,
                                   1.0f,
                                   -1.0f,
                                   1e30f,
                                   -1e30f,
                                   1e-30f,
                                   3e38f,
                                   -3e38f,
                                   std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::quiet_NaN(),
                                   std::numeric_limits<float>::denorm_min()};
  if (data.ConsumeBool()) return kSpecial[data.ConsumeIntegralInRange<std::size_t>(0, std::size(kSpecial) - 1)];
  return data.ConsumeFloatingPointInRange<float>(-100.0f, 100.0f);
}

abh::Matrix pick_matrix(FuzzedDataProvider& data, int rows, int cols) {
  abh::Matrix m(std::max(rows, 0), std::max(cols, 0));
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = pick_value(data);
  return m;
}

void require(bool condition) {
  if (!condition) std::abort();  // libFuzzer reports the input that got here
}

void require_finite(const float* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) require(std::isfinite(values[i]));
}

// Every row of weights sums to 1, or is all zeros when fully masked.
void require_rows(const float* weights, int rows, int cols, const std::vector<std::uint8_t>& fully_masked) {
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += weights[std::size_t(r) * cols + c];
    require(fully_masked[r] ? sum == 0.0 : std::abs(sum - 1.0) < 1e-3);
  }
}

// Two computations of the same attention output agree up to float rounding. Each output is a convex
// combination of V's rows, so rounding scales with the largest |V|, not with the output, which can
// cancel to nearly zero (e.g. 0.1 * -99.9985 + 0.1 * 99.9977).
void require_close(const abh::Matrix& a, const abh::Matrix& b, const abh::Matrix& V) {
  require(a.rows() == b.rows() && a.cols() == b.cols());
  const float largest = V.size() ? V.cwiseAbs().maxCoeff() : 0.0f;
  require(a.size() == 0 || (a - b).cwiseAbs().maxCoeff() <= 1e-3f * largest + 1e-30f);
}

// Sparse attention equals attention() under the pattern's mask, whose weight rows sum to 1, and
// computes exactly the mask's cells.
void fuzz_sparse(FuzzedDataProvider& data, const abh::Matrix& Q, const abh::Matrix& K, const abh::Matrix& V,
                 bool causal) {
  abh::SparsePattern pattern;
  pattern.window = data.ConsumeIntegralInRange(-1, 30);
  pattern.global = data.ConsumeIntegralInRange(-1, 26);
  pattern.stride = data.ConsumeIntegralInRange(-1, 6);
  pattern.causal = causal;
  const auto sparse = abh::sparse_attention(Q, K, V, pattern);
  if (!sparse.ok()) return;
  const abh::Matrix& out = sparse.value().output;
  require_finite(out.data(), std::size_t(out.size()));
  const int n = int(Q.rows());
  const auto mask = abh::sparse_pattern_mask(n, pattern);
  require(mask.ok());
  require(sparse.value().cells == mask.value().cast<std::int64_t>().sum());
  require(sparse.value().cells == abh::sparse_pattern_cells(n, pattern).value());
  const auto masked = abh::attention(Q, K, V, &mask.value());
  if (!masked.ok()) return;  // attention() sums V after normalising too, but may overflow where this does not
  require_rows(masked.value().weights.data(), n, n, masked.value().fully_masked_rows);
  require_close(out, masked.value().output, V);
}

// Linear attention: a finite output, and implied weights that are distributions and give it back.
void fuzz_linear(const abh::Matrix& Q, const abh::Matrix& K, const abh::Matrix& V, bool causal) {
  const auto linear = abh::linear_attention(Q, K, V, causal);
  if (!linear.ok()) return;
  const abh::Matrix& out = linear.value().output;
  require_finite(out.data(), std::size_t(out.size()));
  const auto weights = abh::linear_attention_weights(Q, K, causal);
  if (!weights.ok()) return;
  const abh::Matrix& W = weights.value();
  require_finite(W.data(), std::size_t(W.size()));
  require_rows(W.data(), int(W.rows()), int(W.cols()), std::vector<std::uint8_t>(std::size_t(W.rows()), 0));
  for (Eigen::Index i = 0; i < W.size(); ++i) require(W.data()[i] >= 0.0f);
  require_close(out, W * V, V);
}

// A KV cache filled token by token (appends may be refused: wrong layer, full cache, NaN), then one
// decoding step; when every append went in, the step equals the recompute-everything baseline.
void fuzz_decode(FuzzedDataProvider& data, int tokens, int d) {
  const int layers = data.ConsumeIntegralInRange(-1, 3), kv_heads = data.ConsumeIntegralInRange(-1, 6);
  const int h = data.ConsumeIntegralInRange(-1, 8), capacity = data.ConsumeIntegralInRange(-1, 26);
  const int layer = data.ConsumeIntegralInRange(-1, 3);
  auto cache = abh::KVCache::create(layers, kv_heads, d, capacity);
  if (!cache.ok()) return;
  require(cache.value().bytes_per_token() == std::int64_t(8) * layers * kv_heads * d);
  const int width = kv_heads * d;
  const abh::Matrix K = pick_matrix(data, tokens, width), V = pick_matrix(data, tokens, width);
  bool all_appended = tokens > 0;
  for (int t = 0; t < tokens; ++t) {
    const abh::Matrix k = Eigen::Map<const abh::Matrix>(K.row(t).data(), kv_heads, d);
    const abh::Matrix v = Eigen::Map<const abh::Matrix>(V.row(t).data(), kv_heads, d);
    all_appended = cache.value().append(layer, k, v).ok() && all_appended;
  }
  const abh::Matrix Q = pick_matrix(data, std::max(tokens, 1), std::max(h, 0) * d);
  const abh::Matrix q = Q.size() ? abh::Matrix(Eigen::Map<const abh::Matrix>(Q.bottomRows(1).data(), h, d))
                                 : abh::Matrix(std::max(h, 0), std::max(d, 0));
  const auto step = abh::decode_step(cache.value(), layer, q);
  if (!step.ok()) return;
  require_finite(step.value().output.data(), std::size_t(step.value().output.size()));
  require(step.value().cells == std::int64_t(h) * cache.value().length(layer));
  if (!all_appended) return;
  const auto recomputed = abh::decode_recompute(Q, K, V, h, kv_heads);
  if (recomputed.ok()) require_close(step.value().output, recomputed.value().output, V);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  FuzzedDataProvider data(bytes, size);
  // 0..3 as before the long-context kernels (a byte mod 8 and mod 4 agree there, so the regression
  // corpus replays the same calls), 4..7 the long-context kernels.
  const int entry = data.ConsumeIntegralInRange(0, 7);
  const int n = data.ConsumeIntegralInRange(-2, 24);
  const int n_k = data.ConsumeIntegralInRange(-2, 24);
  const int d = data.ConsumeIntegralInRange(-2, 24);
  const int d_v = data.ConsumeIntegralInRange(-2, 12);
  const bool causal = data.ConsumeBool(), scale = data.ConsumeBool();

  if (entry == 0) {
    abh::PipelineConfig config;
    for (int i = 0; i < n; ++i) config.token_ids.push_back(data.ConsumeIntegral<std::uint32_t>());
    config.d_model = d;
    config.heads = data.ConsumeIntegralInRange(-2, 10);
    config.causal = causal;
    config.scale = scale;
    config.seed = data.ConsumeIntegral<std::uint32_t>();
    if (data.ConsumeBool() && n > 0 && d > 0) config.X.assign(std::size_t(n) * d, 0.0f);
    for (float& x : config.X) x = pick_value(data);
    if (data.ConsumeBool() && n > 0) {
      config.mask.resize(std::size_t(n) * n);
      for (auto& m : config.mask) m = data.ConsumeBool();
    }
    config.comparison_head = data.ConsumeIntegralInRange(-1, 10);
    const auto result = abh::run_pipeline(config);
    if (!result.ok()) return 0;
    const auto& s = result.value();
    require_finite(s.weights.data.data(), s.weights.data.size());
    for (const abh::Matrix* m : {&s.weights_unscaled, &s.weights_causal, &s.weights_masked_after})
      require_finite(m->data(), std::size_t(m->size()));
    require_finite(s.output.data(), std::size_t(s.output.size()));
    for (int h = 0; h < s.heads; ++h) require_rows(s.weights.head(h), s.n, s.n, s.fully_masked_rows);
    return 0;
  }

  if (entry == 6) {
    fuzz_decode(data, n, d);
    return 0;
  }
  if (entry == 7) {
    const int layers = data.ConsumeIntegralInRange(-1, 20000), kv_heads = data.ConsumeIntegralInRange(-1, 20000);
    const auto bytes = abh::kv_cache_bytes_per_token(layers, kv_heads, d, d_v);
    if (bytes.ok()) require(bytes.value() == std::int64_t(2) * layers * kv_heads * d * d_v && bytes.value() > 0);
    return 0;
  }
  // The sparse and linear kernels attend within one sequence: keys mostly as many as queries.
  const int keys = entry >= 4 && n_k % 4 != 0 ? n : n_k;
  const abh::Matrix Q = pick_matrix(data, n, d);
  const abh::Matrix K = pick_matrix(data, keys, d);
  const abh::Matrix V = pick_matrix(data, keys, d_v);
  if (entry == 4) {
    fuzz_sparse(data, Q, K, V, causal);
    return 0;
  }
  if (entry == 5) {
    fuzz_linear(Q, K, V, causal);
    return 0;
  }
  if (entry == 1) {
    abh::Mask mask;
    const bool with_mask = data.ConsumeBool() && n > 0 && n_k > 0;
    if (with_mask) {
      mask.resize(n, n_k);
      for (Eigen::Index i = 0; i < mask.size(); ++i) mask.data()[i] = data.ConsumeBool();
    }
    const auto result = abh::attention(Q, K, V, with_mask ? &mask : nullptr, {scale});
    if (!result.ok()) return 0;
    const auto& r = result.value();
    require_finite(r.weights.data(), std::size_t(r.weights.size()));
    require_finite(r.output.data(), std::size_t(r.output.size()));
    require_rows(r.weights.data(), int(r.weights.rows()), int(r.weights.cols()), r.fully_masked_rows);
  } else if (entry == 2) {
    const int heads = data.ConsumeIntegralInRange(-2, 8);
    const abh::Matrix W = pick_matrix(data, d, d);
    const auto result = abh::multi_head_attention(Q, W, W, W, W, heads, causal, {scale});
    if (!result.ok()) return 0;
    require_finite(result.value().weights.data.data(), result.value().weights.data.size());
    require_finite(result.value().output.data(), std::size_t(result.value().output.size()));
  } else {
    abh::FlashOptions options;
    options.block_q = data.ConsumeIntegralInRange(-1, 40);
    options.block_k = data.ConsumeIntegralInRange(-1, 40);
    options.causal = causal && n == n_k;
    options.scale = scale;
    const auto tiled = abh::flash_attention(Q, K, V, options);
    if (!tiled.ok()) return 0;
    require_finite(tiled.value().output.data(), std::size_t(tiled.value().output.size()));
    const abh::Mask mask = abh::causal_mask(n);
    const auto naive = abh::attention(Q, K, V, options.causal ? &mask : nullptr, {scale});
    if (naive.ok()) {
      // Same maths, different summation order: equal up to float rounding. Each output is a convex
      // combination of V's rows, so rounding scales with the largest |V|, not with the output, which
      // can cancel to nearly zero (e.g. 0.1 * -99.9985 + 0.1 * 99.9977).
      const abh::Matrix& a = tiled.value().output;
      const abh::Matrix& b = naive.value().output;
      const float largest = V.size() ? V.cwiseAbs().maxCoeff() : 0.0f;
      require((a - b).cwiseAbs().maxCoeff() <= 1e-3f * largest + 1e-30f);
    }
    if (n <= 16 && n_k <= 16) require(abh::flash_attention_trace(Q, K, V, options).ok());
  }
  return 0;
}
