// The scaling experiments of the walkthrough's "why scale" step (experiments.h): dot products of unit
// normals spread like sqrt(d_k) and scaling restores 1, unscaled scores saturate softmax, and the
// saturated row's Jacobian shrinks; every bad argument is refused with a message.
#include "experiments.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "attention.h"
#include "random.h"
#include "test_util.h"

namespace {

using abh::test::in_percent;
using abh::test::random_matrix;

using abh::Matrix;

// ---------------------------------------------------------------------------------------------
// Why scale: the variance experiment from "Step 2".

std::vector<double> dot_products(abh::SplitMix64& rng, int d_k, int samples) {
  std::vector<double> out(samples);
  for (double& s : out) {
    double acc = 0.0;
    for (int t = 0; t < d_k; ++t) acc += double(rng.normal()) * double(rng.normal());
    s = acc;
  }
  return out;
}

double stddev(const std::vector<double>& xs) {
  double mean = 0.0, sq = 0.0;
  for (double x : xs) mean += x;
  mean /= double(xs.size());
  for (double x : xs) sq += (x - mean) * (x - mean);
  return std::sqrt(sq / double(xs.size() - 1));
}

// "d_k = 64 -> raw scores std ~ 8; after / sqrt(64) = 8 -> std ~ 1"
TEST(ScalingExperiment, DotProductStdGrowsLikeSqrtDkAndScalingRestoresOne) {
  abh::SplitMix64 rng(64);
  const std::vector<double> raw = dot_products(rng, 64, 20000);
  const double raw_std = stddev(raw);
  EXPECT_GE(raw_std, 7.0);
  EXPECT_LE(raw_std, 9.0);
  std::vector<double> scaled = raw;
  for (double& s : scaled) s /= std::sqrt(64.0);
  const double scaled_std = stddev(scaled);
  EXPECT_GE(scaled_std, 0.9);
  EXPECT_LE(scaled_std, 1.1);

  // The growth is sqrt(d_k) at other widths too, not a coincidence at 64.
  for (int d_k : {1, 4, 16, 256}) {
    const double s = stddev(dot_products(rng, d_k, 8000));
    EXPECT_NEAR(s / std::sqrt(double(d_k)), 1.0, 0.06) << "d_k=" << d_k;
  }
}

// The consequence the article draws: unscaled d_k = 64 scores saturate the softmax.
TEST(ScalingExperiment, UnscaledScoresSaturateSoftmax) {
  abh::SplitMix64 rng(65);
  const int n = 8, d_k = 64, trials = 200;
  double mean_max_unscaled = 0.0, mean_max_scaled = 0.0;
  for (int t = 0; t < trials; ++t) {
    const Matrix Q = random_matrix(rng, 1, d_k), K = random_matrix(rng, n, d_k), V = Matrix::Zero(n, 1);
    abh::AttentionOptions off;
    off.scale = false;
    mean_max_unscaled += abh::attention(Q, K, V, nullptr, off).value().weights.maxCoeff() / trials;
    mean_max_scaled += abh::attention(Q, K, V).value().weights.maxCoeff() / trials;
  }
  EXPECT_GT(mean_max_unscaled, 0.75);  // nearly one-hot on average (measured ~0.86)
  EXPECT_LT(mean_max_scaled, 0.5);     // a soft distribution (measured ~0.34)
}

// How far a sample std of n draws may stray from sigma: 5 standard errors, sigma * sqrt((kurtosis - 1) / (4 n)).
// A sum of d_k products of two independent Irwin-Hall normals (fourth moment 2.9 each, random.h) has
// kurtosis 3 + (2.9^2 - 3) / d_k.
double sample_std_tolerance(double sigma, int d_k, int n) {
  const double kurtosis = 3.0 + (2.9 * 2.9 - 3.0) / d_k;
  return 5.0 * sigma * std::sqrt((kurtosis - 1.0) / (4.0 * n));
}

// The page's live version of the experiment (experiments.h) must tell the same story.
TEST(ScalingExperiment, DotProductSamplesReportSqrtDkSpreadAndUnitScaledSpread) {
  const int n = 20000;
  const auto result = abh::dot_product_samples(64, n, 1);
  ASSERT_TRUE(result.ok()) << result.error();
  const abh::DotProductSamples& s = result.value();
  EXPECT_EQ(s.d_k, 64);
  ASSERT_EQ(s.raw.size(), std::size_t(n));
  ASSERT_EQ(s.scaled.size(), std::size_t(n));
  EXPECT_NEAR(s.raw_std, 8.0, sample_std_tolerance(8.0, 64, n));  // about 0.2
  EXPECT_NEAR(s.scaled_std, 1.0, sample_std_tolerance(1.0, 64, n));
  for (std::size_t i = 0; i < s.raw.size(); ++i) ASSERT_EQ(s.scaled[i], s.raw[i] * 0.125f);  // 1/sqrt(64) exact
  EXPECT_NEAR(s.raw_std / s.scaled_std, 8.0, 1e-5);
  // Reported stds agree with the samples they summarise.
  std::vector<double> raw(s.raw.begin(), s.raw.end());
  EXPECT_NEAR(stddev(raw), s.raw_std, 1e-3 * s.raw_std);
  // Each sample is the dot product of its block's two d_k-vectors of normals, recomputed in double.
  const auto key = static_cast<std::uint32_t>(abh::stream_seed(1, 0x444F5453ull << 32));
  for (int sample : {0, 1, n - 1}) {
    std::vector<float> qk(128);
    abh::fill_normals(abh::block_of(key, std::uint32_t(sample)), qk.data(), 128);
    double dot = 0.0;
    for (int t = 0; t < 64; ++t) dot += double(qk[t]) * double(qk[64 + t]);
    EXPECT_NEAR(s.raw[sample], dot, 1e-5 * std::max(1.0, std::abs(dot))) << "sample " << sample;
  }
  // Deterministic per seed.
  const auto again = abh::dot_product_samples(64, n, 1), other = abh::dot_product_samples(64, n, 2);
  EXPECT_EQ(again.value().raw, s.raw);
  EXPECT_NE(other.value().raw, s.raw);
  // d_k = 1: no spread to undo.
  const auto one = abh::dot_product_samples(1, n, 3);
  ASSERT_TRUE(one.ok());
  EXPECT_NEAR(one.value().raw_std, 1.0, sample_std_tolerance(1.0, 1, n));  // about 0.05
  EXPECT_EQ(one.value().raw, one.value().scaled);
  // The page's size, 4,000 samples at d_k 4 and 64, within its own (wider) tolerance.
  for (int d_k : {4, 64}) {
    const auto page = abh::dot_product_samples(d_k, 4000, 1);
    const double sigma = std::sqrt(double(d_k));
    EXPECT_NEAR(page.value().raw_std, sigma, sample_std_tolerance(sigma, d_k, 4000)) << "d_k " << d_k;
  }
}

TEST(ScalingExperiment, DotProductSamplesRejectBadArguments) {
  EXPECT_CONTAINS(abh::dot_product_samples(0, 100, 1).error(), "d_k must be from 1 to 4096 (got 0)");
  EXPECT_CONTAINS(abh::dot_product_samples(4097, 100, 1).error(), "(got 4097)");
  EXPECT_CONTAINS(abh::dot_product_samples(-3, 100, 1).error(), "(got -3)");
  EXPECT_CONTAINS(abh::dot_product_samples(8, 1, 1).error(), "samples must be from 2 to 200000 (got 1)");
  EXPECT_CONTAINS(abh::dot_product_samples(8, 200001, 1).error(), "(got 200001)");
  EXPECT_TRUE(abh::dot_product_samples(4096, 2, 1).ok());
}

// ||diag(p) - p p^T||_F computed independently, for the gradient-flow figure.
double jacobian_frobenius(const std::vector<double>& p) {
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = 0; j < p.size(); ++j) {
      const double entry = (i == j ? p[i] : 0.0) - p[i] * p[j];
      sum += entry * entry;
    }
  return std::sqrt(sum);
}

// "its gradients are almost exactly zero": the article's [1,2,3] row, soft vs times 8.
TEST(ScalingExperiment, SoftmaxSaturationShrinksTheJacobian) {
  const auto soft = abh::softmax_saturation({1.0f, 2.0f, 3.0f}, 1.0f);
  const auto hard = abh::softmax_saturation({1.0f, 2.0f, 3.0f}, 8.0f);
  ASSERT_TRUE(soft.ok()) << soft.error();
  ASSERT_TRUE(hard.ok()) << hard.error();
  const std::vector<float>& p = soft.value().probabilities;
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(in_percent(p), (std::vector<long>{9, 24, 67}));
  EXPECT_GT(hard.value().probabilities[2], 0.999f);
  const std::vector<double> pd(p.begin(), p.end());
  const std::vector<double> hd(hard.value().probabilities.begin(), hard.value().probabilities.end());
  EXPECT_NEAR(soft.value().jacobian_norm, jacobian_frobenius(pd), 1e-9);
  EXPECT_NEAR(hard.value().jacobian_norm, jacobian_frobenius(hd), 1e-9);
  EXPECT_GT(soft.value().jacobian_norm, 0.3);
  EXPECT_LT(hard.value().jacobian_norm, 1e-3);  // ~500x less gradient flows through the saturated row
  // A uniform row is the least saturated: n = 2 gives p = [1/2, 1/2], Jacobian norm exactly 1/2.
  EXPECT_NEAR(abh::softmax_saturation({4.0f, 4.0f}, 3.0f).value().jacobian_norm, 0.5, 1e-7);
}

TEST(ScalingExperiment, SoftmaxSaturationRejectsBadArguments) {
  EXPECT_CONTAINS(abh::softmax_saturation({}, 1.0f).error(), "1 to 4096 entries");
  EXPECT_CONTAINS(abh::softmax_saturation(std::vector<float>(4097, 0.0f), 1.0f).error(), "1 to 4096 entries");
  EXPECT_CONTAINS(abh::softmax_saturation({1.0f}, std::numeric_limits<float>::infinity()).error(), "factor");
  EXPECT_CONTAINS(abh::softmax_saturation({1.0f}, std::nanf("")).error(), "factor");
  EXPECT_CONTAINS(abh::softmax_saturation({1.0f, std::nanf("")}, 1.0f).error(), "finite numbers");
}

// A finite row times a finite factor can leave float32's range; the experiment scales in double and
// clamps, so the result is the saturated one-hot softmax, never NaN.
TEST(ScalingExperiment, SoftmaxSaturationWithOverflowingProductIsNotNaN) {
  for (const auto& [row, factor] :
       {std::pair{std::vector<float>{1e30f, 1.0f}, 1e10f}, std::pair{std::vector<float>{3e38f, 1.0f, -3e38f}, 2.0f}}) {
    const auto result = abh::softmax_saturation(row, factor);
    ASSERT_TRUE(result.ok()) << result.error();
    for (float p : result.value().probabilities) EXPECT_FALSE(std::isnan(p));
    EXPECT_FALSE(std::isnan(result.value().jacobian_norm));
    EXPECT_EQ(result.value().probabilities[0], 1.0f);
  }
}

}  // namespace
