// The article's "why scale by sqrt(d_k)" argument, as experiments the page runs live.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor.h"

namespace abh {

// Dot products of pairs of d_k-dimensional vectors whose components are unit normals (the
// article's premise; fill_normals in random.h, four at a time). Variance adds over the d_k
// products, so raw std ~ sqrt(d_k); after dividing by sqrt(d_k) it is ~1.
struct DotProductSamples {
  int d_k = 0;
  std::vector<float> raw;     // (samples)
  std::vector<float> scaled;  // raw / sqrt(d_k)
  double raw_std = 0, scaled_std = 0;
};
Expected<DotProductSamples> dot_product_samples(int d_k, int samples, std::uint32_t seed);

// softmax(row * factor) and how much gradient can still flow through it: the Frobenius norm of the
// softmax Jacobian diag(p) - p p^T. It shrinks towards 0 as the softmax saturates to one-hot,
// which is why an unscaled layer stops learning.
struct SoftmaxSaturation {
  std::vector<float> probabilities;
  double jacobian_norm = 0;
};
Expected<SoftmaxSaturation> softmax_saturation(const std::vector<float>& row, float factor);
// The row's length rule on its own: the wasm bindings check it before converting a row.
Status check_softmax_row_length(std::size_t length);

}  // namespace abh
