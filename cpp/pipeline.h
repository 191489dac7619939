// The walkthrough's whole computation in one call: configuration in, every intermediate out.
// The page renders each step from this snapshot and never calls the engine itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
};

struct PipelineSnapshot {
  int n = 0, d_model = 0, heads = 0, d_k = 0;
  float scale_factor = 1.0f;  // 1/sqrt(d_k), or 1 with scaling off

  Matrix X;                              // (n, d_model) token embeddings
  Matrix W_q, W_k, W_v, W_o;             // (d_model, d_model)
  Matrix Q, K, V;                        // (n, d_model) = X W_*
  Tensor3 Q_heads, K_heads, V_heads;     // (h, n, d_k): the article's reshape + transpose
  Tensor3 scores;                        // (h, n, n) raw Q K^T
  Tensor3 scores_scaled;                 // (h, n, n) times scale_factor, before the mask
  Mask mask;                             // (n, n) the mask in force, all ones when none
  Tensor3 weights;                       // (h, n, n) softmax(mask(scores_scaled))
  std::vector<std::uint8_t> fully_masked_rows;  // (n) rows with no visible key: zero weights
  Tensor3 head_outputs;                  // (h, n, d_k) weights V
  Matrix merged;                         // (n, d_model) heads concatenated
  Matrix output;                         // (n, d_model) merged W_o

  // What the walkthrough compares against the configured path.
  Tensor3 weights_unscaled;      // same mask, no 1/sqrt(d_k): the saturation lesson
  Tensor3 weights_causal;        // causal mask applied before softmax (the right way)
  Tensor3 weights_masked_after;  // softmax unmasked, then zeroed above the diagonal (the wrong way)
};

// Empty string when the configuration is valid, else the reason in words for the reader.
std::string check_pipeline_config(const PipelineConfig& config);

Expected<PipelineSnapshot> run_pipeline(const PipelineConfig& config);

// The generated numbers on their own (exposed for the bit-identity test): X row i depends only
// on (seed, token_ids[i]); each weight matrix on (seed, its name). Weights are N(0,1)/sqrt(d_model)
// so Q, K, V entries have roughly unit variance, as the article's scaling argument assumes.
Matrix generate_embeddings(const std::vector<std::uint32_t>& token_ids, int d_model, std::uint32_t seed);
Matrix generate_projection(char name, int d_model, std::uint32_t seed);  // name: 'q', 'k', 'v' or 'o'

}  // namespace abh
