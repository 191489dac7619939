// The only file that knows about Emscripten. It converts between plain JS objects and the engine's
// structs and nothing else: no math here.
//
// Boundary shapes (mirrored by web/src/engine/types.ts; pipeline() has its own, see below):
//   JsMatrix  = { rows, cols, data: Float32Array }            row-major
//   JsTensor3 = { heads, rows, cols, data: Float32Array }     row-major, heads outermost
//   failures  = { error: string }  (the JS wrapper throws it as an EngineError)
// Inputs are copied into wasm memory once; outputs are copied out into fresh typed arrays before
// returning, so no JS object ever holds a view into memory that a later call could grow.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <emscripten/heap.h>
#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "attention.h"
#include "experiments.h"
#include "flash.h"
#include "kernels.h"
#include "engine_limits.h"
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

val copy_bytes(const std::vector<std::uint8_t>& bytes) {
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
}

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
// The TypeScript wrapper has already checked types; these checks guard direct callers.

bool is_object(const val& v) { return v.typeOf().as<std::string>() == "object" && !v.isNull(); }

bool is_whole_number(const val& v, double lo, double hi) {
  if (!v.isNumber()) return false;
  const double x = v.as<double>();
  return std::isfinite(x) && x == std::floor(x) && x >= lo && x <= hi;
}

std::string read_matrix(const val& js, const char* name, abh::Matrix& out) {
  if (!is_object(js) || !is_whole_number(js["rows"], 0, 1 << 30) || !is_whole_number(js["cols"], 0, 1 << 30))
    return std::string(name) + " must be { rows, cols, data } with whole-number rows and cols";
  const int rows = js["rows"].as<int>(), cols = js["cols"].as<int>();
  const val data = js["data"];
  if (!is_object(data) || !data["length"].isNumber()) return std::string(name) + ".data must be a Float32Array";
  const double length = data["length"].as<double>();
  if (length != double(rows) * cols)
    return std::string(name) + ".data has " + std::to_string(std::int64_t(length)) + " values, expected rows x cols = " +
           std::to_string(std::int64_t(rows) * cols);
  if (std::int64_t(rows) * cols > (std::int64_t(1) << 26)) return std::string(name) + " is larger than the engine accepts";
  // Straight into the matrix with one set() (it converts a plain array's entries with Number(), so
  // anything that is not a number arrives as NaN), then one pass for non-finite values.
  out.resize(rows, cols);
  const std::size_t size = std::size_t(out.size());
  if (size) val(emscripten::typed_memory_view(size, out.data())).call<void>("set", data);
  if (const std::size_t i = abh::kernels::first_non_finite(out.data(), size); i < size)
    return std::string(name) + " has a value that is not a finite number at row " + std::to_string(i / cols + 1) +
           ", column " + std::to_string(i % cols + 1);
  return {};
}

bool read_flag(const val& options, const char* key, bool fallback) {
  const val v = options[key];
  return v.isUndefined() ? fallback : v.as<bool>();
}

// ---- entry points --------------------------------------------------------------------------

val attention_js(val Q_js, val K_js, val V_js, val options) {
  abh::Matrix Q, K, V;
  for (auto [js, name, target] : {std::tuple{&Q_js, "Q", &Q}, {&K_js, "K", &K}, {&V_js, "V", &V}})
    if (auto error = read_matrix(*js, name, *target); !error.empty()) return failure(error);
  abh::Mask mask;
  const val mask_js = options["mask"];
  const bool has_mask = !mask_js.isUndefined() && !mask_js.isNull();
  if (has_mask) {
    if (!is_object(mask_js) || !mask_js["length"].isNumber()) return failure("mask must be a Uint8Array of n_q x n_k entries");
    if (mask_js["length"].as<double>() != double(Q.rows()) * K.rows())
      return failure("the mask must be " + std::to_string(Q.rows()) + " x " + std::to_string(K.rows()));
    const auto bytes = emscripten::convertJSArrayToNumberVector<std::uint8_t>(mask_js);
    mask = Eigen::Map<const abh::Mask>(bytes.data(), Q.rows(), K.rows());
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
  abh::Matrix X, W_q, W_k, W_v, W_o;
  for (auto [js, name, target] : {std::tuple{&X_js, "X", &X}, {&Wq_js, "W_q", &W_q}, {&Wk_js, "W_k", &W_k},
                                  {&Wv_js, "W_v", &W_v}, {&Wo_js, "W_o", &W_o}})
    if (auto error = read_matrix(*js, name, *target); !error.empty()) return failure(error);
  if (!is_whole_number(options["heads"], -1e9, 1e9)) return failure("heads must be a whole number");
  const auto result = abh::multi_head_attention(X, W_q, W_k, W_v, W_o, options["heads"].as<int>(),
                                                read_flag(options, "causal", false), {read_flag(options, "scale", true)});
  if (!result.ok()) return failure(result.error());
  val out = val::object();
  out.set("output", to_js(result.value().output));
  out.set("weights", to_js(result.value().weights));
  out.set("fullyMaskedRows", copy_bytes(result.value().fully_masked_rows));
  return out;
}

val dot_product_samples_js(val options) {
  for (const char* key : {"dK", "samples", "seed"})
    if (!is_whole_number(options[key], -1e9, 4294967295.0)) return failure(std::string(key) + " must be a whole number");
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

val softmax_saturation_js(val row_js, double factor) {
  if (!is_object(row_js) || !row_js["length"].isNumber()) return failure("row must be a Float32Array");
  if (row_js["length"].as<double>() > 4096) return failure("the row must have 1 to 4096 entries");
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
//   2. abh_pipeline_run(d_model, heads, seed, causal, scale, comparison_head) -> address of the header below, or 0
//      when the configuration is refused (the reason: pipelineError()).
//   3. one copy of the result block out of HEAPU8, then abh_pipeline_release(), which frees what the
//      call allocated (staged inputs; a result block too large for the fixed one).
//
// Header (uint32 words): n, d_model, heads, d_k, scale_factor (float32 bits), block address, block
// bytes, then kPipelineTensorCount float offsets into the block (PipelineTensor order), the mask's
// byte offset and fully_masked_rows' byte offset.
//
// Results up to kFixedPipelineFloats (the page at d_model 512 with its usual sentence lengths) live
// in a static block (not malloc'd: it cannot leak and heapStats() does not count it), which also
// keeps the generated weights of the last seed and d_model between calls. Nothing here can abort on
// bad input: stage refuses sizes over the limits before allocating, run validates everything
// (check_pipeline_config) before computing.

constexpr std::size_t kFixedPipelineFloats = std::size_t(1) << 21;  // 8 MiB: d_model 512 with n up to ~100 fits
constexpr int kHeaderWords = 7 + abh::kPipelineTensorCount + 2;

alignas(16) float fixed_pipeline_block[kFixedPipelineFloats];
abh::PipelineWorkspace pipeline_workspace(fixed_pipeline_block, kFixedPipelineFloats);
abh::PipelineConfig pipeline_request;
std::uint32_t pipeline_table[7];
std::uint32_t pipeline_header[kHeaderWords];
std::string pipeline_message;

std::string pipeline_error() { return pipeline_message; }

void release_request() {
  for (auto* v : {&pipeline_request.X, &pipeline_request.W_q, &pipeline_request.W_k, &pipeline_request.W_v, &pipeline_request.W_o})
    std::vector<float>().swap(*v);
  std::vector<std::uint32_t>().swap(pipeline_request.token_ids);
  std::vector<std::uint8_t>().swap(pipeline_request.mask);
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE std::uint32_t abh_pipeline_stage(int n, int x_len, int wq_len, int wk_len, int wv_len, int wo_len, int mask_len) {
  using namespace abh::limits;
  release_request();
  pipeline_message.clear();
  const std::int64_t most_x = std::int64_t(kMaxPipelineTokens) * kMaxDModel, most_w = std::int64_t(kMaxDModel) * kMaxDModel;
  if (n < 0 || n > kMaxPipelineTokens) {
    pipeline_message = "the walkthrough shows at most " + std::to_string(kMaxPipelineTokens) + " tokens (got " + std::to_string(n) + ")";
    return 0;
  }
  if (x_len < 0 || x_len > most_x || wq_len < 0 || wq_len > most_w || wk_len < 0 || wk_len > most_w || wv_len < 0 ||
      wv_len > most_w || wo_len < 0 || wo_len > most_w || mask_len < 0 || mask_len > std::int64_t(kMaxPipelineTokens) * kMaxPipelineTokens) {
    pipeline_message = "a matrix or the mask is larger than the walkthrough accepts";
    return 0;
  }
  pipeline_request.token_ids.resize(std::size_t(n));
  pipeline_request.X.resize(std::size_t(x_len));
  pipeline_request.W_q.resize(std::size_t(wq_len));
  pipeline_request.W_k.resize(std::size_t(wk_len));
  pipeline_request.W_v.resize(std::size_t(wv_len));
  pipeline_request.W_o.resize(std::size_t(wo_len));
  pipeline_request.mask.resize(std::size_t(mask_len));
  const void* where[7] = {pipeline_request.token_ids.data(), pipeline_request.X.data(), pipeline_request.W_q.data(),
                          pipeline_request.W_k.data(), pipeline_request.W_v.data(), pipeline_request.W_o.data(),
                          pipeline_request.mask.data()};
  for (int i = 0; i < 7; ++i) pipeline_table[i] = std::uint32_t(reinterpret_cast<std::uintptr_t>(where[i]));
  return std::uint32_t(reinterpret_cast<std::uintptr_t>(pipeline_table));
}

EMSCRIPTEN_KEEPALIVE std::uint32_t abh_pipeline_run(int d_model, int heads, std::uint32_t seed, int causal, int scale, int comparison_head) {
  pipeline_request.d_model = d_model;
  pipeline_request.heads = heads;
  pipeline_request.seed = seed;
  pipeline_request.causal = causal != 0;
  pipeline_request.scale = scale != 0;
  pipeline_request.comparison_head = comparison_head;
  abh::PipelineView v;
  pipeline_message = abh::run_pipeline_into(pipeline_request, pipeline_workspace, v);
  if (!pipeline_message.empty()) return 0;
  std::uint32_t* h = pipeline_header;
  h[0] = std::uint32_t(v.n);
  h[1] = std::uint32_t(v.d_model);
  h[2] = std::uint32_t(v.heads);
  h[3] = std::uint32_t(v.d_k);
  std::memcpy(&h[4], &v.scale_factor, sizeof(float));
  h[5] = std::uint32_t(reinterpret_cast<std::uintptr_t>(v.block));
  h[6] = std::uint32_t(v.bytes());
  for (int t = 0; t < abh::kPipelineTensorCount; ++t) h[7 + t] = std::uint32_t(v.layout.offset[t]);
  h[7 + abh::kPipelineTensorCount] = std::uint32_t(v.layout.mask_byte_offset);
  h[8 + abh::kPipelineTensorCount] = std::uint32_t(v.layout.rows_byte_offset);
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

std::string read_flash_options(const val& options, abh::FlashOptions& out) {
  if (!is_object(options)) return "options must be { blockQ, blockK, causal?, scale? }";
  for (auto [key, target] : {std::pair{"blockQ", &out.block_q}, {"blockK", &out.block_k}}) {
    if (!is_whole_number(options[key], -1e9, 1e9)) return std::string(key) + " must be a whole number";
    *target = options[key].as<int>();
  }
  out.causal = read_flag(options, "causal", false);
  out.scale = read_flag(options, "scale", true);
  return {};
}

// ---- conversions: engine -> JS -------------------------------------------------------------

val to_js(const abh::FlashTraceStep& step) {
  val out = val::object();
  for (auto [key, value] : {std::pair{"queryBlock", step.q_block}, {"keyBlock", step.k_block}, {"queryStart", step.q_start},
                            {"queryEnd", step.q_end}, {"keyStart", step.k_start}, {"keyEnd", step.k_end}})
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
    if (!destination.instanceof(val::global("Float32Array")) || destination["length"].as<double>() != double(size))
      return failure("output must be a Float32Array of " + std::to_string(m.rows()) + " x " + std::to_string(m.cols()) + " = " +
                     std::to_string(size) + " values, the output's shape");
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
  abh::Matrix Q, K, V;
  for (auto [js, name, target] : {std::tuple{&Q_js, "Q", &Q}, {&K_js, "K", &K}, {&V_js, "V", &V}})
    if (auto error = read_matrix(*js, name, *target); !error.empty()) return failure(error);
  abh::FlashOptions options;
  if (auto error = read_flash_options(options_js, options); !error.empty()) return failure(error);
  const auto result = abh::flash_attention(Q, K, V, options);
  if (!result.ok()) return failure(result.error());
  return flash_result_js(result.value(), options_js);
}

val flash_multi_head_js(val Q_js, val K_js, val V_js, val options_js) {
  abh::Matrix Q, K, V;
  for (auto [js, name, target] : {std::tuple{&Q_js, "Q", &Q}, {&K_js, "K", &K}, {&V_js, "V", &V}})
    if (auto error = read_matrix(*js, name, *target); !error.empty()) return failure(error);
  abh::FlashOptions options;
  if (auto error = read_flash_options(options_js, options); !error.empty()) return failure(error);
  if (!is_whole_number(options_js["heads"], -1e9, 1e9)) return failure("heads must be a whole number");
  const auto result = abh::flash_multi_head(Q, K, V, options_js["heads"].as<int>(), options);
  if (!result.ok()) return failure(result.error());
  return flash_result_js(result.value(), options_js);
}

val flash_trace_js(val Q_js, val K_js, val V_js, val options_js) {
  abh::Matrix Q, K, V;
  for (auto [js, name, target] : {std::tuple{&Q_js, "Q", &Q}, {&K_js, "K", &K}, {&V_js, "V", &V}})
    if (auto error = read_matrix(*js, name, *target); !error.empty()) return failure(error);
  abh::FlashOptions options;
  if (auto error = read_flash_options(options_js, options); !error.empty()) return failure(error);
  const auto result = abh::flash_attention_trace(Q, K, V, options);
  if (!result.ok()) return failure(result.error());
  const abh::FlashTrace& t = result.value();
  val out = val::object();
  for (auto [key, value] : {std::pair{"nQ", t.n_q}, {"nK", t.n_k}, {"dK", t.d_k}, {"dV", t.d_v}, {"blockQ", t.block_q},
                            {"blockK", t.block_k}, {"queryBlocks", t.query_blocks}, {"keyBlocks", t.key_blocks}})
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
//   .analyze(words: string[], topK)     -> { words, ids, unknown: Uint8Array, query, top: [{ token, word, probability }],
//                                            layers: [{ attention: JsTensor3 (h, n, n), attentionInput: JsMatrix (n, d_model),
//                                                       W_q, W_k, W_v, W_o: JsMatrix (d_model, d_model) }] } | { error }
//   .headShares()                       -> [{ layer, head, referent, otherNoun, adjective, self }]
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

val copy_float_array(const float* data, std::size_t size) {
  val out = val::global("Float32Array").new_(size);
  if (size) out.call<void>("set", emscripten::typed_memory_view(size, data));
  return out;
}

val copy_byte_array(const std::uint8_t* data, std::size_t size) {
  val out = val::global("Uint8Array").new_(size);
  if (size) out.call<void>("set", emscripten::typed_memory_view(size, data));
  return out;
}

val matrix_js(const abh::Matrix& m) {
  val out = val::object();
  out.set("rows", int(m.rows()));
  out.set("cols", int(m.cols()));
  out.set("data", copy_float_array(m.data(), std::size_t(m.size())));
  return out;
}

val error_js(const std::string& message) {
  val out = val::object();
  out.set("error", message);
  return out;
}

// Reads config[key] into target when present; a wrong type is an error naming the key.
std::string read_int(const val& config, const char* key, int& target) {
  const val v = config[key];
  if (v.isUndefined()) return {};
  const double x = v.isNumber() ? v.as<double>() : NAN;
  if (!(std::isfinite(x) && x == std::floor(x) && std::abs(x) <= 1e9)) return std::string(key) + " must be a whole number";
  target = int(x);
  return {};
}
std::string read_float(const val& config, const char* key, float& target) {
  const val v = config[key];
  if (v.isUndefined()) return {};
  if (!v.isNumber()) return std::string(key) + " must be a number";
  const double x = v.as<double>();
  target = std::isfinite(x) && std::abs(x) > 3e38 ? float(x > 0 ? INFINITY : -INFINITY) : float(x);  // NaN stays NaN: checked later
  return {};
}
std::string read_bool(const val& config, const char* key, bool& target) {
  const val v = config[key];
  if (v.isUndefined()) return {};
  if (v.typeOf().as<std::string>() != "boolean") return std::string(key) + " must be true or false";
  target = v.as<bool>();
  return {};
}
std::string read_string(const val& config, const char* key, std::string& target) {
  const val v = config[key];
  if (v.isUndefined()) return {};
  if (!v.isString()) return std::string(key) + " must be a string";
  target = v.as<std::string>();
  return {};
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
    if (config.typeOf().as<std::string>() != "object" || config.isNull()) return error_js("the training configuration must be an object");
    abh::train::TrainConfig c;
    double seed = c.seed;
    for (const std::string& error :
         {read_string(config, "task", c.task), read_int(config, "layers", c.layers), read_int(config, "heads", c.heads),
          read_int(config, "dModel", c.d_model), read_bool(config, "layerNorm", c.layer_norm), read_bool(config, "mlp", c.mlp),
          read_bool(config, "scale", c.scale), read_string(config, "mask", c.mask), read_string(config, "optimizer", c.optimizer),
          read_float(config, "learningRate", c.learning_rate), read_float(config, "weightDecay", c.weight_decay),
          read_float(config, "momentum", c.momentum), read_float(config, "clip", c.clip), read_int(config, "batch", c.batch)})
      if (!error.empty()) return error_js(error);
    if (!config["seed"].isUndefined()) {
      seed = config["seed"].isNumber() ? config["seed"].as<double>() : NAN;
      if (!(seed >= 0 && seed <= 4294967295.0 && seed == std::floor(seed))) return error_js("seed must be a whole number from 0 to 4294967295");
      c.seed = std::uint32_t(seed);
    }
    return adopt(Trainer::create(c));
  }

  val load(val bytes) {
    if (bytes.typeOf().as<std::string>() != "object" || bytes.isNull() || !bytes["length"].isNumber())
      return error_js("the weights must be a Uint8Array");
    const double length = bytes["length"].as<double>();
    if (length > double(abh::train::kMaxWeightsBytes))
      return error_js("the weights file is too large (" + std::to_string(std::int64_t(length)) + " bytes)");
    const std::vector<std::uint8_t> data = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
    return adopt(Trainer::import_weights(data.data(), data.size()));
  }

  val step(int steps) {
    if (!trainer_) return error_js("the trainer has no model yet: configure or load one first");
    const auto r = trainer_->step(steps);
    if (!r.ok()) return error_js(r.error());
    val out = val::object();
    out.set("step", r.value().step);
    out.set("loss", r.value().loss);
    out.set("meanLoss", r.value().mean_loss);
    out.set("gradientNorm", r.value().gradient_norm);
    return out;
  }

  val evaluate() const {
    if (!trainer_) return error_js("the trainer has no model yet: configure or load one first");
    const auto e = trainer_->evaluate();
    val out = val::object();
    out.set("accuracy", e.accuracy);
    out.set("loss", e.loss);
    out.set("examples", e.examples);
    out.set("positions", e.positions);
    return out;
  }

  val analyze(val words_js, int top_k) const {
    if (!trainer_) return error_js("the trainer has no model yet: configure or load one first");
    if (!words_js.isArray()) return error_js("the words must be an array of strings");
    const int count = words_js["length"].as<int>();
    if (count > abh::train::kMaxPositions)
      return error_js("the trained model reads at most " + std::to_string(abh::train::kMaxPositions) + " words (got " + std::to_string(count) + ")");
    std::vector<std::string> words;
    for (int i = 0; i < count; ++i) {
      const val w = words_js[i];
      if (!w.isString()) return error_js("word " + std::to_string(i + 1) + " is not a string");
      words.push_back(w.as<std::string>());
    }
    const auto r = trainer_->analyze(words, top_k);
    if (!r.ok()) return error_js(r.error());
    const auto& a = r.value();
    val out = val::object();
    val normalized = val::array(), ids = val::array();
    for (std::size_t i = 0; i < a.tokens.words.size(); ++i) {
      normalized.call<void>("push", a.tokens.words[i]);
      ids.call<void>("push", a.tokens.ids[i]);
    }
    out.set("words", normalized);
    out.set("ids", ids);
    out.set("unknown", copy_byte_array(a.tokens.unknown.data(), a.tokens.unknown.size()));
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
      att.set("data", copy_float_array(l.attention.data.data(), l.attention.data.size()));
      layer.set("attention", att);
      layer.set("attentionInput", matrix_js(l.attention_input));
      layer.set("W_q", matrix_js(l.W_q));
      layer.set("W_k", matrix_js(l.W_k));
      layer.set("W_v", matrix_js(l.W_v));
      layer.set("W_o", matrix_js(l.W_o));
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

  val export_weights() const {
    if (!trainer_) return error_js("the trainer has no model yet: configure or load one first");
    const auto bytes = trainer_->export_weights();
    return copy_byte_array(bytes.data(), bytes.size());
  }

  val parameters() const {
    if (!trainer_) return error_js("the trainer has no model yet: configure or load one first");
    return copy_float_array(trainer_->parameters().data(), trainer_->parameters().size());
  }

  val describe() const {
    if (!trainer_) return error_js("the trainer has no model yet: configure or load one first");
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
    if (!created.ok()) return error_js(created.error());
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
      .function("exportWeights", &training_bindings::TrainerJs::export_weights)
      .function("parameters", &training_bindings::TrainerJs::parameters)
      .function("describe", &training_bindings::TrainerJs::describe);
}
