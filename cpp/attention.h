// The article's two functions, with its names and meaning:
//
//   def attention(Q, K, V, mask=None)                  -> (output, weights)
//   def multi_head_attention(X, W_q, W_k, W_v, W_o, h) -> (output, weights)
//
// built on the SIMD kernels. Differences from the article's NumPy, each deliberate:
//   - scaling by 1/sqrt(d_k) can be switched off, for the "why scale" comparison;
//   - a row whose every key is masked gets all-zero weights and is reported, where NumPy gives NaN;
//   - bad shapes and oversized requests return an error message instead of raising.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "tensor.h"

namespace abh {

struct AttentionOptions {
  bool scale = true;  // divide scores by sqrt(d_k)
};

struct AttentionResult {
  Matrix output;                                // (n_q, d_v)
  Matrix weights;                               // (n_q, n_k), rows sum to 1 or are all zero
  std::vector<std::uint8_t> fully_masked_rows;  // (n_q): 1 where every key was blocked
};

// Q is (n_q, d_k), K is (n_k, d_k), V is (n_k, d_v); mask, if given, is (n_q, n_k), 1 = allowed.
Expected<AttentionResult> attention(const Matrix& Q, const Matrix& K, const Matrix& V, const Mask* mask = nullptr,
                                    const AttentionOptions& options = {});

struct MultiHeadResult {
  Matrix output;                                // (n, d_model) = concat(heads) · W_o
  Tensor3 weights;                              // (h, n, n)
  std::vector<std::uint8_t> fully_masked_rows;  // (n), the same for every head
};

// X is (n, d_model); W_q, W_k, W_v, W_o are (d_model, d_model); h divides d_model.
Expected<MultiHeadResult> multi_head_attention(const Matrix& X, const Matrix& W_q, const Matrix& W_k, const Matrix& W_v,
                                               const Matrix& W_o, int h, bool causal = false,
                                               const AttentionOptions& options = {});

// Messages for inputs whose products leave float32's range. Scores that overflow are repaired
// (recomputed in double and clamped, see kernels::repair_overflowed_scores); a projection or an
// output that overflows cannot be, so it is reported instead of shown as inf or NaN.
extern const char* const kProjectionOverflow;
extern const char* const kOutputOverflow;

// A lower-triangular (n, n) mask: token i sees tokens 0..i. fill_causal_mask writes one into mask,
// (n, n) row-major bytes; causal_mask returns one.
void fill_causal_mask(std::uint8_t* mask, int n);
Mask causal_mask(int n);

// The factor scores are multiplied by: 1/sqrt(d_k), or 1 with scaling off. Every kernel (attention,
// the pipeline, the tiles) computes it here, so all of them scale by the same float.
float score_scale(int d_k, bool scale);

// No NaN or infinity among the `count` values at p (the overflow checks on projections and outputs).
bool all_finite(const float* p, std::size_t count);
inline bool all_finite(const Matrix& m) { return all_finite(m.data(), std::size_t(m.size())); }

// ---- the rules, with the messages the reader sees -------------------------------------------
// Every rule lives in one function here (or, for the tiled kernel and the walkthrough, next to
// their entry points: check_flash_inputs, check_pipeline_*). The kernels' entry points call them;
// the wasm bindings call the same functions on the shapes before copying any input in, so an
// oversized request costs no copy. The TypeScript wrapper checks only JavaScript types.

// x is a whole number in [lo, hi] (NaN, what the wrapper passes for a non-number, is not):
// "<name> must be a whole number".
Status check_whole_number(const char* name, double x, double lo, double hi);
// The generator's seed: a whole number from 0 to 2^32 - 1.
Status check_seed(double seed);
// Q is (n_q, d_k), K is (n_k, k_cols), V is (v_rows, d_v): the shape rules attention() and the tiled
// kernel share.
Status check_qkv_shapes(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v);
// The size limits every attention kernel keeps: n_q, n_k <= max_sequence (the message names it
// "<sequence> is limited to N tokens") and d_k, d_v <= limits::kMaxDim.
Status check_qkv_limits(int n_q, int n_k, int d_k, int d_v, int max_sequence, const char* sequence = "sequence length");
// check_qkv_shapes plus attention()'s size limits and the mask's shape: mask_entries is its length
// (-1: no mask), mask_rows its rows (-1: a flat array, as the page passes it).
Status check_attention_shapes(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v, std::int64_t mask_entries,
                              std::int64_t mask_rows = -1);
Status check_heads(int d_model, int h);
// multi_head_attention(): X is (n, d_model), each projection (rows, cols), h heads.
Status check_multi_head_shapes(int n, int d_model, std::initializer_list<std::pair<int, int>> projections, int h);
// NaN or inf anywhere is refused: it would poison every weight of its row (or, clamped, pose as a
// maximal score). The message names the matrix and the 1-based position. data is (count / cols, cols).
Status check_finite(const char* name, const float* data, std::size_t count, std::size_t cols);
Status check_finite(std::initializer_list<std::pair<const char*, const Matrix*>> matrices);

}  // namespace abh
