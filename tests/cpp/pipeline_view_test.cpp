// run_pipeline_into(): the flat block the wasm bindings publish equals run_pipeline() bit for bit,
// its workspace reused across runs and after refusals, each comparison tensor its kernel call bit for
// bit, and the published field list (names, shapes, element types, offsets, levels) pins the format.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels.h"
#include "pipeline.h"
#include "pipeline_test_util.h"
#include "random.h"
#include "test_util.h"

namespace {

using namespace abh::test;  // test_util.h, pipeline_test_util.h

using abh::Mask;
using abh::PipelineConfig;
using abh::PipelineSnapshot;

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

}  // namespace
