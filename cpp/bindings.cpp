// The only file that knows about Emscripten. It converts between plain JS objects and the engine's
// structs and nothing else: no math here.
//
// Length (~900 lines): every conversion between JS values and the engine's structs lives here and
// nowhere else, so that this stays the only file that includes Emscripten's headers.
//
// Boundary shapes (mirrored by web/src/engine/types.ts; pipeline() has its own, see below):
//   JsMatrix  = { rows, cols, data: Float32Array }            row-major
//   JsTensor3 = { heads, rows, cols, data: Float32Array }     row-major, heads outermost
//   failures  = { error: string }  (the JS wrapper throws it as an EngineError)
// Inputs are copied into wasm memory once; outputs are copied out into fresh typed arrays before
// returning, so no JS object ever holds a view into memory that a later call could grow.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "attention.h"
#include "engine_limits.h"
#include "experiments.h"
#include "flash.h"
#include "kernels.h"
#include "pipeline.h"
#include "random.h"

using emscripten::val;

namespace {

// ---- conversions: engine -> JS -------------------------------------------------------------

// A fresh Float32Array filled by set(): V8 copies a view of wasm memory into a new typed array
// element by element when it is the constructor's (or slice()'s) source, ~3x slower than
// allocating and then set() (measured 0.45 ms against 0.13 ms for 128 KiB, most of a 512-token call).
val copy_floats(const float* data, std::size_t size) {
  val out = val::global("Float32Array").new_(size);
  out.call<void>("set", emscripten::typed_memory_view(size, data));
  return out;
}

val copy_bytes(const std::uint8_t* data, std::size_t size) {
  val out = val::global("Uint8Array").new_(size);
  out.call<void>("set", emscripten::typed_memory_view(size, data));
  return out;
}

val copy_bytes(const std::vector<std::uint8_t>& bytes) { return copy_bytes(bytes.data(), bytes.size()); }

val to_js(const abh::Matrix& m) {
  val out = val::object();
  out.set("rows", int(m.rows()));
  out.set("cols", int(m.cols()));
  out.set("data", copy_floats(m.data(), std::size_t(m.size())));
  return out;
}

val to_js(const abh::Tensor3& t) {
  val out = val::object();
  out.set("heads", t.heads);
  out.set("rows", t.rows);
  out.set("cols", t.cols);
  out.set("data", copy_floats(t.data.data(), t.data.size()));
  return out;
}

val failure(const std::string& message) {
  val out = val::object();
  out.set("error", message);
  return out;
}

// ---- conversions: JS -> engine -------------------------------------------------------------
// The TypeScript wrapper has checked the JavaScript types (a matrix is an object whose data is a
// Float32Array, a mask a Uint8Array, flags are booleans, options objects) and passes NaN for a
// number that is not one. Everything else is checked here or by the engine, with the engine's rules
// (attention.h, flash.h, pipeline.h), before any input is copied into wasm memory.

double number_or_nan(const val& v) { return v.isNumber() ? v.as<double>() : std::nan(""); }

abh::Status check_whole(const val& v, const char* name, double lo, double hi) {
  return abh::check_whole_number(name, number_or_nan(v), lo, hi);
}

struct Shape {
  int rows = 0, cols = 0;
};

// The inputs of one call, { rows, cols, data } each: every shape first, then `check` (the call's
// shape rules, on the shapes alone), then the copies, each with one set() straight into the matrix.
// So a request over a limit is refused before any of it is in wasm memory. Finiteness is the
// kernels' check (check_finite), made on the copies.
template <std::size_t N, class Check>
abh::Expected<std::array<abh::Matrix, N>> read_matrices(const std::array<std::pair<const char*, const val*>, N>& inputs,
                                                        Check check) {
  std::array<Shape, N> shapes;
  for (std::size_t i = 0; i < N; ++i) {
    const char* const name = inputs[i].first;
    const val& js = *inputs[i].second;
    if (!check_whole(js["rows"], name, 0, 1 << 30).ok() || !check_whole(js["cols"], name, 0, 1 << 30).ok())
      return abh::Failure{std::string(name) + " must be { rows, cols, data } with whole-number rows and cols"};
    shapes[i] = {js["rows"].as<int>(), js["cols"].as<int>()};
    const std::int64_t expected = std::int64_t(shapes[i].rows) * shapes[i].cols;
    const double length = js["data"]["length"].as<double>();
    if (length != double(expected))
      return abh::Failure{std::string(name) + ".data has " + std::to_string(std::int64_t(length)) +
                          " values, expected rows x cols = " + std::to_string(expected)};
    if (expected > (std::int64_t(1) << 26))
      return abh::Failure{std::string(name) + " is larger than the engine accepts"};
  }
  if (abh::Status valid = check(shapes); !valid.ok()) return abh::Failure{valid.error()};
  std::array<abh::Matrix, N> out;
  for (std::size_t i = 0; i < N; ++i) {
    out[i].resize(shapes[i].rows, shapes[i].cols);
    if (const std::size_t size = std::size_t(out[i].size()))
      val(emscripten::typed_memory_view(size, out[i].data())).call<void>("set", (*inputs[i].second)["data"]);
  }
  return out;
}

// Q, K and V of the attention entry points.
template <class Check>
abh::Expected<std::array<abh::Matrix, 3>> read_qkv(const val& Q, const val& K, const val& V, Check check) {
  return read_matrices<3>({{{"Q", &Q}, {"K", &K}, {"V", &V}}},
                          [&](const std::array<Shape, 3>& s) { return check(s[0], s[1], s[2]); });
}

bool read_flag(const val& options, const char* key, bool fallback) {
  const val v = options[key];
  return v.isUndefined() ? fallback : v.as<bool>();
}

// ---- entry points --------------------------------------------------------------------------

val attention_js(val Q_js, val K_js, val V_js, val options) {
  const val mask_js = options["mask"];
  const bool has_mask = !mask_js.isUndefined();
  const std::int64_t mask_entries = has_mask ? std::int64_t(mask_js["length"].as<double>()) : -1;
  auto qkv = read_qkv(Q_js, K_js, V_js, [&](Shape q, Shape k, Shape v) {
    return abh::check_attention_shapes(q.rows, k.rows, q.cols, k.cols, v.rows, v.cols, mask_entries);
  });
  if (!qkv.ok()) return failure(qkv.error());
  const auto& [Q, K, V] = qkv.value();
  abh::Mask mask;
  if (has_mask) {
    mask.resize(Q.rows(), K.rows());
    val(emscripten::typed_memory_view(std::size_t(mask.size()), mask.data())).call<void>("set", mask_js);
  }
  const auto result = abh::attention(Q, K, V, has_mask ? &mask : nullptr, {read_flag(options, "scale", true)});
  if (!result.ok()) return failure(result.error());
  val out = val::object();
  out.set("output", to_js(result.value().output));
  out.set("weights", to_js(result.value().weights));
  out.set("fullyMaskedRows", copy_bytes(result.value().fully_masked_rows));
  return out;
}

val multi_head_attention_js(val X_js, val Wq_js, val Wk_js, val Wv_js, val Wo_js, val options) {
  if (auto heads = check_whole(options["heads"], "heads", -1e9, 1e9); !heads.ok()) return failure(heads.error());
  const int heads = options["heads"].as<int>();
  auto inputs = read_matrices<5>(
      {{{"X", &X_js}, {"W_q", &Wq_js}, {"W_k", &Wk_js}, {"W_v", &Wv_js}, {"W_o", &Wo_js}}},
      [&](const std::array<Shape, 5>& s) {
        return abh::check_multi_head_shapes(
            s[0].rows, s[0].cols,
            {{s[1].rows, s[1].cols}, {s[2].rows, s[2].cols}, {s[3].rows, s[3].cols}, {s[4].rows, s[4].cols}}, heads);
      });
  if (!inputs.ok()) return failure(inputs.error());
  const auto& [X, W_q, W_k, W_v, W_o] = inputs.value();
  const auto result = abh::multi_head_attention(X, W_q, W_k, W_v, W_o, heads, read_flag(options, "causal", false),
                                                {read_flag(options, "scale", true)});
  if (!result.ok()) return failure(result.error());
  val out = val::object();
  out.set("output", to_js(result.value().output));
  out.set("weights", to_js(result.value().weights));
  out.set("fullyMaskedRows", copy_bytes(result.value().fully_masked_rows));
  return out;
}

val dot_product_samples_js(val options) {
  for (const char* key : {"dK", "samples", "seed"})
    if (auto whole = check_whole(options[key], key, -1e9, 4294967295.0); !whole.ok()) return failure(whole.error());
  const auto result = abh::dot_product_samples(options["dK"].as<int>(), options["samples"].as<int>(),
                                               options["seed"].as<std::uint32_t>());
  if (!result.ok()) return failure(result.error());
  val out = val::object();
  out.set("dK", result.value().d_k);
  out.set("raw", copy_floats(result.value().raw.data(), result.value().raw.size()));
  out.set("scaled", copy_floats(result.value().scaled.data(), result.value().scaled.size()));
  out.set("rawStd", result.value().raw_std);
  out.set("scaledStd", result.value().scaled_std);
  return out;
}

// row is a Float32Array; factor is NaN when the caller's was not a number.
val softmax_saturation_js(val row_js, double factor) {
  if (auto length = abh::check_softmax_row_length(std::size_t(row_js["length"].as<double>())); !length.ok())
    return failure(length.error());
  const auto result = abh::softmax_saturation(emscripten::convertJSArrayToNumberVector<float>(row_js), float(factor));
  if (!result.ok()) return failure(result.error());
  val out = val::object();
  out.set("probabilities", copy_floats(result.value().probabilities.data(), result.value().probabilities.size()));
  out.set("jacobianNorm", result.value().jacobian_norm);
  return out;
}

val engine_info() {
  using namespace abh::limits;
  val out = val::object();
  out.set("simd", abh::kernels::simd_enabled());
  val limits = val::object();
  limits.set("maxSequence", kMaxSequence);
  limits.set("maxDim", kMaxDim);
  limits.set("maxScoreElements", double(kMaxScoreElements));
  limits.set("maxPipelineTokens", kMaxPipelineTokens);
  limits.set("maxDModel", kMaxDModel);
  limits.set("maxHeads", kMaxHeads);
  limits.set("maxPipelineHeadScoreElements", double(kMaxPipelineHeadScoreElements));
  limits.set("maxFlashSequence", kMaxFlashSequence);
  limits.set("maxFlashBlock", kMaxFlashBlock);
  limits.set("maxTraceSequence", kMaxTraceSequence);
  limits.set("maxTraceDim", kMaxTraceDim);
  limits.set("maxSeed", double(kMaxSeed));
  out.set("limits", limits);
  return out;
}

// Bytes that malloc currently has handed out, and the size of the wasm memory: the leak tests
// assert that thousands of calls leave both where they started.
val heap_stats() {
  const struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("allocatedBytes", double(info.uordblks));
  out.set("memoryBytes", double(emscripten_get_heap_size()));
  return out;
}

// ---- pipeline: the walkthrough's call, through wasm memory instead of embind values ----------
//
// The page calls this once per change of a setting, and its result is every intermediate: some 20
// tensors. Building that as embind objects cost one boundary crossing per property and per typed
// array (hundreds per call, most of a small call's time), and reading the tokens one more per token.
// So it goes through three plain exports and wasm memory, and the JS wrapper (engine.ts) does:
//
//   1. abh_pipeline_stage(n, lengths of X, W_q, W_k, W_v, W_o, mask) -> address of a table of 7
//      addresses: where to write the n token ids (uint32, FNV-1a of each token's UTF-8, see
//      random.h) and each given matrix (float32) or mask (bytes). Lengths may be 0 (not given).
//      0 when the sizes are refused (check_pipeline_sizes; the reason: pipelineError()).
//   2. abh_pipeline_run(d_model, heads, seed, causal, scale, comparison_head) -> address of the header
//      below, or 0 when the configuration is refused (the reason: pipelineError()). The numbers come
//      as doubles, so that the engine sees (and refuses) a fractional or NaN one.
//   3. one copy of the result out of HEAPU8, then abh_pipeline_release(), which frees what the call
//      allocated (staged inputs; a result block too large for the fixed one).
//
// The header is uint32 words: the kHeaderWordNames in that order (scaleFactor holds float32 bits),
// then one record of kFieldWords words per array of pipeline_fields() (pipeline.h): byte offset
// from the block address, element type (0 float32, 1 uint8), rank, dims[3]. pipelineFormat()
// publishes the word names, the array names, the record's words and the element types, so the
// wrapper mirrors nothing (tests/unit/pipeline-format.test.ts pins it).
//
// Results up to kFixedPipelineFloats (the page at d_model 512 with its usual sentence lengths) live
// in a static block (not malloc'd: it cannot leak and heapStats() does not count it), which also
// keeps the generated weights of the last seed and d_model between calls. Nothing here can abort on
// bad input: stage refuses sizes over the limits before allocating, run validates everything
// (check_pipeline_config) before computing.

constexpr std::size_t kFixedPipelineFloats = std::size_t(1) << 21;  // 8 MiB: d_model 512 with n up to ~100 fits
enum HeaderWord {
  kWordN,
  kWordDModel,
  kWordHeads,
  kWordDK,
  kWordScaleFactor,
  kWordComparisonHead,
  kWordBlockAddress,
  kWordBlockBytes,
  kHeaderScalarWords
};
constexpr const char* kHeaderWordNames[kHeaderScalarWords] = {
    "n", "dModel", "heads", "dK", "scaleFactor", "comparisonHead", "blockAddress", "blockBytes"};
constexpr int kFieldWords = 6;
constexpr int kHeaderWords = kHeaderScalarWords + kFieldWords * abh::kPipelineFieldCount;

alignas(16) float fixed_pipeline_block[kFixedPipelineFloats];
abh::PipelineWorkspace pipeline_workspace(fixed_pipeline_block, kFixedPipelineFloats);
abh::PipelineConfig pipeline_request;
std::uint32_t pipeline_table[7];
std::uint32_t pipeline_header[kHeaderWords];
std::string pipeline_message;

std::string pipeline_error() { return pipeline_message; }

val pipeline_format() {
  val header = val::array(), fields = val::array();
  for (const char* name : kHeaderWordNames) header.call<void>("push", std::string(name));
  for (const char* name : abh::kPipelineFieldNames) fields.call<void>("push", std::string(name));
  val out = val::object();
  out.set("header", header);
  val float_words = val::array();
  float_words.call<void>("push", std::string(kHeaderWordNames[kWordScaleFactor]));
  out.set("floatWords", float_words);
  out.set("fields", fields);
  out.set("fieldWords", kFieldWords);
  val field_words = val::array(), elements = val::array();
  for (const char* name : {"byteOffset", "element", "rank", "dim0", "dim1", "dim2"})
    field_words.call<void>("push", std::string(name));
  for (const char* name : {"float32", "uint8"}) elements.call<void>("push", std::string(name));
  out.set("fieldWordNames", field_words);
  out.set("elements", elements);
  return out;
}

void release_request() {
  for (auto* v : {&pipeline_request.X, &pipeline_request.W_q, &pipeline_request.W_k, &pipeline_request.W_v,
                  &pipeline_request.W_o})
    std::vector<float>().swap(*v);
  std::vector<std::uint32_t>().swap(pipeline_request.token_ids);
  std::vector<std::uint8_t>().swap(pipeline_request.mask);
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE std::uint32_t abh_pipeline_stage(int n, int x_len, int wq_len, int wk_len, int wv_len, int wo_len,
                                                      int mask_len) {
  release_request();
  pipeline_message.clear();
  if (auto sizes = abh::check_pipeline_sizes(n, x_len, {wq_len, wk_len, wv_len, wo_len}, mask_len); !sizes.ok()) {
    pipeline_message = sizes.error();
    return 0;
  }
  pipeline_request.token_ids.resize(std::size_t(n));
  pipeline_request.X.resize(std::size_t(std::max(x_len, 0)));
  pipeline_request.W_q.resize(std::size_t(std::max(wq_len, 0)));
  pipeline_request.W_k.resize(std::size_t(std::max(wk_len, 0)));
  pipeline_request.W_v.resize(std::size_t(std::max(wv_len, 0)));
  pipeline_request.W_o.resize(std::size_t(std::max(wo_len, 0)));
  pipeline_request.mask.resize(std::size_t(std::max(mask_len, 0)));
  const void* where[7] = {pipeline_request.token_ids.data(), pipeline_request.X.data(),   pipeline_request.W_q.data(),
                          pipeline_request.W_k.data(),       pipeline_request.W_v.data(), pipeline_request.W_o.data(),
                          pipeline_request.mask.data()};
  for (int i = 0; i < 7; ++i) pipeline_table[i] = std::uint32_t(reinterpret_cast<std::uintptr_t>(where[i]));
  return std::uint32_t(reinterpret_cast<std::uintptr_t>(pipeline_table));
}

EMSCRIPTEN_KEEPALIVE std::uint32_t abh_pipeline_run(double d_model, double heads, double seed, int causal, int scale,
                                                    double comparison_head) {
  for (auto [name, value] : {std::pair{"dModel", d_model}, {"heads", heads}, {"comparisonHead", comparison_head}})
    if (auto whole = abh::check_whole_number(name, value, -1e9, 1e9); !whole.ok()) {
      pipeline_message = whole.error();
      return 0;
    }
  if (auto valid_seed = abh::check_seed(seed); !valid_seed.ok()) {
    pipeline_message = valid_seed.error();
    return 0;
  }
  pipeline_request.d_model = int(d_model);
  pipeline_request.heads = int(heads);
  pipeline_request.seed = std::uint32_t(seed);
  pipeline_request.causal = causal != 0;
  pipeline_request.scale = scale != 0;
  pipeline_request.comparison_head = int(comparison_head);
  abh::PipelineView v;
  if (auto run = abh::run_pipeline_into(pipeline_request, pipeline_workspace, v); !run.ok()) {
    pipeline_message = run.error();
    return 0;
  }
  std::uint32_t* h = pipeline_header;
  h[kWordN] = std::uint32_t(v.n);
  h[kWordDModel] = std::uint32_t(v.d_model);
  h[kWordHeads] = std::uint32_t(v.heads);
  h[kWordDK] = std::uint32_t(v.d_k);
  std::memcpy(&h[kWordScaleFactor], &v.scale_factor, sizeof(float));
  h[kWordComparisonHead] = std::uint32_t(v.comparison_head);
  h[kWordBlockAddress] = std::uint32_t(reinterpret_cast<std::uintptr_t>(v.block));
  h[kWordBlockBytes] = std::uint32_t(v.bytes());
  std::uint32_t* record = h + kHeaderScalarWords;
  for (const abh::PipelineField& field : abh::pipeline_fields(v)) {
    record[0] = std::uint32_t(field.byte_offset);
    record[1] = std::uint32_t(field.element);
    record[2] = std::uint32_t(field.shape.rank);
    for (int d = 0; d < 3; ++d) record[3 + d] = std::uint32_t(field.shape.dims[d]);
    record += kFieldWords;
  }
  return std::uint32_t(reinterpret_cast<std::uintptr_t>(pipeline_header));
}

EMSCRIPTEN_KEEPALIVE void abh_pipeline_release() {
  release_request();
  pipeline_workspace.release();
  std::string().swap(pipeline_message);
}

}  // extern "C"

EMSCRIPTEN_BINDINGS(attention_engine) {
  emscripten::function("attention", &attention_js);
  emscripten::function("multiHeadAttention", &multi_head_attention_js);
  emscripten::function("pipelineError", &pipeline_error);
  emscripten::function("pipelineFormat", &pipeline_format);
  emscripten::function("dotProductSamples", &dot_product_samples_js);
  emscripten::function("softmaxSaturation", &softmax_saturation_js);
  emscripten::function("engineInfo", &engine_info);
  emscripten::function("heapStats", &heap_stats);
}

// ==== FlashAttention: the tiled kernel (flash.h) ==============================================
//
//   flashAttention(Q, K, V, { blockQ, blockK, causal?, scale? })
//     -> { output: JsMatrix (n_q, d_v), scratchFloats }
//   flashMultiHead(Q, K, V, { heads, blockQ, blockK, causal?, scale? })
//     Q (n_q, heads d_k), K (n_k, heads d_k), V (n_k, heads d_v)
//     -> { output: JsMatrix (n_q, heads d_v), scratchFloats }        the heads concatenated
//   both also take options.output: a Float32Array of the output's size that receives the result
//   (and is returned as output.data) instead of a fresh array
//   flashTrace(Q, K, V, { blockQ, blockK, causal?, scale? })       n_q, n_k <= 64, d_k, d_v <= 256
//     -> { nQ, nK, dK, dV, blockQ, blockK, queryBlocks, keyBlocks, causal, scaleFactor,
//          output: JsMatrix (n_q, d_v),
//          steps: [ { queryBlock, keyBlock, queryStart, queryEnd, keyStart, keyEnd, skipped,
//                     scores: JsMatrix (rows, cols), probabilities: JsMatrix (rows, cols),
//                     m, l, rescale: Float32Array (rows), acc: JsMatrix (rows, d_v) } ] }
//     steps run query block outer, key block inner; rows = queryEnd - queryStart, cols = keyEnd - keyStart.

namespace {

// ---- conversions: JS -> engine -------------------------------------------------------------

abh::Expected<abh::FlashOptions> read_flash_options(const val& options) {
  abh::FlashOptions out;
  for (auto [key, target] : {std::pair{"blockQ", &out.block_q}, {"blockK", &out.block_k}}) {
    if (auto whole = check_whole(options[key], key, -1e9, 1e9); !whole.ok()) return abh::Failure{whole.error()};
    *target = options[key].as<int>();
  }
  out.causal = read_flag(options, "causal", false);
  out.scale = read_flag(options, "scale", true);
  return out;
}

// ---- conversions: engine -> JS -------------------------------------------------------------

val to_js(const abh::FlashTraceStep& step) {
  val out = val::object();
  for (auto [key, value] : {std::pair{"queryBlock", step.q_block},
                            {"keyBlock", step.k_block},
                            {"queryStart", step.q_start},
                            {"queryEnd", step.q_end},
                            {"keyStart", step.k_start},
                            {"keyEnd", step.k_end}})
    out.set(key, value);
  out.set("skipped", step.skipped);
  out.set("scores", to_js(step.scores));
  out.set("probabilities", to_js(step.probabilities));
  for (auto [key, values] : {std::pair{"m", &step.m}, {"l", &step.l}, {"rescale", &step.rescale}})
    out.set(key, copy_floats(values->data(), values->size()));
  out.set("acc", to_js(step.acc));
  return out;
}

// The tiled kernels' result. Its data is a fresh Float32Array, or, when the caller passes
// options.output, that array: a caller that calls again and again then reuses one array. Either way a
// copy, never a view of wasm memory. The reuse is what the option is for: a fresh 128 KiB array
// (n = 512, d_v = 64) costs about 0.45 ms per call in Node on a busy Linux VM, mostly page faults
// (glibc hands the freed array back to the kernel and the next one faults its pages in again),
// against ~2 ms for the attention itself. Checked after the computation, so that input and option
// errors come first; on an error the caller's array is left as it was.
val flash_result_js(const abh::FlashResult& result, const val& options_js) {
  const abh::Matrix& m = result.output;
  const std::size_t size = std::size_t(m.size());
  const val destination = options_js["output"];
  val data = val::undefined();
  if (destination.isUndefined()) {
    data = copy_floats(m.data(), size);
  } else {
    if (destination["length"].as<double>() != double(size))
      return failure("output must be a Float32Array of " + std::to_string(m.rows()) + " x " + std::to_string(m.cols()) +
                     " = " + std::to_string(size) + " values, the output's shape");
    if (size) destination.call<void>("set", emscripten::typed_memory_view(size, m.data()));
    data = destination;
  }
  val matrix = val::object();
  matrix.set("rows", int(m.rows()));
  matrix.set("cols", int(m.cols()));
  matrix.set("data", data);
  val out = val::object();
  out.set("output", matrix);
  out.set("scratchFloats", double(result.scratch_floats));
  return out;
}

// ---- entry points --------------------------------------------------------------------------

val flash_attention_js(val Q_js, val K_js, val V_js, val options_js) {
  const auto options = read_flash_options(options_js);
  if (!options.ok()) return failure(options.error());
  auto qkv = read_qkv(Q_js, K_js, V_js, [&](Shape q, Shape k, Shape v) {
    return abh::check_flash_inputs(q.rows, k.rows, q.cols, k.cols, v.rows, v.cols, options.value());
  });
  if (!qkv.ok()) return failure(qkv.error());
  const auto& [Q, K, V] = qkv.value();
  const auto result = abh::flash_attention(Q, K, V, options.value());
  if (!result.ok()) return failure(result.error());
  return flash_result_js(result.value(), options_js);
}

val flash_multi_head_js(val Q_js, val K_js, val V_js, val options_js) {
  const auto options = read_flash_options(options_js);
  if (!options.ok()) return failure(options.error());
  if (auto heads = check_whole(options_js["heads"], "heads", -1e9, 1e9); !heads.ok()) return failure(heads.error());
  const int heads = options_js["heads"].as<int>();
  auto qkv = read_qkv(Q_js, K_js, V_js, [&](Shape q, Shape k, Shape v) {
    return abh::check_flash_multi_head_inputs(q.rows, k.rows, q.cols, k.cols, v.rows, v.cols, heads, options.value());
  });
  if (!qkv.ok()) return failure(qkv.error());
  const auto& [Q, K, V] = qkv.value();
  const auto result = abh::flash_multi_head(Q, K, V, heads, options.value());
  if (!result.ok()) return failure(result.error());
  return flash_result_js(result.value(), options_js);
}

val flash_trace_js(val Q_js, val K_js, val V_js, val options_js) {
  const auto options = read_flash_options(options_js);
  if (!options.ok()) return failure(options.error());
  auto qkv = read_qkv(Q_js, K_js, V_js, [&](Shape q, Shape k, Shape v) {
    return abh::check_flash_trace_inputs(q.rows, k.rows, q.cols, k.cols, v.rows, v.cols, options.value());
  });
  if (!qkv.ok()) return failure(qkv.error());
  const auto& [Q, K, V] = qkv.value();
  const auto result = abh::flash_attention_trace(Q, K, V, options.value());
  if (!result.ok()) return failure(result.error());
  const abh::FlashTrace& t = result.value();
  val out = val::object();
  for (auto [key, value] : {std::pair{"nQ", t.n_q},
                            {"nK", t.n_k},
                            {"dK", t.d_k},
                            {"dV", t.d_v},
                            {"blockQ", t.block_q},
                            {"blockK", t.block_k},
                            {"queryBlocks", t.query_blocks},
                            {"keyBlocks", t.key_blocks}})
    out.set(key, value);
  out.set("causal", t.causal);
  out.set("scaleFactor", t.scale_factor);
  out.set("output", to_js(t.output));
  val steps = val::array();
  for (const abh::FlashTraceStep& step : t.steps) steps.call<void>("push", to_js(step));
  out.set("steps", steps);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(flash_attention) {
  emscripten::function("flashAttention", &flash_attention_js);
  emscripten::function("flashMultiHead", &flash_multi_head_js);
  emscripten::function("flashTrace", &flash_trace_js);
}

// ==== Training: the tiny transformer of cpp/train/ (issue 18) ===================================
//
//   new Trainer()                       an empty handle; JS must call .delete() when done
//   .configure(config)                  { task?, layers?, heads?, dModel?, layerNorm?, mlp?, scale?, mask?,
//                                         optimizer?, learningRate?, weightDecay?, momentum?, clip?, batch?,
//                                         seed? } -> { parameterCount } | { error }   a fresh seeded model
//   .load(bytes: Uint8Array)            a weights file -> { parameterCount } | { error } (the old model stays)
//   .step(n)                            -> { step, loss, meanLoss, gradientNorm } | { error }
//   .evaluate()                         -> { accuracy, loss, examples, positions }  on the held-out set
//   .analyze(words: string[], topK)     -> { words, ids, unknown: Uint8Array, query, top: [{ token, word, probability
//   }],
//                                            layers: [{ attention: JsTensor3 (h, n, n), attentionInput: JsMatrix (n,
//                                            d_model),
//                                                       W_q, W_k, W_v, W_o: JsMatrix (d_model, d_model) }] } | { error
//                                                       }
//   .headShares()                       -> [{ layer, head, referent, otherNoun, adjective, self }]
//   .attentionScores()                  -> { heads: [{ layer, head, previousToken, induction, inductionLatest, self,
//                                            first, entropy }], layerEntropy: number[], entropy } | { error }
//                                            (trainer.h's HeadScores, over the held-out set)
//   .gradientNorms()                    -> [{ name, norm }] | { error }  each tensor's |gradient| at the last step,
//                                            before clipping, in layout order ([] before the first step)
//   .exportWeights()                    -> Uint8Array (the weights file)
//   .parameters()                       -> Float32Array (the flat buffer, in layout order)
//   .describe()                         -> { config, steps, parameterCount, causal, vocabulary: string[],
//                                            layout: [{ name, offset, rows, cols }], limits }
// Every output is a copy; no view into wasm memory leaves this section.
#include <memory>
#include <vector>

#include "train/trainer.h"
#include "train/weights_file.h"

namespace training_bindings {

using abh::train::Trainer;

// Reads config[key] into target when present; a wrong type is an error naming the key.
abh::Status read_int(const val& config, const char* key, int& target) {
  const val v = config[key];
  if (v.isUndefined()) return abh::Ok{};
  const double x = v.isNumber() ? v.as<double>() : NAN;
  if (!(std::isfinite(x) && x == std::floor(x) && std::abs(x) <= 1e9))
    return abh::Failure{std::string(key) + " must be a whole number"};
  target = int(x);
  return abh::Ok{};
}
abh::Status read_float(const val& config, const char* key, float& target) {
  const val v = config[key];
  if (v.isUndefined()) return abh::Ok{};
  if (!v.isNumber()) return abh::Failure{std::string(key) + " must be a number"};
  const double x = v.as<double>();
  target = std::isfinite(x) && std::abs(x) > 3e38 ? float(x > 0 ? INFINITY : -INFINITY)
                                                  : float(x);  // NaN stays NaN: checked later
  return abh::Ok{};
}
abh::Status read_bool(const val& config, const char* key, bool& target) {
  const val v = config[key];
  if (v.isUndefined()) return abh::Ok{};
  if (v.typeOf().as<std::string>() != "boolean") return abh::Failure{std::string(key) + " must be true or false"};
  target = v.as<bool>();
  return abh::Ok{};
}
abh::Status read_string(const val& config, const char* key, std::string& target) {
  const val v = config[key];
  if (v.isUndefined()) return abh::Ok{};
  if (!v.isString()) return abh::Failure{std::string(key) + " must be a string"};
  target = v.as<std::string>();
  return abh::Ok{};
}

val config_js(const abh::train::TrainConfig& c) {
  val out = val::object();
  out.set("task", c.task);
  out.set("layers", c.layers);
  out.set("heads", c.heads);
  out.set("dModel", c.d_model);
  out.set("layerNorm", c.layer_norm);
  out.set("mlp", c.mlp);
  out.set("scale", c.scale);
  out.set("mask", c.mask);
  out.set("optimizer", c.optimizer);
  out.set("learningRate", c.learning_rate);
  out.set("weightDecay", c.weight_decay);
  out.set("momentum", c.momentum);
  out.set("clip", c.clip);
  out.set("batch", c.batch);
  out.set("seed", double(c.seed));
  return out;
}

class TrainerJs {
 public:
  val configure(val config) {
    if (config.typeOf().as<std::string>() != "object" || config.isNull())
      return failure("the training configuration must be an object");
    abh::train::TrainConfig c;
    double seed = c.seed;
    for (const abh::Status& read :
         {read_string(config, "task", c.task), read_int(config, "layers", c.layers), read_int(config, "heads", c.heads),
          read_int(config, "dModel", c.d_model), read_bool(config, "layerNorm", c.layer_norm),
          read_bool(config, "mlp", c.mlp), read_bool(config, "scale", c.scale), read_string(config, "mask", c.mask),
          read_string(config, "optimizer", c.optimizer), read_float(config, "learningRate", c.learning_rate),
          read_float(config, "weightDecay", c.weight_decay), read_float(config, "momentum", c.momentum),
          read_float(config, "clip", c.clip), read_int(config, "batch", c.batch)})
      if (!read.ok()) return failure(read.error());
    if (!config["seed"].isUndefined()) {
      seed = config["seed"].isNumber() ? config["seed"].as<double>() : NAN;
      if (!(seed >= 0 && seed <= 4294967295.0 && seed == std::floor(seed)))
        return failure("seed must be a whole number from 0 to 4294967295");
      c.seed = std::uint32_t(seed);
    }
    return adopt(Trainer::create(c));
  }

  val load(val bytes) {
    if (bytes.typeOf().as<std::string>() != "object" || bytes.isNull() || !bytes["length"].isNumber())
      return failure("the weights must be a Uint8Array");
    const double length = bytes["length"].as<double>();
    if (length > double(abh::train::kMaxWeightsBytes))
      return failure("the weights file is too large (" + std::to_string(std::int64_t(length)) + " bytes)");
    const std::vector<std::uint8_t> data = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
    return adopt(Trainer::import_weights(data.data(), data.size()));
  }

  val step(int steps) {
    if (!trainer_) return failure("the trainer has no model yet: configure or load one first");
    const auto r = trainer_->step(steps);
    if (!r.ok()) return failure(r.error());
    val out = val::object();
    out.set("step", r.value().step);
    out.set("loss", r.value().loss);
    out.set("meanLoss", r.value().mean_loss);
    out.set("gradientNorm", r.value().gradient_norm);
    return out;
  }

  val evaluate() const {
    if (!trainer_) return failure("the trainer has no model yet: configure or load one first");
    const auto e = trainer_->evaluate();
    val out = val::object();
    out.set("accuracy", e.accuracy);
    out.set("loss", e.loss);
    out.set("examples", e.examples);
    out.set("positions", e.positions);
    return out;
  }

  val analyze(val words_js, int top_k) const {
    if (!trainer_) return failure("the trainer has no model yet: configure or load one first");
    if (!words_js.isArray()) return failure("the words must be an array of strings");
    const int count = words_js["length"].as<int>();
    if (count > abh::train::kMaxPositions)
      return failure("the trained model reads at most " + std::to_string(abh::train::kMaxPositions) + " words (got " +
                     std::to_string(count) + ")");
    std::vector<std::string> words;
    for (int i = 0; i < count; ++i) {
      const val w = words_js[i];
      if (!w.isString()) return failure("word " + std::to_string(i + 1) + " is not a string");
      words.push_back(w.as<std::string>());
    }
    const auto r = trainer_->analyze(words, top_k);
    if (!r.ok()) return failure(r.error());
    const auto& a = r.value();
    val out = val::object();
    val normalized = val::array(), ids = val::array();
    for (std::size_t i = 0; i < a.tokens.words.size(); ++i) {
      normalized.call<void>("push", a.tokens.words[i]);
      ids.call<void>("push", a.tokens.ids[i]);
    }
    out.set("words", normalized);
    out.set("ids", ids);
    out.set("unknown", copy_bytes(a.tokens.unknown.data(), a.tokens.unknown.size()));
    out.set("query", a.query);
    val top = val::array();
    for (const auto& p : a.top) {
      val entry = val::object();
      entry.set("token", p.token);
      entry.set("word", p.word);
      entry.set("probability", p.probability);
      top.call<void>("push", entry);
    }
    out.set("top", top);
    val layers = val::array();
    for (const auto& l : a.layers) {
      val layer = val::object();
      val att = val::object();
      att.set("heads", l.attention.heads);
      att.set("rows", l.attention.rows);
      att.set("cols", l.attention.cols);
      att.set("data", copy_floats(l.attention.data.data(), l.attention.data.size()));
      layer.set("attention", att);
      layer.set("attentionInput", to_js(l.attention_input));
      layer.set("W_q", to_js(l.W_q));
      layer.set("W_k", to_js(l.W_k));
      layer.set("W_v", to_js(l.W_v));
      layer.set("W_o", to_js(l.W_o));
      layers.call<void>("push", layer);
    }
    out.set("layers", layers);
    return out;
  }

  val head_shares() const {
    val out = val::array();
    if (!trainer_) return out;
    for (const auto& s : trainer_->head_shares()) {
      val entry = val::object();
      entry.set("layer", s.layer);
      entry.set("head", s.head);
      entry.set("referent", s.referent);
      entry.set("otherNoun", s.other_noun);
      entry.set("adjective", s.adjective);
      entry.set("self", s.self);
      out.call<void>("push", entry);
    }
    return out;
  }

  val attention_scores() const {
    if (!trainer_) return failure("the trainer has no model yet: configure or load one first");
    const auto scores = trainer_->attention_scores();
    val heads = val::array();
    for (const auto& h : scores.heads) {
      val entry = val::object();
      entry.set("layer", h.layer);
      entry.set("head", h.head);
      entry.set("previousToken", h.previous_token);
      entry.set("induction", h.induction);
      entry.set("inductionLatest", h.induction_latest);
      entry.set("self", h.self);
      entry.set("first", h.first);
      entry.set("entropy", h.entropy);
      heads.call<void>("push", entry);
    }
    val layer_entropy = val::array();
    for (const float e : scores.layer_entropy) layer_entropy.call<void>("push", e);
    val out = val::object();
    out.set("heads", heads);
    out.set("layerEntropy", layer_entropy);
    out.set("entropy", scores.entropy);
    return out;
  }

  val gradient_norms() const {
    if (!trainer_) return failure("the trainer has no model yet: configure or load one first");
    const auto& norms = trainer_->gradient_norms();
    const auto& entries = trainer_->layout().entries;
    val out = val::array();
    for (std::size_t i = 0; i < norms.size() && i < entries.size(); ++i) {
      val entry = val::object();
      entry.set("name", entries[i].name);
      entry.set("norm", norms[i]);
      out.call<void>("push", entry);
    }
    return out;
  }

  val export_weights() const {
    if (!trainer_) return failure("the trainer has no model yet: configure or load one first");
    const auto bytes = trainer_->export_weights();
    return copy_bytes(bytes.data(), bytes.size());
  }

  val parameters() const {
    if (!trainer_) return failure("the trainer has no model yet: configure or load one first");
    return copy_floats(trainer_->parameters().data(), trainer_->parameters().size());
  }

  val describe() const {
    if (!trainer_) return failure("the trainer has no model yet: configure or load one first");
    val out = val::object();
    out.set("config", config_js(trainer_->config()));
    out.set("steps", trainer_->steps_done());
    out.set("parameterCount", double(trainer_->layout().count));
    out.set("causal", trainer_->model_config().causal);
    val vocabulary = val::array();
    for (const auto& w : trainer_->task().vocabulary().words) vocabulary.call<void>("push", w);
    out.set("vocabulary", vocabulary);
    val layout = val::array();
    for (const auto& e : trainer_->layout().entries) {
      val entry = val::object();
      entry.set("name", e.name);
      entry.set("offset", double(e.offset));
      entry.set("rows", e.rows);
      entry.set("cols", e.cols);
      layout.call<void>("push", entry);
    }
    out.set("layout", layout);
    val limits = val::object();
    limits.set("maxPositions", abh::train::kMaxPositions);
    limits.set("maxLayers", abh::train::kMaxLayers);
    limits.set("maxHeads", abh::train::kMaxHeads);
    limits.set("maxDModel", abh::train::kMaxDModel);
    limits.set("maxBatch", abh::train::kMaxBatch);
    limits.set("maxStepsPerCall", abh::train::kMaxStepsPerCall);
    limits.set("maxTotalSteps", abh::train::kMaxTotalSteps);
    out.set("limits", limits);
    return out;
  }

 private:
  val adopt(abh::Expected<std::unique_ptr<Trainer>> created) {
    if (!created.ok()) return failure(created.error());
    trainer_ = std::move(created.value());
    val out = val::object();
    out.set("parameterCount", double(trainer_->layout().count));
    return out;
  }

  std::unique_ptr<Trainer> trainer_;
};

}  // namespace training_bindings

EMSCRIPTEN_BINDINGS(training) {
  emscripten::class_<training_bindings::TrainerJs>("Trainer")
      .constructor<>()
      .function("configure", &training_bindings::TrainerJs::configure)
      .function("load", &training_bindings::TrainerJs::load)
      .function("step", &training_bindings::TrainerJs::step)
      .function("evaluate", &training_bindings::TrainerJs::evaluate)
      .function("analyze", &training_bindings::TrainerJs::analyze)
      .function("headShares", &training_bindings::TrainerJs::head_shares)
      .function("attentionScores", &training_bindings::TrainerJs::attention_scores)
      .function("gradientNorms", &training_bindings::TrainerJs::gradient_norms)
      .function("exportWeights", &training_bindings::TrainerJs::export_weights)
      .function("parameters", &training_bindings::TrainerJs::parameters)
      .function("describe", &training_bindings::TrainerJs::describe);
}
