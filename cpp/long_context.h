// The article's list of ways around the n x n matrix ("sliding windows, sparse patterns, linear
// attention"), and what makes generating text with a long context expensive today: the KV cache
// and the grouped-query attention built to shrink it. Every kernel here computes only the cells it
// needs; none masks a full (n, n) matrix.
//
//   sparse_attention      softmax over a fixed pattern of keys per query: a sliding window of
//                         width w, plus g global tokens (Longformer, BigBird), plus every s-th key
//                         (the Sparse Transformer's strided pattern). Cells: ~ n (w + g + n / s).
//   linear_attention      out_i = phi(q_i)^T (sum_j phi(k_j) v_j^T) / (phi(q_i) . sum_j phi(k_j)),
//                         phi(x) = elu(x) + 1 (Katharopoulos et al. 2020): O(n d_k d_v), no weights.
//   KVCache, decode_step  one new token's query row per head against the t cached keys of its KV
//                         head group (h query heads, kv_heads dividing h: MHA, GQA, MQA): O(t d).
//   decode_recompute      the baseline without a cache: causal attention over all t tokens again,
//                         O(t^2 d), of which only the last row is new.
//
// Scores are always scaled by 1/sqrt(d_k). Inputs with NaN or inf are refused (check_finite, as in
// attention()); scores that overflow float32 are recomputed in double and clamped, like attention().
#pragma once

#include <cstdint>
#include <vector>

#include "tensor.h"

namespace abh {

// ---- sparse patterns -------------------------------------------------------------------------
//
// Self-attention over one sequence of n tokens: query i and key i are the same position. Query i
// attends to the union of
//   - its window: causal, keys [i - window + 1, i] (itself and the window - 1 before it); not
//     causal, the symmetric band |i - j| < window (window - 1 on each side). window >= n is full
//     (causal) attention.
//   - the global tokens, positions 0 .. global - 1: every query attends to them, and they attend to
//     every key (causal: every key up to themselves, which their window already covers).
//   - with stride s >= 1, every key j with (i - j) a multiple of s (causal: j <= i); s = 1 is full
//     attention, 0 switches the strided part off.
// Keys are clipped to [0, n). Every query sees at least itself, so no row is ever empty.
struct SparsePattern {
  int window = 1;      // >= 1; values above n act as n
  int global = 0;      // 0 .. n
  int stride = 0;      // 0 = none, else >= 1
  bool causal = true;  // see above
};

struct SparseAttentionResult {
  Matrix output;           // (n, d_v)
  std::int64_t cells = 0;  // query-key scores computed: the size of the pattern, exactly
};

// Q is (n, d_k), K is (n, d_k), V is (n, d_v), row-major. The output equals attention() with
// sparse_pattern_mask() as its mask, computed over the pattern's cells only (two-pass softmax per
// query row with its max subtracted).
Expected<SparseAttentionResult> sparse_attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                                                 const SparsePattern& pattern);
// The pattern with only a window: sparse_attention(Q, K, V, {window, 0, 0, causal}).
Expected<SparseAttentionResult> sliding_window_attention(const Matrix& Q, const Matrix& K, const Matrix& V, int window,
                                                         bool causal);

// The pattern as an (n, n) mask, 1 = attended, for the figure and for comparing with attention().
// n <= limits::kMaxPatternMaskSequence.
Expected<Mask> sparse_pattern_mask(int n, const SparsePattern& pattern);
// The pattern's cell count without computing anything: sum over queries of their key counts.
Expected<std::int64_t> sparse_pattern_cells(int n, const SparsePattern& pattern);

// ---- linear attention ------------------------------------------------------------------------

struct LinearAttentionResult {
  Matrix output;  // (n, d_v)
};

// Q is (n, d_k), K is (n, d_k), V is (n, d_v). Not causal: the d_k x d_v summary sum_j phi(k_j) v_j^T
// and the d_k normaliser sum_j phi(k_j) are built once, then every query reads them: O(n d_k d_v).
// Causal: the same sums as running prefix sums over j <= i, updated token by token.
// phi(q_i) is rescaled per row and phi(K) by one common factor before the sums (the ratio does not
// change), so that very negative inputs do not underflow every feature to 0.
Expected<LinearAttentionResult> linear_attention(const Matrix& Q, const Matrix& K, const Matrix& V, bool causal);

// The (n, n) weights linear attention implies: w_ij = phi(q_i) . phi(k_j) / sum_j' phi(q_i) . phi(k_j')
// (causal: j, j' <= i). Rows sum to 1, weights are positive where allowed, and weights V equals
// linear_attention()'s output. For the figure: n <= limits::kMaxPatternMaskSequence.
Expected<Matrix> linear_attention_weights(const Matrix& Q, const Matrix& K, bool causal);

// elu(x) + 1: x + 1 for x > 0, exp(x) otherwise. Positive, so every implied weight is too.
float elu_plus_one(float x);

// ---- KV cache and decoding -------------------------------------------------------------------

// Keys and values of the tokens generated so far, per layer and KV head: for each (layer, kv head)
// a (capacity, d_k) block of keys and one of values, of which the first length(layer) rows are
// filled. Memory is allocated once, at creation, for `capacity` tokens.
class KVCache {
 public:
  KVCache() = default;  // empty (no layers); create() makes a usable one
  static Expected<KVCache> create(int layers, int kv_heads, int d_k, int capacity);

  // One token's keys and values for `layer`: K_token and V_token are (kv_heads, d_k), row-major.
  Status append(int layer, const Matrix& K_token, const Matrix& V_token);
  // append()'s rules on the shapes alone: a layer it has, (kv_heads, d_k) matrices, room left.
  Status check_append(int layer, int k_rows, int k_cols, int v_rows, int v_cols) const;

  int layers() const { return layers_; }
  int kv_heads() const { return kv_heads_; }
  int d_k() const { return d_k_; }
  int capacity() const { return capacity_; }
  int length(int layer) const { return lengths_[std::size_t(layer)]; }
  // The cached keys / values of (layer, kv head): (length(layer), d_k), row stride d_k.
  const float* keys(int layer, int kv_head) const;
  const float* values(int layer, int kv_head) const;
  // 2 (K and V) * layers * kv_heads * d_k * 4 bytes (float32).
  std::int64_t bytes_per_token() const;

 private:
  std::size_t block(int layer, int kv_head) const;

  int layers_ = 0, kv_heads_ = 0, d_k_ = 0, capacity_ = 0;
  std::vector<int> lengths_;          // (layers)
  std::vector<float> keys_, values_;  // (layers, kv_heads, capacity, d_k)
};

// 2 * layers * kv_heads * d_k * bytes_per_value: the cache's size per token of context, for any model
// shape (the page's table of public models). Each argument from 1 to limits::kMaxKVShape.
Expected<std::int64_t> kv_cache_bytes_per_token(int layers, int kv_heads, int d_k, int bytes_per_value);

struct DecodeResult {
  Matrix output;           // (h, d_k): head t's attention output in row t
  std::int64_t cells = 0;  // scores computed: h * length
};

// The new token's queries, Q_token (h, d_k), against the length(layer) cached keys and values of
// `layer` (the new token's own K and V appended first): query head t reads KV head t / (h / kv_heads).
// h = kv_heads is multi-head attention, 1 < kv_heads < h grouped-query, kv_heads = 1 multi-query.
Expected<DecodeResult> decode_step(const KVCache& cache, int layer, const Matrix& Q_token);

// The same row without a cache: Q is (t, h * d_k), K and V are (t, kv_heads * d_k), every token's
// projections side by side per head (as flash_multi_head takes them). Runs causal attention over all
// t tokens, as a model without a cache must at each step, and returns the last row as (h, d_k);
// cells counts every causal score computed, h * t (t + 1) / 2.
Expected<DecodeResult> decode_recompute(const Matrix& Q, const Matrix& K, const Matrix& V, int h, int kv_heads);

// ---- the rules, with the reader's messages (the bindings call them before copying inputs) ----

// n queries and keys of d_k, V (v_rows, d_v), and the pattern's own rules.
Status check_sparse_inputs(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v, const SparsePattern& pattern);
Status check_sparse_pattern(int n, const SparsePattern& pattern);
Status check_linear_inputs(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v);
Status check_kv_cache_shape(int layers, int kv_heads, int d_k, int capacity);
// decode_step(): a layer the cache has, with tokens in it; Q_token (h, q_cols) with q_cols = d_k.
Status check_decode_inputs(const KVCache& cache, int layer, int h, int q_cols);
// decode_recompute(): Q (t, q_cols), K (k_rows, k_cols), V (v_rows, v_cols), h and kv_heads.
Status check_decode_recompute_inputs(int t, int q_cols, int k_rows, int k_cols, int v_rows, int v_cols, int h,
                                     int kv_heads);
// The (n, n) figures' size: 1 <= n <= limits::kMaxPatternMaskSequence.
Status check_figure_size(int n);
// h query heads against kv_heads: 1 <= h <= limits::kMaxHeads and kv_heads divides h.
Status check_query_groups(int h, int kv_heads);

}  // namespace abh
