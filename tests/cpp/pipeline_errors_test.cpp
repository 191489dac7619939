// run_pipeline()'s inputs from the reader: given matrices override the generated ones, numbers near
// float32's limits are repaired or refused, and every invalid configuration is a message, checked
// before anything is allocated.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attention.h"
#include "engine_limits.h"
#include "pipeline.h"
#include "pipeline_test_util.h"
#include "random.h"
#include "test_util.h"

namespace {

using namespace abh::test;  // test_util.h, pipeline_test_util.h

using abh::Matrix;
using abh::PipelineConfig;
using abh::PipelineSnapshot;

// ---------------------------------------------------------------------------------------------
// Explicit matrices (reader edits and presets).

TEST(PipelineExplicit, GivenMatricesOverrideGenerationOthersStayGenerated) {
  const PipelineSnapshot generated = run_ok(default_config());
  PipelineConfig config = default_config();
  abh::SplitMix64 rng(99);
  config.X.resize(9 * 8);
  config.W_v.resize(8 * 8);
  for (float& v : config.X) v = rng.normal();
  for (float& v : config.W_v) v = rng.normal() * 0.25f;
  const PipelineSnapshot s = run_ok(config);
  EXPECT_TRUE(same_bits(s.X, Eigen::Map<const Matrix>(config.X.data(), 9, 8)));
  EXPECT_TRUE(same_bits(s.W_v, Eigen::Map<const Matrix>(config.W_v.data(), 8, 8)));
  EXPECT_TRUE(same_bits(s.W_q, generated.W_q));  // not given: generated from the seed as before
  EXPECT_TRUE(same_bits(s.W_k, generated.W_k));
  EXPECT_TRUE(same_bits(s.W_o, generated.W_o));
  EXPECT_FALSE(same_bits(s.X, generated.X));
  EXPECT_LE(relative_error(s.V, s.X.cast<double>() * s.W_v.cast<double>()), 1e-6);
}

// Hand-made numbers the reader can check: identity projections, two one-hot tokens.
TEST(PipelineExplicit, HandWorkedTwoTokenExample) {
  PipelineConfig config;
  config.token_ids = ids_of({"a", "b"});
  config.d_model = 2;
  config.heads = 1;
  config.scale = false;
  config.X = {1.0f, 0.5f, 1.1f, 0.4f};
  config.W_q = config.W_k = config.W_v = config.W_o = {1.0f, 0.0f, 0.0f, 1.0f};
  const PipelineSnapshot s = run_ok(config);
  EXPECT_NEAR(s.scores.at(0, 0, 1), 1.30f, 1e-6);  // the article's q1 · k1 = 1.0(1.1) + 0.5(0.4)
  EXPECT_NEAR(s.scores.at(0, 0, 0), 1.25f, 1e-6);
  const double w01 = 1.0 / (1.0 + std::exp(1.25 - 1.30));
  EXPECT_NEAR(s.weights.at(0, 0, 1), w01, 1e-6);
  EXPECT_NEAR(s.output(0, 0), (1 - w01) * 1.0 + w01 * 1.1, 1e-6);
}

TEST(PipelineExplicit, WrongSizesAreErrorsNamingTheMatrix) {
  const struct {
    std::vector<float> PipelineConfig::*field;
    std::size_t size;
    const char* name;
    const char* detail;
  } cases[] = {
      {&PipelineConfig::X, 71, "X", "X must have 9 x 8 = 72 values (got 71)"},
      {&PipelineConfig::W_q, 63, "W_q", "W_q must have 8 x 8 = 64 values (got 63)"},
      {&PipelineConfig::W_k, 65, "W_k", "(got 65)"},
      {&PipelineConfig::W_v, 1, "W_v", "(got 1)"},
      {&PipelineConfig::W_o, 72, "W_o", "(got 72)"},
  };
  for (const auto& c : cases) {
    PipelineConfig config = default_config();
    (config.*c.field).assign(c.size, 0.5f);
    const auto result = abh::run_pipeline(config);
    ASSERT_FALSE(result.ok()) << c.name;
    EXPECT_CONTAINS(result.error(), c.name);
    EXPECT_CONTAINS(result.error(), c.detail);
    EXPECT_EQ(abh::check_pipeline_config(config).error(), result.error());
  }
  PipelineConfig config = default_config();
  config.mask.assign(80, 1);
  const auto result = abh::run_pipeline(config);
  ASSERT_FALSE(result.ok());
  EXPECT_CONTAINS(result.error(), "mask must have n x n = 81 entries (got 80)");
}

TEST(PipelineExplicit, NonFiniteValuesAreErrorsWithPosition) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  {
    PipelineConfig config = default_config();
    config.X.assign(72, 1.0f);
    config.X[2 * 8 + 5] = nan;  // row 3, column 6 (1-based for the reader)
    const auto result = abh::run_pipeline(config);
    ASSERT_FALSE(result.ok());
    EXPECT_CONTAINS(result.error(), "X has a value that is not a finite number at row 3, column 6");
  }
  for (auto [field, name] : {std::pair{&PipelineConfig::W_q, "W_q"},
                             {&PipelineConfig::W_k, "W_k"},
                             {&PipelineConfig::W_v, "W_v"},
                             {&PipelineConfig::W_o, "W_o"}}) {
    PipelineConfig config = default_config();
    (config.*field).assign(64, 0.1f);
    (config.*field)[63] = -inf;
    const auto result = abh::run_pipeline(config);
    ASSERT_FALSE(result.ok()) << name;
    EXPECT_CONTAINS(result.error(), std::string(name) + " has a value that is not a finite number at row 8, column 8");
  }
}

// ---------------------------------------------------------------------------------------------
// Reader-typed numbers near float32's limits: repaired where possible, otherwise a message.

TEST(PipelineOverflow, OverflowingScoresAreRepairedAndStayNaNFree) {
  PipelineConfig config;
  config.token_ids = ids_of({"big", "small"});
  config.d_model = 2;
  config.heads = 1;
  config.X = {2e19f, 2e19f, 1.0f, -1.0f};  // finite, but "big" . "big" = 8e38 overflows float32
  config.W_q = config.W_k = config.W_v = config.W_o = {1.0f, 0.0f, 0.0f, 1.0f};
  const auto result = abh::run_pipeline(config);
  ASSERT_TRUE(result.ok()) << result.error();
  const PipelineSnapshot& s = result.value();
  EXPECT_TRUE(snapshot_all_finite(s));
  EXPECT_EQ(s.scores.at(0, 0, 0), std::numeric_limits<float>::max());  // clamped, not inf
  EXPECT_EQ(s.scores.at(0, 0, 1), 0.0f);                               // 2e19 - 2e19, exact
  EXPECT_EQ(s.weights.at(0, 0, 0), 1.0f);
  for (int i = 0; i < 2; ++i) {
    double sum = 0;
    for (int j = 0; j < 2; ++j) sum += s.weights.at(0, i, j);
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
}

TEST(PipelineOverflow, OverflowingProjectionOrOutputIsAnErrorMessage) {
  PipelineConfig config = default_config();
  config.X.assign(72, 1e30f);
  config.W_k.assign(64, 1e10f);  // 8 * 1e30 * 1e10 overflows
  auto result = abh::run_pipeline(config);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), abh::kProjectionOverflow);
  EXPECT_CONTAINS(result.error(), "too large");

  config = default_config();
  config.W_o.assign(64, 3e38f);  // merged entries are O(1); 8 of them times 3e38 overflow
  result = abh::run_pipeline(config);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), abh::kOutputOverflow);
}

// ---------------------------------------------------------------------------------------------
// Invalid configurations are messages for the reader, checked before anything is allocated.

std::string error_of(const PipelineConfig& config) {
  const auto result = abh::run_pipeline(config);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(abh::check_pipeline_config(config).error(), result.error());
  return result.error();
}

TEST(PipelineConfigErrors, TokenCount) {
  PipelineConfig config = default_config();
  config.token_ids.clear();
  EXPECT_CONTAINS(error_of(config), "at least one token");
  config.token_ids.assign(abh::limits::kMaxPipelineTokens + 1, 7u);
  EXPECT_CONTAINS(error_of(config), "at most 512 tokens (got 513)");
  config.token_ids.assign(abh::limits::kMaxPipelineTokens, 7u);
  EXPECT_EQ(abh::check_pipeline_config(config).error(), "");
}

TEST(PipelineConfigErrors, DModelBounds) {
  PipelineConfig config = default_config();
  config.d_model = 0;
  EXPECT_CONTAINS(error_of(config), "d_model must be at least 1 (got 0)");
  config.d_model = -8;
  EXPECT_CONTAINS(error_of(config), "d_model must be at least 1 (got -8)");
  config.d_model = abh::limits::kMaxDModel + 2;
  EXPECT_CONTAINS(error_of(config), "d_model is limited to 1024 (got 1026)");
  config.d_model = abh::limits::kMaxDModel;
  EXPECT_EQ(abh::check_pipeline_config(config).error(), "");
}

TEST(PipelineConfigErrors, HeadCount) {
  PipelineConfig config = default_config();
  config.heads = 3;
  EXPECT_CONTAINS(error_of(config), "d_model (8) must be divisible by the number of heads (3)");
  config.heads = 0;
  EXPECT_CONTAINS(error_of(config), "at least 1 (got 0)");
  config.heads = -2;
  EXPECT_CONTAINS(error_of(config), "at least 1 (got -2)");
  config.d_model = 256;
  config.heads = 128;  // divides d_model but exceeds kMaxHeads
  EXPECT_CONTAINS(error_of(config), "heads is limited to 64");
  config.heads = 64;
  EXPECT_EQ(abh::check_pipeline_config(config).error(), "");
}

TEST(PipelineConfigErrors, HeadScoreBudget) {
  PipelineConfig config;
  config.token_ids.assign(512, 1u);
  config.d_model = 16;
  config.heads = 16;  // 16 * 512 * 512 = 4M > 2M
  EXPECT_EQ(error_of(config),
            "heads x n x n = 4194304 attention weights would exceed the walkthrough's budget of 2097152");
  config.token_ids.assign(512, 1u);
  config.d_model = 16;
  config.heads = 8;  // 8 * 512 * 512 = 2^21, exactly the budget
  EXPECT_EQ(abh::check_pipeline_config(config).error(), "");
}

// The sizes the wasm bindings refuse before staging anything: each matrix by name, the mask, n.
TEST(PipelineConfigErrors, StagedSizes) {
  using abh::limits::kMaxDModel;
  using abh::limits::kMaxPipelineTokens;
  const std::int64_t most_w = std::int64_t(kMaxDModel) * kMaxDModel, none[4] = {0, 0, 0, 0};
  EXPECT_EQ(abh::check_pipeline_sizes(1, 0, none, 0).error(), "");
  EXPECT_EQ(abh::check_pipeline_sizes(0, 0, none, 0).error(), "there must be at least one token");
  EXPECT_EQ(abh::check_pipeline_sizes(600, 0, none, 0).error(), "the walkthrough shows at most 512 tokens (got 600)");
  EXPECT_EQ(abh::check_pipeline_sizes(1, 3000000, none, 0).error(),
            "X has 3000000 values; the walkthrough accepts at most 524288");
  EXPECT_EQ(abh::check_pipeline_sizes(1, std::int64_t(kMaxPipelineTokens) * kMaxDModel, none, 0).error(), "");
  const std::int64_t big_wv[4] = {most_w, most_w, most_w + 1, 0};
  EXPECT_EQ(abh::check_pipeline_sizes(1, 0, big_wv, 0).error(),
            "W_v has 1048577 values; the walkthrough accepts at most 1048576");
  EXPECT_EQ(abh::check_pipeline_sizes(1, 0, none, 262145).error(),
            "the mask has 262145 entries; the walkthrough accepts at most 262144");
  // check_pipeline_config applies the same rules.
  PipelineConfig config = default_config();
  config.X.assign(524289, 0.0f);
  EXPECT_EQ(abh::check_pipeline_config(config).error(), "X has 524289 values; the walkthrough accepts at most 524288");
}

}  // namespace
