// The deterministic generator behind the walkthrough's numbers (random.h): SplitMix64, its normals,
// the token ids, and the embeddings and projections, against values computed independently from the
// published algorithms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "pipeline_test_util.h"
#include "random.h"

namespace {

using namespace abh::test;  // pipeline_test_util.h

using abh::Matrix;

// SplitMix64 (Steele, Lea, Flood 2014) from state 0: the first outputs of Vigna's splitmix64.c.
TEST(Generator, SplitMix64KnownOutputsForSeedZero) {
  abh::SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(rng.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(rng.next(), 0x06C45D188009454Full);
}

// Pins the Irwin-Hall conversion bit for bit (the wasm build must produce the same floats).
TEST(Generator, NormalFirstValuesForSeedZero) {
  abh::SplitMix64 rng(0);
  const std::uint32_t expected[] = {0x3d3e5020u, 0x3fb1045cu, 0x3e0c70a0u};  // 0.0464631, 1.38295, 0.137148
  for (std::uint32_t bits : expected) {
    const float value = rng.normal();
    std::uint32_t got;
    std::memcpy(&got, &value, sizeof got);
    EXPECT_EQ(got, bits);
  }
}

TEST(Generator, NormalHasMeanZeroVarianceOneAndBoundedRange) {
  abh::SplitMix64 rng(2718);
  const int samples = 100000;
  double sum = 0.0, sum_sq = 0.0, fourth = 0.0;
  float lo = 0.0f, hi = 0.0f;
  for (int i = 0; i < samples; ++i) {
    const double x = rng.normal();
    sum += x;
    sum_sq += x * x;
    fourth += x * x * x * x;
    lo = std::min(lo, float(x));
    hi = std::max(hi, float(x));
  }
  const double mean = sum / samples, variance = sum_sq / samples - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(variance, 1.0, 0.02);
  EXPECT_GE(lo, -6.0f);  // Irwin-Hall of 12 is bounded by +-6
  EXPECT_LE(hi, 6.0f);
  EXPECT_LT(lo, -3.5f);  // but the tails are there
  EXPECT_GT(hi, 3.5f);
  EXPECT_NEAR(fourth / samples, 2.9, 0.15);  // kurtosis 3 - 1.2/12 = 2.9: bell-shaped, not uniform (1.8)
}

// Wellons' lowbias32, step by step from its published constants.
TEST(Generator, Lowbias32IsAFinaliserOfTwoMultiplies) {
  for (std::uint32_t x : {0u, 1u, 0x9E3779B9u, 0xFFFFFFFFu}) {
    std::uint64_t y = x;
    y ^= y >> 16;
    y = (y * 0x21F0AAADull) & 0xFFFFFFFFull;
    y ^= y >> 15;
    y = (y * 0x735A2D97ull) & 0xFFFFFFFFull;
    y ^= y >> 15;
    EXPECT_EQ(abh::lowbias32(x), std::uint32_t(y));
  }
  EXPECT_EQ(abh::lowbias32(0), 0u);  // a bijection that keeps 0: hence the Weyl sequence's offsets
  EXPECT_NE(abh::lowbias32(1), abh::lowbias32(2));
}

// fill_normals is Irwin-Hall over the 16-bit halves of 6 counter words, recomputed here word by word,
// whatever the lanes a compiler drew them in.
TEST(Generator, FillNormalsSumsTwelveSixteenBitHalvesOfSixCounterWords) {
  std::vector<float> out(1001);
  abh::fill_normals(12345u, out.data(), int(out.size()));
  for (std::uint32_t i = 0; i < out.size(); ++i) {
    std::int64_t sum = 0;
    for (std::uint32_t word = 0; word < 6; ++word) {
      const std::uint32_t bits = abh::lowbias32(12345u + (6 * i + word) * 0x9E3779B9u);
      sum += (bits & 0xFFFF) + (bits >> 16);
    }
    ASSERT_EQ(out[i], float(double(sum - 6 * 65535) / 65536.0)) << "normal " << i;
  }
  // A shorter fill is a prefix: any normal depends on its index only.
  std::vector<float> head(7);
  abh::fill_normals(12345u, head.data(), 7);
  EXPECT_TRUE(std::equal(head.begin(), head.end(), out.begin()));
  EXPECT_NE(abh::block_of(1, 0), abh::block_of(1, 1));
  EXPECT_NE(abh::block_of(1, 0), abh::block_of(2, 0));
}

TEST(Generator, FillNormalsHaveMeanZeroVarianceOneAndBoundedRange) {
  // 100 blocks of 1,000, as the experiments draw them.
  const int blocks = 100, per_block = 1000, samples = blocks * per_block;
  std::vector<float> out(per_block);
  double sum = 0.0, sum_sq = 0.0, fourth = 0.0;
  float lo = 0.0f, hi = 0.0f;
  for (int b = 0; b < blocks; ++b) {
    abh::fill_normals(abh::block_of(2718, std::uint32_t(b)), out.data(), per_block);
    for (float value : out) {
      const double x = value;
      sum += x;
      sum_sq += x * x;
      fourth += x * x * x * x;
      lo = std::min(lo, value);
      hi = std::max(hi, value);
    }
  }
  const double mean = sum / samples, variance = sum_sq / samples - mean * mean;
  // 5 standard errors at n = 100,000: the mean's 1 / sqrt(n), the variance's sqrt((2.9 - 1) / n).
  EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt(double(samples)));
  EXPECT_NEAR(variance, 1.0, 5.0 * std::sqrt(1.9 / samples));
  EXPECT_GE(lo, -6.0f);
  EXPECT_LE(hi, 6.0f);
  EXPECT_LT(lo, -3.5f);
  EXPECT_GT(hi, 3.5f);
  EXPECT_NEAR(fourth / samples, 2.9, 0.15);  // the same bell as normal()
}

TEST(Generator, TokenIdIsFnv1a32) {
  EXPECT_EQ(abh::token_id(""), 2166136261u);
  EXPECT_EQ(abh::token_id("a"), 0xE40C292Cu);
  EXPECT_EQ(abh::token_id("foobar"), 0xBF9CF968u);        // published FNV-1a test vector
  EXPECT_NE(abh::token_id("The"), abh::token_id("the"));  // case-sensitive: callers lowercase first
}

// Pins the generated walkthrough numbers (seed 1), computed by an independent re-implementation of
// stream_seed + SplitMix64 + Irwin-Hall: a change here silently changes every shared link.
TEST(Generator, PinnedEmbeddingAndProjectionValues) {
  const Matrix X = abh::generate_embeddings(ids_of({"the", "animal"}), 8, 1);
  EXPECT_EQ(X(0, 0), -0.7410503029823303f);
  EXPECT_EQ(X(0, 1), -0.0719296932220459f);
  EXPECT_EQ(X(0, 2), -2.614650249481201f);
  EXPECT_EQ(X(1, 0), 2.02685284614563f);
  EXPECT_EQ(X(1, 1), 0.20619595050811768f);
  const Matrix W_q = abh::generate_projection('q', 8, 1);
  EXPECT_EQ(W_q(0, 0), 0.12210213392972946f);
  EXPECT_EQ(W_q(0, 1), -0.3917163908481598f);
  EXPECT_EQ(W_q(0, 2), -0.465246319770813f);
}

// "changing d_model does not reshuffle the numbers of an unrelated matrix": per-token streams.
TEST(Generator, EmbeddingRowsArePrefixStableAcrossDModelAndIndependentOfOrder) {
  const auto ids = ids_of(kSentence);
  const Matrix small = abh::generate_embeddings(ids, 8, 3), large = abh::generate_embeddings(ids, 16, 3);
  EXPECT_EQ(large.leftCols(8), small);
  std::vector<std::uint32_t> reversed(ids.rbegin(), ids.rend());
  const Matrix r = abh::generate_embeddings(reversed, 8, 3);
  for (int i = 0; i < int(ids.size()); ++i) EXPECT_EQ(r.row(i), small.row(int(ids.size()) - 1 - i));
}

TEST(Generator, ProjectionsAreDistinctAndScaledByFanIn) {
  const int d = 64;
  const Matrix q = abh::generate_projection('q', d, 9), k = abh::generate_projection('k', d, 9);
  EXPECT_FALSE(same_bits(q, k));
  EXPECT_TRUE(same_bits(q, abh::generate_projection('q', d, 9)));
  const double variance = q.cast<double>().array().square().mean();
  EXPECT_NEAR(variance * d, 1.0, 0.08);  // N(0,1)/sqrt(d_model): 4096 samples
}

}  // namespace
