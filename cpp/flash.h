// Tiled attention in the style of FlashAttention-2 (Dao 2023): the same result as attention(), computed
// without ever materialising the (n_q, n_k) weight matrix. The article's closing point, as code:
//
//   for each query block Q_b (block_q rows):
//     m = -inf, l = 0, acc = 0                            per query row: running max, sum, output
//     for each key/value block K_c, V_c (block_k rows):
//       S   = Q_b K_c^T * scale                            step 1-2 on one tile only
//       m'  = max(m, rowmax(S))
//       a   = exp(m - m')                                  < 1 exactly when the row max grew
//       P   = exp(S - m')                                  step 3, not yet normalised
//       l   = a l + rowsum(P),  acc = a acc + P V_c        step 4, rescaled to the new max
//       m   = m'
//     out_b = acc / l                                      the deferred softmax division
//
// Extra memory is one (block_q, block_k) tile, three block_q vectors and packed copies of one query
// block and one key block, (block_q + block_k) * d_k, independent of n; acc lives in the output's own
// rows. Causal attention (token i sees keys 0..i) skips key blocks that lie entirely above the diagonal
// and masks the diagonal blocks column by column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace abh {

struct FlashOptions {
  int block_q = 64;     // query rows per tile, 1..limits::kMaxFlashBlock
  int block_k = 64;     // key/value rows per tile, 1..limits::kMaxFlashBlock
  bool causal = false;  // token i attends to keys 0..i; needs n_q == n_k
  bool scale = true;    // divide scores by sqrt(d_k)
};

struct FlashResult {
  Matrix output;                    // (n_q, d_v), equal to attention(Q, K, V).output up to float rounding
  std::int64_t scratch_floats = 0;  // floats of working memory besides inputs and output: O(block * (block + d_k))
};

// One (query block, key block) step, as the step-through figure shows it. Rows are the query block's
// rows [q_start, q_end), columns the key block's keys [k_start, k_end). Values are after the step.
struct FlashTraceStep {
  int q_block = 0, k_block = 0;  // block indices
  int q_start = 0, q_end = 0;    // query rows [q_start, q_end)
  int k_start = 0, k_end = 0;    // keys [k_start, k_end)
  bool skipped = false;          // causal and every key of the block is in every row's future
  Matrix scores;                 // (rows, cols) Q_b K_c^T * scale; masked entries are -inf
  Matrix probabilities;          // (rows, cols) exp(score - m) with the new m; 0 where masked
  std::vector<float> m;          // (rows) running max after the step (-inf while nothing was visible)
  std::vector<float> l;          // (rows) running sum after the step
  std::vector<float> rescale;    // (rows) exp(m_old - m_new): 1 if the max stayed, < 1 if it grew
  Matrix acc;                    // (rows, d_v) unnormalised output accumulator after the step
};

struct FlashTrace {
  int n_q = 0, n_k = 0, d_k = 0, d_v = 0;
  int block_q = 0, block_k = 0;  // as used (clamped to n_q and n_k)
  int query_blocks = 0, key_blocks = 0;
  bool causal = false;
  float scale_factor = 1.0f;          // 1/sqrt(d_k), or 1 with scaling off
  std::vector<FlashTraceStep> steps;  // query block outer, key block inner: query_blocks * key_blocks
  Matrix output;                      // (n_q, d_v), bit-identical to flash_attention()'s output
};

// Q is (n_q, d_k), K is (n_k, d_k), V is (n_k, d_v). Accepts up to limits::kMaxFlashSequence tokens.
// Like attention(), scores that overflow float32 are recomputed in double (kernels::repair_overflowed_scores)
// and an output that overflows is an error (kOutputOverflow). One difference: acc holds up to n_k * max|V|
// before the division by l, so V within a factor n_k of FLT_MAX can overflow here and not there.
Expected<FlashResult> flash_attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                                      const FlashOptions& options = {});

// Every head of multi-head attention in one call, on the projections before they are split: Q is
// (n_q, heads * d_k), K is (n_k, heads * d_k), V is (n_k, heads * d_v); head t reads columns
// [t d_k, (t + 1) d_k) of Q and K and [t d_v, (t + 1) d_v) of V in place (row strides, no copies).
// The output is (n_q, heads * d_v) with head t's attention in its columns [t d_v, (t + 1) d_v): the
// heads concatenated, ready for W_o. Each head's columns are exactly flash_attention() on that head's
// slices (same tiles, same summation order); the scratch is allocated once and shared by the heads.
// 1 <= heads <= limits::kMaxHeads; the limits of flash_attention() apply per head and to the whole matrices.
Expected<FlashResult> flash_multi_head(const Matrix& Q, const Matrix& K, const Matrix& V, int heads,
                                       const FlashOptions& options = {});

// The same computation, recording every tile step. Small inputs only: n_q, n_k <= limits::kMaxTraceSequence,
// d_k, d_v <= limits::kMaxTraceDim.
Expected<FlashTrace> flash_attention_trace(const Matrix& Q, const Matrix& K, const Matrix& V,
                                           const FlashOptions& options = {});

// The rules of the three entry points, with the reader's messages (the wasm bindings call them on the
// shapes before copying inputs in). Each includes the one before: multi-head and trace add theirs to
// check_flash_inputs'.
Status check_flash_inputs(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v, const FlashOptions& options);
Status check_flash_multi_head_inputs(int n_q, int n_k, int width_qk, int k_cols, int v_rows, int width_v, int heads,
                                     const FlashOptions& options);
Status check_flash_trace_inputs(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v,
                                const FlashOptions& options);

}  // namespace abh
