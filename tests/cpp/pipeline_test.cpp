// run_pipeline(): every intermediate of the walkthrough checked against plain Eigen and the
// double-precision reference, the causal and comparison tensors, and custom masks. The flat block of
// run_pipeline_into() is pipeline_view_test.cpp's, refusals pipeline_errors_test.cpp's.
#include "pipeline.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "attention.h"
#include "pipeline_test_util.h"
#include "random.h"
#include "reference.h"
#include "test_util.h"

namespace {

using namespace abh::test;  // test_util.h, pipeline_test_util.h

using abh::Matrix;
using abh::PipelineConfig;
using abh::PipelineSnapshot;
using MatrixD = abh::reference::MatrixD;

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

}  // namespace
