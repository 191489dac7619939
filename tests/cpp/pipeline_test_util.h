// The helpers the run_pipeline() suites share (pipeline_test.cpp, pipeline_view_test.cpp,
// pipeline_errors_test.cpp, generator_test.cpp): the article's sentence and the default walkthrough
// configuration, a run that must succeed, shapes, finiteness and bit-for-bit equality of snapshot
// fields. Test code only.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "pipeline.h"
#include "random.h"
#include "tensor.h"

namespace abh::test {

inline const std::vector<std::string> kSentence = {"the",     "animal", "crossed", "the",   "road",
                                                   "because", "it",     "was",     "tired."};

inline std::vector<std::uint32_t> ids_of(const std::vector<std::string>& words) {
  std::vector<std::uint32_t> ids;
  for (const auto& w : words) ids.push_back(abh::token_id(w));
  return ids;
}

inline abh::PipelineConfig default_config() {
  abh::PipelineConfig config;
  config.token_ids = ids_of(kSentence);
  config.d_model = 8;
  config.heads = 2;
  return config;
}

inline abh::PipelineSnapshot run_ok(const abh::PipelineConfig& config) {
  auto result = abh::run_pipeline(config);
  EXPECT_TRUE(result.ok()) << result.error();
  return result.value();
}

// check(s, head) on the default configuration, without and with the causal mask, with each head in
// turn as the comparison head (the head whose what-if tables the snapshot carries).
template <class Check>
void for_each_comparison_head(Check&& check) {
  for (bool causal : {false, true}) {
    abh::PipelineConfig config = default_config();
    config.causal = causal;
    for (int head = 0; head < config.heads; ++head) {
      config.comparison_head = head;
      check(run_ok(config), head);
    }
  }
}

// One head of a (h, r, c) tensor as an Eigen matrix.
inline Matrix head_of(const Tensor3& t, int head) { return Eigen::Map<const Matrix>(t.head(head), t.rows, t.cols); }

inline void expect_shape(const Tensor3& t, int h, int r, int c, const char* name) {
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

inline bool all_finite(const Tensor3& t) {
  for (float v : t.data)
    if (!std::isfinite(v)) return false;
  return true;
}

inline bool snapshot_all_finite(const abh::PipelineSnapshot& s) {
  for (const Matrix* m : {&s.X, &s.W_q, &s.W_k, &s.W_v, &s.W_o, &s.Q, &s.K, &s.V, &s.merged, &s.output,
                          &s.weights_unscaled, &s.weights_causal, &s.weights_masked_after})
    if (!m->allFinite()) return false;
  for (const Tensor3* t :
       {&s.Q_heads, &s.K_heads, &s.V_heads, &s.scores, &s.scores_scaled, &s.weights, &s.head_outputs})
    if (!all_finite(*t)) return false;
  return std::isfinite(s.scale_factor);
}

inline bool same_bits(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(float) * std::size_t(a.size())) == 0;
}

inline bool same_bits(const Tensor3& a, const Tensor3& b) {
  return a.heads == b.heads && a.rows == b.rows && a.cols == b.cols && a.data.size() == b.data.size() &&
         std::memcmp(a.data.data(), b.data.data(), sizeof(float) * a.data.size()) == 0;
}

}  // namespace abh::test
