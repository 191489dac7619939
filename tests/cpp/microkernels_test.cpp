// The register-blocked micro-kernels (cpp/microkernels.h) behind kernels.h and flash.cpp, at the edges
// their blocking introduces: depth blocks of 512 steps, key blocks of 64, 4-row tiles with 8-, 4- and
// 1-column tails, the zero-weight span of weighted_sum, the mask span of the softmax, and the
// tiled kernel's 4-query groups with overflow repair in a partial group. Each result is checked
// against a plain double-precision loop. The native build runs the same blocking as the wasm SIMD
// build (only the lane arithmetic differs), so these edges are the SIMD build's edges too.
#include "microkernels.h"  // vtranspose4

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "attention.h"
#include "flash.h"
#include "kernels.h"
#include "random.h"
#include "reference.h"
#include "test_util.h"

namespace {

using abh::test::product_in_double;
using abh::test::random_strided;
using abh::test::relative_error;

namespace k = abh::kernels;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Why: matmul and weighted_sum accumulate in depth blocks of 512 steps; the second block adds to C.
TEST(Microkernels, MatmulAcrossDepthBlocks) {
  abh::SplitMix64 rng(1);
  for (int depth : {511, 512, 513, 1029})
    for (int m : {1, 4, 7})
      for (int n : {1, 5, 8, 13}) {
        const auto A = random_strided(rng, m, depth, depth + 3), B = random_strided(rng, depth, n, n + 2);
        std::vector<float> C(std::size_t(m) * (n + 1), kNaN);
        k::matmul(A.data(), depth + 3, B.data(), n + 2, C.data(), n + 1, m, depth, n);
        const std::vector<double> want = product_in_double(A, depth + 3, B, n + 2, m, depth, n);
        ASSERT_LE(relative_error(C.data(), n + 1, want, m, n), 1e-5) << m << "x" << depth << "x" << n;
        for (int r = 0; r < m; ++r) ASSERT_TRUE(std::isnan(C[std::size_t(r) * (n + 1) + n])) << "padding written";
      }
}

// Why: weighted_sum skips keys outside the span where any of 4 rows has a nonzero weight; rows of
// one tile with different spans (causal rows, sliding windows, fully masked rows) must all be exact.
TEST(Microkernels, WeightedSumZeroSpansDifferPerRow) {
  abh::SplitMix64 rng(2);
  for (int n_q : {1, 3, 4, 5, 9})
    for (int n_k : {1, 2, 7, 64, 600})
      for (int d_v : {1, 3, 4, 8, 12, 19}) {
        auto W = random_strided(rng, n_q, n_k, n_k);
        for (int r = 0; r < n_q; ++r)  // row r: zeros outside a window that moves with r; every 3rd row all zero
          for (int j = 0; j < n_k; ++j) {
            const bool inside = r % 3 != 2 && j >= (r * n_k) / 8 && j <= (r * n_k) / 4 + r;
            if (!inside) W[std::size_t(r) * n_k + j] = 0.0f;
          }
        const auto V = random_strided(rng, n_k, d_v, d_v + 5);
        std::vector<float> O(std::size_t(n_q) * (d_v + 2), kNaN);
        k::weighted_sum(W.data(), V.data(), d_v + 5, O.data(), d_v + 2, n_q, n_k, d_v);
        const std::vector<double> want = product_in_double(W, n_k, V, d_v + 5, n_q, n_k, d_v);
        ASSERT_LE(relative_error(O.data(), d_v + 2, want, n_q, d_v), 1e-5) << n_q << " " << n_k << " " << d_v;
        for (int r = 0; r < n_q; ++r)
          if (r % 3 == 2) {
            for (int c = 0; c < d_v; ++c)
              ASSERT_EQ(O[std::size_t(r) * (d_v + 2) + c], 0.0f) << "an all-zero row gives exact zeros";
          }
      }
}

// Why: scores_qkt walks keys in blocks of 64 (transposed), four queries and 8 or 4 keys at a time,
// with a scalar remainder for the last keys of a block; sizes around each boundary.
TEST(Microkernels, ScoresAcrossKeyBlocksAndDepthTails) {
  abh::SplitMix64 rng(3);
  for (int n_q : {1, 2, 3})
    for (int n_k : {63, 64, 65, 67, 130})
      for (int d : {1, 2, 3, 4, 5, 8, 67}) {
        const auto Q = random_strided(rng, n_q, d, d + 1), K = random_strided(rng, n_k, d, d + 3);
        std::vector<float> S(std::size_t(n_q) * n_k, kNaN);
        k::scores_qkt(Q.data(), d + 1, K.data(), d + 3, S.data(), n_q, n_k, d);
        const std::vector<double> want = product_in_double(Q, d + 1, K, d + 3, n_q, d, n_k, /*b_transposed=*/true);
        ASSERT_LE(relative_error(S.data(), n_k, want, n_q, n_k), 1e-5) << n_q << " " << n_k << " " << d;
      }
}

// Why: with a mask the softmax computes exp only over the span of 4-lane chunks that hold a visible
// key, and the scalar tail (n_k % 4) has its own span bookkeeping: visible keys only in the tail,
// only in one middle chunk, only at 0, and S aliasing W.
TEST(Microkernels, SoftmaxMaskSpansIncludingTheTail) {
  abh::SplitMix64 rng(4);
  for (int n_k : {1, 3, 5, 8, 11, 37}) {
    std::vector<std::vector<std::uint8_t>> rows;
    rows.push_back(std::vector<std::uint8_t>(n_k, 0));
    rows.back()[n_k - 1] = 1;  // the last key only (in the tail when n_k % 4 != 0)
    rows.push_back(std::vector<std::uint8_t>(n_k, 0));
    rows.back()[0] = 1;
    rows.push_back(std::vector<std::uint8_t>(n_k, 0));
    for (int j = n_k / 3; j <= n_k / 2; ++j) rows.back()[j] = 1;
    rows.push_back(std::vector<std::uint8_t>(n_k, 1));
    for (bool alias : {false, true})
      for (const auto& m : rows) {
        std::vector<float> S(n_k);
        for (float& x : S) x = 3.0f * rng.normal();
        std::vector<float> W(n_k, kNaN);
        const std::vector<float> S_copy = S;
        std::uint8_t flag = 7;
        k::scale_mask_softmax(S.data(), alias ? S.data() : W.data(), m.data(), 1, n_k, 0.5f, &flag);
        const float* got = alias ? S.data() : W.data();
        double max = -1e300, sum = 0;
        for (int j = 0; j < n_k; ++j)
          if (m[j]) max = std::max(max, 0.5 * S_copy[j]);
        std::vector<double> want(n_k, 0.0);
        for (int j = 0; j < n_k; ++j)
          if (m[j]) sum += want[j] = std::exp(0.5 * S_copy[j] - max);
        for (double& w : want) w /= sum;
        ASSERT_EQ(flag, 0);
        ASSERT_LE(relative_error(got, n_k, want, 1, n_k), 2e-6) << "n_k " << n_k << (alias ? " in place" : "");
        for (int j = 0; j < n_k; ++j)
          if (!m[j]) {
            ASSERT_EQ(got[j], 0.0f) << "masked entries are exactly zero";
          }
      }
  }
}

// Why: the tiled kernel handles queries in groups of 4 (one vector) and the last rows % 4 one at a
// time; an overflowing score in each kind of row must be repaired exactly like attention() does.
TEST(Microkernels, FlashRepairsOverflowInFullAndPartialQueryGroups) {
  for (int n : {5, 6, 7, 9})
    for (bool causal : {false, true}) {
      abh::SplitMix64 rng(5 + n);
      abh::Matrix Q(n, 8), K(n, 8), V(n, 3);
      for (int i = 0; i < Q.size(); ++i) Q.data()[i] = rng.normal();
      for (int i = 0; i < K.size(); ++i) K.data()[i] = rng.normal();
      for (int i = 0; i < V.size(); ++i) V.data()[i] = rng.normal();
      // Query 1 (a full group) and the last query (the partial group) get scores past FLT_MAX.
      for (int i : {1, n - 1})
        for (int t = 0; t < 8; ++t) Q(i, t) = (t % 2 ? -1.0f : 1.0f) * 3e19f;
      abh::FlashOptions options;
      options.block_q = n;  // one tile of n rows: groups of 4 plus a tail
      options.block_k = 4;
      options.causal = causal;
      const auto flash = abh::flash_attention(Q, K, V, options);
      const abh::Mask mask = causal ? abh::causal_mask(n) : abh::Mask();
      const auto naive = abh::attention(Q, K, V, causal ? &mask : nullptr);
      ASSERT_TRUE(flash.ok()) << flash.error();
      ASSERT_TRUE(naive.ok()) << naive.error();
      const abh::Matrix diff = flash.value().output - naive.value().output;
      EXPECT_LE(diff.cwiseAbs().maxCoeff(), 1e-5f * std::max(1.0f, naive.value().output.cwiseAbs().maxCoeff()))
          << "n " << n << (causal ? " causal" : "");
    }
}

// Why: the tiled kernel packs keys with a 4x4 transpose of vectors (shuffles in the SIMD build,
// vector-extension shuffles natively); a wrong lane order would still pass loose tolerances on
// symmetric inputs, so every lane is checked here, and the packing through flash_attention with
// key counts and d_k that are not multiples of 4 (zeroed keys, scalar columns) against attention().
TEST(Microkernels, Transpose4AndKeyPackingTails) {
  namespace d = abh::kernels::detail;
  float in[16], out[16];
  for (int i = 0; i < 16; ++i) in[i] = float(i);
  d::vf a = d::vload(in), b = d::vload(in + 4), c = d::vload(in + 8), e = d::vload(in + 12);
  d::vtranspose4(a, b, c, e);
  d::vstore(out, a);
  d::vstore(out + 4, b);
  d::vstore(out + 8, c);
  d::vstore(out + 12, e);
  for (int r = 0; r < 4; ++r)
    for (int t = 0; t < 4; ++t) EXPECT_EQ(out[4 * t + r], in[4 * r + t]) << "row " << r << " column " << t;

  for (int n_k : {1, 2, 3, 5, 6, 7, 13})
    for (int d_k : {1, 3, 4, 5, 8, 11}) {
      abh::SplitMix64 rng(97 * n_k + d_k);
      abh::Matrix Q(6, d_k), K(n_k, d_k), V(n_k, 2);
      for (int i = 0; i < Q.size(); ++i) Q.data()[i] = rng.normal();
      for (int i = 0; i < K.size(); ++i) K.data()[i] = rng.normal();
      for (int i = 0; i < V.size(); ++i) V.data()[i] = rng.normal();
      abh::FlashOptions options;
      options.block_q = 4;
      options.block_k = 8;
      const auto flash = abh::flash_attention(Q, K, V, options);
      const auto naive = abh::attention(Q, K, V, nullptr);
      ASSERT_TRUE(flash.ok()) << flash.error();
      ASSERT_TRUE(naive.ok()) << naive.error();
      const abh::Matrix diff = flash.value().output - naive.value().output;
      EXPECT_LE(diff.cwiseAbs().maxCoeff(), 1e-5f) << "n_k " << n_k << " d_k " << d_k;
    }
}

}  // namespace
