// The hot loops in kernels.h, each checked against a plain double-precision loop (the products'
// loop is test_util.h's product_in_double).
// The native build compiles the portable scalar path; the wasm SIMD path shares the exp polynomial
// and the tail loops exercised below.
#include "kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "random.h"
#include "test_util.h"

namespace {

using abh::test::product_in_double;
using abh::test::random_strided;
using abh::test::relative_error;

namespace k = abh::kernels;

// Sizes that hit every tail case of a 4-wide and 16-wide SIMD loop, plus tiny shapes.
const int kOddSizes[] = {1, 2, 3, 5, 7, 15, 16, 17, 33};

double exp_relative_error(float x) {
  const double want = std::exp(double(x));
  return std::abs(double(k::exp_approx(x)) - want) / want;
}

// Why: the polynomial feeds every softmax on the page; its header promises ~2e-7 relative error.
TEST(ExpApprox, RelativeErrorBelow1e6OnNegativeRange) {
  double worst = 0.0;
  float worst_x = 0.0f;
  for (int i = 0; i <= 2'000'000; ++i) {
    const float x = -87.0f + 87.0f * float(i) / 2'000'000.0f;
    const double err = exp_relative_error(x);
    if (err > worst) worst = err, worst_x = x;
  }
  EXPECT_LT(worst, 1e-6) << "worst at x = " << worst_x;
  // The header documents ~2e-7 (measured 2.5e-7); a wrong coefficient shows up here first.
  EXPECT_LT(worst, 3e-7) << "worst at x = " << worst_x;
}

TEST(ExpApprox, RelativeErrorBelow1e6OnPositiveRange) {
  double worst = 0.0;
  float worst_x = 0.0f;
  for (int i = 0; i <= 2'000'000; ++i) {
    const float x = 88.0f * float(i) / 2'000'000.0f;
    const double err = exp_relative_error(x);
    if (err > worst) worst = err, worst_x = x;
  }
  EXPECT_LT(worst, 1e-6) << "worst at x = " << worst_x;
  // The header documents ~2e-7 (measured 2.5e-7); a wrong coefficient shows up here first.
  EXPECT_LT(worst, 3e-7) << "worst at x = " << worst_x;
}

// Range-reduction boundaries (k changes at odd multiples of ln2/2) are where Cody-Waite goes wrong.
TEST(ExpApprox, ExactAtZeroAndAccurateAroundReductionBoundaries) {
  EXPECT_EQ(k::exp_approx(0.0f), 1.0f);
  for (int m = -125; m <= 126; ++m) {
    const float boundary = (float(m) + 0.5f) * 0.69314718056f;
    for (float x : {std::nextafter(boundary, -1e9f), boundary, std::nextafter(boundary, 1e9f)})
      if (x >= -87.0f && x <= 88.0f) {
        EXPECT_LT(exp_relative_error(x), 1e-6) << "x = " << x;
      }
  }
}

// Masked scores are -inf; exp must turn them into an exact 0, never a NaN or a denormal.
TEST(ExpApprox, NegativeInfinityAndUnderflowGiveExactZero) {
  EXPECT_EQ(k::exp_approx(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(k::exp_approx(std::nextafter(-87.3f, -100.0f)), 0.0f);
  EXPECT_EQ(k::exp_approx(-87.5f), 0.0f);
  EXPECT_EQ(k::exp_approx(-100.0f), 0.0f);
  EXPECT_EQ(k::exp_approx(-1e30f), 0.0f);
  EXPECT_EQ(k::exp_approx(std::numeric_limits<float>::lowest()), 0.0f);
  // Just above the cut-off the result is a positive normal float.
  const float at_cutoff = k::exp_approx(-87.3f);
  EXPECT_GT(at_cutoff, 0.0f);
  EXPECT_GE(at_cutoff, std::numeric_limits<float>::min());
  EXPECT_LT(exp_relative_error(-87.3f), 1e-6);
}

// The clamp at 88 keeps the result finite instead of overflowing to +inf.
TEST(ExpApprox, LargeInputsStayFinite) {
  for (float x : {88.0f, 88.5f, 100.0f, 1e30f, std::numeric_limits<float>::infinity()}) {
    const float y = k::exp_approx(x);
    EXPECT_TRUE(std::isfinite(y)) << "x = " << x;
    EXPECT_GT(y, 1e38f) << "x = " << x;
  }
}

TEST(ExpApprox, MonotonicOverDenseSweep) {
  float previous = k::exp_approx(-87.0f);
  for (int i = 1; i <= 200'000; ++i) {
    const float x = -87.0f + 175.0f * float(i) / 200'000.0f;
    const float y = k::exp_approx(x);
    ASSERT_GE(y, previous) << "x = " << x;
    previous = y;
  }
}

// Why the native build runs scalar code: the SIMD path uses wasm_simd128.h intrinsics and is compiled
// only under -msimd128 (the Emscripten build); x86/ARM builds take the portable loops.
TEST(Kernels, SimdDisabledInNativeBuild) { EXPECT_FALSE(k::simd_enabled()); }

TEST(Matmul, MatchesDoubleLoopForOddShapesContiguous) {
  abh::SplitMix64 rng(101);
  int checked = 0;
  for (int m : kOddSizes)
    for (int kk : kOddSizes)
      for (int n : kOddSizes) {
        const auto A = random_strided(rng, m, kk, kk), B = random_strided(rng, kk, n, n);
        std::vector<float> C(std::size_t(m) * n, -777.0f);
        k::matmul(A.data(), kk, B.data(), n, C.data(), n, m, kk, n);
        const std::vector<double> want = product_in_double(A, kk, B, n, m, kk, n);
        ASSERT_LE(relative_error(C.data(), n, want, m, n), 1e-5) << m << "x" << kk << " * " << kk << "x" << n;
        ++checked;
      }
  EXPECT_EQ(checked, 9 * 9 * 9);
}

// Why: the engine reads one head's slice out of an (n, d_model) buffer with ld = d_model.
TEST(Matmul, StridedInputsAndOutputLeavePaddingUntouched) {
  abh::SplitMix64 rng(102);
  for (int m : kOddSizes)
    for (int n : kOddSizes) {
      const int kk = (m + n) % 17 + 1;
      const int lda = kk + 3, ldb = n + 5, ldc = n + 2;
      const auto A = random_strided(rng, m, kk, lda), B = random_strided(rng, kk, n, ldb);
      std::vector<float> C(std::size_t(m) * ldc, -777.0f);
      k::matmul(A.data(), lda, B.data(), ldb, C.data(), ldc, m, kk, n);
      const std::vector<double> want = product_in_double(A, lda, B, ldb, m, kk, n);
      ASSERT_LE(relative_error(C.data(), ldc, want, m, n), 1e-5) << m << "x" << kk << "x" << n;
      for (int r = 0; r < m; ++r)
        for (int c = n; c < ldc; ++c) ASSERT_EQ(C[r * ldc + c], -777.0f) << "padding written at " << r << "," << c;
    }
}

TEST(Matmul, SmallKnownProduct) {
  const float A[] = {1, 2, 3, 4, 5, 6};     // 2x3
  const float B[] = {7, 8, 9, 10, 11, 12};  // 3x2
  float C[4] = {};
  k::matmul(A, 3, B, 2, C, 2, 2, 3, 2);
  EXPECT_EQ(std::vector<float>(C, C + 4), (std::vector<float>{58, 64, 139, 154}));
}

TEST(ScoresQKt, MatchesDoubleLoopForOddShapesAndStrides) {
  abh::SplitMix64 rng(103);
  for (int n_q : kOddSizes)
    for (int n_k : kOddSizes)
      for (int d : kOddSizes)
        for (int pad : {0, 3}) {
          const int ldq = d + pad, ldk = d + 2 * pad;
          const auto Q = random_strided(rng, n_q, d, ldq), K = random_strided(rng, n_k, d, ldk);
          std::vector<float> S(std::size_t(n_q) * n_k, -777.0f);
          k::scores_qkt(Q.data(), ldq, K.data(), ldk, S.data(), n_q, n_k, d);
          const std::vector<double> want = product_in_double(Q, ldq, K, ldk, n_q, d, n_k, /*b_transposed=*/true);
          ASSERT_LE(relative_error(S.data(), n_k, want, n_q, n_k), 1e-5)
              << "n_q=" << n_q << " n_k=" << n_k << " d=" << d << " pad=" << pad;
        }
}

TEST(WeightedSum, MatchesDoubleLoopForOddShapesAndStrides) {
  abh::SplitMix64 rng(104);
  for (int n_q : kOddSizes)
    for (int n_k : kOddSizes)
      for (int d_v : kOddSizes)
        for (int pad : {0, 4}) {
          const int ldv = d_v + pad, ldo = d_v + pad / 2;
          const auto W = random_strided(rng, n_q, n_k, n_k), V = random_strided(rng, n_k, d_v, ldv);
          std::vector<float> O(std::size_t(n_q) * ldo, -777.0f);
          k::weighted_sum(W.data(), V.data(), ldv, O.data(), ldo, n_q, n_k, d_v);
          const std::vector<double> want = product_in_double(W, n_k, V, ldv, n_q, n_k, d_v);
          ASSERT_LE(relative_error(O.data(), ldo, want, n_q, d_v), 1e-5)
              << "n_q=" << n_q << " n_k=" << n_k << " d_v=" << d_v << " pad=" << pad;
          for (int i = 0; i < n_q; ++i)
            for (int t = d_v; t < ldo; ++t) ASSERT_EQ(O[i * ldo + t], -777.0f);
        }
}

// Why: weighted_sum skips zero weights; the output must still be overwritten (not accumulated into
// stale memory), and a value row behind a zero weight must not leak in, even if it is non-finite.
TEST(WeightedSum, ZeroWeightsSkipRowsAndOutputIsOverwritten) {
  const float W[] = {0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f};  // 2x3; second row all zero
  const float inf = std::numeric_limits<float>::infinity();
  const float V[] = {inf, std::nanf(""), 2.0f, 3.0f, inf, inf};  // 3x2
  float O[4] = {99.0f, 99.0f, 99.0f, 99.0f};
  k::weighted_sum(W, V, 2, O, 2, 2, 3, 2);
  EXPECT_EQ(std::vector<float>(O, O + 4), (std::vector<float>{2, 3, 0, 0}));
}

// d_k of 1 to 3 takes the transposed-keys path; every score must keep the summation order of the
// dot-product tail, ((0 + q0 k0) + q1 k1) + q2 k2, so pipeline snapshots keep their exact bits.
TEST(ScoresQKt, SmallDepthIsTheSequentialSumBitForBit) {
  abh::SplitMix64 rng(31);
  for (int d = 1; d <= 3; ++d)
    for (int n_q : {1, 3, 4, 5, 9})
      for (int n_k : {1, 3, 4, 7, 8, 63, 64, 65, 130}) {
        const int ldq = d + 2, ldk = d + 1;  // padded rows: strides are honoured
        const auto Q = random_strided(rng, n_q, d, ldq), K = random_strided(rng, n_k, d, ldk);
        std::vector<float> S(std::size_t(n_q) * n_k, -1.0f);
        k::scores_qkt(Q.data(), ldq, K.data(), ldk, S.data(), n_q, n_k, d);
        for (int i = 0; i < n_q; ++i)
          for (int j = 0; j < n_k; ++j) {
            float want = 0.0f;
            for (int t = 0; t < d; ++t) want += Q[std::size_t(i) * ldq + t] * K[std::size_t(j) * ldk + t];
            ASSERT_EQ(std::memcmp(&S[std::size_t(i) * n_k + j], &want, sizeof want), 0)
                << "d=" << d << " n_q=" << n_q << " n_k=" << n_k << " at (" << i << ", " << j << ")";
          }
      }
}

// ---------------------------------------------------------------------------------------------
// repair_overflowed_scores: scores past float32's range are recomputed in double and clamped.

// Ordinary scores are never touched, so the repair pass cannot perturb the common path.
TEST(RepairOverflowedScores, FiniteScoresAreLeftBitIdentical) {
  abh::SplitMix64 rng(108);
  const int n_q = 17, n_k = 33, d = 15;
  const auto Q = random_strided(rng, n_q, d, d), K = random_strided(rng, n_k, d, d);
  std::vector<float> S(std::size_t(n_q) * n_k);
  k::scores_qkt(Q.data(), d, K.data(), d, S.data(), n_q, n_k, d);
  const std::vector<float> before = S;
  EXPECT_EQ(k::repair_overflowed_scores(Q.data(), d, K.data(), d, S.data(), n_q, n_k, d), 0);
  EXPECT_EQ(S, before);
}

TEST(RepairOverflowedScores, OverflowIsClampedAndInfMinusInfIsRecomputed) {
  const float big = 2e19f, fmax = std::numeric_limits<float>::max();
  // Row stride 3 (one padding column) to exercise ldq/ldk.
  const float Q[] = {big, big, -1.0f, 1.0f, 0.5f, -1.0f};
  const float K[] = {big,  big,  -1.0f,   // q0.k0 = 8e38: overflows to +inf in float
                     big,  -big, -1.0f,   // q0.k1 = 4e38 - 4e38: inf - inf = NaN in float, exactly 0 in double
                     -big, -big, -1.0f,   // q0.k2 = -8e38: -inf
                     1.0f, 2.0f, -1.0f};  // ordinary
  const int n_q = 2, n_k = 4, d = 2;
  std::vector<float> S(n_q * n_k);
  k::scores_qkt(Q, 3, K, 3, S.data(), n_q, n_k, d);
  ASSERT_EQ(S[0], std::numeric_limits<float>::infinity());  // the premise: float really overflows
  ASSERT_TRUE(std::isnan(S[1]));
  const std::vector<float> row1 = {S[4], S[5], S[6], S[7]};
  EXPECT_EQ(k::repair_overflowed_scores(Q, 3, K, 3, S.data(), n_q, n_k, d), 3);
  EXPECT_EQ(S[0], fmax);
  EXPECT_EQ(S[1], 0.0f);
  EXPECT_EQ(S[2], -fmax);
  EXPECT_EQ(S[3], 3.0f * big);  // 2e19 * 1 + 2e19 * 2, finite in float all along
  EXPECT_EQ(std::vector<float>(S.begin() + 4, S.end()), row1);
}

std::vector<double> reference_softmax_row(const float* s, const std::uint8_t* mask, int n, float scale) {
  std::vector<double> x(n);
  double mx = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < n; ++j) {
    x[j] = (mask && !mask[j]) ? -std::numeric_limits<double>::infinity() : double(s[j] * scale);
    mx = std::max(mx, x[j]);
  }
  double sum = 0;
  for (double& v : x) sum += (v = std::exp(v - mx));
  for (double& v : x) v /= sum;
  return x;
}

TEST(ScaleMaskSoftmax, RowsSumToOneAndMatchReference) {
  abh::SplitMix64 rng(105);
  for (int n_q : kOddSizes)
    for (int n_k : kOddSizes) {
      auto S = random_strided(rng, n_q, n_k, n_k);
      for (float& v : S) v *= 3.0f;
      std::vector<float> W(S.size(), -1.0f);
      std::vector<std::uint8_t> fully(n_q, 7);
      const float scale = 0.37f;
      k::scale_mask_softmax(S.data(), W.data(), nullptr, n_q, n_k, scale, fully.data());
      for (int i = 0; i < n_q; ++i) {
        EXPECT_EQ(fully[i], 0);
        double sum = 0;
        const auto want = reference_softmax_row(&S[i * n_k], nullptr, n_k, scale);
        for (int j = 0; j < n_k; ++j) {
          const float w = W[i * n_k + j];
          ASSERT_GE(w, 0.0f);
          ASSERT_NEAR(w, want[j], 1e-6) << i << "," << j;
          sum += w;
        }
        ASSERT_NEAR(sum, 1.0, 1e-6) << "row " << i << " of " << n_q << "x" << n_k;
      }
    }
}

TEST(ScaleMaskSoftmax, MaskedEntriesAreExactlyZeroAndRowsStillSumToOne) {
  abh::SplitMix64 rng(106);
  for (int n_q : kOddSizes)
    for (int n_k : kOddSizes) {
      const auto S = random_strided(rng, n_q, n_k, n_k);
      std::vector<std::uint8_t> mask(S.size());
      for (int i = 0; i < n_q; ++i) {
        for (int j = 0; j < n_k; ++j) mask[i * n_k + j] = (rng.next() >> 63) ? 1 : 0;
        mask[i * n_k + (i % n_k)] = 1;  // at least one visible key per row
      }
      std::vector<float> W(S.size(), -1.0f);
      std::vector<std::uint8_t> fully(n_q, 7);
      k::scale_mask_softmax(S.data(), W.data(), mask.data(), n_q, n_k, 1.0f, fully.data());
      for (int i = 0; i < n_q; ++i) {
        EXPECT_EQ(fully[i], 0);
        const auto want = reference_softmax_row(&S[i * n_k], &mask[i * n_k], n_k, 1.0f);
        double sum = 0;
        for (int j = 0; j < n_k; ++j) {
          const float w = W[i * n_k + j];
          if (!mask[i * n_k + j]) {
            ASSERT_EQ(w, 0.0f) << i << "," << j;  // exactly, not approximately
          }
          ASSERT_NEAR(w, want[j], 1e-6);
          sum += w;
        }
        ASSERT_NEAR(sum, 1.0, 1e-6);
      }
    }
}

// Where NumPy returns 0/0 = NaN, the engine returns defined zeros and flags the row.
TEST(ScaleMaskSoftmax, FullyMaskedRowIsZeroFlaggedAndNeverNaN) {
  const int n_q = 3, n_k = 5;
  std::vector<float> S = {1, 2, 3, 4, 5, 1e30f, -1e30f, 0, 7, 8, -2, -1, 0, 1, 2};
  std::vector<std::uint8_t> mask = {1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  std::vector<float> W(S.size(), -1.0f);
  std::vector<std::uint8_t> fully = {9, 9, 9};
  k::scale_mask_softmax(S.data(), W.data(), mask.data(), n_q, n_k, 0.5f, fully.data());
  EXPECT_EQ(fully[0], 0);
  EXPECT_EQ(fully[1], 1);
  EXPECT_EQ(fully[2], 0);
  for (int j = 0; j < n_k; ++j) {
    EXPECT_EQ(W[n_k + j], 0.0f);
    EXPECT_FALSE(std::signbit(W[n_k + j]));
  }
  for (float w : W) EXPECT_FALSE(std::isnan(w));
  EXPECT_EQ(W[2 * n_k], 1.0f);  // a single visible key takes all the weight
  // A null fully_masked pointer is allowed.
  std::vector<float> W2(S.size());
  k::scale_mask_softmax(S.data(), W2.data(), mask.data(), n_q, n_k, 0.5f, nullptr);
  EXPECT_EQ(W, W2);
}

// A row with every score -inf but no mask (e.g. pre-masked scores) is also fully masked.
TEST(ScaleMaskSoftmax, AllNegativeInfinityScoresCountAsFullyMasked) {
  const float ninf = -std::numeric_limits<float>::infinity();
  std::vector<float> S = {ninf, ninf, ninf, ninf};
  std::vector<float> W(4, 5.0f);
  std::uint8_t fully = 0;
  k::scale_mask_softmax(S.data(), W.data(), nullptr, 1, 4, 1.0f, &fully);
  EXPECT_EQ(fully, 1);
  for (float w : W) EXPECT_EQ(w, 0.0f);
}

// attention() and the pipeline run the kernel in place on the scores buffer.
TEST(ScaleMaskSoftmax, InPlaceMatchesOutOfPlace) {
  abh::SplitMix64 rng(107);
  for (int n_k : kOddSizes) {
    const int n_q = 7;
    const auto S = random_strided(rng, n_q, n_k, n_k);
    std::vector<std::uint8_t> mask(S.size(), 1);
    for (int i = 0; i < n_q; ++i)
      for (int j = i + 1; j < n_k; ++j) mask[i * n_k + j] = 0;
    std::vector<float> out(S.size());
    std::vector<std::uint8_t> fa(n_q), fb(n_q);
    k::scale_mask_softmax(S.data(), out.data(), mask.data(), n_q, n_k, 0.7f, fa.data());
    std::vector<float> in_place = S;
    k::scale_mask_softmax(in_place.data(), in_place.data(), mask.data(), n_q, n_k, 0.7f, fb.data());
    EXPECT_EQ(out, in_place) << "n_k=" << n_k;  // bit-identical
    EXPECT_EQ(fa, fb);
  }
}

TEST(ScaleMaskSoftmax, EqualScoresGiveUniformWeights) {
  for (int n_k : kOddSizes)
    for (float value : {0.0f, 3.5f, -1234.0f, 1e4f}) {
      std::vector<float> S(2 * n_k, value);
      std::vector<float> W(S.size());
      k::scale_mask_softmax(S.data(), W.data(), nullptr, 2, n_k, 1.0f, nullptr);
      for (float w : W) ASSERT_NEAR(w, 1.0 / n_k, 1e-7) << "n_k=" << n_k << " value=" << value;
    }
}

// Without the max subtraction exp(1e4) overflows and the row becomes inf/inf = NaN.
TEST(ScaleMaskSoftmax, HugeScoresStayFiniteThanksToMaxSubtraction) {
  const std::vector<float> S = {1e4f, 1e4f - 1.0f, -1e4f, 9999.0f, 5e3f, 1e4f};
  std::vector<float> W(S.size());
  k::scale_mask_softmax(S.data(), W.data(), nullptr, 1, int(S.size()), 1.0f, nullptr);
  double sum = 0;
  for (float w : W) {
    ASSERT_TRUE(std::isfinite(w));
    sum += w;
  }
  EXPECT_NEAR(sum, 1.0, 1e-6);
  const double e1 = std::exp(-1.0), z = 2.0 + 2.0 * e1;
  EXPECT_NEAR(W[0], 1.0 / z, 1e-6);
  EXPECT_NEAR(W[1], e1 / z, 1e-6);
  EXPECT_EQ(W[2], 0.0f);
  EXPECT_EQ(W[4], 0.0f);
  EXPECT_EQ(W[0], W[5]);

  // Large negative rows too: every exp argument is <= 0 after subtracting the max.
  const std::vector<float> N = {-1e4f, -1e4f - 2.0f};
  std::vector<float> WN(2);
  k::scale_mask_softmax(N.data(), WN.data(), nullptr, 1, 2, 1.0f, nullptr);
  EXPECT_NEAR(WN[0], 1.0 / (1.0 + std::exp(-2.0)), 1e-6);
}

TEST(ScaleMaskSoftmax, ScaleIsAppliedBeforeSoftmax) {
  const std::vector<float> S = {2.0f, 4.0f, 6.0f};
  std::vector<float> W(3);
  k::scale_mask_softmax(S.data(), W.data(), nullptr, 1, 3, 0.5f, nullptr);
  const auto want = reference_softmax_row(std::vector<float>{1.0f, 2.0f, 3.0f}.data(), nullptr, 3, 1.0f);
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(W[j], want[j], 1e-7);
}

}  // namespace
