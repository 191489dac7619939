// The kernels that avoid the n x n matrix, and KV-cache decoding (long_context.h). Binding only:
// every rule and message is the engine's.
//
//   pattern = { window, global?, stride?, causal? }       global 0, stride 0 (none), causal true by default
//   sparseAttention(Q, K, V, pattern)     Q, K (n, d_k), V (n, d_v) -> { output: JsMatrix (n, d_v), cells }
//   sparsePatternCells(n, pattern)        -> { cells }                 n <= 65536, nothing computed
//   sparsePatternMask(n, pattern)         -> { mask: JsMatrix-like { rows, cols, data: Uint8Array }, cells }
//                                          n <= 1024
//   linearAttention(Q, K, V, { causal? }) -> { output: JsMatrix (n, d_v) }
//   linearAttentionWeights(Q, K, { causal? }) -> { weights: JsMatrix (n, n) }   n <= 1024
//   decodeRecompute(Q, K, V, { heads, kvHeads })
//     Q (t, heads d_k), K and V (t, kvHeads d_k) -> { output: JsMatrix (heads, d_k), cells }
//   kvCacheBytesPerToken({ layers, kvHeads, dK, bytesPerValue }) -> { bytes }
//   new KVCache()                         an empty handle; JS must call .delete() when done
//     .configure({ layers, kvHeads, dK, capacity }) -> { bytesPerToken } | { error }   (drops what it held)
//     .append(layer, K_token, V_token)    each (kvHeads, d_k) -> { length } | { error }
//     .decode(layer, Q_token)             (heads, d_k) -> { output: JsMatrix (heads, d_k), cells } | { error }
//     .length(layer)                      tokens cached in that layer (0 for a layer it does not have)
// Every output is a copy; no view into wasm memory leaves this file.
#include "long_context.h"

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <array>
#include <string>
#include <utility>

#include "bindings/common.h"
#include "engine_limits.h"

namespace abh::bindings {
namespace {

// ---- results -----------------------------------------------------------------------------------

struct SparseResultJs {
  JsMatrix output;
  double cells = 0;
};
struct CellsJs {
  double cells = 0;
};
struct MaskJs {
  int rows = 0, cols = 0;
  val data = val::undefined();
};
struct PatternMaskJs {
  MaskJs mask;
  double cells = 0;
};
struct OutputJs {
  JsMatrix output;
};
struct WeightsJs {
  JsMatrix weights;
};
struct DecodeJs {
  JsMatrix output;
  double cells = 0;
};
struct BytesJs {
  double bytes = 0;
};

DecodeJs decode_js(const DecodeResult& r) { return {to_js(r.output), double(r.cells)}; }

// ---- JS -> engine ------------------------------------------------------------------------------

// A whole number from -1e9 to 1e9 (the engine's own check gives the range), or the message.
Expected<int> read_int(const val& options, const char* key, int fallback) {
  const val v = options[key];
  if (v.isUndefined()) return fallback;
  if (auto whole = check_whole(v, key, -1e9, 1e9); !whole.ok()) return Failure{whole.error()};
  return v.as<int>();
}

// The named whole numbers of an options object, in order, or the first one's message.
template <std::size_t N>
Expected<std::array<int, N>> read_whole_numbers(const val& options, const std::array<const char*, N>& keys) {
  std::array<int, N> out{};
  for (std::size_t i = 0; i < N; ++i) {
    if (auto whole = check_whole(options[keys[i]], keys[i], -1e9, 1e9); !whole.ok()) return Failure{whole.error()};
    out[i] = options[keys[i]].template as<int>();
  }
  return out;
}

Expected<SparsePattern> read_pattern(const val& options) {
  SparsePattern p;
  if (options["window"].isUndefined()) return Failure{"the pattern needs a window (1 or more tokens)"};
  for (auto [key, target] : {std::pair{"window", &p.window}, {"global", &p.global}, {"stride", &p.stride}}) {
    const auto value = read_int(options, key, *target);
    if (!value.ok()) return Failure{value.error()};
    *target = value.value();
  }
  p.causal = read_flag(options, "causal", true);
  return p;
}

Status check_n(const val& n_js) { return check_whole(n_js, "n", 1, limits::kMaxLongSequence); }

// ---- entry points --------------------------------------------------------------------------

val sparse_attention_js(val Q_js, val K_js, val V_js, val pattern_js) {
  const auto pattern = read_pattern(pattern_js);
  if (!pattern.ok()) return failure(pattern.error());
  return on_qkv(
      Q_js, K_js, V_js,
      [&](Shape q, Shape k, Shape v) {
        return check_sparse_inputs(q.rows, k.rows, q.cols, k.cols, v.rows, v.cols, pattern.value());
      },
      [&](const Matrix& Q, const Matrix& K, const Matrix& V) {
        return js_result(sparse_attention(Q, K, V, pattern.value()), [](const SparseAttentionResult& r) {
          return SparseResultJs{to_js(r.output), double(r.cells)};
        });
      });
}

val sparse_pattern_cells_js(val n_js, val pattern_js) {
  const auto pattern = read_pattern(pattern_js);
  if (!pattern.ok()) return failure(pattern.error());
  if (auto n = check_n(n_js); !n.ok()) return failure(n.error());
  return js_result(sparse_pattern_cells(n_js.as<int>(), pattern.value()),
                   [](std::int64_t cells) { return CellsJs{double(cells)}; });
}

val sparse_pattern_mask_js(val n_js, val pattern_js) {
  const auto pattern = read_pattern(pattern_js);
  if (!pattern.ok()) return failure(pattern.error());
  if (auto n = check_n(n_js); !n.ok()) return failure(n.error());
  return js_result(sparse_pattern_mask(n_js.as<int>(), pattern.value()), [](const Mask& m) {
    return PatternMaskJs{{int(m.rows()), int(m.cols()), copy_bytes(m.data(), std::size_t(m.size()))},
                         double(m.cast<std::int64_t>().sum())};
  });
}

val linear_attention_js(val Q_js, val K_js, val V_js, val options_js) {
  const bool causal = read_flag(options_js, "causal", false);
  return on_qkv(
      Q_js, K_js, V_js,
      [&](Shape q, Shape k, Shape v) { return check_linear_inputs(q.rows, k.rows, q.cols, k.cols, v.rows, v.cols); },
      [&](const Matrix& Q, const Matrix& K, const Matrix& V) {
        return js_result(linear_attention(Q, K, V, causal),
                         [](const LinearAttentionResult& r) { return OutputJs{to_js(r.output)}; });
      });
}

val linear_attention_weights_js(val Q_js, val K_js, val options_js) {
  const bool causal = read_flag(options_js, "causal", false);
  auto qk = read_matrices<2>({{{"Q", &Q_js}, {"K", &K_js}}}, [](const std::array<Shape, 2>& s) {
    if (auto size = check_figure_size(s[0].rows); !size.ok()) return size;
    return check_linear_inputs(s[0].rows, s[1].rows, s[0].cols, s[1].cols, s[1].rows, 1);
  });
  if (!qk.ok()) return failure(qk.error());
  const auto& [Q, K] = qk.value();
  return js_result(linear_attention_weights(Q, K, causal), [](const Matrix& w) { return WeightsJs{to_js(w)}; });
}

val decode_recompute_js(val Q_js, val K_js, val V_js, val options_js) {
  const auto groups = read_whole_numbers<2>(options_js, {"heads", "kvHeads"});
  if (!groups.ok()) return failure(groups.error());
  const int heads = groups.value()[0], kv_heads = groups.value()[1];  // captured below: no structured binding
  return on_qkv(
      Q_js, K_js, V_js,
      [&](Shape q, Shape k, Shape v) {
        return check_decode_recompute_inputs(q.rows, q.cols, k.rows, k.cols, v.rows, v.cols, heads, kv_heads);
      },
      [&](const Matrix& Q, const Matrix& K, const Matrix& V) {
        return js_result(decode_recompute(Q, K, V, heads, kv_heads), decode_js);
      });
}

val kv_cache_bytes_per_token_js(val options_js) {
  const auto shape = read_whole_numbers<4>(options_js, {"layers", "kvHeads", "dK", "bytesPerValue"});
  if (!shape.ok()) return failure(shape.error());
  const auto [layers, kv_heads, d_k, bytes_per_value] = shape.value();
  return js_result(kv_cache_bytes_per_token(layers, kv_heads, d_k, bytes_per_value),
                   [](std::int64_t bytes) { return BytesJs{double(bytes)}; });
}

// A cache that lives in the wasm instance between calls, owned by its JS handle.
class KVCacheJs {
 public:
  val configure(val options) {
    const auto shape = read_whole_numbers<4>(options, {"layers", "kvHeads", "dK", "capacity"});
    if (!shape.ok()) return failure(shape.error());
    const auto [layers, kv_heads, d_k, capacity] = shape.value();
    auto cache = KVCache::create(layers, kv_heads, d_k, capacity);
    if (!cache.ok()) return failure(cache.error());
    cache_ = std::move(cache.value());
    val out = val::object();
    out.set("bytesPerToken", double(cache_.bytes_per_token()));
    return out;
  }

  val append(val layer, val K_js, val V_js) {
    if (auto whole = check_whole(layer, "layer", -1e9, 1e9); !whole.ok()) return failure(whole.error());
    const int l = layer.as<int>();
    auto kv = read_matrices<2>({{{"K", &K_js}, {"V", &V_js}}}, [&](const std::array<Shape, 2>& s) {
      return cache_.check_append(l, s[0].rows, s[0].cols, s[1].rows, s[1].cols);
    });
    if (!kv.ok()) return failure(kv.error());
    if (auto appended = cache_.append(l, kv.value()[0], kv.value()[1]); !appended.ok())
      return failure(appended.error());
    val out = val::object();
    out.set("length", cache_.length(l));
    return out;
  }

  val decode(val layer, val Q_js) {
    if (auto whole = check_whole(layer, "layer", -1e9, 1e9); !whole.ok()) return failure(whole.error());
    const int l = layer.as<int>();
    auto q = read_matrices<1>({{{"Q", &Q_js}}}, [&](const std::array<Shape, 1>& s) {
      return check_decode_inputs(cache_, l, s[0].rows, s[0].cols);
    });
    if (!q.ok()) return failure(q.error());
    return js_result(decode_step(cache_, l, q.value()[0]), decode_js);
  }

  int length(int layer) const { return layer >= 0 && layer < cache_.layers() ? cache_.length(layer) : 0; }

 private:
  KVCache cache_;
};

}  // namespace
}  // namespace abh::bindings

EMSCRIPTEN_BINDINGS(long_context) {
  using emscripten::value_object;
  using namespace abh::bindings;
  value_object<SparseResultJs>("SparseResult")
      .field("output", &SparseResultJs::output)
      .field("cells", &SparseResultJs::cells);
  value_object<CellsJs>("PatternCells").field("cells", &CellsJs::cells);
  value_object<MaskJs>("PatternMaskMatrix")
      .field("rows", &MaskJs::rows)
      .field("cols", &MaskJs::cols)
      .field("data", &MaskJs::data);
  value_object<PatternMaskJs>("PatternMask").field("mask", &PatternMaskJs::mask).field("cells", &PatternMaskJs::cells);
  value_object<OutputJs>("LinearResult").field("output", &OutputJs::output);
  value_object<WeightsJs>("LinearWeights").field("weights", &WeightsJs::weights);
  value_object<DecodeJs>("DecodeResult").field("output", &DecodeJs::output).field("cells", &DecodeJs::cells);
  value_object<BytesJs>("CacheBytes").field("bytes", &BytesJs::bytes);

  emscripten::function("sparseAttention", &sparse_attention_js);
  emscripten::function("sparsePatternCells", &sparse_pattern_cells_js);
  emscripten::function("sparsePatternMask", &sparse_pattern_mask_js);
  emscripten::function("linearAttention", &linear_attention_js);
  emscripten::function("linearAttentionWeights", &linear_attention_weights_js);
  emscripten::function("decodeRecompute", &decode_recompute_js);
  emscripten::function("kvCacheBytesPerToken", &kv_cache_bytes_per_token_js);
  emscripten::class_<KVCacheJs>("KVCache")
      .constructor<>()
      .function("configure", &KVCacheJs::configure)
      .function("append", &KVCacheJs::append)
      .function("decode", &KVCacheJs::decode)
      .function("length", &KVCacheJs::length);
}
