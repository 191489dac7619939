// flash_attention() and flash_multi_head(): the tiled kernel against the naive attention() and the
// double-precision reference, the memory claim and the error messages. The trace the step-through
// figure draws is flash_trace_test.cpp's.
#include "flash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "attention.h"
#include "engine_limits.h"
#include "random.h"
#include "reference.h"
#include "test_util.h"

namespace {

using namespace abh::test;  // test_util.h

using abh::FlashOptions;
using abh::Mask;
using abh::Matrix;
using MatrixD = abh::reference::MatrixD;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

struct Worst {
  double vs_naive = 0.0, vs_reference = 0.0, naive_vs_reference = 0.0;
};

// Runs flash, naive and reference on one case; records the errors; fails with the case's description.
// The reference sees the float inputs in double precision; a case whose float scores are themselves
// inexact (huge scores) may loosen reference_tolerance, never the tolerance against the naive kernel.
void check_case(const Matrix& Q, const Matrix& K, const Matrix& V, const FlashOptions& options, Worst& worst,
                const std::string& what, double reference_tolerance = 1e-5) {
  const auto flash = abh::flash_attention(Q, K, V, options);
  ASSERT_TRUE(flash.ok()) << what << ": " << flash.error();
  const Mask mask = options.causal ? abh::causal_mask(int(Q.rows())) : Mask();
  const Mask* mask_ptr = options.causal ? &mask : nullptr;
  abh::AttentionOptions naive_options;
  naive_options.scale = options.scale;
  const auto naive = abh::attention(Q, K, V, mask_ptr, naive_options);
  ASSERT_TRUE(naive.ok()) << what << ": " << naive.error();
  const MatrixD want =
      abh::reference::attention(Q.cast<double>(), K.cast<double>(), V.cast<double>(), mask_ptr, options.scale).first;

  const double vs_naive = relative_error(flash.value().output, naive.value().output.cast<double>());
  const double vs_reference = relative_error(flash.value().output, want);
  worst.vs_naive = std::max(worst.vs_naive, vs_naive);
  worst.vs_reference = std::max(worst.vs_reference, vs_reference);
  worst.naive_vs_reference = std::max(worst.naive_vs_reference, relative_error(naive.value().output, want));
  EXPECT_LT(vs_naive, 1e-5) << what;
  EXPECT_LT(vs_reference, reference_tolerance) << what;
}

// ---------------------------------------------------------------------------------------------
// Same numbers as the naive kernel and the reference.

// Why: the whole point of FlashAttention is "the same result, tiled". This is the main net: random
// shapes, random tile sizes (blocks larger than n, n not a multiple of the block, n = 1), causal or not.
TEST(Flash, MatchesNaiveAndReferenceOnRandomCases) {
  abh::SplitMix64 rng(0xF1A5);
  Worst worst;
  constexpr int kCases = random_cases(2000);
  for (int trial = 0; trial < kCases; ++trial) {
    const bool causal = trial % 2 == 1;
    const int n_q = uniform_int(rng, 1, 200);
    const int n_k = causal ? n_q : uniform_int(rng, 1, 200);
    const int d_k = uniform_int(rng, 1, 80), d_v = uniform_int(rng, 1, 80);
    const FlashOptions o{uniform_int(rng, 1, 70), uniform_int(rng, 1, 70), causal, (trial / 2) % 2 == 0};
    const Matrix Q = random_matrix(rng, n_q, d_k), K = random_matrix(rng, n_k, d_k), V = random_matrix(rng, n_k, d_v);
    check_case(Q, K, V, o, worst, "trial " + std::to_string(trial) + ": " + describe(n_q, n_k, d_k, d_v, o));
    if (HasFailure()) return;
  }
  std::cout << "[flash] " << kCases << " random cases: max relative error vs naive " << worst.vs_naive
            << ", vs reference " << worst.vs_reference << " (naive vs reference " << worst.naive_vs_reference << ")\n";
}

// Why: the tile edges are where an off-by-one hides; walk every combination of awkward sizes.
TEST(Flash, MatchesOnEveryTileEdgeCase) {
  abh::SplitMix64 rng(7);
  Worst worst;
  for (int n : {1, 2, 3, 4, 5, 7, 16, 17, 33, 64, 65})
    for (int block_q : {1, 3, 4, 16, 64, 70, 1024})
      for (int block_k : {1, 2, 5, 16, 65, 1024})
        for (bool causal : {false, true}) {
          const int d_k = 1 + (n + block_q) % 19, d_v = 1 + (n * 3 + block_k) % 21;  // 1..21: every SIMD tail
          const FlashOptions o{block_q, block_k, causal, true};
          const Matrix Q = random_matrix(rng, n, d_k), K = random_matrix(rng, n, d_k), V = random_matrix(rng, n, d_v);
          check_case(Q, K, V, o, worst, describe(n, n, d_k, d_v, o));
          if (HasFailure()) return;
        }
}

// Why: large, spread scores are where an online softmax overflows or rescales badly. Scores in the
// hundreds (unscaled) make exp underflow to 0 for most keys and the rescale factor itself underflow.
// Float dot products of that size carry absolute errors ~1e-4, which exp turns into relative errors
// of the same size in naive and tiled alike: against the reference the tolerance follows the
// conditioning, against the naive kernel (the same float scores) it stays 1e-5.
TEST(Flash, StableForLargeScores) {
  abh::SplitMix64 rng(99);
  Worst worst;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = uniform_int(rng, 1, 120), d = uniform_int(rng, 1, 32);
    const FlashOptions o{uniform_int(rng, 1, 40), uniform_int(rng, 1, 40), trial % 2 == 1, false};
    const Matrix Q = random_matrix(rng, n, d, 20.0f), K = random_matrix(rng, n, d, 20.0f), V = random_matrix(rng, n, d);
    check_case(Q, K, V, o, worst, describe(n, n, d, d, o), 1e-3);
    if (HasFailure()) return;
  }
  std::cout << "[flash] large scores: max relative error vs naive " << worst.vs_naive << ", vs reference "
            << worst.vs_reference << " (naive vs reference " << worst.naive_vs_reference << ")\n";
}

// Why: with keys sorted by increasing score and one-key tiles, the running max grows at every step,
// so the result depends on every rescale being right.
TEST(Flash, MaxGrowingAtEveryStep) {
  const int n = 50, d = 3;
  Matrix Q = Matrix::Ones(4, d), K(n, d), V(n, 2);
  for (int j = 0; j < n; ++j) {
    K.row(j).setConstant(0.1f * float(j));
    V(j, 0) = float(j);
    V(j, 1) = float(j % 3) - 1.0f;
  }
  Worst worst;
  for (int block_k : {1, 2, 7, 50}) check_case(Q, K, V, FlashOptions{3, block_k, false, true}, worst, "sorted keys");
  const auto trace = abh::flash_attention_trace(Q, K, V, FlashOptions{4, 1, false, true});
  ASSERT_TRUE(trace.ok()) << trace.error();
  for (const auto& step : trace.value().steps)
    for (float r : step.rescale) EXPECT_LT(r, 1.0f) << "key block " << step.k_block;
}

// Why: the naive kernel repairs scores that overflow float32 (inputs ~1e20) instead of giving NaN;
// the tiled one must agree with it there too, and report an overflowing output the same way.
TEST(Flash, OverflowingScoresAreRepairedLikeTheNaiveKernel) {
  abh::SplitMix64 rng(21);
  for (bool causal : {false, true}) {
    Matrix Q = random_matrix(rng, 9, 4, 1e20f), K = random_matrix(rng, 9, 4, 1e20f);
    const Matrix V = random_matrix(rng, 9, 3);
    const FlashOptions o{2, 3, causal, true};
    const auto flash = abh::flash_attention(Q, K, V, o);
    const Mask mask = abh::causal_mask(9);
    const auto naive = abh::attention(Q, K, V, causal ? &mask : nullptr);
    ASSERT_TRUE(flash.ok()) << flash.error();
    ASSERT_TRUE(naive.ok()) << naive.error();
    EXPECT_LT(relative_error(flash.value().output, naive.value().output.cast<double>()), 1e-5);
    const auto trace = abh::flash_attention_trace(Q, K, V, o);
    ASSERT_TRUE(trace.ok());
    for (const auto& step : trace.value().steps)
      for (int i = 0; i < step.scores.size(); ++i) EXPECT_FALSE(std::isnan(step.scores.data()[i]));
  }
  const Matrix Q = random_matrix(rng, 3, 2), K = random_matrix(rng, 3, 2);
  const Matrix V = Matrix::Constant(3, 2, 3e38f);
  const auto overflow = abh::flash_attention(Q, K, V, FlashOptions{1, 1, false, true});
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error(), abh::kOutputOverflow);
}

// Why: causal row 0 sees only key 0, so its output is exactly V's row 0 (P = exp(0) = 1, l = 1).
TEST(Flash, CausalFirstRowIsFirstValueExactly) {
  abh::SplitMix64 rng(3);
  const Matrix Q = random_matrix(rng, 40, 8), K = random_matrix(rng, 40, 8), V = random_matrix(rng, 40, 5);
  for (int block : {1, 3, 16, 64}) {
    const auto got = abh::flash_attention(Q, K, V, FlashOptions{block, block, true, true});
    ASSERT_TRUE(got.ok());
    for (int t = 0; t < 5; ++t) EXPECT_EQ(got.value().output(0, t), V(0, t)) << "block " << block;
    EXPECT_TRUE(got.value().output.allFinite());
  }
}

// ---------------------------------------------------------------------------------------------
// Memory.

// Why: the article's claim is that the tiled kernel "removes the memory wall": its working memory is
// one tile and a few per-row vectors, whatever the sequence length.
TEST(Flash, ScratchDoesNotGrowWithSequenceLength) {
  abh::SplitMix64 rng(5);
  const int d = 16, block = 32;
  std::int64_t scratch[2] = {0, 0};
  int index = 0;
  for (int n : {64, 4096}) {
    const Matrix Q = random_matrix(rng, n, d), K = random_matrix(rng, n, d), V = random_matrix(rng, n, d);
    const auto got = abh::flash_attention(Q, K, V, FlashOptions{block, block, n == 4096, true});
    ASSERT_TRUE(got.ok()) << got.error();
    EXPECT_TRUE(got.value().output.allFinite());
    scratch[index++] = got.value().scratch_floats;
    if (n == 4096) {  // and still right at this size
      const Mask mask = abh::causal_mask(n);
      const auto naive = abh::attention(Q, K, V, &mask);
      ASSERT_TRUE(naive.ok());
      EXPECT_LT(relative_error(got.value().output, naive.value().output.cast<double>()), 1e-5);
    }
  }
  EXPECT_EQ(scratch[0], scratch[1]);
  // One tile, m, l, rescale, and the packed Q_b^T (d, block) and K_c panels (block, d).
  EXPECT_EQ(scratch[0], std::int64_t(block) * block + 3 * block + 2 * d * block);
  EXPECT_LT(scratch[1], std::int64_t(4096) * 4096 / 1000);
  std::cout << "[flash] scratch floats at n = 64 and n = 4096 (32 x 32 tiles): " << scratch[0] << ", " << scratch[1]
            << "\n";

  // Blocks larger than n are clamped: no tile bigger than the problem.
  const Matrix Q = random_matrix(rng, 5, 4), K = random_matrix(rng, 7, 4), V = random_matrix(rng, 7, 4);
  const auto small = abh::flash_attention(Q, K, V, FlashOptions{1024, 1024, false, true});
  ASSERT_TRUE(small.ok());
  // Padded to multiples of 4 (whole vectors): 8 keys x 8 queries, 3 x 8, Q_b^T (4, 8) and K_c (8, 4).
  EXPECT_EQ(small.value().scratch_floats, 8 * 8 + 3 * 8 + 4 * 8 + 8 * 4);
}

// ---------------------------------------------------------------------------------------------
// Several heads in one call.

// Columns [h w, (h + 1) w) of m, as a matrix of its own.
Matrix head_slice(const Matrix& m, int h, int w) { return m.middleCols(std::size_t(h) * w, w); }

// Why: flash_multi_head reads each head's columns in place through row strides; any stride or offset
// slip shows as a head that differs from the same head computed alone. Same tiles, same summation
// order, so the heads must match flash_attention() bit for bit, and the naive kernel to rounding.
// Tile padding (rows and keys not multiples of 4, odd d) is exercised at every remainder.
TEST(FlashMultiHead, EveryHeadEqualsItsOwnCall) {
  abh::SplitMix64 rng(0x3EAD);
  int cases = 0;
  for (int heads : {1, 2, 3, 8})
    for (int n : {1, 5, 6, 7, 8, 33, 70})
      for (int d_k : {1, 3, 4, 7, 16})
        for (bool causal : {false, true}) {
          const int d_v = 1 + (d_k * 5 + n) % 9, n_k = causal ? n : 1 + (n * 7) % 41;
          const FlashOptions o{1 + (n + d_k) % 13, 1 + (n * 3 + heads) % 11, causal, (n + heads) % 3 != 0};
          const Matrix Q = random_matrix(rng, n, heads * d_k), K = random_matrix(rng, n_k, heads * d_k),
                       V = random_matrix(rng, n_k, heads * d_v);
          const auto all = abh::flash_multi_head(Q, K, V, heads, o);
          ASSERT_TRUE(all.ok()) << all.error();
          ASSERT_EQ(all.value().output.rows(), n);
          ASSERT_EQ(all.value().output.cols(), heads * d_v);
          for (int h = 0; h < heads; ++h) {
            const Matrix q = head_slice(Q, h, d_k), k = head_slice(K, h, d_k), v = head_slice(V, h, d_v);
            const auto one = abh::flash_attention(q, k, v, o);
            ASSERT_TRUE(one.ok()) << one.error();
            const Matrix got = head_slice(all.value().output, h, d_v);
            ASSERT_TRUE(got == one.value().output)
                << "head " << h << " of " << heads << ": " << describe(n, n_k, d_k, d_v, o);
            const Mask mask = abh::causal_mask(n);
            abh::AttentionOptions naive_options;
            naive_options.scale = o.scale;
            const auto naive = abh::attention(q, k, v, causal ? &mask : nullptr, naive_options);
            ASSERT_TRUE(naive.ok());
            ASSERT_LT(relative_error(got, naive.value().output.cast<double>()), 1e-5) << describe(n, n_k, d_k, d_v, o);
          }
          EXPECT_EQ(all.value().scratch_floats,
                    abh::flash_attention(head_slice(Q, 0, d_k), head_slice(K, 0, d_k), head_slice(V, 0, d_v), o)
                        .value()
                        .scratch_floats)
              << "one scratch, shared by the heads";
          ++cases;
        }
  std::cout << "[flash multi-head] " << cases << " cases, every head bit-identical to its own call\n";
}

// Why: the batched call validates like the single-head one (errors as values, never an abort).
TEST(FlashMultiHead, BadInputsReturnErrors) {
  abh::SplitMix64 rng(2);
  const Matrix Q = random_matrix(rng, 4, 6), K = random_matrix(rng, 4, 6), V = random_matrix(rng, 4, 4);
  EXPECT_TRUE(abh::flash_multi_head(Q, K, V, 2).ok());
  for (int heads : {0, -1, 65})
    EXPECT_CONTAINS(error_of(abh::flash_multi_head(Q, K, V, heads)), "heads must be from 1 to 64");
  EXPECT_CONTAINS(error_of(abh::flash_multi_head(Q, K, V, 4)), "split into 4 heads");  // 6 columns
  EXPECT_CONTAINS(error_of(abh::flash_multi_head(Q, K, random_matrix(rng, 4, 3), 2)), "split into 2 heads");
  EXPECT_CONTAINS(error_of(abh::flash_multi_head(Q, random_matrix(rng, 4, 4), V, 2)), "must share heads * d_k");
  EXPECT_CONTAINS(error_of(abh::flash_multi_head(Q, K, random_matrix(rng, 3, 4), 2)), "every key needs a value");
  EXPECT_CONTAINS(error_of(abh::flash_multi_head(Matrix(0, 6), K, V, 2)), "at least one row");
  EXPECT_CONTAINS(error_of(abh::flash_multi_head(Matrix(4, 0), Matrix(4, 0), V, 2)), "at least one column");
  EXPECT_CONTAINS(error_of(abh::flash_multi_head(Q, K, V, 2, FlashOptions{0, 2, false, true})), "block sizes");
  EXPECT_CONTAINS(error_of(abh::flash_multi_head(Q, random_matrix(rng, 5, 6), random_matrix(rng, 5, 4), 2,
                                                 FlashOptions{2, 2, true, true})),
                  "causal attention needs as many queries as keys");
  const Matrix big = Matrix::Constant(4, 4, 3e38f);
  EXPECT_EQ(error_of(abh::flash_multi_head(random_matrix(rng, 4, 4), random_matrix(rng, 4, 4), big, 2)),
            abh::kOutputOverflow);
}

// ---------------------------------------------------------------------------------------------
// Errors.

// Why: the engine never throws; every bad request is a message the page can show.
TEST(Flash, BadInputsReturnErrors) {
  abh::SplitMix64 rng(1);
  const Matrix Q = random_matrix(rng, 4, 3), K = random_matrix(rng, 4, 3), V = random_matrix(rng, 4, 2);

  EXPECT_CONTAINS(error_of(abh::flash_attention(Matrix(0, 3), K, V)), "at least one row");
  EXPECT_CONTAINS(error_of(abh::flash_attention(Q, Matrix(0, 3), Matrix(0, 2))), "at least one row");
  EXPECT_CONTAINS(error_of(abh::flash_attention(Matrix(4, 0), Matrix(4, 0), V)), "at least one column");
  EXPECT_CONTAINS(error_of(abh::flash_attention(Q, K, Matrix(4, 0))), "at least one column");
  EXPECT_CONTAINS(error_of(abh::flash_attention(Q, random_matrix(rng, 4, 5), V)), "must share d_k");
  EXPECT_CONTAINS(error_of(abh::flash_attention(Q, K, random_matrix(rng, 3, 2))), "every key needs a value");
  for (auto [bq, bk] : {std::pair{0, 4}, {4, 0}, {-1, 4}, {1025, 4}, {4, 1025}})
    EXPECT_CONTAINS(error_of(abh::flash_attention(Q, K, V, FlashOptions{bq, bk, false, true})),
                    "block sizes must be from 1 to 1024");
  EXPECT_TRUE(abh::flash_attention(Q, K, V, FlashOptions{1024, 1, false, true}).ok());
  EXPECT_CONTAINS(error_of(abh::flash_attention(Q, random_matrix(rng, 5, 3), random_matrix(rng, 5, 2),
                                                FlashOptions{2, 2, true, true})),
                  "causal attention needs as many queries as keys");

  // Limits, checked on the numbers (no need to allocate gigabytes).
  const FlashOptions o;
  EXPECT_EQ(abh::check_flash_inputs(65536, 65536, 64, 64, 65536, 64, o).error(), "");
  EXPECT_CONTAINS(abh::check_flash_inputs(65537, 4, 64, 64, 4, 64, o).error(), "limited to 65536 tokens");
  EXPECT_CONTAINS(abh::check_flash_inputs(4, 65537, 64, 64, 65537, 64, o).error(), "limited to 65536 tokens");
  EXPECT_CONTAINS(abh::check_flash_inputs(4, 4, 4097, 4097, 4, 4, o).error(), "limited to 4096");
  EXPECT_CONTAINS(abh::check_flash_inputs(65536, 4, 2048, 2048, 4, 4, o).error(), "64M entries each");
  // Longer than the naive kernel accepts: the tiled one never needs the n x n matrix.
  EXPECT_NE(abh::check_attention_shapes(20000, 20000, 64, 64, 20000, 64, -1).error(), "");
  EXPECT_EQ(abh::check_flash_inputs(20000, 20000, 64, 64, 20000, 64, o).error(), "");

  // An oversized row count that really is allocated: 65537 x 1 is cheap, and refused.
  const Matrix long_q = Matrix::Zero(65537, 1);
  EXPECT_CONTAINS(error_of(abh::flash_attention(long_q, Matrix::Zero(1, 1), Matrix::Zero(1, 1))),
                  "limited to 65536 tokens");

  // The trace is for small inputs only.
  const Matrix Q65 = random_matrix(rng, 65, 3);
  EXPECT_CONTAINS(error_of(abh::flash_attention_trace(Q65, K, V)), "limited to 64 tokens");
  EXPECT_CONTAINS(error_of(abh::flash_attention_trace(Q, K, random_matrix(rng, 4, 257))), "d_k and d_v of 256");
  EXPECT_CONTAINS(error_of(abh::flash_attention_trace(Q, K, V, FlashOptions{0, 2, false, true})), "block sizes");
  EXPECT_TRUE(
      abh::flash_attention_trace(random_matrix(rng, 64, 3), random_matrix(rng, 64, 3), random_matrix(rng, 64, 2)).ok());
  // And a failure carries no half-built result.
  EXPECT_EQ(abh::flash_attention(Matrix(0, 3), K, V).value().output.size(), 0);
}

}  // namespace
