#include "experiments.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kernels.h"
#include "random.h"

namespace abh {
namespace {

double standard_deviation(const std::vector<float>& values) {
  double mean = 0, square = 0;
  for (float v : values) mean += v;
  mean /= double(values.size());
  for (float v : values) square += (v - mean) * (v - mean);
  return std::sqrt(square / double(values.size()));
}

}  // namespace

Expected<DotProductSamples> dot_product_samples(int d_k, int samples, std::uint32_t seed) {
  if (d_k < 1 || d_k > 4096) return Failure{"d_k must be from 1 to 4096 (got " + std::to_string(d_k) + ")"};
  if (samples < 2 || samples > 200000)
    return Failure{"samples must be from 2 to 200000 (got " + std::to_string(samples) + ")"};
  DotProductSamples out;
  out.d_k = d_k;
  out.raw.resize(samples);
  out.scaled.resize(samples);
  // Sample s's q and k are the 2 d_k normals of block s of the stream "DOTS" (random.h, fill_normals).
  const auto key = static_cast<std::uint32_t>(stream_seed(seed, 0x444F5453ull << 32));
  std::vector<float> qk(2 * std::size_t(d_k));
  const float scale = 1.0f / std::sqrt(float(d_k));
  for (int s = 0; s < samples; ++s) {
    fill_normals(block_of(key, std::uint32_t(s)), qk.data(), 2 * d_k);
    // A plain sum in order of t, as the score kernels add (kernels.h); a kernel call per sample
    // allocated and transposed a block of keys for a single score.
    float dot = 0.0f;
    for (int t = 0; t < d_k; ++t) dot += qk[t] * qk[d_k + t];
    out.raw[s] = dot;
    out.scaled[s] = out.raw[s] * scale;
  }
  out.raw_std = standard_deviation(out.raw);
  out.scaled_std = standard_deviation(out.scaled);
  return out;
}

Status check_softmax_row_length(std::size_t length) {
  if (length < 1 || length > 4096) return Failure{"the row must have 1 to 4096 entries"};
  return Ok{};
}

Expected<SoftmaxSaturation> softmax_saturation(const std::vector<float>& row, float factor) {
  if (auto length = check_softmax_row_length(row.size()); !length.ok()) return Failure{length.error()};
  if (!std::isfinite(factor)) return Failure{"the factor must be a finite number"};
  for (float x : row)
    if (!std::isfinite(x)) return Failure{"the row must hold finite numbers"};
  SoftmaxSaturation out;
  out.probabilities.resize(row.size());
  // row * factor can leave float32's range (factor > 1 is the point of this experiment): scale in
  // double and clamp, so softmax sees the largest representable score instead of inf - inf = NaN.
  std::vector<float> scaled(row.size());
  constexpr double kMax = std::numeric_limits<float>::max();
  for (std::size_t i = 0; i < row.size(); ++i) scaled[i] = float(std::clamp(double(row[i]) * factor, -kMax, kMax));
  kernels::scale_mask_softmax(scaled.data(), out.probabilities.data(), nullptr, 1, int(row.size()), 1.0f, nullptr);
  // ||diag(p) - p p^T||_F^2 = sum_i p_i^2 (1 - p_i)^2 + sum_{i != j} p_i^2 p_j^2
  double norm2 = 0;
  for (std::size_t i = 0; i < row.size(); ++i)
    for (std::size_t j = 0; j < row.size(); ++j) {
      const double p_i = out.probabilities[i], p_j = out.probabilities[j];
      const double entry = (i == j ? p_i : 0.0) - p_i * p_j;
      norm2 += entry * entry;
    }
  out.jacobian_norm = std::sqrt(norm2);
  return out;
}

}  // namespace abh
