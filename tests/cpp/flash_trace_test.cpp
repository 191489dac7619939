// flash_attention_trace(): the step-through figure's record of the tiled kernel, checked as the
// kernel's own state (its output equals flash_attention()'s) and for consistency of its bookkeeping:
// the running max m, the running sum l, the rescale factors and the causal kernel's skipped tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "flash.h"
#include "random.h"
#include "test_util.h"

namespace {

using namespace abh::test;  // test_util.h

using abh::FlashOptions;
using abh::Matrix;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Why: the step-through figure draws these numbers; they must be the kernel's own, and consistent.
TEST(FlashTrace, RecordsTheKernelsOwnState) {
  abh::SplitMix64 rng(0x7EACE);
  int steps_checked = 0, skipped_seen = 0, grew = 0, stayed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const bool causal = trial % 2 == 0;
    const int n_q = uniform_int(rng, 1, 64), n_k = causal ? n_q : uniform_int(rng, 1, 64);
    const int d_k = uniform_int(rng, 1, 24), d_v = uniform_int(rng, 1, 24);
    const FlashOptions o{uniform_int(rng, 1, 70), uniform_int(rng, 1, 70), causal, trial % 3 != 0};
    const std::string what = describe(n_q, n_k, d_k, d_v, o);
    const Matrix Q = random_matrix(rng, n_q, d_k), K = random_matrix(rng, n_k, d_k), V = random_matrix(rng, n_k, d_v);
    const auto flash = abh::flash_attention(Q, K, V, o);
    const auto traced = abh::flash_attention_trace(Q, K, V, o);
    ASSERT_TRUE(flash.ok() && traced.ok()) << what;
    const abh::FlashTrace& t = traced.value();

    // Tracing does not change the numbers: bit for bit the fast path's output.
    ASSERT_EQ(t.output.rows(), n_q);
    ASSERT_EQ(t.output.cols(), d_v);
    for (int i = 0; i < t.output.size(); ++i) ASSERT_EQ(t.output.data()[i], flash.value().output.data()[i]) << what;

    const int bq = std::min(o.block_q, n_q), bk = std::min(o.block_k, n_k);
    ASSERT_EQ(t.block_q, bq);
    ASSERT_EQ(t.block_k, bk);
    ASSERT_EQ(t.query_blocks, (n_q + bq - 1) / bq);
    ASSERT_EQ(t.key_blocks, (n_k + bk - 1) / bk);
    ASSERT_EQ(int(t.steps.size()), t.query_blocks * t.key_blocks) << what;
    EXPECT_FLOAT_EQ(t.scale_factor, o.scale ? 1.0f / std::sqrt(float(d_k)) : 1.0f);

    for (int qb = 0; qb < t.query_blocks; ++qb) {
      const int q0 = qb * bq, rows = std::min(bq, n_q - q0);
      std::vector<float> m_prev(rows, kNegInf), l_prev(rows, 0.0f);
      Matrix acc_prev = Matrix::Zero(rows, d_v);
      for (int kb = 0; kb < t.key_blocks; ++kb) {
        const abh::FlashTraceStep& s = t.steps[std::size_t(qb) * t.key_blocks + kb];
        const int k0 = kb * bk, cols = std::min(bk, n_k - k0);
        ASSERT_EQ(s.q_block, qb);
        ASSERT_EQ(s.k_block, kb);
        ASSERT_EQ(s.q_start, q0);
        ASSERT_EQ(s.q_end, q0 + rows);
        ASSERT_EQ(s.k_start, k0);
        ASSERT_EQ(s.k_end, k0 + cols);
        ASSERT_EQ(s.scores.rows(), rows);
        ASSERT_EQ(s.scores.cols(), cols);
        ASSERT_EQ(s.probabilities.rows(), rows);
        ASSERT_EQ(s.probabilities.cols(), cols);
        ASSERT_EQ(int(s.m.size()), rows);
        ASSERT_EQ(int(s.l.size()), rows);
        ASSERT_EQ(int(s.rescale.size()), rows);
        ASSERT_EQ(s.acc.rows(), rows);
        ASSERT_EQ(s.acc.cols(), d_v);

        // Skipped exactly when every (row, key) of the tile is masked.
        bool all_masked = causal;
        for (int i = 0; i < rows && all_masked; ++i)
          for (int j = 0; j < cols && all_masked; ++j) all_masked = k0 + j > q0 + i;
        EXPECT_EQ(s.skipped, all_masked) << what << " q block " << qb << " k block " << kb;
        skipped_seen += s.skipped;

        for (int i = 0; i < rows; ++i) {
          // Scores: Q K^T * scale, -inf exactly where masked; P = exp(score - m), 0 where masked.
          float p_sum = 0.0f;
          for (int j = 0; j < cols; ++j) {
            const bool masked = causal && k0 + j > q0 + i;
            if (masked) {
              EXPECT_EQ(s.scores(i, j), kNegInf);
              EXPECT_EQ(s.probabilities(i, j), 0.0f);
              continue;
            }
            const double dot = double(Q.row(q0 + i).cast<double>().dot(K.row(k0 + j).cast<double>()));
            EXPECT_NEAR(s.scores(i, j), dot * t.scale_factor, 1e-5 * (1 + std::abs(dot)));
            EXPECT_LE(s.scores(i, j), s.m[i]);
            EXPECT_NEAR(s.probabilities(i, j), std::exp(double(s.scores(i, j)) - s.m[i]), 1e-6);
            p_sum += s.probabilities(i, j);
          }
          // m never decreases; the rescale factor is exp(m_old - m_new): 1 exactly when the max stays,
          // below 1 when it grows (up to rounding, for growth below float resolution).
          EXPECT_GE(s.m[i], m_prev[i]);
          if (s.m[i] == m_prev[i]) {
            EXPECT_EQ(s.rescale[i], 1.0f);
            ++stayed;
          } else {
            ++grew;
            EXPECT_LE(s.rescale[i], 1.0f);
            if (s.m[i] - m_prev[i] > 1e-6f * std::max(1.0f, std::abs(s.m[i]))) {
              EXPECT_LT(s.rescale[i], 1.0f);
            }
            const double want = m_prev[i] == kNegInf ? 0.0 : std::exp(double(m_prev[i]) - s.m[i]);
            EXPECT_NEAR(s.rescale[i], want, 1e-6 * std::max(1.0, want));
          }
          if (s.rescale[i] < 1.0f) {
            EXPECT_GT(s.m[i], m_prev[i]);
          }
          // l = rescale * l_old + rowsum(P); acc = rescale * acc_old + P V.
          EXPECT_NEAR(s.l[i], s.rescale[i] * l_prev[i] + p_sum, 1e-5 * std::max(1.0f, s.l[i])) << what;
          for (int c = 0; c < d_v; ++c) {
            double want = double(s.rescale[i]) * acc_prev(i, c), magnitude = std::abs(want);
            for (int j = 0; j < cols; ++j) {
              want += double(s.probabilities(i, j)) * V(k0 + j, c);
              magnitude += std::abs(double(s.probabilities(i, j)) * V(k0 + j, c));
            }
            EXPECT_NEAR(s.acc(i, c), want, 1e-5 * magnitude + 1e-30);
          }
          if (s.skipped) {
            EXPECT_EQ(s.m[i], m_prev[i]);
            EXPECT_EQ(s.l[i], l_prev[i]);
            EXPECT_EQ(s.rescale[i], 1.0f);
            for (int c = 0; c < d_v; ++c) EXPECT_EQ(s.acc(i, c), acc_prev(i, c));
          }
        }
        m_prev = s.m;
        l_prev = s.l;
        acc_prev = s.acc;
        ++steps_checked;
      }
      // After the last key block, acc / l is the output.
      for (int i = 0; i < rows; ++i) {
        ASSERT_GT(l_prev[i], 0.0f) << what;
        for (int c = 0; c < d_v; ++c) {
          const float want = acc_prev(i, c) / l_prev[i];
          EXPECT_NEAR(t.output(q0 + i, c), want, 1e-6f * std::max(1.0f, std::abs(want))) << what;
        }
      }
    }
    if (HasFailure()) return;
  }
  std::cout << "[flash trace] " << steps_checked << " steps checked, " << skipped_seen
            << " skipped tiles, row max grew " << grew << " times and stayed " << stayed << " times\n";
  EXPECT_GT(skipped_seen, 100);
  EXPECT_GT(grew, 1000);
  EXPECT_GT(stayed, 1000);
}

// Why: the figure's text names these tiles; a 4 x 4 causal example with 2 x 2 tiles, worked by hand:
// tiles (0,0) (1,0) (1,1) are computed, (0,1) is above the diagonal and skipped.
TEST(FlashTrace, CausalFourByFourWithTwoByTwoTiles) {
  abh::SplitMix64 rng(11);
  const Matrix Q = random_matrix(rng, 4, 2), K = random_matrix(rng, 4, 2), V = random_matrix(rng, 4, 3);
  const auto trace = abh::flash_attention_trace(Q, K, V, FlashOptions{2, 2, true, true});
  ASSERT_TRUE(trace.ok()) << trace.error();
  ASSERT_EQ(trace.value().steps.size(), 4u);
  EXPECT_FALSE(trace.value().steps[0].skipped);
  EXPECT_TRUE(trace.value().steps[1].skipped);
  EXPECT_FALSE(trace.value().steps[2].skipped);
  EXPECT_FALSE(trace.value().steps[3].skipped);
  // Tile (0,0): row 0 sees key 0 only.
  EXPECT_EQ(trace.value().steps[0].scores(0, 1), kNegInf);
  EXPECT_EQ(trace.value().steps[0].probabilities(0, 0), 1.0f);
  EXPECT_EQ(trace.value().steps[0].l[0], 1.0f);
  // Tile (1,1): row 2 sees key 2 but not key 3.
  EXPECT_EQ(trace.value().steps[3].scores(0, 1), kNegInf);
  EXPECT_GT(trace.value().steps[3].probabilities(0, 0), 0.0f);
}

}  // namespace
