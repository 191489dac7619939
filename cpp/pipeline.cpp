// The walkthrough's one engine call (pipeline.h): the generated inputs, the published layout of its
// tensors, the reused workspace and the pass itself. ~440 lines in one file on purpose: the layout, the
// workspace and the pass share one set of shapes, and split apart each part would restate them.
#include "pipeline.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "attention.h"
#include "engine_limits.h"
#include "kernels.h"
#include "random.h"

namespace abh {
namespace {

constexpr std::uint64_t kEmbeddingTag = 0x454D4245ull << 32;   // "EMBE"
constexpr std::uint64_t kProjectionTag = 0x50524F4Aull << 32;  // "PROJ"

// A given matrix (empty = not given) is (rows, cols) and finite.
Status check_given(const char* name, const std::vector<float>& values, std::size_t rows, std::size_t cols) {
  if (values.empty()) return Ok{};
  if (values.size() != rows * cols)
    return Failure{std::string(name) + " must have " + std::to_string(rows) + " x " + std::to_string(cols) + " = " +
                   std::to_string(rows * cols) + " values (got " + std::to_string(values.size()) + ")"};
  return check_finite(name, values.data(), values.size(), cols);
}

// (n, d_model) -> (h, n, d_k): the article's reshape(n, h, d_k).transpose(1, 0, 2).
void split_heads(const float* M, int n, int h, int d_k, float* out) {
  const int d_model = h * d_k;
  for (int head = 0; head < h; ++head)
    for (int row = 0; row < n; ++row)
      std::memcpy(out + (std::size_t(head) * n + row) * d_k, M + std::size_t(row) * d_model + std::size_t(head) * d_k,
                  sizeof(float) * std::size_t(d_k));
}

void fill_embedding_row(std::uint32_t token_id, int d_model, std::uint32_t seed, float* x) {
  SplitMix64 stream(stream_seed(seed, kEmbeddingTag | token_id));
  for (int col = 0; col < d_model; ++col) x[col] = stream.normal();
}

void fill_embeddings(const std::uint32_t* token_ids, int n, int d_model, std::uint32_t seed, float* out) {
  for (int row = 0; row < n; ++row) fill_embedding_row(token_ids[row], d_model, seed, out + std::size_t(row) * d_model);
}

void fill_projection(char name, int d_model, std::uint32_t seed, float* out) {
  SplitMix64 stream(stream_seed(seed, kProjectionTag | std::uint8_t(name)));
  const float fan_in_scale = 1.0f / std::sqrt(float(d_model));
  const std::size_t count = std::size_t(d_model) * d_model;
  for (std::size_t i = 0; i < count; ++i) out[i] = stream.normal() * fan_in_scale;
}

constexpr std::size_t round4(std::size_t x) { return (x + 3) & ~std::size_t(3); }

}  // namespace

Matrix generate_embeddings(const std::vector<std::uint32_t>& token_ids, int d_model, std::uint32_t seed) {
  Matrix X(int(token_ids.size()), d_model);
  fill_embeddings(token_ids.data(), int(token_ids.size()), d_model, seed, X.data());
  return X;
}

Matrix generate_projection(char name, int d_model, std::uint32_t seed) {
  Matrix W(d_model, d_model);
  fill_projection(name, d_model, seed, W.data());
  return W;
}

std::size_t PipelineShape::elements() const {
  std::size_t count = 1;
  for (int i = 0; i < rank; ++i) count *= std::size_t(dims[i]);
  return count;
}

PipelineShape pipeline_tensor_shape(PipelineTensor t, int n, int d_model, int heads) {
  const int d_k = d_model / heads;
  switch (t) {
    case kPipeW_q:
    case kPipeW_k:
    case kPipeW_v:
    case kPipeW_o:
      return {2, {d_model, d_model, 0}};
    case kPipeX:
    case kPipeQ:
    case kPipeK:
    case kPipeV:
    case kPipeMerged:
    case kPipeOutput:
      return {2, {n, d_model, 0}};
    case kPipeQ_heads:
    case kPipeK_heads:
    case kPipeV_heads:
    case kPipeHeadOutputs:
      return {3, {heads, n, d_k}};
    case kPipeScores:
    case kPipeScoresScaled:
    case kPipeWeights:
      return {3, {heads, n, n}};
    case kPipeWeightsUnscaled:
    case kPipeWeightsCausal:
    case kPipeWeightsMaskedAfter:
      return {2, {n, n, 0}};
    case kPipelineTensorCount:
      break;
  }
  return {};
}

PipelineLayout PipelineLayout::of(int n, int d_model, int heads) {
  PipelineLayout layout;
  const std::size_t N = std::size_t(n), d_k = std::size_t(d_model / heads);
  std::size_t at = 0;
  for (int t = 0; t < kPipelineTensorCount; ++t) {
    const std::size_t size = pipeline_tensor_shape(PipelineTensor(t), n, d_model, heads).elements();
    layout.offset[t] = at;
    layout.size[t] = size;
    at += round4(size);
  }
  layout.mask_byte_offset = at * sizeof(float);
  layout.rows_byte_offset = layout.mask_byte_offset + N * N;
  layout.bytes = layout.rows_byte_offset + N;
  layout.scratch_byte_offset = layout.bytes;  // n x n bytes the run needs and nobody else sees
  layout.keys_transposed_offset = round4((layout.scratch_byte_offset + N * N + sizeof(float) - 1) / sizeof(float));
  layout.floats = layout.keys_transposed_offset + round4(N * d_k);
  return layout;
}

const PipelineFieldSpec kPipelineFieldSpecs[kPipelineFieldCount] = {
    {"W_q", PipelineLevel::kWeights},
    {"W_k", PipelineLevel::kWeights},
    {"W_v", PipelineLevel::kWeights},
    {"W_o", PipelineLevel::kWeights},
    {"X", PipelineLevel::kTokens},
    {"Q", PipelineLevel::kTokens},
    {"K", PipelineLevel::kTokens},
    {"V", PipelineLevel::kTokens},
    {"Q_heads", PipelineLevel::kHeads},
    {"K_heads", PipelineLevel::kHeads},
    {"V_heads", PipelineLevel::kHeads},
    {"scores", PipelineLevel::kHeads},
    {"scoresScaled", PipelineLevel::kScaling},
    {"weights", PipelineLevel::kMask},
    {"headOutputs", PipelineLevel::kMask},
    {"merged", PipelineLevel::kMask},
    {"output", PipelineLevel::kMask},
    {"weightsUnscaled", PipelineLevel::kComparisonHead},
    {"weightsCausal", PipelineLevel::kComparisonHead},
    {"weightsMaskedAfter", PipelineLevel::kComparisonHead},
    {"mask", PipelineLevel::kMask},
    {"fullyMaskedRows", PipelineLevel::kMask},
};

std::array<PipelineField, kPipelineFieldCount> pipeline_fields(const PipelineView& v) {
  std::array<PipelineField, kPipelineFieldCount> fields;
  for (int t = 0; t < kPipelineTensorCount; ++t)
    fields[t] = {kPipelineFieldSpecs[t].name, kPipelineFieldSpecs[t].level, PipelineElement::kFloat32,
                 pipeline_tensor_shape(PipelineTensor(t), v.n, v.d_model, v.heads), v.layout.offset[t] * sizeof(float)};
  constexpr int kMaskField = kPipelineTensorCount, kRowsField = kPipelineTensorCount + 1;
  fields[kMaskField] = {kPipelineFieldSpecs[kMaskField].name,
                        kPipelineFieldSpecs[kMaskField].level,
                        PipelineElement::kUint8,
                        {2, {v.n, v.n, 0}},
                        v.layout.mask_byte_offset};
  fields[kRowsField] = {kPipelineFieldSpecs[kRowsField].name,
                        kPipelineFieldSpecs[kRowsField].level,
                        PipelineElement::kUint8,
                        {1, {v.n, 0, 0}},
                        v.layout.rows_byte_offset};
  return fields;
}

float* PipelineWorkspace::acquire(std::size_t floats) {
  if (floats <= fixed_floats_) return fixed_;
  if (floats > heap_floats_) {
    if (cached_block_ == heap_.get()) cached_block_ = nullptr;  // the next block may land at the same address
    heap_.reset();  // before the new allocation: the old block's contents are not needed
    heap_.reset(new float[floats]);
    heap_floats_ = floats;
  }
  return heap_.get();
}

void PipelineWorkspace::release() {
  if (heap_ && cached_block_ == heap_.get()) cached_block_ = nullptr;
  heap_.reset();
  heap_floats_ = 0;
}

Status check_pipeline_sizes(std::int64_t n, std::int64_t x_length, const std::int64_t (&w_lengths)[4],
                            std::int64_t mask_length) {
  using namespace limits;
  using std::to_string;
  if (n < 1) return Failure{"there must be at least one token"};
  if (n > kMaxPipelineTokens)
    return Failure{"the walkthrough shows at most " + to_string(kMaxPipelineTokens) + " tokens (got " + to_string(n) +
                   ")"};
  const std::int64_t most_x = std::int64_t(kMaxPipelineTokens) * kMaxDModel,
                     most_w = std::int64_t(kMaxDModel) * kMaxDModel;
  const std::int64_t most_mask = std::int64_t(kMaxPipelineTokens) * kMaxPipelineTokens;
  if (x_length > most_x)
    return Failure{"X has " + to_string(x_length) + " values; the walkthrough accepts at most " + to_string(most_x)};
  static constexpr const char* kNames[4] = {"W_q", "W_k", "W_v", "W_o"};
  for (int i = 0; i < 4; ++i)
    if (w_lengths[i] > most_w)
      return Failure{std::string(kNames[i]) + " has " + to_string(w_lengths[i]) +
                     " values; the walkthrough accepts at most " + to_string(most_w)};
  if (mask_length > most_mask)
    return Failure{"the mask has " + to_string(mask_length) + " entries; the walkthrough accepts at most " +
                   to_string(most_mask)};
  return Ok{};
}

Status check_pipeline_config(const PipelineConfig& config) {
  using namespace limits;
  using std::to_string;
  const std::int64_t n = std::int64_t(config.token_ids.size());
  const std::int64_t w_lengths[4] = {std::int64_t(config.W_q.size()), std::int64_t(config.W_k.size()),
                                     std::int64_t(config.W_v.size()), std::int64_t(config.W_o.size())};
  if (auto sizes = check_pipeline_sizes(n, std::int64_t(config.X.size()), w_lengths, std::int64_t(config.mask.size()));
      !sizes.ok())
    return sizes;
  if (config.d_model > kMaxDModel)
    return Failure{"d_model is limited to " + to_string(kMaxDModel) + " (got " + to_string(config.d_model) + ")"};
  if (auto heads = check_heads(config.d_model, config.heads); !heads.ok()) return heads;
  if (std::int64_t(config.heads) * n * n > kMaxPipelineHeadScoreElements)
    return Failure{"heads x n x n = " + to_string(std::int64_t(config.heads) * n * n) +
                   " attention weights would exceed the walkthrough's budget of " +
                   to_string(kMaxPipelineHeadScoreElements)};
  const std::size_t rows = std::size_t(n), d = std::size_t(config.d_model);
  if (auto X = check_given("X", config.X, rows, d); !X.ok()) return X;
  for (auto [name, values] :
       {std::pair{"W_q", &config.W_q}, {"W_k", &config.W_k}, {"W_v", &config.W_v}, {"W_o", &config.W_o}})
    if (auto W = check_given(name, *values, d, d); !W.ok()) return W;
  if (config.comparison_head < 0 || config.comparison_head >= config.heads)
    return Failure{"the comparison head must be 0 to " + to_string(config.heads - 1) + " (got " +
                   to_string(config.comparison_head) + ")"};
  if (!config.mask.empty() && config.mask.size() != rows * rows)
    return Failure{"the mask must have n x n = " + to_string(rows * rows) + " entries (got " +
                   to_string(config.mask.size()) + ")"};
  return Ok{};
}

Status run_pipeline_into(const PipelineConfig& config, PipelineWorkspace& workspace, PipelineView& out) {
  if (auto valid = check_pipeline_config(config); !valid.ok()) return valid;

  const int n = int(config.token_ids.size()), d_model = config.d_model, h = config.heads, d_k = d_model / h;
  PipelineView v;
  v.n = n;
  v.d_model = d_model;
  v.heads = h;
  v.d_k = d_k;
  v.comparison_head = config.comparison_head;
  v.scale_factor = score_scale(d_k, config.scale);
  v.layout = PipelineLayout::of(n, d_model, h);
  v.block = workspace.acquire(v.layout.floats);
  if (v.block != workspace.cached_block_) {
    for (auto& g : workspace.generated_) g = {};
    workspace.cached_block_ = v.block;
  }
  const std::size_t nd = std::size_t(n) * d_model, dd = std::size_t(d_model) * d_model, nn = std::size_t(n) * n;

  // Inputs: the reader's (or a preset's) matrices where given, generated from the seed otherwise.
  // Generated weights already in the block from an earlier run with the same seed and d_model stay.
  const std::vector<float>* given[4] = {&config.W_q, &config.W_k, &config.W_v, &config.W_o};
  static constexpr char kNames[4] = {'q', 'k', 'v', 'o'};
  for (int i = 0; i < 4; ++i) {
    float* W = v.tensor(PipelineTensor(kPipeW_q + i));
    PipelineWorkspace::Generated& g = workspace.generated_[i];
    if (!given[i]->empty()) {
      std::memcpy(W, given[i]->data(), dd * sizeof(float));
      g = {};
    } else if (!(g.valid && g.seed == config.seed && g.d_model == d_model)) {
      fill_projection(kNames[i], d_model, config.seed, W);
      g = {true, config.seed, d_model};
    }
  }
  float* const X = v.tensor(kPipeX);
  if (!config.X.empty())
    std::memcpy(X, config.X.data(), nd * sizeof(float));
  else
    fill_embeddings(config.token_ids.data(), n, d_model, config.seed, X);
  std::uint8_t* const mask = v.mask();
  if (!config.mask.empty())
    std::memcpy(mask, config.mask.data(), nn);
  else if (config.causal)
    fill_causal_mask(mask, n);
  else
    std::memset(mask, 1, nn);
  // Which comparisons equal the configured path (the kernels only tell zero from non-zero).
  bool mask_all_visible = true, mask_is_causal = true;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const bool visible = mask[std::size_t(i) * n + j] != 0;
      mask_all_visible &= visible;
      mask_is_causal &= visible == (j <= i);
    }

  // Projections: Q = X W_q, K = X W_k, V = X W_v, then split into heads.
  float* const Q = v.tensor(kPipeQ);
  float* const K = v.tensor(kPipeK);
  float* const V = v.tensor(kPipeV);
  kernels::matmul(X, d_model, v.tensor(kPipeW_q), d_model, Q, d_model, n, d_model, d_model);
  kernels::matmul(X, d_model, v.tensor(kPipeW_k), d_model, K, d_model, n, d_model, d_model);
  kernels::matmul(X, d_model, v.tensor(kPipeW_v), d_model, V, d_model, n, d_model, d_model);
  if (!all_finite(Q, nd) || !all_finite(K, nd) || !all_finite(V, nd)) return Failure{kProjectionOverflow};
  split_heads(Q, n, h, d_k, v.tensor(kPipeQ_heads));
  split_heads(K, n, h, d_k, v.tensor(kPipeK_heads));
  split_heads(V, n, h, d_k, v.tensor(kPipeV_heads));

  // The causal mask for the "mask before softmax" comparison, when the mask in force is not already
  // causal: in the block's scratch bytes (after fully_masked_rows, not part of the published block).
  std::uint8_t* const rows = v.fully_masked_rows();
  std::memset(rows, 0, std::size_t(n));
  std::uint8_t* causal = mask;
  if (!mask_is_causal) {
    causal = reinterpret_cast<std::uint8_t*>(v.block) + v.layout.scratch_byte_offset;
    fill_causal_mask(causal, n);
  }

  // Steps 1-4 for a block of query rows at a time, head by head: the block's scores, scaled scores
  // and weights (kRowBlock x n each) are still in L1 when the next step reads them, where whole passes
  // over (n, n) read every step's input back from memory (~36 MB a call at 256 tokens and 16 heads,
  // against the 12 MB the three tables take). Measured 4-7% faster there: the passes were limited
  // mostly by their arithmetic. Every kernel here works row by row, so the blocking changes no bit.
  // K is transposed once per head for step 1.
  constexpr int kRowBlock = 8;
  const std::size_t head_nd = std::size_t(n) * d_k;
  const std::uint8_t* const softmax_mask = mask_all_visible ? nullptr : mask;  // nothing to select: no stores in pass 1
  float* const keys_transposed = v.block + v.layout.keys_transposed_offset;    // (d_k, n), scratch
  for (int head = 0; head < h; ++head) {
    const float* q = v.tensor(kPipeQ_heads) + head * head_nd;
    const float* k = v.tensor(kPipeK_heads) + head * head_nd;
    const float* val = v.tensor(kPipeV_heads) + head * head_nd;
    float* const head_output = v.tensor(kPipeHeadOutputs) + head * head_nd;
    kernels::transpose_keys(k, d_k, n, d_k, keys_transposed);
    for (int i0 = 0; i0 < n; i0 += kRowBlock) {
      const int block = std::min(kRowBlock, n - i0);
      const std::size_t at = head * nn + std::size_t(i0) * n, count = std::size_t(block) * n;
      const float* const q_block = q + std::size_t(i0) * d_k;
      float* const scores = v.tensor(kPipeScores) + at;
      float* const scaled = v.tensor(kPipeScoresScaled) + at;
      float* const weights = v.tensor(kPipeWeights) + at;
      // Step 1: scores = Q K^T.
      kernels::scores_qkt_transposed(q_block, d_k, keys_transposed, scores, block, n, d_k);
      kernels::repair_overflowed_scores(q_block, d_k, k, d_k, scores, block, n, d_k);
      // Step 2: scale by 1/sqrt(d_k) (kept separately so the page can show both).
      for (std::size_t e = 0; e < count; ++e) scaled[e] = scores[e] * v.scale_factor;
      // Step 3: mask with -inf, then softmax.
      kernels::scale_mask_softmax(scaled, weights, softmax_mask ? softmax_mask + std::size_t(i0) * n : nullptr, block,
                                  n, 1.0f, rows + i0);
      // Step 4: weighted sum of values.
      kernels::weighted_sum(weights, val, d_k, head_output + std::size_t(i0) * d_k, d_k, block, n, d_k);
    }
  }

  // The comparisons the walkthrough draws next to the configured path, for the head it shows. Where
  // one is the configured path itself (scaling off; a causal mask; no mask), it is a copy: the same
  // kernel on the same numbers, bit for bit.
  {
    const std::size_t head_nn = std::size_t(v.comparison_head) * nn;
    const float* const scores = v.tensor(kPipeScores) + head_nn;
    const float* const scaled = v.tensor(kPipeScoresScaled) + head_nn;
    const float* const weights = v.tensor(kPipeWeights) + head_nn;
    float* const unscaled = v.tensor(kPipeWeightsUnscaled);
    if (v.scale_factor == 1.0f)
      std::memcpy(unscaled, weights, nn * sizeof(float));
    else
      kernels::scale_mask_softmax(scores, unscaled, mask, n, n, 1.0f, nullptr);
    float* const before = v.tensor(kPipeWeightsCausal);
    if (mask_is_causal)
      std::memcpy(before, weights, nn * sizeof(float));
    else
      kernels::scale_mask_softmax(scaled, before, causal, n, n, 1.0f, nullptr);
    float* const after = v.tensor(kPipeWeightsMaskedAfter);
    if (mask_all_visible)
      std::memcpy(after, weights, nn * sizeof(float));
    else
      kernels::scale_mask_softmax(scaled, after, nullptr, n, n, 1.0f, nullptr);
    for (int i = 0; i < n; ++i) std::fill(after + std::size_t(i) * n + i + 1, after + std::size_t(i + 1) * n, 0.0f);
  }

  // Concat heads back to (n, d_model), then the output projection.
  float* const merged = v.tensor(kPipeMerged);
  const float* const head_outputs = v.tensor(kPipeHeadOutputs);
  for (int head = 0; head < h; ++head)
    for (int row = 0; row < n; ++row)
      std::memcpy(merged + std::size_t(row) * d_model + std::size_t(head) * d_k,
                  head_outputs + head * head_nd + std::size_t(row) * d_k, sizeof(float) * std::size_t(d_k));
  float* const output = v.tensor(kPipeOutput);
  kernels::matmul(merged, d_model, v.tensor(kPipeW_o), d_model, output, d_model, n, d_model, d_model);
  if (!all_finite(output, nd)) return Failure{kOutputOverflow};
  out = v;
  return Ok{};
}

Expected<PipelineSnapshot> run_pipeline(const PipelineConfig& config) {
  PipelineWorkspace workspace;
  PipelineView v;
  if (auto run = run_pipeline_into(config, workspace, v); !run.ok()) return Failure{run.error()};
  PipelineSnapshot s;
  s.n = v.n;
  s.d_model = v.d_model;
  s.heads = v.heads;
  s.d_k = v.d_k;
  s.scale_factor = v.scale_factor;
  const auto matrix = [&](PipelineTensor t, int rows, int cols) {
    return Matrix(Eigen::Map<const Matrix>(v.tensor(t), rows, cols));
  };
  const auto tensor3 = [&](PipelineTensor t, int cols) {
    Tensor3 out(v.heads, v.n, cols);
    std::memcpy(out.data.data(), v.tensor(t), out.data.size() * sizeof(float));
    return out;
  };
  s.X = matrix(kPipeX, v.n, v.d_model);
  s.W_q = matrix(kPipeW_q, v.d_model, v.d_model);
  s.W_k = matrix(kPipeW_k, v.d_model, v.d_model);
  s.W_v = matrix(kPipeW_v, v.d_model, v.d_model);
  s.W_o = matrix(kPipeW_o, v.d_model, v.d_model);
  s.Q = matrix(kPipeQ, v.n, v.d_model);
  s.K = matrix(kPipeK, v.n, v.d_model);
  s.V = matrix(kPipeV, v.n, v.d_model);
  s.Q_heads = tensor3(kPipeQ_heads, v.d_k);
  s.K_heads = tensor3(kPipeK_heads, v.d_k);
  s.V_heads = tensor3(kPipeV_heads, v.d_k);
  s.scores = tensor3(kPipeScores, v.n);
  s.scores_scaled = tensor3(kPipeScoresScaled, v.n);
  s.mask = Eigen::Map<const Mask>(v.mask(), v.n, v.n);
  s.weights = tensor3(kPipeWeights, v.n);
  s.fully_masked_rows.assign(v.fully_masked_rows(), v.fully_masked_rows() + v.n);
  s.head_outputs = tensor3(kPipeHeadOutputs, v.d_k);
  s.merged = matrix(kPipeMerged, v.n, v.d_model);
  s.output = matrix(kPipeOutput, v.n, v.d_model);
  s.comparison_head = v.comparison_head;
  s.weights_unscaled = matrix(kPipeWeightsUnscaled, v.n, v.n);
  s.weights_causal = matrix(kPipeWeightsCausal, v.n, v.n);
  s.weights_masked_after = matrix(kPipeWeightsMaskedAfter, v.n, v.n);
  return s;
}

}  // namespace abh
