// The walkthrough's whole computation in one call: configuration in, every intermediate out.
// The page renders each step from this snapshot and never calls the engine itself.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine_limits.h"
#include "tensor.h"

namespace abh {

struct PipelineConfig {
  std::vector<std::uint32_t> token_ids;  // one per token (see token_id()); n = token_ids.size()
  int d_model = 8;
  int heads = 2;
  bool causal = false;
  bool scale = true;
  std::uint32_t seed = 1;
  // Optional explicit matrices (reader edits, presets), row-major; empty = generated from the seed.
  std::vector<float> X;                   // (n, d_model)
  std::vector<float> W_q, W_k, W_v, W_o;  // (d_model, d_model)
  std::vector<std::uint8_t> mask;         // (n, n), 1 = allowed; empty = the causal flag decides
  // The head the comparison tables are computed for (the page passes the head it shows), 0 .. heads-1.
  int comparison_head = 0;
};

struct PipelineSnapshot {
  int n = 0, d_model = 0, heads = 0, d_k = 0;
  float scale_factor = 1.0f;  // 1/sqrt(d_k), or 1 with scaling off

  Matrix X;                                     // (n, d_model) token embeddings
  Matrix W_q, W_k, W_v, W_o;                    // (d_model, d_model)
  Matrix Q, K, V;                               // (n, d_model) = X W_*
  Tensor3 Q_heads, K_heads, V_heads;            // (h, n, d_k): the article's reshape + transpose
  Tensor3 scores;                               // (h, n, n) raw Q K^T
  Tensor3 scores_scaled;                        // (h, n, n) times scale_factor, before the mask
  Mask mask;                                    // (n, n) the mask in force, all ones when none
  Tensor3 weights;                              // (h, n, n) softmax(mask(scores_scaled))
  std::vector<std::uint8_t> fully_masked_rows;  // (n) rows with no visible key: zero weights
  Tensor3 head_outputs;                         // (h, n, d_k) weights V
  Matrix merged;                                // (n, d_model) heads concatenated
  Matrix output;                                // (n, d_model) merged W_o

  // What the walkthrough compares against the configured path, for one head only (comparison_head):
  // the page draws each of them for the head it shows, and at 8 heads of 256 tokens keeping them for
  // every head was 6 of the snapshot's 12.6 MB, which the page copies out of wasm on every change.
  int comparison_head = 0;
  Matrix weights_unscaled;      // (n, n) same mask, no 1/sqrt(d_k): the saturation lesson
  Matrix weights_causal;        // (n, n) causal mask applied before softmax (the right way)
  Matrix weights_masked_after;  // (n, n) softmax unmasked, then zeroed above the diagonal (the wrong way)
};

// ---- the flat layout: one run's every intermediate in one block of memory ----------------------
//
// run_pipeline_into() writes a snapshot as one contiguous block: every float tensor at a 16-byte
// aligned offset, then the mask (n x n bytes) and fully_masked_rows (n bytes). The wasm bindings hand
// the block to JS in one copy (web/src/engine/engine.ts cuts it into typed-array views), so a
// pipeline call costs a handful of boundary crossings whatever the number of tensors.

// The float tensors of a snapshot, in block order.
enum PipelineTensor : int {
  kPipeW_q,
  kPipeW_k,
  kPipeW_v,
  kPipeW_o,  // (d_model, d_model), first: their offsets depend on d_model only
  kPipeX,    // (n, d_model)
  kPipeQ,
  kPipeK,
  kPipeV,  // (n, d_model)
  kPipeQ_heads,
  kPipeK_heads,
  kPipeV_heads,  // (h, n, d_k)
  kPipeScores,
  kPipeScoresScaled,
  kPipeWeights,      // (h, n, n)
  kPipeHeadOutputs,  // (h, n, d_k)
  kPipeMerged,
  kPipeOutput,  // (n, d_model)
  kPipeWeightsUnscaled,
  kPipeWeightsCausal,
  kPipeWeightsMaskedAfter,  // (n, n): comparison_head only
  kPipelineTensorCount
};

// A tensor's shape at (n, d_model, heads): rank 3 is (heads, rows, cols), rank 2 (rows, cols).
struct PipelineShape {
  int rank = 0;
  int dims[3] = {};
  std::size_t elements() const;
};
PipelineShape pipeline_tensor_shape(PipelineTensor t, int n, int d_model, int heads);

struct PipelineLayout {
  std::size_t offset[kPipelineTensorCount] = {};  // in floats from the start of the block
  std::size_t size[kPipelineTensorCount] = {};    // in floats
  std::size_t mask_byte_offset = 0;               // n x n bytes
  std::size_t rows_byte_offset = 0;               // n bytes: fully_masked_rows
  std::size_t bytes = 0;                          // the published part: every tensor, mask and rows
  std::size_t scratch_byte_offset = 0;            // n x n bytes of working memory after it
  std::size_t keys_transposed_offset = 0;         // in floats: n x d_k more, one head's K transposed
  std::size_t floats = 0;                         // the whole block, scratch included, in floats

  static PipelineLayout of(int n, int d_model, int heads);
};

// A finished run: where each tensor is. The block belongs to the workspace that made it and stays
// valid until that workspace's next run or release().
struct PipelineView {
  int n = 0, d_model = 0, heads = 0, d_k = 0, comparison_head = 0;
  float scale_factor = 1.0f;
  PipelineLayout layout;
  float* block = nullptr;

  float* tensor(PipelineTensor t) const { return block + layout.offset[t]; }
  std::uint8_t* mask() const { return reinterpret_cast<std::uint8_t*>(block) + layout.mask_byte_offset; }
  std::uint8_t* fully_masked_rows() const { return reinterpret_cast<std::uint8_t*>(block) + layout.rows_byte_offset; }
  std::size_t bytes() const { return layout.bytes; }
};

// ---- the published layout --------------------------------------------------------------------
//
// Every array of a finished run as the page names it (web/src/engine/engine.ts builds its snapshot
// from this table and knows no offset, order or shape of its own): the float tensors in block order,
// then the mask ((n, n) bytes) and fully_masked_rows ((n) bytes). The names are the fields of
// PipelineSnapshot in web/src/engine/types.ts.
enum class PipelineElement : std::uint8_t { kFloat32 = 0, kUint8 = 1 };

// What each array is computed from, in six nested levels: an array of level L depends on the inputs
// of levels 0 to L only, so a run whose inputs of levels 0 to L are unchanged computes the same
// bits for it (the engine is deterministic). The page's result sharing takes such an array from the
// previous result without comparing it (web/src/engine/result-sharing.ts); tests/cpp/pipeline_test.cpp
// checks every level against runs that change one input.
enum class PipelineLevel : std::uint8_t {
  kWeights = 0,         // seed, d_model (and given weight matrices)
  kTokens = 1,          // the token ids (and a given X)
  kHeads = 2,           // the number of heads
  kScaling = 3,         // scaling by 1/sqrt(d_k) on or off
  kMask = 4,            // the causal flag or a custom mask
  kComparisonHead = 5,  // the head the comparison tables are for
};
constexpr int kPipelineLevelCount = 6;

// One array of the published layout, declared once: its name and its level.
struct PipelineFieldSpec {
  const char* name;
  PipelineLevel level;
};
constexpr int kPipelineFieldCount = kPipelineTensorCount + 2;
extern const PipelineFieldSpec kPipelineFieldSpecs[kPipelineFieldCount];

struct PipelineField {
  const char* name = nullptr;
  PipelineLevel level = PipelineLevel::kWeights;
  PipelineElement element = PipelineElement::kFloat32;
  PipelineShape shape;          // rank 1 is (length)
  std::size_t byte_offset = 0;  // from the start of the block; float tensors are 16-byte aligned
};
std::array<PipelineField, kPipelineFieldCount> pipeline_fields(const PipelineView& view);

// The memory run_pipeline_into() writes to, kept between runs so that a run allocates nothing once
// the workspace has grown to its size. It may be given a caller-owned fixed block (the wasm bindings
// use a static one, which malloc never sees), used whenever a run fits; larger runs use heap memory
// that release() frees.
//
// It also remembers which generated weight matrices its block already holds (W_q, W_k, W_v, W_o come
// first in the layout and depend only on the seed and d_model), so the walkthrough's typical call
// (same seed and d_model, a new sentence, mask, head count or scaling) does not regenerate them:
// d_model^2 normals each, 12 SplitMix64 steps per normal. Measured in the wasm build (Node, same
// process, a heads change against a heads-and-seed change): a call regenerating them (and X) took
// 2.0x as long at n = 64, d_model 256; 2.4x at n = 24, d_model 64; 25x at n = 9, d_model 64. The
// embedding rows were kept the same way until that measurement showed 1.0-1.24x: they are regenerated.
class PipelineWorkspace {
 public:
  PipelineWorkspace() = default;
  PipelineWorkspace(float* fixed_block, std::size_t fixed_floats) : fixed_(fixed_block), fixed_floats_(fixed_floats) {}
  PipelineWorkspace(const PipelineWorkspace&) = delete;
  PipelineWorkspace& operator=(const PipelineWorkspace&) = delete;

  // Frees the heap block (the fixed block and what it caches stay).
  void release();
  std::size_t heap_floats() const { return heap_floats_; }

 private:
  friend Status run_pipeline_into(const PipelineConfig& config, PipelineWorkspace& workspace, PipelineView& out);
  float* acquire(std::size_t floats);

  float* fixed_ = nullptr;
  std::size_t fixed_floats_ = 0;
  std::unique_ptr<float[]> heap_;  // not zero-filled: every run writes all of its block
  std::size_t heap_floats_ = 0;
  // What the W_q..W_o slots of `cached_block_` hold: generated from (seed, d_model), or nothing known.
  struct Generated {
    bool valid = false;
    std::uint32_t seed = 0;
    int d_model = 0;
  };
  const float* cached_block_ = nullptr;
  Generated generated_[4];
};

// The walkthrough's rules, with the reader's messages. check_pipeline_sizes is the part the wasm
// bindings check before staging inputs (lengths 0 = not given); check_pipeline_config includes it.
Status check_pipeline_sizes(std::int64_t n, std::int64_t x_length, const std::int64_t (&w_lengths)[4],
                            std::int64_t mask_length);
Status check_pipeline_config(const PipelineConfig& config);

// Every intermediate into the workspace's block: `out` filled on success, else the reason.
// Allocates nothing when the workspace already has room.
Status run_pipeline_into(const PipelineConfig& config, PipelineWorkspace& workspace, PipelineView& out);

// The same run as owned matrices (tests, tools): a copy out of a temporary workspace.
Expected<PipelineSnapshot> run_pipeline(const PipelineConfig& config);

// The generated numbers on their own (exposed for the bit-identity test): X row i depends only
// on (seed, token_ids[i]); each weight matrix on (seed, its name). Weights are N(0,1)/sqrt(d_model)
// so Q, K, V entries have roughly unit variance, as the article's scaling argument assumes.
Matrix generate_embeddings(const std::vector<std::uint32_t>& token_ids, int d_model, std::uint32_t seed);
Matrix generate_projection(char name, int d_model, std::uint32_t seed);  // name: 'q', 'k', 'v' or 'o'

}  // namespace abh
