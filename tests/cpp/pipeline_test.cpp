// run_pipeline(): every intermediate of the walkthrough, checked against plain Eigen and the
// double-precision reference; config validation; and the deterministic generator behind it.
// Length (~950 lines): one GoogleTest suite per module (pipeline.h), named in tests/README.md; its
// sections (intermediates, level sharing, validation, the generator) share the helpers at its top.
#include "pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "attention.h"
#include "engine_limits.h"
#include "kernels.h"
#include "random.h"
#include "reference.h"
#include "test_util.h"

namespace {

using abh::test::relative_error;

using abh::Mask;
using abh::Matrix;
using abh::PipelineConfig;
using abh::PipelineSnapshot;
using abh::Tensor3;
using MatrixD = abh::reference::MatrixD;

const std::vector<std::string> kSentence = {"the",     "animal", "crossed", "the",   "road",
                                            "because", "it",     "was",     "tired."};

std::vector<std::uint32_t> ids_of(const std::vector<std::string>& words) {
  std::vector<std::uint32_t> ids;
  for (const auto& w : words) ids.push_back(abh::token_id(w));
  return ids;
}

PipelineConfig default_config() {
  PipelineConfig config;
  config.token_ids = ids_of(kSentence);
  config.d_model = 8;
  config.heads = 2;
  return config;
}

PipelineSnapshot run_ok(const PipelineConfig& config) {
  auto result = abh::run_pipeline(config);
  EXPECT_TRUE(result.ok()) << result.error();
  return result.value();
}

// check(s, head) on the default configuration, without and with the causal mask, with each head in
// turn as the comparison head (the head whose what-if tables the snapshot carries).
template <class Check>
void for_each_comparison_head(Check&& check) {
  for (bool causal : {false, true}) {
    PipelineConfig config = default_config();
    config.causal = causal;
    for (int head = 0; head < config.heads; ++head) {
      config.comparison_head = head;
      check(run_ok(config), head);
    }
  }
}

// One head of a (h, r, c) tensor as an Eigen matrix.
Matrix head_of(const Tensor3& t, int head) { return Eigen::Map<const Matrix>(t.head(head), t.rows, t.cols); }

void expect_shape(const Tensor3& t, int h, int r, int c, const char* name) {
  EXPECT_EQ(t.heads, h) << name;
  EXPECT_EQ(t.rows, r) << name;
  EXPECT_EQ(t.cols, c) << name;
  EXPECT_EQ(t.data.size(), std::size_t(h) * r * c) << name;
}

template <class M>
void expect_shape(const M& m, int r, int c, const char* name) {
  EXPECT_EQ(m.rows(), r) << name;
  EXPECT_EQ(m.cols(), c) << name;
}

bool all_finite(const Tensor3& t) {
  for (float v : t.data)
    if (!std::isfinite(v)) return false;
  return true;
}

bool snapshot_all_finite(const PipelineSnapshot& s) {
  for (const Matrix* m : {&s.X, &s.W_q, &s.W_k, &s.W_v, &s.W_o, &s.Q, &s.K, &s.V, &s.merged, &s.output,
                          &s.weights_unscaled, &s.weights_causal, &s.weights_masked_after})
    if (!m->allFinite()) return false;
  for (const Tensor3* t :
       {&s.Q_heads, &s.K_heads, &s.V_heads, &s.scores, &s.scores_scaled, &s.weights, &s.head_outputs})
    if (!all_finite(*t)) return false;
  return std::isfinite(s.scale_factor);
}

bool same_bits(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(float) * std::size_t(a.size())) == 0;
}

bool same_bits(const Tensor3& a, const Tensor3& b) {
  return a.heads == b.heads && a.rows == b.rows && a.cols == b.cols && a.data.size() == b.data.size() &&
         std::memcmp(a.data.data(), b.data.data(), sizeof(float) * a.data.size()) == 0;
}

// ---------------------------------------------------------------------------------------------
// The default walkthrough.

TEST(Pipeline, DefaultSentenceHasEveryFieldShapedAsDocumented) {
  const PipelineSnapshot s = run_ok(default_config());
  const int n = 9, d = 8, h = 2, d_k = 4;
  EXPECT_EQ(s.n, n);
  EXPECT_EQ(s.d_model, d);
  EXPECT_EQ(s.heads, h);
  EXPECT_EQ(s.d_k, d_k);
  EXPECT_EQ(s.scale_factor, 0.5f);  // 1/sqrt(4), exact
  expect_shape(s.X, n, d, "X");
  expect_shape(s.W_q, d, d, "W_q");
  expect_shape(s.W_k, d, d, "W_k");
  expect_shape(s.W_v, d, d, "W_v");
  expect_shape(s.W_o, d, d, "W_o");
  expect_shape(s.Q, n, d, "Q");
  expect_shape(s.K, n, d, "K");
  expect_shape(s.V, n, d, "V");
  expect_shape(s.Q_heads, h, n, d_k, "Q_heads");
  expect_shape(s.K_heads, h, n, d_k, "K_heads");
  expect_shape(s.V_heads, h, n, d_k, "V_heads");
  expect_shape(s.scores, h, n, n, "scores");
  expect_shape(s.scores_scaled, h, n, n, "scores_scaled");
  expect_shape(s.mask, n, n, "mask");
  expect_shape(s.weights, h, n, n, "weights");
  EXPECT_EQ(s.fully_masked_rows.size(), std::size_t(n));
  expect_shape(s.head_outputs, h, n, d_k, "head_outputs");
  expect_shape(s.merged, n, d, "merged");
  expect_shape(s.output, n, d, "output");
  EXPECT_EQ(s.comparison_head, 0);
  expect_shape(s.weights_unscaled, n, n, "weights_unscaled");
  expect_shape(s.weights_causal, n, n, "weights_causal");
  expect_shape(s.weights_masked_after, n, n, "weights_masked_after");
  // No mask configured and causal off: the mask in force is all ones, no row is blocked.
  EXPECT_TRUE((s.mask.array() == 1).all());
  for (std::uint8_t flag : s.fully_masked_rows) EXPECT_EQ(flag, 0);
  EXPECT_TRUE(snapshot_all_finite(s));
}

TEST(Pipeline, WeightRowsSumToOne) {
  const PipelineSnapshot s = run_ok(default_config());
  const auto expect_distributions = [&](const Matrix& weights, const std::string& what) {
    for (int i = 0; i < s.n; ++i) {
      EXPECT_TRUE((weights.row(i).array() >= 0.0f).all()) << what << " row " << i;
      EXPECT_NEAR(weights.row(i).cast<double>().sum(), 1.0, 1e-6) << what << " row " << i;
    }
  };
  for (int head = 0; head < s.heads; ++head)
    expect_distributions(head_of(s.weights, head), "weights head " + std::to_string(head));
  expect_distributions(s.weights_unscaled, "weights_unscaled");
  expect_distributions(s.weights_causal, "weights_causal");
}

TEST(Pipeline, ProjectionsAreXTimesW) {
  const PipelineSnapshot s = run_ok(default_config());
  const MatrixD X = s.X.cast<double>();
  EXPECT_LE(relative_error(s.Q, X * s.W_q.cast<double>()), 1e-6);
  EXPECT_LE(relative_error(s.K, X * s.W_k.cast<double>()), 1e-6);
  EXPECT_LE(relative_error(s.V, X * s.W_v.cast<double>()), 1e-6);
  // Three different projections, so three different matrices.
  EXPECT_FALSE(same_bits(s.Q, s.K));
  EXPECT_FALSE(same_bits(s.K, s.V));
}

// The article's reshape(n, h, d_k).transpose(1, 0, 2): head h, row r, col c is Q[r, h*d_k + c].
TEST(Pipeline, HeadsAreTheReshapeTransposeOfProjections) {
  const PipelineSnapshot s = run_ok(default_config());
  for (int head = 0; head < s.heads; ++head)
    for (int r = 0; r < s.n; ++r)
      for (int c = 0; c < s.d_k; ++c) {
        EXPECT_EQ(s.Q_heads.at(head, r, c), s.Q(r, head * s.d_k + c));
        EXPECT_EQ(s.K_heads.at(head, r, c), s.K(r, head * s.d_k + c));
        EXPECT_EQ(s.V_heads.at(head, r, c), s.V(r, head * s.d_k + c));
      }
}

TEST(Pipeline, ScoresAreQKtAndScaledScoresAreScoresTimesScaleFactor) {
  const PipelineSnapshot s = run_ok(default_config());
  for (int head = 0; head < s.heads; ++head) {
    const MatrixD want = head_of(s.Q_heads, head).cast<double>() * head_of(s.K_heads, head).cast<double>().transpose();
    EXPECT_LE(relative_error(head_of(s.scores, head), want), 1e-6);
  }
  for (std::size_t i = 0; i < s.scores.data.size(); ++i)
    ASSERT_EQ(s.scores_scaled.data[i], s.scores.data[i] * s.scale_factor) << "entry " << i;
}

TEST(Pipeline, WeightsAndHeadOutputsMatchReferencePerHead) {
  for (bool causal : {false, true})
    for (bool scale : {true, false}) {
      PipelineConfig config = default_config();
      config.causal = causal;
      config.scale = scale;
      const PipelineSnapshot s = run_ok(config);
      for (int head = 0; head < s.heads; ++head) {
        const auto [ref_out, ref_w] =
            abh::reference::attention(head_of(s.Q_heads, head).cast<double>(), head_of(s.K_heads, head).cast<double>(),
                                      head_of(s.V_heads, head).cast<double>(), &s.mask, scale);
        EXPECT_LE(relative_error(head_of(s.weights, head), ref_w), 1e-5) << "causal=" << causal << " head " << head;
        EXPECT_LE(relative_error(head_of(s.head_outputs, head), ref_out), 1e-5) << "causal=" << causal;
      }
    }
}

// The pipeline and multi_head_attention() are two code paths for the same maths.
TEST(Pipeline, AgreesWithMultiHeadAttentionAndItsReference) {
  for (bool causal : {false, true}) {
    PipelineConfig config = default_config();
    config.causal = causal;
    const PipelineSnapshot s = run_ok(config);
    const auto [ref_out, ref_w] =
        abh::reference::multi_head_attention(s.X.cast<double>(), s.W_q.cast<double>(), s.W_k.cast<double>(),
                                             s.W_v.cast<double>(), s.W_o.cast<double>(), s.heads, causal);
    EXPECT_LE(relative_error(s.output, ref_out), 1e-5);
    const auto mha = abh::multi_head_attention(s.X, s.W_q, s.W_k, s.W_v, s.W_o, s.heads, causal);
    ASSERT_TRUE(mha.ok()) << mha.error();
    EXPECT_LE(relative_error(s.output, mha.value().output.cast<double>()), 1e-5);
  }
}

TEST(Pipeline, MergedIsConcatOfHeadsAndOutputIsMergedTimesWo) {
  const PipelineSnapshot s = run_ok(default_config());
  for (int head = 0; head < s.heads; ++head)
    for (int r = 0; r < s.n; ++r)
      for (int c = 0; c < s.d_k; ++c) EXPECT_EQ(s.merged(r, head * s.d_k + c), s.head_outputs.at(head, r, c));
  EXPECT_LE(relative_error(s.output, s.merged.cast<double>() * s.W_o.cast<double>()), 1e-6);
}

// "The same word gets the same embedding row wherever it stands in the sentence."
TEST(Pipeline, RepeatedTokenHasIdenticalEmbeddingAndAttention) {
  const PipelineSnapshot s = run_ok(default_config());
  ASSERT_EQ(kSentence[0], kSentence[3]);
  EXPECT_EQ(s.X.row(0), s.X.row(3));
  EXPECT_EQ(s.Q.row(0), s.Q.row(3));
  EXPECT_NE(s.X.row(0), s.X.row(1));
  // Without a mask the two "the" queries see the same keys, so their attention rows coincide too.
  for (int head = 0; head < s.heads; ++head)
    EXPECT_EQ(head_of(s.weights, head).row(0), head_of(s.weights, head).row(3));
  // The embedding of a word does not depend on its neighbours.
  const Matrix alone = abh::generate_embeddings({abh::token_id("it")}, 8, 1);
  EXPECT_EQ(alone.row(0), s.X.row(6));
}

// A seed is a link on the page: replaying it must reproduce every number bit for bit.
TEST(Pipeline, SameSeedGivesBitIdenticalSnapshotDifferentSeedDiffers) {
  PipelineConfig config = default_config();
  config.seed = 12345;
  const PipelineSnapshot a = run_ok(config), b = run_ok(config);
  for (auto field : {&PipelineSnapshot::X, &PipelineSnapshot::W_q, &PipelineSnapshot::W_k, &PipelineSnapshot::W_v,
                     &PipelineSnapshot::W_o, &PipelineSnapshot::Q, &PipelineSnapshot::K, &PipelineSnapshot::V,
                     &PipelineSnapshot::merged, &PipelineSnapshot::output, &PipelineSnapshot::weights_unscaled,
                     &PipelineSnapshot::weights_causal, &PipelineSnapshot::weights_masked_after})
    EXPECT_TRUE(same_bits(a.*field, b.*field));
  for (auto field :
       {&PipelineSnapshot::Q_heads, &PipelineSnapshot::K_heads, &PipelineSnapshot::V_heads, &PipelineSnapshot::scores,
        &PipelineSnapshot::scores_scaled, &PipelineSnapshot::weights, &PipelineSnapshot::head_outputs})
    EXPECT_TRUE(same_bits(a.*field, b.*field));
  EXPECT_EQ(a.mask, b.mask);
  EXPECT_EQ(a.fully_masked_rows, b.fully_masked_rows);

  config.seed = 12346;
  const PipelineSnapshot c = run_ok(config);
  EXPECT_FALSE(same_bits(a.X, c.X));
  EXPECT_FALSE(same_bits(a.W_q, c.W_q));
  EXPECT_FALSE(same_bits(a.output, c.output));
}

// ---------------------------------------------------------------------------------------------
// run_pipeline_into: the flat block the wasm bindings publish, and the workspace reused across runs.

// Everything run_pipeline() returns, read back out of a view (so both paths can be compared bit for bit).
void expect_view_matches(const abh::PipelineView& v, const PipelineSnapshot& s, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(v.n, s.n);
  ASSERT_EQ(v.d_model, s.d_model);
  ASSERT_EQ(v.heads, s.heads);
  ASSERT_EQ(v.d_k, s.d_k);
  EXPECT_EQ(v.comparison_head, s.comparison_head);
  EXPECT_EQ(v.scale_factor, s.scale_factor);
  const auto bits = [&](abh::PipelineTensor t, const float* want, std::size_t count, const char* name) {
    EXPECT_EQ(v.layout.size[t], count) << name;
    EXPECT_EQ(std::memcmp(v.tensor(t), want, count * sizeof(float)), 0) << name;
    EXPECT_EQ(v.layout.offset[t] % 4, 0u) << name;  // 16-byte aligned in the block
  };
  for (auto [t, m, name] : {std::tuple{abh::kPipeX, &s.X, "X"},
                            {abh::kPipeW_q, &s.W_q, "W_q"},
                            {abh::kPipeW_k, &s.W_k, "W_k"},
                            {abh::kPipeW_v, &s.W_v, "W_v"},
                            {abh::kPipeW_o, &s.W_o, "W_o"},
                            {abh::kPipeQ, &s.Q, "Q"},
                            {abh::kPipeK, &s.K, "K"},
                            {abh::kPipeV, &s.V, "V"},
                            {abh::kPipeMerged, &s.merged, "merged"},
                            {abh::kPipeOutput, &s.output, "output"},
                            {abh::kPipeWeightsUnscaled, &s.weights_unscaled, "weights_unscaled"},
                            {abh::kPipeWeightsCausal, &s.weights_causal, "weights_causal"},
                            {abh::kPipeWeightsMaskedAfter, &s.weights_masked_after, "weights_masked_after"}})
    bits(t, m->data(), std::size_t(m->size()), name);
  for (auto [t, x, name] : {std::tuple{abh::kPipeQ_heads, &s.Q_heads, "Q_heads"},
                            {abh::kPipeK_heads, &s.K_heads, "K_heads"},
                            {abh::kPipeV_heads, &s.V_heads, "V_heads"},
                            {abh::kPipeScores, &s.scores, "scores"},
                            {abh::kPipeScoresScaled, &s.scores_scaled, "scores_scaled"},
                            {abh::kPipeWeights, &s.weights, "weights"},
                            {abh::kPipeHeadOutputs, &s.head_outputs, "head_outputs"}})
    bits(t, x->data.data(), x->data.size(), name);
  EXPECT_EQ(std::memcmp(v.mask(), s.mask.data(), std::size_t(s.mask.size())), 0);
  EXPECT_EQ(std::memcmp(v.fully_masked_rows(), s.fully_masked_rows.data(), s.fully_masked_rows.size()), 0);
  EXPECT_EQ(v.layout.rows_byte_offset + std::size_t(v.n), v.bytes());
  EXPECT_LE(v.bytes(), v.layout.floats * sizeof(float));
}

// One workspace through a sequence like a reader's: the cached generated weights must never leak
// into a run with another seed, d_model, sentence or explicit matrices,
// in the fixed block or on the heap.
TEST(PipelineWorkspace, ReusedAcrossRunsGivesExactlyTheFreshResults) {
  std::vector<float> fixed(4096);
  abh::PipelineWorkspace workspace(fixed.data(), fixed.size());
  std::vector<PipelineConfig> sequence;
  PipelineConfig c = default_config();
  sequence.push_back(c);  // fixed block
  c.seed = 2;
  sequence.push_back(c);  // another seed
  c.seed = 1;
  c.heads = 4;
  sequence.push_back(c);  // back to seed 1: cached weights must be seed 1's
  c.W_k.assign(64, 0.25f);
  sequence.push_back(c);  // an explicit W_k replaces the generated one
  c.W_k.clear();
  sequence.push_back(c);  // and the generated one comes back
  c.X.assign(c.token_ids.size() * 8, 0.5f);
  sequence.push_back(c);  // an explicit X: no generated row may survive it
  c.X.clear();
  sequence.push_back(c);  // generated rows again
  std::swap(c.token_ids[1], c.token_ids[2]);
  c.token_ids[4] = ids_of({"zebra"})[0];
  sequence.push_back(c);  // rows moved and one new word: regenerated where the id changed
  c.token_ids.resize(3);
  sequence.push_back(c);  // fewer tokens
  c.token_ids = ids_of(kSentence);
  sequence.push_back(c);  // more tokens than the last run had rows
  c.seed = 3;
  sequence.push_back(c);  // same tokens, another seed: every row regenerated
  c.seed = 1;
  c.d_model = 16;
  sequence.push_back(c);  // another d_model
  c.token_ids = ids_of({"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"});
  c.d_model = 32;
  c.heads = 8;
  sequence.push_back(c);  // too large for the fixed block: heap
  sequence.push_back(c);  // the heap block again
  c.causal = true;
  c.comparison_head = 5;
  sequence.push_back(c);  // the comparison tables of another head
  c.comparison_head = 0;
  c.token_ids.resize(3);
  c.d_model = 8;
  c.heads = 2;
  c.scale = false;
  sequence.push_back(c);  // fixed block again, after the heap
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    abh::PipelineView v;
    ASSERT_EQ(abh::run_pipeline_into(sequence[i], workspace, v).error(), "") << "run " << i;
    expect_view_matches(v, run_ok(sequence[i]), "run " + std::to_string(i));
    if (i == 12) {
      EXPECT_GT(workspace.heap_floats(), fixed.size());
      workspace.release();  // like the bindings after every call
      EXPECT_EQ(workspace.heap_floats(), 0u);
    }
  }
}

TEST(PipelineWorkspace, RefusedConfigurationsSayWhyAndLeaveTheWorkspaceUsable) {
  abh::PipelineWorkspace workspace;
  abh::PipelineView v;
  PipelineConfig bad = default_config();
  bad.heads = 3;
  EXPECT_EQ(abh::run_pipeline_into(bad, workspace, v).error(),
            "d_model (8) must be divisible by the number of heads (3)");
  EXPECT_EQ(workspace.heap_floats(), 0u);  // refused before anything was allocated
  bad = default_config();
  for (int head : {-1, 2}) {
    bad.comparison_head = head;
    EXPECT_EQ(abh::run_pipeline_into(bad, workspace, v).error(),
              "the comparison head must be 0 to 1 (got " + std::to_string(head) + ")");
  }
  EXPECT_EQ(workspace.heap_floats(), 0u);
  ASSERT_EQ(abh::run_pipeline_into(default_config(), workspace, v).error(), "");
  expect_view_matches(v, run_ok(default_config()), "after a refusal");
}

// The comparison tensors that equal the configured path are copies of it; check them against the
// kernels called directly, bit for bit, in every combination of mask and scaling.
TEST(PipelineComparisons, EveryComparisonTensorIsItsKernelCallBitForBit) {
  const std::vector<std::uint8_t> custom = {1, 0, 1, 1, 1, 0, 0, 2, 1};  // 3 x 3, a 2 counts as visible
  for (int variant = 0; variant < 8; ++variant) {
    PipelineConfig config;
    config.token_ids = ids_of({"it", "was", "tired"});
    config.d_model = 4;
    config.heads = 2;
    config.scale = variant & 1;
    config.causal = variant & 2;
    if (variant & 4) config.mask = custom;
    for (int head = 0; head < config.heads; ++head) {
      SCOPED_TRACE("variant " + std::to_string(variant) + ", head " + std::to_string(head));
      config.comparison_head = head;
      const PipelineSnapshot s = run_ok(config);
      EXPECT_EQ(s.comparison_head, head);
      const int n = s.n;
      const Mask causal = abh::causal_mask(n);
      std::vector<float> want(std::size_t(n) * n);
      abh::kernels::scale_mask_softmax(s.scores_scaled.head(head), want.data(), s.mask.data(), n, n, 1.0f, nullptr);
      EXPECT_EQ(std::memcmp(s.weights.head(head), want.data(), want.size() * sizeof(float)), 0);
      abh::kernels::scale_mask_softmax(s.scores.head(head), want.data(), s.mask.data(), n, n, 1.0f, nullptr);
      EXPECT_EQ(std::memcmp(s.weights_unscaled.data(), want.data(), want.size() * sizeof(float)), 0);
      abh::kernels::scale_mask_softmax(s.scores_scaled.head(head), want.data(), causal.data(), n, n, 1.0f, nullptr);
      EXPECT_EQ(std::memcmp(s.weights_causal.data(), want.data(), want.size() * sizeof(float)), 0);
      abh::kernels::scale_mask_softmax(s.scores_scaled.head(head), want.data(), nullptr, n, n, 1.0f, nullptr);
      for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) want[std::size_t(i) * n + j] = 0.0f;
      EXPECT_EQ(std::memcmp(s.weights_masked_after.data(), want.data(), want.size() * sizeof(float)), 0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Causal and the comparison tensors.

TEST(PipelineCausal, MaskIsLowerTriangularAndFutureWeightsAreExactlyZero) {
  PipelineConfig config = default_config();
  config.causal = true;
  const PipelineSnapshot s = run_ok(config);
  EXPECT_EQ(s.mask, abh::causal_mask(s.n));
  for (int head = 0; head < s.heads; ++head) {
    for (int i = 0; i < s.n; ++i) {
      double sum = 0;
      for (int j = 0; j < s.n; ++j) {
        if (j > i) {
          ASSERT_EQ(s.weights.at(head, i, j), 0.0f) << head << "," << i << "," << j;
        }
        sum += s.weights.at(head, i, j);
      }
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
    EXPECT_EQ(s.weights.at(head, 0, 0), 1.0f);  // token 1 sees only itself
  }
  // Output row 0 of each head is exactly its own value row.
  for (int head = 0; head < s.heads; ++head)
    EXPECT_EQ(head_of(s.head_outputs, head).row(0), head_of(s.V_heads, head).row(0));
}

TEST(PipelineCausal, WeightsCausalEqualsWeightsWhenCausal) {
  PipelineConfig config = default_config();
  config.causal = true;
  const PipelineSnapshot s = run_ok(config);
  EXPECT_TRUE(same_bits(s.weights_causal, head_of(s.weights, 0)));
  // And when not causal, weights_causal is still the causal version (the page's comparison), and differs.
  PipelineConfig open_config = default_config();
  for (int head = 0; head < s.heads; ++head) {
    open_config.comparison_head = head;
    const PipelineSnapshot open = run_ok(open_config);
    EXPECT_TRUE(same_bits(open.weights_causal, head_of(s.weights, head))) << "head " << head;
    EXPECT_FALSE(same_bits(head_of(open.weights, head), head_of(s.weights, head))) << "head " << head;
  }
}

// The article's warning, as the page shows it: masking after softmax leaves rows summing below 1.
TEST(PipelineCausal, MaskedAfterRowsSumBelowOneExceptLast) {
  for_each_comparison_head([](const PipelineSnapshot& s, int head) {
    for (int i = 0; i < s.n; ++i) {
      double sum = 0;
      for (int j = 0; j < s.n; ++j) {
        if (j > i) {
          ASSERT_EQ(s.weights_masked_after(i, j), 0.0f);
        }
        sum += s.weights_masked_after(i, j);
      }
      if (i < s.n - 1) {
        EXPECT_LT(sum, 1.0 - 1e-4) << "head " << head << " row " << i;
      } else {
        EXPECT_NEAR(sum, 1.0, 1e-6);
      }
    }
  });
  // Its visible part is the unmasked softmax, untouched: equal to the unmasked weights below the diagonal.
  PipelineConfig config = default_config();
  for (int head = 0; head < config.heads; ++head) {
    config.comparison_head = head;
    const PipelineSnapshot open = run_ok(config);
    for (int i = 0; i < open.n; ++i)
      for (int j = 0; j <= i; ++j) EXPECT_EQ(open.weights_masked_after(i, j), open.weights.at(head, i, j));
  }
}

TEST(PipelineCausal, WeightsUnscaledAreSoftmaxOfRawScores) {
  for_each_comparison_head([](const PipelineSnapshot& s, int head) {
    MatrixD raw = head_of(s.scores, head).cast<double>();
    for (int i = 0; i < s.n; ++i)
      for (int j = 0; j < s.n; ++j)
        if (!s.mask(i, j)) raw(i, j) = -std::numeric_limits<double>::infinity();
    EXPECT_LE(relative_error(s.weights_unscaled, abh::reference::softmax_rows(raw)), 1e-5);
    // With scaling on (d_k = 4) the unscaled weights are sharper, so they are not the configured weights.
    EXPECT_FALSE(same_bits(s.weights_unscaled, head_of(s.weights, head)));
  });
  // With scaling off they are the same computation.
  PipelineConfig config = default_config();
  config.scale = false;
  const PipelineSnapshot s = run_ok(config);
  EXPECT_EQ(s.scale_factor, 1.0f);
  EXPECT_TRUE(same_bits(s.weights_unscaled, head_of(s.weights, 0)));
  EXPECT_TRUE(same_bits(s.scores_scaled, s.scores));
}

// ---------------------------------------------------------------------------------------------
// Custom masks.

// A reader can block a whole row on the page; that must give zeros and a flag, never NaN.
TEST(PipelineMask, FullyBlockedRowIsFlaggedZeroAndNaNFree) {
  PipelineConfig config = default_config();
  const int n = 9, blocked = 4;
  config.mask.assign(n * n, 1);
  for (int j = 0; j < n; ++j) config.mask[blocked * n + j] = 0;
  config.mask[2 * n + 5] = 0;  // and one ordinary blocked entry elsewhere
  const PipelineSnapshot s = run_ok(config);
  for (int i = 0; i < n; ++i) EXPECT_EQ(s.fully_masked_rows[i], i == blocked ? 1 : 0) << "row " << i;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) EXPECT_EQ(s.mask(i, j), config.mask[i * n + j]);
  for (int head = 0; head < s.heads; ++head) {
    for (int j = 0; j < n; ++j) {
      EXPECT_EQ(s.weights.at(head, blocked, j), 0.0f);
    }
    for (int c = 0; c < s.d_k; ++c) EXPECT_EQ(s.head_outputs.at(head, blocked, c), 0.0f);
    EXPECT_EQ(s.weights.at(head, 2, 5), 0.0f);
    double sum = 0;
    for (int j = 0; j < n; ++j) sum += s.weights.at(head, 2, j);
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  EXPECT_TRUE(s.merged.row(blocked).isZero(0.0));
  EXPECT_TRUE(s.output.row(blocked).isZero(0.0));
  for (int j = 0; j < n; ++j) EXPECT_EQ(s.weights_unscaled(blocked, j), 0.0f);
  EXPECT_TRUE(snapshot_all_finite(s));
  // The causal comparison ignores the custom mask, so its row is an ordinary distribution.
  EXPECT_NEAR(s.weights_causal.row(blocked).cast<double>().sum(), 1.0, 1e-6);
}

TEST(PipelineMask, CustomMaskOverridesCausalFlagAndAllZeroMaskIsSafe) {
  PipelineConfig config = default_config();
  config.causal = true;
  config.mask.assign(81, 1);  // explicit all-ones wins over causal
  const PipelineSnapshot s = run_ok(config);
  EXPECT_TRUE((s.mask.array() == 1).all());
  EXPECT_GT(s.weights.at(0, 0, 8), 0.0f);

  config.mask.assign(81, 0);
  const PipelineSnapshot z = run_ok(config);
  for (std::uint8_t flag : z.fully_masked_rows) EXPECT_EQ(flag, 1);
  for (float w : z.weights.data) EXPECT_EQ(w, 0.0f);
  EXPECT_TRUE(z.output.isZero(0.0));
  EXPECT_TRUE(snapshot_all_finite(z));
}

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

// The published layout (pipeline_fields, which the bindings write into the result header and
// engine.ts reads instead of mirroring): names in block order, shapes, element types, and offsets
// that tile the block without overlap, each float tensor 16-byte aligned.
TEST(PipelineLayout, PublishedFieldsPinTheFormat) {
  PipelineConfig config = default_config();  // 9 tokens, d_model 8, 2 heads
  config.comparison_head = 1;
  abh::PipelineWorkspace workspace;
  abh::PipelineView v;
  ASSERT_EQ(abh::run_pipeline_into(config, workspace, v).error(), "");
  const auto fields = abh::pipeline_fields(v);
  const std::vector<std::vector<int>> shapes = {
      {8, 8},    {8, 8},    {8, 8},    {8, 8},    {9, 8}, {9, 8}, {9, 8}, {9, 8}, {2, 9, 4}, {2, 9, 4}, {2, 9, 4},
      {2, 9, 9}, {2, 9, 9}, {2, 9, 9}, {2, 9, 4}, {9, 8}, {9, 8}, {9, 9}, {9, 9}, {9, 9},    {9, 9},    {9}};
  std::size_t end = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const abh::PipelineField& f = fields[i];
    const std::string name = f.name;
    EXPECT_EQ(name, abh::kPipelineFieldSpecs[i].name);  // the one declaration, in block order
    EXPECT_EQ(f.level, abh::kPipelineFieldSpecs[i].level) << name;
    EXPECT_FALSE(name.empty());
    for (std::size_t k = 0; k < i; ++k) EXPECT_NE(name, fields[k].name) << "two fields named " << name;
    EXPECT_EQ(std::vector<int>(f.shape.dims, f.shape.dims + f.shape.rank), shapes[i]) << name;
    const bool bytes = i >= std::size_t(abh::kPipelineTensorCount);
    EXPECT_EQ(f.element, bytes ? abh::PipelineElement::kUint8 : abh::PipelineElement::kFloat32) << name;
    if (!bytes) {
      EXPECT_EQ(f.byte_offset % 16, 0u) << name;
    }
    EXPECT_GE(f.byte_offset, end) << name;  // after the previous field: no overlap
    end = f.byte_offset + f.shape.elements() * (bytes ? 1 : sizeof(float));
  }
  EXPECT_EQ(end, v.bytes());
  // Each field is where the view's own accessors find it.
  EXPECT_EQ(fields[abh::kPipeWeights].byte_offset, v.layout.offset[abh::kPipeWeights] * sizeof(float));
  EXPECT_EQ(fields[abh::kPipelineTensorCount].byte_offset, v.layout.mask_byte_offset);
  EXPECT_EQ(fields[abh::kPipelineTensorCount + 1].byte_offset, v.layout.rows_byte_offset);
}

// The published levels (PipelineLevel) are what the page's result sharing trusts without comparing:
// a run that changes one input of level L leaves every array of a lower level bit for bit as it was.
// Each change also alters some array of its level or above, so no level is too high to be tested.
TEST(PipelineLayout, EachFieldDependsOnlyOnTheInputsOfItsLevel) {
  const PipelineConfig base = default_config();  // 9 tokens, d_model 8, 2 heads, scaled, no mask
  abh::PipelineWorkspace base_workspace;
  abh::PipelineView base_view;
  ASSERT_EQ(abh::run_pipeline_into(base, base_workspace, base_view).error(), "");
  const auto base_fields = abh::pipeline_fields(base_view);
  const auto bytes_of = [](const abh::PipelineView& v, const abh::PipelineField& f) {
    const auto* at = reinterpret_cast<const std::uint8_t*>(v.block) + f.byte_offset;
    const std::size_t size = f.shape.elements() * (f.element == abh::PipelineElement::kUint8 ? 1 : sizeof(float));
    return std::vector<std::uint8_t>(at, at + size);
  };
  struct Change {
    abh::PipelineLevel level;
    const char* what;
    void (*apply)(PipelineConfig&);
  };
  const Change changes[] = {
      {abh::PipelineLevel::kTokens, "one token", [](PipelineConfig& c) { c.token_ids[4] = abh::token_id("street"); }},
      {abh::PipelineLevel::kHeads, "heads 2 -> 4", [](PipelineConfig& c) { c.heads = 4; }},
      {abh::PipelineLevel::kScaling, "scaling off", [](PipelineConfig& c) { c.scale = false; }},
      {abh::PipelineLevel::kMask, "causal", [](PipelineConfig& c) { c.causal = true; }},
      {abh::PipelineLevel::kComparisonHead, "comparison head 0 -> 1", [](PipelineConfig& c) { c.comparison_head = 1; }},
  };
  for (const Change& change : changes) {
    PipelineConfig config = base;
    change.apply(config);
    abh::PipelineWorkspace workspace;
    abh::PipelineView view;
    ASSERT_EQ(abh::run_pipeline_into(config, workspace, view).error(), "") << change.what;
    const auto fields = abh::pipeline_fields(view);
    int changed_at_or_above = 0;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const bool same = fields[i].shape.elements() == base_fields[i].shape.elements() &&
                        bytes_of(view, fields[i]) == bytes_of(base_view, base_fields[i]);
      if (fields[i].level < change.level) {
        EXPECT_TRUE(same) << fields[i].name << " changed with " << change.what;
      } else {
        changed_at_or_above += !same;
      }
    }
    EXPECT_GT(changed_at_or_above, 0) << change.what;
  }
}

// ---------------------------------------------------------------------------------------------
// The generator. Reference values were computed independently from the published algorithms.

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
