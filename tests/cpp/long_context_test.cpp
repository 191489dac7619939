// long_context.h: sparse (window, global, strided) and linear attention and grouped-KV decoding,
// each against the double-precision reference (reference.h) on odd shapes and tails, against masked
// attention() where the maths says they are equal, with exact cell counts and the error messages.
#include "long_context.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>

#include "attention.h"
#include "engine_limits.h"
#include "random.h"
#include "reference.h"
#include "test_util.h"

namespace {

using abh::Mask;
using abh::Matrix;
using abh::SparsePattern;
using MatrixD = abh::reference::MatrixD;

using namespace abh::test;  // test_util.h

std::string describe(int n, int d, const SparsePattern& p) {
  return "n=" + std::to_string(n) + " d=" + std::to_string(d) + " w=" + std::to_string(p.window) +
         " g=" + std::to_string(p.global) + " s=" + std::to_string(p.stride) + " causal=" + std::to_string(p.causal);
}

std::int64_t mask_cells(const Mask& mask) { return mask.cast<std::int64_t>().sum(); }

constexpr int kSizes[] = {1, 2, 7, 33, 130};
constexpr int kDims[] = {1, 3, 16, 64};

// ---------------------------------------------------------------------------------------------
// Sparse patterns.

// Why: the main net. Every window (1, 2, n, > n), global count, stride and direction on every odd
// size: the output equals the reference over the pattern's mask written cell by cell from its
// definition, and attention() with that mask; the cells computed are exactly the mask's ones, and so
// are the closed-form count and the kernel's own mask.
TEST(Sparse, MatchesReferenceAndMaskedAttentionOnEveryPattern) {
  abh::SplitMix64 rng(0x5BA5);
  double worst_reference = 0, worst_naive = 0;
  int cases = 0;
  for (int n : kSizes)
    for (int d : kDims) {
      const int d_v = 1 + (n + d) % 17;  // 1..17: every vector tail of the weighted sum
      const Matrix Q = random_matrix(rng, n, d), K = random_matrix(rng, n, d), V = random_matrix(rng, n, d_v);
      for (int window : {1, 2, n, n + 3})
        for (int global : {0, 1, 3})
          for (int stride : {0, 1, 2, 5})
            for (bool causal : {true, false}) {
              if (global > n) continue;
              const SparsePattern p{window, global, stride, causal};
              const std::string what = describe(n, d, p);
              const Mask mask = abh::reference::sparse_mask(n, p);
              const auto sparse = abh::sparse_attention(Q, K, V, p);
              ASSERT_TRUE(sparse.ok()) << what << ": " << sparse.error();
              const MatrixD want =
                  abh::reference::attention(Q.cast<double>(), K.cast<double>(), V.cast<double>(), &mask).first;
              const auto naive = abh::attention(Q, K, V, &mask);
              ASSERT_TRUE(naive.ok()) << what;
              const double vs_reference = relative_error(sparse.value().output, want);
              const double vs_naive = relative_error(sparse.value().output, naive.value().output.cast<double>());
              worst_reference = std::max(worst_reference, vs_reference);
              worst_naive = std::max(worst_naive, vs_naive);
              EXPECT_LT(vs_reference, 1e-5) << what;
              EXPECT_LT(vs_naive, 1e-5) << what;
              EXPECT_EQ(sparse.value().cells, mask_cells(mask)) << what;
              EXPECT_EQ(abh::sparse_pattern_cells(n, p).value(), mask_cells(mask)) << what;
              const auto kernel_mask = abh::sparse_pattern_mask(n, p);
              ASSERT_TRUE(kernel_mask.ok()) << what;
              EXPECT_TRUE(kernel_mask.value() == mask) << what;
              ++cases;
              if (HasFailure()) return;
            }
    }
  std::cout << "[long_context] " << cases << " sparse patterns: max relative error vs reference " << worst_reference
            << ", vs masked attention() " << worst_naive << "\n";
}

// Why: a window at least as long as the sequence is no restriction at all: full attention, bidirectional
// or causal, with n^2 or n (n + 1) / 2 cells.
TEST(Sparse, WindowCoveringTheSequenceEqualsFullAttention) {
  abh::SplitMix64 rng(3);
  const int n = 33, d = 16;
  const Matrix Q = random_matrix(rng, n, d), K = random_matrix(rng, n, d), V = random_matrix(rng, n, 5);
  const Mask causal = abh::causal_mask(n);
  for (int window : {n, n + 1, 1000}) {
    const auto bidirectional = abh::sliding_window_attention(Q, K, V, window, false);
    const auto one_way = abh::sliding_window_attention(Q, K, V, window, true);
    ASSERT_TRUE(bidirectional.ok() && one_way.ok());
    EXPECT_LT(relative_error(bidirectional.value().output, abh::attention(Q, K, V).value().output.cast<double>()),
              1e-5);
    EXPECT_LT(relative_error(one_way.value().output, abh::attention(Q, K, V, &causal).value().output.cast<double>()),
              1e-5);
    EXPECT_EQ(bidirectional.value().cells, n * n);
    EXPECT_EQ(one_way.value().cells, n * (n + 1) / 2);
  }
  // A stride of 1 reaches every key too, whatever the window.
  const auto strided = abh::sparse_attention(Q, K, V, SparsePattern{1, 0, 1, true});
  EXPECT_LT(relative_error(strided.value().output, abh::attention(Q, K, V, &causal).value().output.cast<double>()),
            1e-5);
}

// Why: the counts the page prints (n w instead of n^2) must be the kernel's own, worked out by hand here.
TEST(Sparse, CellCountsAreExact) {
  abh::SplitMix64 rng(4);
  const Matrix Q = random_matrix(rng, 10, 3), K = random_matrix(rng, 10, 3), V = random_matrix(rng, 10, 2);
  auto cells = [&](const SparsePattern& p) { return abh::sparse_attention(Q, K, V, p).value().cells; };
  // Causal window 3 over 10 tokens: rows see 1, 2, 3, 3, ... keys.
  EXPECT_EQ(cells(SparsePattern{3, 0, 0, true}), 1 + 2 + 3 * 8);
  // Band |i - j| < 3: rows 0 and 9 see 3 keys, 1 and 8 see 4, the six inside see 5.
  EXPECT_EQ(cells(SparsePattern{3, 0, 0, false}), 2 * 3 + 2 * 4 + 6 * 5);
  // Window 1 plus 2 global tokens, bidirectional: the globals' rows see all 10; each other row sees
  // itself and the two globals.
  EXPECT_EQ(cells(SparsePattern{1, 2, 0, false}), 2 * 10 + 8 * 3);
  // Causal window 1 and stride 3: row i sees i, i - 3, i - 6, i - 9 down to 0: ceil((i + 1) / 3) keys.
  EXPECT_EQ(cells(SparsePattern{1, 0, 3, true}), 1 + 1 + 1 + 2 + 2 + 2 + 3 + 3 + 3 + 4);
  // The strided keys of the last row: 9, 6, 3, 0 and nothing else.
  const Mask mask = abh::sparse_pattern_mask(10, SparsePattern{1, 0, 3, true}).value();
  for (int j = 0; j < 10; ++j) EXPECT_EQ(mask(9, j), j % 3 == 0 ? 1 : 0) << j;
  // The count alone scales to the longest sequences without computing anything: n w - w (w - 1) / 2.
  EXPECT_EQ(abh::sparse_pattern_cells(65536, SparsePattern{256, 0, 0, true}).value(),
            std::int64_t(65536) * 256 - 256 * 255 / 2);
}

// Why: per-row softmax must subtract the row max like the other kernels: scores in the hundreds, and
// scores that overflow float32 (repaired in double, as attention() does), must not give inf or NaN.
TEST(Sparse, StableForHugeAndOverflowingScores) {
  abh::SplitMix64 rng(5);
  for (float size : {20.0f, 1e20f}) {
    const int n = 40, d = 7;
    const Matrix Q = random_matrix(rng, n, d, size), K = random_matrix(rng, n, d, size), V = random_matrix(rng, n, 3);
    const SparsePattern p{5, 2, 4, false};
    const Mask mask = abh::reference::sparse_mask(n, p);
    const auto sparse = abh::sparse_attention(Q, K, V, p);
    const auto naive = abh::attention(Q, K, V, &mask);
    ASSERT_TRUE(sparse.ok()) << sparse.error();
    ASSERT_TRUE(naive.ok()) << naive.error();
    EXPECT_LT(relative_error(sparse.value().output, naive.value().output.cast<double>()), 1e-3) << size;
  }
}

TEST(Sparse, BadInputsReturnErrors) {
  abh::SplitMix64 rng(6);
  const Matrix Q = random_matrix(rng, 4, 3), K = random_matrix(rng, 4, 3), V = random_matrix(rng, 4, 2);
  EXPECT_CONTAINS(error_of(abh::sparse_attention(Q, K, V, SparsePattern{0, 0, 0, true})), "window must be at least 1");
  EXPECT_CONTAINS(error_of(abh::sparse_attention(Q, K, V, SparsePattern{2, -1, 0, true})),
                  "global tokens must be from 0 to n = 4");
  EXPECT_CONTAINS(error_of(abh::sparse_attention(Q, K, V, SparsePattern{2, 5, 0, true})),
                  "global tokens must be from 0 to n = 4");
  EXPECT_CONTAINS(error_of(abh::sparse_attention(Q, K, V, SparsePattern{2, 0, -1, true})), "stride must be 0");
  EXPECT_CONTAINS(
      error_of(abh::sliding_window_attention(Q, random_matrix(rng, 5, 3), random_matrix(rng, 5, 2), 2, true)),
      "need as many rows");
  EXPECT_CONTAINS(error_of(abh::sliding_window_attention(Q, random_matrix(rng, 4, 2), V, 2, true)), "must share d_k");
  EXPECT_CONTAINS(error_of(abh::sliding_window_attention(Q, K, random_matrix(rng, 3, 2), 2, true)),
                  "every key needs a value");
  EXPECT_CONTAINS(error_of(abh::sliding_window_attention(Matrix(0, 3), Matrix(0, 3), Matrix(0, 2), 2, true)),
                  "at least one row");
  Matrix bad = K;
  bad(2, 1) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_CONTAINS(error_of(abh::sliding_window_attention(Q, bad, V, 2, true)),
                  "K has a value that is not a finite number at row 3, column 2");
  bad(2, 1) = std::numeric_limits<float>::infinity();
  EXPECT_CONTAINS(error_of(abh::sparse_attention(bad, bad, V, SparsePattern{2, 1, 2, false})),
                  "Q has a value that is not a finite");
  // Weights are normalised before V is summed, so values near float32's top stay finite (the tiled
  // kernel, which divides last, refuses these).
  const auto huge = abh::sliding_window_attention(Q, K, Matrix::Constant(4, 2, 3e38f), 4, true);
  ASSERT_TRUE(huge.ok()) << huge.error();
  EXPECT_TRUE(huge.value().output.allFinite());
  EXPECT_NEAR(huge.value().output(3, 1) / 3e38f, 1.0f, 1e-5f);
  // Limits, on the numbers.
  EXPECT_EQ(abh::check_sparse_inputs(65536, 65536, 64, 64, 65536, 64, SparsePattern{256, 0, 0, true}).error(), "");
  EXPECT_CONTAINS(abh::check_sparse_inputs(65537, 65537, 1, 1, 65537, 1, SparsePattern{1, 0, 0, true}).error(),
                  "limited to 65536 tokens");
  EXPECT_CONTAINS(abh::check_sparse_inputs(4, 4, 4097, 4097, 4, 1, SparsePattern{1, 0, 0, true}).error(),
                  "limited to 4096");
  EXPECT_CONTAINS(abh::check_sparse_inputs(65536, 65536, 2048, 2048, 65536, 1, SparsePattern{1, 0, 0, true}).error(),
                  "64M entries each");
  EXPECT_CONTAINS(error_of(abh::sparse_pattern_mask(1025, SparsePattern{1, 0, 0, true})),
                  "limited to n from 1 to 1024");
  EXPECT_CONTAINS(error_of(abh::sparse_pattern_cells(0, SparsePattern{1, 0, 0, true})), "n must be from 1 to 65536");
}

// ---------------------------------------------------------------------------------------------
// Linear attention.

// Why: the O(n d^2) form must be the formula: against the double reference, both directions, every
// odd size; and its implied (n, n) weights must be distributions whose product with V is the output.
TEST(Linear, MatchesReferenceAndItsImpliedWeights) {
  abh::SplitMix64 rng(0x11EA);
  double worst_reference = 0, worst_weights = 0;
  for (int n : kSizes)
    for (int d : kDims)
      for (bool causal : {false, true}) {
        const int d_v = 1 + (n * 3 + d) % 19;
        const std::string what =
            "n=" + std::to_string(n) + " d=" + std::to_string(d) + " causal=" + std::to_string(causal);
        const Matrix Q = random_matrix(rng, n, d), K = random_matrix(rng, n, d), V = random_matrix(rng, n, d_v);
        const auto linear = abh::linear_attention(Q, K, V, causal);
        ASSERT_TRUE(linear.ok()) << what << ": " << linear.error();
        const MatrixD want =
            abh::reference::linear_attention(Q.cast<double>(), K.cast<double>(), V.cast<double>(), causal);
        const double vs_reference = relative_error(linear.value().output, want);
        worst_reference = std::max(worst_reference, vs_reference);
        EXPECT_LT(vs_reference, 1e-5) << what;

        const auto weights = abh::linear_attention_weights(Q, K, causal);
        ASSERT_TRUE(weights.ok()) << what;
        const Matrix& W = weights.value();
        for (int i = 0; i < n; ++i) {
          EXPECT_NEAR(W.row(i).cast<double>().sum(), 1.0, 1e-5) << what << " row " << i;
          for (int j = 0; j < n; ++j) {
            if (causal && j > i)
              EXPECT_EQ(W(i, j), 0.0f) << what;
            else
              EXPECT_GT(W(i, j), 0.0f) << what;
          }
        }
        const double vs_weights = relative_error(linear.value().output, W.cast<double>() * V.cast<double>());
        worst_weights = std::max(worst_weights, vs_weights);
        EXPECT_LT(vs_weights, 1e-5) << what;
        if (HasFailure()) return;
      }
  std::cout << "[long_context] linear attention: max relative error vs reference " << worst_reference
            << ", vs its implied weights times V " << worst_weights << "\n";
}

// Why: phi(x) = exp(x) for x <= 0 underflows in float32 below x ~ -87; without rescaling, queries and
// keys around -200 would give 0 / 0. The ratio is still well defined, and the double reference has it.
TEST(Linear, VeryNegativeInputsDoNotUnderflow) {
  abh::SplitMix64 rng(8);
  const int n = 20, d = 4;
  const Matrix Q = random_matrix(rng, n, d, 1.0f, -200.0f), K = random_matrix(rng, n, d, 1.0f, -150.0f);
  const Matrix V = random_matrix(rng, n, 3);
  for (bool causal : {false, true}) {
    const auto linear = abh::linear_attention(Q, K, V, causal);
    ASSERT_TRUE(linear.ok()) << linear.error();
    const MatrixD want = abh::reference::linear_attention(Q.cast<double>(), K.cast<double>(), V.cast<double>(), causal);
    EXPECT_LT(relative_error(linear.value().output, want), 1e-4) << causal;
  }
  EXPECT_FLOAT_EQ(abh::elu_plus_one(2.5f), 3.5f);
  EXPECT_NEAR(abh::elu_plus_one(-1.0f), std::exp(-1.0f), 1e-6);
}

TEST(Linear, BadInputsReturnErrors) {
  abh::SplitMix64 rng(9);
  const Matrix Q = random_matrix(rng, 4, 3), K = random_matrix(rng, 4, 3), V = random_matrix(rng, 4, 2);
  EXPECT_CONTAINS(error_of(abh::linear_attention(Q, random_matrix(rng, 4, 2), V, false)), "must share d_k");
  EXPECT_CONTAINS(error_of(abh::linear_attention(Q, random_matrix(rng, 6, 3), random_matrix(rng, 6, 2), false)),
                  "need as many rows");
  EXPECT_CONTAINS(error_of(abh::linear_attention(Q, K, Matrix(4, 0), true)), "at least one column");
  Matrix bad = V;
  bad(3, 0) = -std::numeric_limits<float>::infinity();
  EXPECT_CONTAINS(error_of(abh::linear_attention(Q, K, bad, true)),
                  "V has a value that is not a finite number at row 4");
  EXPECT_CONTAINS(
      error_of(abh::linear_attention_weights(random_matrix(rng, 1025, 1), random_matrix(rng, 1025, 1), true)),
      "limited to n from 1 to 1024");
  EXPECT_CONTAINS(abh::check_linear_inputs(65537, 65537, 1, 1, 65537, 1).error(), "limited to 65536 tokens");
  EXPECT_EQ(abh::check_linear_inputs(65536, 65536, 64, 64, 65536, 64).error(), "");
}

// ---------------------------------------------------------------------------------------------
// KV cache and decoding.

// Fills layer `layer` of a cache with the rows of K and V, (t, kv_heads * d_k).
void fill(abh::KVCache& cache, int layer, const Matrix& K, const Matrix& V, int tokens) {
  const int kv_heads = cache.kv_heads(), d_k = cache.d_k();
  for (int token = 0; token < tokens; ++token) {
    const Matrix k = Eigen::Map<const Matrix>(K.row(token).data(), kv_heads, d_k);
    const Matrix v = Eigen::Map<const Matrix>(V.row(token).data(), kv_heads, d_k);
    ASSERT_TRUE(cache.append(layer, k, v).ok());
  }
}

// Why: with one KV head per query head the cached step is multi-head attention's last causal row: at
// every step t of a generation, against the reference (attention of the new query over keys 0..t) and
// against the recompute-everything baseline.
TEST(Decode, EveryStepEqualsTheLastCausalRowOfMultiHeadAttention) {
  abh::SplitMix64 rng(0xDEC0);
  double worst = 0;
  for (int t_max : kSizes)
    for (int d_k : kDims) {
      const int h = 1 + (t_max + d_k) % 4;
      const Matrix Q = random_matrix(rng, t_max, h * d_k), K = random_matrix(rng, t_max, h * d_k),
                   V = random_matrix(rng, t_max, h * d_k);
      auto cache = abh::KVCache::create(2, h, d_k, t_max);
      ASSERT_TRUE(cache.ok()) << cache.error();
      abh::KVCache& c = cache.value();
      for (int t = 1; t <= t_max; ++t) {
        const std::string what = "t=" + std::to_string(t) + " d_k=" + std::to_string(d_k) + " h=" + std::to_string(h);
        const Matrix k = Eigen::Map<const Matrix>(K.row(t - 1).data(), h, d_k);
        const Matrix v = Eigen::Map<const Matrix>(V.row(t - 1).data(), h, d_k);
        ASSERT_TRUE(c.append(1, k, v).ok());
        const Matrix q = Eigen::Map<const Matrix>(Q.row(t - 1).data(), h, d_k);
        const auto step = abh::decode_step(c, 1, q);
        ASSERT_TRUE(step.ok()) << what << ": " << step.error();
        EXPECT_EQ(step.value().cells, std::int64_t(h) * t) << what;
        MatrixD want(h, d_k);
        for (int head = 0; head < h; ++head)
          want.row(head) = abh::reference::attention(Q.block(t - 1, head * d_k, 1, d_k).cast<double>(),
                                                     K.block(0, head * d_k, t, d_k).cast<double>(),
                                                     V.block(0, head * d_k, t, d_k).cast<double>(), nullptr)
                               .first;
        const double error = relative_error(step.value().output, want);
        worst = std::max(worst, error);
        EXPECT_LT(error, 1e-5) << what;
        if (t == t_max || t == 1) {
          const auto recomputed = abh::decode_recompute(Q.topRows(t), K.topRows(t), V.topRows(t), h, h);
          ASSERT_TRUE(recomputed.ok()) << what << ": " << recomputed.error();
          EXPECT_LT(relative_error(recomputed.value().output, want), 1e-5) << what;
          EXPECT_EQ(recomputed.value().cells, std::int64_t(h) * t * (t + 1) / 2) << what;
        }
        if (HasFailure()) return;
      }
      EXPECT_EQ(c.length(0), 0);  // the other layer is untouched
    }
  std::cout << "[long_context] decode steps: max relative error vs reference " << worst << "\n";
}

// Why: grouped-query attention is multi-head attention whose query heads share K and V: with each KV
// head repeated for its group, MHA must give the same numbers (GQA with 2 and MQA with 1 KV head).
TEST(Decode, GroupedQueryEqualsMultiHeadWithRepeatedKVHeads) {
  abh::SplitMix64 rng(0x6A);
  const int h = 4, d_k = 16, t = 33;
  for (int kv_heads : {1, 2, 4}) {
    const int group = h / kv_heads;
    const Matrix K = random_matrix(rng, t, kv_heads * d_k), V = random_matrix(rng, t, kv_heads * d_k);
    Matrix K_repeated(t, h * d_k), V_repeated(t, h * d_k);
    for (int head = 0; head < h; ++head) {
      K_repeated.middleCols(head * d_k, d_k) = K.middleCols((head / group) * d_k, d_k);
      V_repeated.middleCols(head * d_k, d_k) = V.middleCols((head / group) * d_k, d_k);
    }
    auto grouped = abh::KVCache::create(1, kv_heads, d_k, t).value();
    auto multi_head = abh::KVCache::create(1, h, d_k, t).value();
    fill(grouped, 0, K, V, t);
    fill(multi_head, 0, K_repeated, V_repeated, t);
    const Matrix q = random_matrix(rng, h, d_k);
    const auto a = abh::decode_step(grouped, 0, q), b = abh::decode_step(multi_head, 0, q);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_LT(relative_error(a.value().output, b.value().output.cast<double>()), 1e-6) << kv_heads;
    // The baseline reads the groups the same way.
    Matrix Q_all = random_matrix(rng, t, h * d_k);
    Q_all.row(t - 1) = Eigen::Map<const Eigen::RowVectorXf>(q.data(), h * d_k);
    const auto recomputed = abh::decode_recompute(Q_all, K, V, h, kv_heads);
    ASSERT_TRUE(recomputed.ok()) << recomputed.error();
    EXPECT_LT(relative_error(recomputed.value().output, a.value().output.cast<double>()), 1e-5) << kv_heads;
    // The cache shrinks with the KV heads: 2 (K and V) * 1 layer * kv_heads * 16 * 4 bytes.
    EXPECT_EQ(grouped.bytes_per_token(), 2 * kv_heads * 16 * 4);
  }
}

TEST(Decode, BytesPerTokenForAPublicModelShape) {
  // Llama 3 8B: 32 layers, 8 KV heads of 128, 16-bit values: 128 KiB per token.
  EXPECT_EQ(abh::kv_cache_bytes_per_token(32, 8, 128, 2).value(), 131072);
  EXPECT_EQ(abh::KVCache::create(3, 2, 16, 10).value().bytes_per_token(), 768);
  EXPECT_CONTAINS(error_of(abh::kv_cache_bytes_per_token(0, 8, 128, 2)), "layers must be from 1 to 16384");
  EXPECT_CONTAINS(error_of(abh::kv_cache_bytes_per_token(32, 8, 128, 16385)),
                  "bytes per value must be from 1 to 16384");
  EXPECT_EQ(abh::kv_cache_bytes_per_token(16384, 16384, 16384, 16384).value(), std::int64_t(2) << 56);
}

TEST(Decode, BadInputsReturnErrors) {
  abh::SplitMix64 rng(10);
  EXPECT_CONTAINS(error_of(abh::KVCache::create(0, 1, 4, 4)), "layers must be from 1 to 64");
  EXPECT_CONTAINS(error_of(abh::KVCache::create(1, 65, 4, 4)), "kv_heads must be from 1 to 64");
  EXPECT_CONTAINS(error_of(abh::KVCache::create(1, 1, 4, 65537)), "capacity must be from 1 to 65536");
  EXPECT_CONTAINS(error_of(abh::KVCache::create(64, 64, 64, 65536)), "limited to 32M floats");

  auto cache = abh::KVCache::create(2, 2, 3, 2).value();
  const Matrix kv = random_matrix(rng, 2, 3);
  EXPECT_CONTAINS(error_of(abh::decode_step(cache, 0, random_matrix(rng, 4, 3))), "is empty: append");
  EXPECT_CONTAINS(cache.append(2, kv, kv).error(), "layer must be from 0 to 1");
  EXPECT_CONTAINS(cache.append(0, random_matrix(rng, 1, 3), kv).error(), "must be (kv_heads, d_k) = (2, 3)");
  Matrix bad = kv;
  bad(1, 2) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_CONTAINS(cache.append(0, kv, bad).error(), "V has a value that is not a finite number at row 2, column 3");
  EXPECT_EQ(cache.length(0), 0);  // refused appends add nothing
  ASSERT_TRUE(cache.append(0, kv, kv).ok());
  ASSERT_TRUE(cache.append(0, kv, kv).ok());
  EXPECT_CONTAINS(cache.append(0, kv, kv).error(), "is full (2 tokens)");
  EXPECT_CONTAINS(error_of(abh::decode_step(cache, 0, random_matrix(rng, 3, 3))), "kv_heads (2) must divide");
  EXPECT_CONTAINS(error_of(abh::decode_step(cache, 0, random_matrix(rng, 4, 2))), "cache holds d_k = 3");
  EXPECT_CONTAINS(error_of(abh::decode_step(cache, -1, random_matrix(rng, 4, 3))), "layer must be from 0 to 1");
  EXPECT_TRUE(abh::decode_step(cache, 0, random_matrix(rng, 4, 3)).ok());

  const Matrix Q = random_matrix(rng, 5, 8), K = random_matrix(rng, 5, 4);
  EXPECT_CONTAINS(error_of(abh::decode_recompute(Q, K, K, 4, 3)), "kv_heads (3) must divide");
  EXPECT_CONTAINS(error_of(abh::decode_recompute(Q, K, K, 3, 1)), "split into 3 heads");
  EXPECT_CONTAINS(error_of(abh::decode_recompute(Q, random_matrix(rng, 5, 3), K, 4, 2)),
                  "K and V must be (t, kv_heads * d_k) = (5, 4)");
  EXPECT_TRUE(abh::decode_recompute(Q, K, K, 4, 2).ok());
}

}  // namespace
