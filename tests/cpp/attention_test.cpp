// attention(), multi_head_attention() and the shape checks, against the article's numbers and the
// double-precision Eigen reference in reference.h.
// The scaling experiments (experiments.h) are experiments_test.cpp's.
#include "attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine_limits.h"
#include "experiments.h"
#include "kernels.h"
#include "random.h"
#include "reference.h"
#include "test_util.h"

namespace {

using namespace abh::test;  // test_util.h

using abh::Mask;
using abh::Matrix;
using MatrixD = abh::reference::MatrixD;

// ---------------------------------------------------------------------------------------------
// The article's worked numbers.

// softmax(factor * [1, 2, 3]) by the engine's fused kernel: the article's small row.
std::vector<float> softmax_of_one_two_three(float factor) {
  const float scores[] = {1.0f, 2.0f, 3.0f};
  std::vector<float> w(3);
  abh::kernels::scale_mask_softmax(scores, w.data(), nullptr, 1, 3, factor, nullptr);
  return w;
}

// "print(softmax(small))   # [0.09 0.24 0.67]"
TEST(ArticleNumbers, SoftmaxOfOneTwoThree) {
  const std::vector<float> w = softmax_of_one_two_three(1.0f);
  EXPECT_EQ(in_percent(w), (std::vector<long>{9, 24, 67}));
  EXPECT_NEAR(w[0], 0.09003057, 1e-6);
  EXPECT_NEAR(w[1], 0.24472847, 1e-6);
  EXPECT_NEAR(w[2], 0.66524096, 1e-6);
}

// "large = small * 8  # what d_k=64 would produce" -> [0.00 0.00 1.00], saturated.
TEST(ArticleNumbers, SoftmaxOfEightTimesOneTwoThreeSaturates) {
  const std::vector<float> w = softmax_of_one_two_three(8.0f);
  EXPECT_EQ(in_percent(w), (std::vector<long>{0, 0, 100}));
  EXPECT_GT(w[2], 0.999f);
  EXPECT_NEAR(w[1], std::exp(-8.0) / (1 + std::exp(-8.0) + std::exp(-16.0)), 1e-7);
}

// "q_1 · k_1 = 1.0(1.1) + 0.5(0.4) = 1.30"
TEST(ArticleNumbers, DotProductOfQ1AndK1Is1_30) {
  const float q[] = {1.0f, 0.5f};
  const float k[] = {1.1f, 0.4f};
  float s = 0.0f;
  abh::kernels::scores_qkt(q, 2, k, 2, &s, 1, 1, 2);
  EXPECT_NEAR(s, 1.30, 1e-6);
  EXPECT_EQ(std::lround(s * 100), 130);

  // The same score seen through attention() with scaling off: with a second key whose score is 0,
  // the weights are softmax([1.30, 0]), so their log-ratio recovers the score.
  Matrix Q(1, 2), K(2, 2), V(2, 1);
  Q << 1.0f, 0.5f;
  K << 1.1f, 0.4f, 0.0f, 0.0f;
  V << 1.0f, 0.0f;
  abh::AttentionOptions no_scale;
  no_scale.scale = false;
  const auto result = abh::attention(Q, K, V, nullptr, no_scale);
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_NEAR(std::log(result.value().weights(0, 0) / result.value().weights(0, 1)), 1.30, 1e-5);
  // And with scaling on, the score is divided by sqrt(2) first.
  const auto scaled = abh::attention(Q, K, V);
  ASSERT_TRUE(scaled.ok());
  EXPECT_NEAR(std::log(scaled.value().weights(0, 0) / scaled.value().weights(0, 1)), 1.30 / std::sqrt(2.0), 1e-5);
}

// "Output row 1: 0.31(2.0) + 0.26(0.5) + 0.25(1.5) + 0.18(0.0) = 1.13."
TEST(ArticleNumbers, WeightedSumOfValuesIs1_13) {
  const float w[] = {0.31f, 0.26f, 0.25f, 0.18f};
  const float v[] = {2.0f, 0.5f, 1.5f, 0.0f};  // column 1 of V, one value per key
  float out = 0.0f;
  abh::kernels::weighted_sum(w, v, 1, &out, 1, 1, 4, 1);
  EXPECT_NEAR(out, 1.125, 1e-6);         // the exact sum
  EXPECT_NEAR(out, 1.13, 0.005 + 1e-6);  // the article's 2-decimal rounding (half up)
}

// ---------------------------------------------------------------------------------------------
// Agreement with the reference.

// Why: this is the main correctness net for the single-head kernel chain on many shapes.
TEST(Attention, MatchesReferenceOnRandomShapes) {
  abh::SplitMix64 rng(2024);
  double worst_out = 0.0, worst_w = 0.0;
  int with_fully_masked = 0;
  for (int trial = 0; trial < 240; ++trial) {
    const int n_q = uniform_int(rng, 1, 64), n_k = uniform_int(rng, 1, 64);
    const int d_k = uniform_int(rng, 1, 64), d_v = uniform_int(rng, 1, 32);
    const int mask_kind = trial % 3;  // 0 none, 1 random, 2 causal (square or not)
    abh::AttentionOptions options;
    options.scale = (trial / 3) % 2 == 0;
    const Matrix Q = random_matrix(rng, n_q, d_k), K = random_matrix(rng, n_k, d_k), V = random_matrix(rng, n_k, d_v);
    Mask mask(n_q, n_k);
    for (int i = 0; i < n_q; ++i)
      for (int j = 0; j < n_k; ++j)
        mask(i, j) = mask_kind == 1 ? std::uint8_t((rng.next() >> 62) != 0) : std::uint8_t(j <= i);
    const Mask* mask_ptr = mask_kind == 0 ? nullptr : &mask;

    const auto got = abh::attention(Q, K, V, mask_ptr, options);
    ASSERT_TRUE(got.ok()) << got.error();
    const auto [ref_out, ref_w] =
        abh::reference::attention(Q.cast<double>(), K.cast<double>(), V.cast<double>(), mask_ptr, options.scale);
    const double e_out = relative_error(got.value().output, ref_out);
    const double e_w = relative_error(got.value().weights, ref_w);
    ASSERT_LE(e_out, 1e-5) << "trial " << trial << ": n_q=" << n_q << " n_k=" << n_k << " d_k=" << d_k
                           << " d_v=" << d_v;
    ASSERT_LE(e_w, 1e-5) << "trial " << trial;
    worst_out = std::max(worst_out, e_out);
    worst_w = std::max(worst_w, e_w);

    // fully_masked_rows reports exactly the rows with no visible key, whose weights are all zero.
    ASSERT_EQ(got.value().fully_masked_rows.size(), std::size_t(n_q));
    for (int i = 0; i < n_q; ++i) {
      const bool blocked = mask_ptr && mask.row(i).cast<int>().sum() == 0;
      ASSERT_EQ(got.value().fully_masked_rows[i], blocked ? 1 : 0) << "trial " << trial << " row " << i;
      const double row_sum = got.value().weights.row(i).cast<double>().sum();
      ASSERT_NEAR(row_sum, blocked ? 0.0 : 1.0, 1e-5);
      with_fully_masked += blocked;
    }
  }
  EXPECT_GT(with_fully_masked, 0) << "the random masks should include some fully blocked rows";
  RecordProperty("worst_output_error", std::to_string(worst_out));
  RecordProperty("worst_weights_error", std::to_string(worst_w));
}

TEST(MultiHeadAttention, MatchesReferenceOnRandomShapes) {
  abh::SplitMix64 rng(77);
  for (int trial = 0; trial < random_cases(120); ++trial) {
    const int n = uniform_int(rng, 1, 32), d_model = uniform_int(rng, 1, 64);
    std::vector<int> divisors;
    for (int h = 1; h <= std::min(d_model, abh::limits::kMaxHeads); ++h)
      if (d_model % h == 0) divisors.push_back(h);
    const int h = divisors[rng.next() % divisors.size()];
    const bool causal = trial % 2 == 1;
    abh::AttentionOptions options;
    options.scale = trial % 4 < 2;
    const float w_scale = 1.0f / std::sqrt(float(d_model));
    const Matrix X = random_matrix(rng, n, d_model);
    const Matrix W_q = random_matrix(rng, d_model, d_model, w_scale),
                 W_k = random_matrix(rng, d_model, d_model, w_scale);
    const Matrix W_v = random_matrix(rng, d_model, d_model, w_scale),
                 W_o = random_matrix(rng, d_model, d_model, w_scale);

    const auto got = abh::multi_head_attention(X, W_q, W_k, W_v, W_o, h, causal, options);
    ASSERT_TRUE(got.ok()) << got.error();
    const auto [ref_out, ref_w] =
        abh::reference::multi_head_attention(X.cast<double>(), W_q.cast<double>(), W_k.cast<double>(),
                                             W_v.cast<double>(), W_o.cast<double>(), h, causal, options.scale);
    const std::string where = "trial " + std::to_string(trial) + ": n=" + std::to_string(n) +
                              " d_model=" + std::to_string(d_model) + " h=" + std::to_string(h);
    ASSERT_LE(relative_error(got.value().output, ref_out), 1e-5) << where;
    const abh::Tensor3& weights = got.value().weights;
    ASSERT_EQ(weights.heads, h);
    ASSERT_EQ(weights.rows, n);
    ASSERT_EQ(weights.cols, n);
    ASSERT_EQ(ref_w.size(), std::size_t(h));
    for (int head = 0; head < h; ++head) {
      const Matrix w_head = Eigen::Map<const Matrix>(weights.head(head), n, n);
      ASSERT_LE(relative_error(w_head, ref_w[head]), 1e-5) << where << " head " << head;
    }
    for (std::uint8_t flag : got.value().fully_masked_rows) ASSERT_EQ(flag, 0);
  }
}

// Multi-head with h = 1 and identity projections is exactly single-head attention on X.
TEST(MultiHeadAttention, OneHeadWithIdentityProjectionsEqualsAttention) {
  abh::SplitMix64 rng(5);
  const int n = 6, d = 4;
  const Matrix X = random_matrix(rng, n, d);
  const Matrix I = Matrix::Identity(d, d);
  const auto mha = abh::multi_head_attention(X, I, I, I, I, 1, true);
  const Mask causal = abh::causal_mask(n);
  const auto single = abh::attention(X, X, X, &causal);
  ASSERT_TRUE(mha.ok());
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(Eigen::Map<const Matrix>(mha.value().weights.head(0), n, n), single.value().weights);
  EXPECT_EQ(mha.value().output, single.value().output);
}

// ---------------------------------------------------------------------------------------------
// Inputs near float32's limits: repaired scores, reported overflows, never NaN.

// Finite inputs whose dot products overflow float32 still give the reference's (one-hot) answer.
TEST(AttentionOverflow, OverflowingScoresAreRepairedNotNaN) {
  Matrix Q(2, 2), K(3, 2), V(3, 2);
  Q << 2e19f, 2e19f, 1.0f, -1.0f;
  K << 2e19f, 2e19f, 2e19f, -2e19f, 1.0f, 1.0f;
  V << 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f;
  for (bool scale : {true, false}) {
    abh::AttentionOptions options;
    options.scale = scale;
    const auto got = abh::attention(Q, K, V, nullptr, options);
    ASSERT_TRUE(got.ok()) << got.error();
    EXPECT_TRUE(got.value().weights.allFinite());
    EXPECT_TRUE(got.value().output.allFinite());
    EXPECT_EQ(got.value().weights(0, 0), 1.0f);  // the huge key wins outright, as in exact arithmetic
    EXPECT_EQ(got.value().output.row(0), V.row(0));
    const auto [ref_out, ref_w] =
        abh::reference::attention(Q.cast<double>(), K.cast<double>(), V.cast<double>(), nullptr, scale);
    EXPECT_LE(relative_error(got.value().weights, ref_w), 1e-5);
    EXPECT_LE(relative_error(got.value().output, ref_out), 1e-5);
  }
}

TEST(AttentionOverflow, MultiHeadReportsProjectionAndOutputOverflow) {
  const int n = 3, d = 4;
  Matrix X = Matrix::Constant(n, d, 1e30f);
  const Matrix I = Matrix::Identity(d, d);
  const Matrix big = Matrix::Constant(d, d, 1e10f);  // 4 * 1e30 * 1e10 overflows
  const auto projection = abh::multi_head_attention(X, big, I, I, I, 2);
  ASSERT_FALSE(projection.ok());
  EXPECT_EQ(projection.error(), abh::kProjectionOverflow);
  EXPECT_CONTAINS(projection.error(), "overflows float32");

  X = Matrix::Ones(n, d);
  const Matrix huge = Matrix::Constant(d, d, 3e38f);  // merged ~1, times 4 columns of 3e38
  const auto output = abh::multi_head_attention(X, I, I, I, huge, 2);
  ASSERT_FALSE(output.ok());
  EXPECT_EQ(output.error(), abh::kOutputOverflow);
}

// ---------------------------------------------------------------------------------------------
// Causal masking.

TEST(CausalMask, IsLowerTriangularIncludingDiagonal) {
  const Mask m = abh::causal_mask(5);
  ASSERT_EQ(m.rows(), 5);
  ASSERT_EQ(m.cols(), 5);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(m(i, j), j <= i ? 1 : 0) << i << "," << j;
  EXPECT_EQ(abh::causal_mask(1)(0, 0), 1);
}

// "token 1 sees only itself": row 0 is [1, 0, ...] and nothing above the diagonal leaks.
TEST(CausalMask, UpperTriangleOfWeightsIsExactlyZeroAndFirstRowIsOneHot) {
  abh::SplitMix64 rng(11);
  for (int n : {1, 2, 4, 9, 33}) {
    const Matrix Q = random_matrix(rng, n, 8), K = random_matrix(rng, n, 8), V = random_matrix(rng, n, 3);
    const Mask mask = abh::causal_mask(n);
    const auto result = abh::attention(Q, K, V, &mask);
    ASSERT_TRUE(result.ok());
    const Matrix& w = result.value().weights;
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) ASSERT_EQ(w(i, j), 0.0f) << "n=" << n << " " << i << "," << j;
      EXPECT_NEAR(w.row(i).cast<double>().sum(), 1.0, 1e-6);
    }
    EXPECT_EQ(w(0, 0), 1.0f);
    // Token 1 sees only itself, so its output is exactly its own value row.
    EXPECT_EQ(result.value().output.row(0), V.row(0));
  }
}

// The article's warning: masking after softmax leaves rows that no longer sum to 1.
TEST(CausalMask, MaskingAfterSoftmaxBreaksRowSumsButMaskingBeforeDoesNot) {
  abh::SplitMix64 rng(13);
  const int n = 6, d_k = 4;
  const Matrix Q = random_matrix(rng, n, d_k), K = random_matrix(rng, n, d_k);
  Matrix scores(n, n);
  abh::kernels::scores_qkt(Q.data(), d_k, K.data(), d_k, scores.data(), n, n, d_k);
  const float scale = 1.0f / std::sqrt(float(d_k));

  Matrix after(n, n);  // the wrong way: softmax unmasked, then zero the future
  abh::kernels::scale_mask_softmax(scores.data(), after.data(), nullptr, n, n, scale, nullptr);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) after(i, j) = 0.0f;

  Matrix before(n, n);  // the right way: -inf before softmax
  const Mask mask = abh::causal_mask(n);
  abh::kernels::scale_mask_softmax(scores.data(), before.data(), mask.data(), n, n, scale, nullptr);

  for (int i = 0; i < n; ++i) {
    const double sum_after = after.row(i).cast<double>().sum();
    const double sum_before = before.row(i).cast<double>().sum();
    EXPECT_NEAR(sum_before, 1.0, 1e-6) << "row " << i;
    if (i < n - 1) {
      EXPECT_LT(sum_after, 1.0 - 1e-3) << "row " << i;  // visibly less than 1, not a rounding effect
    } else {
      EXPECT_NEAR(sum_after, 1.0, 1e-6);  // the last row has no future to drop
    }
  }
  // Row 0 in particular keeps only its own share of an unmasked softmax.
  EXPECT_LT(after(0, 0), 1.0f);
  EXPECT_EQ(before(0, 0), 1.0f);
  // And the "after" row is not a rescaled version of the right answer: renormalising fixes it.
  for (int i = 0; i < n; ++i) {
    const Eigen::RowVectorXd renormalised = after.row(i).cast<double>() / after.row(i).cast<double>().sum();
    EXPECT_LT((renormalised - before.row(i).cast<double>()).cwiseAbs().maxCoeff(), 1e-6);
  }
}

// ---------------------------------------------------------------------------------------------
// Errors are values, never exceptions or aborts.

template <class T>
void expect_error(const abh::Expected<T>& result, const std::vector<std::string>& substrings) {
  ASSERT_FALSE(result.ok()) << "expected an error";
  for (const auto& s : substrings) EXPECT_CONTAINS(result.error(), s);
}

TEST(AttentionErrors, MismatchedKeyWidth) {
  abh::SplitMix64 rng(1);
  const Matrix Q = random_matrix(rng, 3, 4), K = random_matrix(rng, 5, 3), V = random_matrix(rng, 5, 2);
  expect_error(abh::attention(Q, K, V), {"K has 3 columns but Q has 4", "d_k"});
}

TEST(AttentionErrors, ValueRowsMustMatchKeyRows) {
  abh::SplitMix64 rng(2);
  const Matrix Q = random_matrix(rng, 3, 4), K = random_matrix(rng, 5, 4), V = random_matrix(rng, 6, 2);
  expect_error(abh::attention(Q, K, V), {"V has 6 rows but K has 5"});
}

TEST(AttentionErrors, EmptyMatrices) {
  abh::SplitMix64 rng(3);
  const Matrix K = random_matrix(rng, 5, 4), V = random_matrix(rng, 5, 2);
  expect_error(abh::attention(Matrix(0, 4), K, V), {"at least one row", "got 0 and 5"});
  expect_error(abh::attention(random_matrix(rng, 2, 4), Matrix(0, 4), Matrix(0, 2)), {"at least one row"});
  expect_error(abh::attention(Matrix(2, 0), Matrix(5, 0), V), {"at least one column", "d_k = 0"});
  expect_error(abh::attention(random_matrix(rng, 2, 4), K, Matrix(5, 0)), {"at least one column", "d_v = 0"});
  expect_error(abh::attention(Matrix(), Matrix(), Matrix()), {"at least one row"});
}

TEST(AttentionErrors, WrongMaskShape) {
  abh::SplitMix64 rng(4);
  const Matrix Q = random_matrix(rng, 3, 4), K = random_matrix(rng, 5, 4), V = random_matrix(rng, 5, 2);
  const Mask transposed = Mask::Ones(5, 3);
  expect_error(abh::attention(Q, K, V, &transposed), {"mask must be 3 x 5", "got 5 x 3"});
  const Mask square = abh::causal_mask(3);
  expect_error(abh::attention(Q, K, V, &square), {"mask must be 3 x 5", "got 3 x 3"});
  const Mask right = Mask::Ones(3, 5);
  EXPECT_TRUE(abh::attention(Q, K, V, &right).ok());
  // A flat mask (the page's Uint8Array) is told by its length.
  EXPECT_EQ(abh::check_attention_shapes(3, 5, 4, 4, 5, 2, 14).error(), "the mask must be 3 x 5 (got 14 entries)");
  EXPECT_EQ(abh::check_attention_shapes(3, 5, 4, 4, 5, 2, 15).error(), "");
}

// The numbers the bindings pass on as doubles: whole, in range, and NaN (a value that was not a
// number in JavaScript) refused with the one message.
TEST(AttentionErrors, WholeNumbersAndSeeds) {
  EXPECT_TRUE(abh::check_whole_number("heads", 3, -1e9, 1e9).ok());
  for (double bad : {2.5, std::nan(""), double(INFINITY), 2e9})
    EXPECT_EQ(abh::check_whole_number("heads", bad, -1e9, 1e9).error(), "heads must be a whole number") << bad;
  EXPECT_TRUE(abh::check_seed(0).ok());
  EXPECT_TRUE(abh::check_seed(4294967295.0).ok());
  for (double bad : {-1.0, 4294967296.0, 0.5, std::nan("")})
    EXPECT_EQ(abh::check_seed(bad).error(), "seed must be a whole number from 0 to 4294967295") << bad;
}

// Oversized requests must be refused before allocation; check_attention_shapes is the gate, so
// it is tested directly with huge sizes (nothing of that size is ever allocated here).
TEST(AttentionErrors, SizeLimitsAreCheckedWithoutAllocating) {
  using namespace abh::limits;
  EXPECT_EQ(abh::check_attention_shapes(4, 5, 8, 8, 5, 3, -1).error(), "");
  EXPECT_EQ(abh::check_attention_shapes(kMaxSequence, 4096, kMaxDim, kMaxDim, 4096, kMaxDim, -1).error(), "");
  EXPECT_CONTAINS(abh::check_attention_shapes(kMaxSequence + 1, 4, 8, 8, 4, 8, -1).error(),
                  "sequence length is limited to 16384");
  EXPECT_CONTAINS(abh::check_attention_shapes(4, kMaxSequence + 1, 8, 8, kMaxSequence + 1, 8, -1).error(),
                  "sequence length is limited to 16384");
  EXPECT_CONTAINS(abh::check_attention_shapes(4, 4, kMaxDim + 1, kMaxDim + 1, 4, 8, -1).error(), "limited to 4096");
  EXPECT_CONTAINS(abh::check_attention_shapes(4, 4, 8, 8, 4, kMaxDim + 1, -1).error(), "limited to 4096");
  // 16384 x 8192 = 2^27 > 2^26 score entries, though each side is within the sequence limit.
  const std::string too_many = abh::check_attention_shapes(kMaxSequence, 8192, 8, 8, 8192, 8, -1).error();
  EXPECT_CONTAINS(too_many, "16384 x 8192");
  EXPECT_CONTAINS(too_many, "64M");
  EXPECT_CONTAINS(too_many, "memory budget");
  // Exactly at the budget is allowed: 8192 x 8192 = 2^26.
  EXPECT_EQ(abh::check_attention_shapes(8192, 8192, 8, 8, 8192, 8, -1).error(), "");
  EXPECT_CONTAINS(abh::check_attention_shapes(8192, 8193, 8, 8, 8193, 8, -1).error(), "memory budget");
  // Negative sizes are rejected rather than wrapping around.
  EXPECT_CONTAINS(abh::check_attention_shapes(-1, 4, 8, 8, 4, 8, -1).error(), "at least one row");
  EXPECT_CONTAINS(abh::check_attention_shapes(4, 4, -8, -8, 4, 8, -1).error(), "at least one column");
}

TEST(MultiHeadErrors, HeadsMustDivideDModelAndMessageNamesBoth) {
  abh::SplitMix64 rng(6);
  const Matrix X = random_matrix(rng, 4, 10), W = random_matrix(rng, 10, 10);
  expect_error(abh::multi_head_attention(X, W, W, W, W, 3), {"10", "3", "divisible"});
  EXPECT_CONTAINS(abh::check_heads(10, 4).error(), "d_model (10) must be divisible by the number of heads (4)");
  EXPECT_TRUE(abh::multi_head_attention(X, W, W, W, W, 5).ok());
}

TEST(MultiHeadErrors, ZeroNegativeAndTooManyHeads) {
  abh::SplitMix64 rng(7);
  const Matrix X = random_matrix(rng, 4, 8), W = random_matrix(rng, 8, 8);
  expect_error(abh::multi_head_attention(X, W, W, W, W, 0), {"at least 1", "got 0"});
  expect_error(abh::multi_head_attention(X, W, W, W, W, -2), {"at least 1", "got -2"});
  EXPECT_CONTAINS(abh::check_heads(128, 128).error(), "limited to 64");
  EXPECT_EQ(abh::check_heads(128, 64).error(), "");
  EXPECT_CONTAINS(abh::check_heads(0, 1).error(), "d_model must be at least 1");
  EXPECT_CONTAINS(abh::check_heads(-8, 2).error(), "got -8");
}

TEST(MultiHeadErrors, WrongProjectionShapesAndEmptyInput) {
  abh::SplitMix64 rng(8);
  const Matrix X = random_matrix(rng, 4, 8), W = random_matrix(rng, 8, 8), bad = random_matrix(rng, 8, 4);
  expect_error(abh::multi_head_attention(X, bad, W, W, W, 2), {"d_model x d_model", "8 x 8"});
  expect_error(abh::multi_head_attention(X, W, W, W, bad, 2), {"d_model x d_model"});
  expect_error(abh::multi_head_attention(Matrix(0, 8), W, W, W, W, 2), {"at least one row"});
  expect_error(abh::multi_head_attention(Matrix(), Matrix(), Matrix(), Matrix(), Matrix(), 1), {"d_model"});
}

// NaN or inf must not pass as a clamped "maximal score" (the bug this guards: Q = [[NaN, 1]] once
// gave weights [0.5, 0.5]); the message names the matrix and the position.
TEST(AttentionErrors, NonFiniteInputsAreRefusedWithTheirPosition) {
  Matrix Q(1, 2), K(2, 2), V(2, 1);
  Q << std::nanf(""), 1;
  K << 1, 1, 2, 2;
  V << 10, 20;
  expect_error(abh::attention(Q, K, V), {"Q has a value that is not a finite number at row 1, column 1"});
  Q << 1, 1;
  V << 10, std::numeric_limits<float>::infinity();
  expect_error(abh::attention(Q, K, V), {"V has a value that is not a finite number at row 2, column 1"});
  abh::SplitMix64 rng(9);
  const Matrix X = random_matrix(rng, 3, 4);
  Matrix W = random_matrix(rng, 4, 4);
  W(2, 3) = -std::numeric_limits<float>::infinity();
  expect_error(abh::multi_head_attention(X, W, W, W, W, 2),
               {"W_q has a value that is not a finite number at row 3, column 4"});
}

}  // namespace
