// The KV cache and one decoding step with grouped KV heads (long_context.h), and the baseline that
// recomputes everything. The step is attention() on one row per query head, with the queries of one
// KV group as the rows: its own score kernel (below) reads the cached keys as they are stored, then
// the shared fused softmax and weights . V.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "attention.h"  // check_finite, score_scale, kOutputOverflow
#include "engine_limits.h"
#include "flash.h"
#include "kernels.h"
#include "long_context.h"
#include "microkernels.h"  // vf: a wasm SIMD128 register under -msimd128, four plain floats otherwise

namespace abh {

namespace {

using namespace kernels::detail;

const char* const kNoLayers = "the cache has no layers yet: create it with its shape first";

Status check_range(const char* what, int x, int lo, int hi) {
  if (x >= lo && x <= hi) return Ok{};
  return Failure{std::string(what) + " must be from " + std::to_string(lo) + " to " + std::to_string(hi) + " (got " +
                 std::to_string(x) + ")"};
}

// Keys per score tile: one vector lane per key.
constexpr int kDecodeKeyTile = 4;
// Query rows per pass over a key tile: R accumulators, 4 transposed key columns and a splat stay
// within the ~15 vector registers V8 gives wasm on x86-64.
constexpr int kDecodeRowTile = 4;

// S (R, 4) at row stride lds = q (R, d) . k (4, d)^T, both row-major at row stride d. Four key rows are
// loaded as the cache stores them and turned into four columns of four keys in registers (a 4x4
// transpose), so each score is the sum ((0 + q_0 k_0) + q_1 k_1) + ... in order of t, with no
// horizontal reduction: the order of kernels::scores_qkt and of flash.cpp's tiles, which gives the
// same bits as the recompute baseline even for huge, ill-conditioned scores (the fuzz target checks it).
template <int R>
ABH_INLINE void score_tile(const float* q, const float* k, float* S, std::ptrdiff_t lds, int d) {
  vf acc[R];
  ABH_UNROLL
  for (int r = 0; r < R; ++r) acc[r] = vzero();
  const int d4 = d & ~3;
  for (int c = 0; c < d4; c += 4) {
    vf col[4] = {vload(k + c), vload(k + d + c), vload(k + 2 * std::ptrdiff_t(d) + c),
                 vload(k + 3 * std::ptrdiff_t(d) + c)};
    vtranspose4(col[0], col[1], col[2], col[3]);  // col[m]: element c + m of the four keys
    ABH_UNROLL
    for (int m = 0; m < 4; ++m) {
      ABH_UNROLL
      for (int r = 0; r < R; ++r) acc[r] = vmadd(acc[r], vload_splat(q + std::ptrdiff_t(r) * d + c + m), col[m]);
    }
  }
  for (int c = d4; c < d; ++c) {  // d not a multiple of 4: the last columns one at a time
    const vf column = vmake(k[c], k[d + c], k[2 * std::ptrdiff_t(d) + c], k[3 * std::ptrdiff_t(d) + c]);
    ABH_UNROLL
    for (int r = 0; r < R; ++r) acc[r] = vmadd(acc[r], vload_splat(q + std::ptrdiff_t(r) * d + c), column);
  }
  ABH_UNROLL
  for (int r = 0; r < R; ++r) vstore(S + std::ptrdiff_t(r) * lds, acc[r]);
}

// score_tile for 1..kDecodeRowTile rows (a switch, so that each instance stays inlined).
ABH_INLINE void score_tile_n(int rows, const float* q, const float* k, float* S, std::ptrdiff_t lds, int d) {
  switch (rows) {
    case 4:
      score_tile<4>(q, k, S, lds, d);
      break;
    case 3:
      score_tile<3>(q, k, S, lds, d);
      break;
    case 2:
      score_tile<2>(q, k, S, lds, d);
      break;
    default:
      score_tile<1>(q, k, S, lds, d);
      break;
  }
}

// S (n_q, 4) at row stride lds = Q (n_q, d) . k (4, d)^T: every query row against one key tile.
ABH_INLINE void score_rows(const float* Q, int n_q, const float* k, float* S, std::ptrdiff_t lds, int d) {
  for (int i = 0; i < n_q; i += kDecodeRowTile)
    score_tile_n(std::min(kDecodeRowTile, n_q - i), Q + std::ptrdiff_t(i) * d, k, S + i * lds, lds, d);
}

// S (n_q, t) = Q (n_q, d) . K^T, with Q and K (t, d) row-major at row stride d: the cache's layout, so
// nothing is copied or transposed in memory per call (kernels::scores_qkt packs a transposed block of
// keys, a copy that a KV group's few query rows do not amortise). One pass over the keys serves every
// query row of the KV group: a tile of 4 keys stays in L1 while the rows go by, 4 at a time. The last
// t mod 4 keys go through the same tile from a zero-padded copy. Inlined, so that decode_step itself
// shows its SIMD (tests/unit/wasm-simd.test.ts).
ABH_INLINE void scores_against_cache(const float* Q, const float* K, float* S, int n_q, int t, int d) {
  const int whole = t - t % kDecodeKeyTile;
  for (int j = 0; j < whole; j += kDecodeKeyTile) score_rows(Q, n_q, K + std::size_t(j) * d, S + j, t, d);
  if (whole == t) return;
  const int rest = t - whole;
  std::vector<float> keys(std::size_t(kDecodeKeyTile) * d, 0.0f), scores(std::size_t(n_q) * kDecodeKeyTile);
  std::copy_n(K + std::size_t(whole) * d, std::size_t(rest) * d, keys.begin());
  score_rows(Q, n_q, keys.data(), scores.data(), kDecodeKeyTile, d);
  for (int i = 0; i < n_q; ++i)
    std::copy_n(scores.begin() + std::ptrdiff_t(i) * kDecodeKeyTile, rest, S + std::size_t(i) * t + whole);
}

}  // namespace

Status check_kv_cache_shape(int layers, int kv_heads, int d_k, int capacity) {
  using namespace limits;
  if (auto ok = check_range("layers", layers, 1, kMaxCacheLayers); !ok.ok()) return ok;
  if (auto ok = check_range("kv_heads", kv_heads, 1, kMaxHeads); !ok.ok()) return ok;
  if (auto ok = check_range("d_k", d_k, 1, kMaxDim); !ok.ok()) return ok;
  if (auto ok = check_range("the cache's capacity", capacity, 1, kMaxCacheTokens); !ok.ok()) return ok;
  if (std::int64_t(layers) * kv_heads * d_k * capacity > kMaxCacheElements)
    return Failure{"layers x kv_heads x d_k x capacity is limited to " + std::to_string(kMaxCacheElements / (1 << 20)) +
                   "M floats (each of keys and values)"};
  return Ok{};
}

Status check_query_groups(int h, int kv_heads) {
  using std::to_string;
  if (auto ok = check_range("the number of query heads", h, 1, limits::kMaxHeads); !ok.ok()) return ok;
  if (auto ok = check_range("kv_heads", kv_heads, 1, limits::kMaxHeads); !ok.ok()) return ok;
  if (h % kv_heads != 0)
    return Failure{"kv_heads (" + to_string(kv_heads) + ") must divide the number of query heads (" + to_string(h) +
                   "): each KV head serves an equal group"};
  return Ok{};
}

Expected<std::int64_t> kv_cache_bytes_per_token(int layers, int kv_heads, int d_k, int bytes_per_value) {
  for (const auto& [name, x] : {std::pair<const char*, int>{"layers", layers},
                                {"kv_heads", kv_heads},
                                {"d_k", d_k},
                                {"bytes per value", bytes_per_value}})
    if (auto ok = check_range(name, x, 1, limits::kMaxKVShape); !ok.ok()) return Failure{ok.error()};
  return std::int64_t(2) * layers * kv_heads * d_k * bytes_per_value;
}

// ---- KVCache -------------------------------------------------------------------------------------

Expected<KVCache> KVCache::create(int layers, int kv_heads, int d_k, int capacity) {
  if (auto ok = check_kv_cache_shape(layers, kv_heads, d_k, capacity); !ok.ok()) return Failure{ok.error()};
  KVCache cache;
  cache.layers_ = layers;
  cache.kv_heads_ = kv_heads;
  cache.d_k_ = d_k;
  cache.capacity_ = capacity;
  cache.lengths_.assign(std::size_t(layers), 0);
  const std::size_t floats = std::size_t(layers) * kv_heads * capacity * d_k;
  cache.keys_.assign(floats, 0.0f);
  cache.values_.assign(floats, 0.0f);
  return cache;
}

std::size_t KVCache::block(int layer, int kv_head) const {
  return (std::size_t(layer) * kv_heads_ + kv_head) * capacity_ * d_k_;
}

const float* KVCache::keys(int layer, int kv_head) const { return keys_.data() + block(layer, kv_head); }
const float* KVCache::values(int layer, int kv_head) const { return values_.data() + block(layer, kv_head); }

std::int64_t KVCache::bytes_per_token() const {
  return kv_cache_bytes_per_token(layers_, kv_heads_, d_k_, int(sizeof(float))).value();
}

Status KVCache::check_append(int layer, int k_rows, int k_cols, int v_rows, int v_cols) const {
  using std::to_string;
  if (layers_ == 0) return Failure{kNoLayers};
  if (auto ok = check_range("layer", layer, 0, layers_ - 1); !ok.ok()) return ok;
  for (const auto& [rows, cols] : {std::pair{k_rows, k_cols}, {v_rows, v_cols}})
    if (rows != kv_heads_ || cols != d_k_)
      return Failure{"a token's K and V must be (kv_heads, d_k) = (" + to_string(kv_heads_) + ", " + to_string(d_k_) +
                     ") (got (" + to_string(rows) + ", " + to_string(cols) + "))"};
  if (length(layer) == capacity_)
    return Failure{"the cache of layer " + to_string(layer) + " is full (" + to_string(capacity_) + " tokens)"};
  return Ok{};
}

Status KVCache::append(int layer, const Matrix& K_token, const Matrix& V_token) {
  if (auto ok = check_append(layer, int(K_token.rows()), int(K_token.cols()), int(V_token.rows()), int(V_token.cols()));
      !ok.ok())
    return ok;
  if (auto finite = check_finite({{"K", &K_token}, {"V", &V_token}}); !finite.ok()) return finite;
  int& length = lengths_[std::size_t(layer)];
  for (int g = 0; g < kv_heads_; ++g) {
    const std::size_t row = block(layer, g) + std::size_t(length) * d_k_;
    std::copy_n(K_token.data() + std::size_t(g) * d_k_, d_k_, keys_.begin() + std::ptrdiff_t(row));
    std::copy_n(V_token.data() + std::size_t(g) * d_k_, d_k_, values_.begin() + std::ptrdiff_t(row));
  }
  ++length;
  return Ok{};
}

// ---- decoding ------------------------------------------------------------------------------------

Status check_decode_inputs(const KVCache& cache, int layer, int h, int q_cols) {
  using std::to_string;
  if (cache.layers() == 0) return Failure{kNoLayers};
  if (auto ok = check_range("layer", layer, 0, cache.layers() - 1); !ok.ok()) return ok;
  if (q_cols != cache.d_k())
    return Failure{"the new token's queries have " + to_string(q_cols) +
                   " columns but the cache holds d_k = " + to_string(cache.d_k())};
  if (auto ok = check_query_groups(h, cache.kv_heads()); !ok.ok()) return ok;
  if (cache.length(layer) == 0)
    return Failure{"the cache of layer " + to_string(layer) + " is empty: append the new token's K and V first"};
  return Ok{};
}

Expected<DecodeResult> decode_step(const KVCache& cache, int layer, const Matrix& Q_token) {
  const int h = int(Q_token.rows()), d_k = cache.d_k(), kv_heads = cache.kv_heads();
  if (auto ok = check_decode_inputs(cache, layer, h, int(Q_token.cols())); !ok.ok()) return Failure{ok.error()};
  if (auto finite = check_finite({{"Q", &Q_token}}); !finite.ok()) return Failure{finite.error()};
  const int t = cache.length(layer);

  const int group = h / kv_heads;
  const float scale = score_scale(d_k, true);
  DecodeResult result;
  result.output.resize(h, d_k);
  std::vector<float> weights(std::size_t(group) * t);  // (group, t): one row per query head of the group
  for (int g = 0; g < kv_heads; ++g) {
    const float* Q_g = Q_token.data() + std::size_t(g) * group * d_k;
    const float* K = cache.keys(layer, g);
    scores_against_cache(Q_g, K, weights.data(), group, t, d_k);
    kernels::repair_overflowed_scores(Q_g, d_k, K, d_k, weights.data(), group, t, d_k);
    kernels::scale_mask_softmax(weights.data(), weights.data(), nullptr, group, t, scale, nullptr);
    kernels::weighted_sum(weights.data(), cache.values(layer, g), d_k,
                          result.output.data() + std::size_t(g) * group * d_k, d_k, group, t, d_k);
  }
  if (!result.output.allFinite()) return Failure{kOutputOverflow};
  result.cells = std::int64_t(h) * t;
  return result;
}

Status check_decode_recompute_inputs(int t, int q_cols, int k_rows, int k_cols, int v_rows, int v_cols, int h,
                                     int kv_heads) {
  using std::to_string;
  if (auto ok = check_query_groups(h, kv_heads); !ok.ok()) return ok;
  if (q_cols % h != 0)
    return Failure{"Q has " + to_string(q_cols) + " columns: they must split into " + to_string(h) +
                   " heads of equal width"};
  const int d_k = q_cols / h;
  for (const auto& [rows, cols] : {std::pair{k_rows, k_cols}, {v_rows, v_cols}})
    if (rows != t || cols != std::int64_t(kv_heads) * d_k)
      return Failure{"K and V must be (t, kv_heads * d_k) = (" + to_string(t) + ", " +
                     to_string(std::int64_t(kv_heads) * d_k) + ") (got (" + to_string(rows) + ", " + to_string(cols) +
                     "))"};
  // The tiled kernel's rules, on the K and V with every KV head repeated for its group.
  FlashOptions options;
  options.causal = true;
  return check_flash_multi_head_inputs(t, t, q_cols, q_cols, t, q_cols, h, options);
}

Expected<DecodeResult> decode_recompute(const Matrix& Q, const Matrix& K, const Matrix& V, int h, int kv_heads) {
  const int t = int(Q.rows());
  if (auto ok = check_decode_recompute_inputs(t, int(Q.cols()), int(K.rows()), int(K.cols()), int(V.rows()),
                                              int(V.cols()), h, kv_heads);
      !ok.ok())
    return Failure{ok.error()};
  const int d_k = int(Q.cols()) / h;
  // Every query head reads its group's KV head: repeat each KV head group times, then run causal
  // multi-head attention over all t tokens (the tiled kernel checks the values).
  const int group = h / kv_heads;
  Matrix K_heads(t, std::int64_t(h) * d_k), V_heads(t, std::int64_t(h) * d_k);
  for (int head = 0; head < h; ++head) {
    K_heads.middleCols(std::int64_t(head) * d_k, d_k) = K.middleCols(std::int64_t(head / group) * d_k, d_k);
    V_heads.middleCols(std::int64_t(head) * d_k, d_k) = V.middleCols(std::int64_t(head / group) * d_k, d_k);
  }
  FlashOptions options;
  options.causal = true;
  auto all_rows = flash_multi_head(Q, K_heads, V_heads, h, options);
  if (!all_rows.ok()) return Failure{all_rows.error()};
  DecodeResult result;
  result.output = Eigen::Map<const Matrix>(all_rows.value().output.data() + std::size_t(t - 1) * h * d_k, h, d_k);
  result.cells = std::int64_t(h) * t * (t + 1) / 2;
  return result;
}

}  // namespace abh
