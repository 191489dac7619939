// The attention entry points, the article's experiments, the engine's description and the
// walkthrough's pipeline. Binding only: every rule and number is the engine's (attention.h,
// experiments.h, pipeline.h, engine_limits.h).
//
//   attention(Q, K, V, { mask?, scale? })              -> { output: JsMatrix, weights: JsMatrix, fullyMaskedRows }
//   multiHeadAttention(X, W_q, W_k, W_v, W_o, { heads, causal?, scale? })
//                                                      -> { output: JsMatrix, weights: JsTensor3, fullyMaskedRows }
//   dotProductSamples({ dK, samples, seed })           -> { dK, raw, scaled, rawStd, scaledStd }
//   softmaxSaturation(row: Float32Array, factor)       -> { probabilities, jacobianNorm }
//   engineInfo()                                       -> { simd, limits }  limits: engine_limits.h, which
//                                                         build:wasm writes into generated/limits.json
//   pipelineFormat(), pipelineError() and three plain exports: the pipeline, below.
#include "attention.h"

#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "bindings/common.h"
#include "engine_limits.h"
#include "experiments.h"
#include "kernels.h"
#include "pipeline.h"

namespace abh::bindings {
namespace {

// ---- results -----------------------------------------------------------------------------------

struct AttentionResultJs {
  JsMatrix output;
  JsMatrix weights;
  val fullyMaskedRows = val::undefined();
};
struct MultiHeadResultJs {
  JsMatrix output;
  JsTensor3 weights;
  val fullyMaskedRows = val::undefined();
};
struct DotProductSamplesJs {
  int dK = 0;
  val raw = val::undefined(), scaled = val::undefined();
  double rawStd = 0, scaledStd = 0;
};
struct SoftmaxSaturationJs {
  val probabilities = val::undefined();
  double jacobianNorm = 0;
};
struct EngineLimitsJs {
  double maxSequence, maxDim, maxScoreElements, maxPipelineTokens, maxDModel, maxHeads, maxPipelineHeadScoreElements,
      maxFlashSequence, maxFlashBlock, maxTraceSequence, maxTraceDim, maxSeed;
};
struct EngineInfoJs {
  bool simd = false;
  EngineLimitsJs limits{};
};

// ---- entry points --------------------------------------------------------------------------

val attention_js(val Q_js, val K_js, val V_js, val options) {
  const val mask_js = options["mask"];
  const bool has_mask = !mask_js.isUndefined();
  const std::int64_t mask_entries = has_mask ? std::int64_t(mask_js["length"].as<double>()) : -1;
  return on_qkv(
      Q_js, K_js, V_js,
      [&](Shape q, Shape k, Shape v) {
        return check_attention_shapes(q.rows, k.rows, q.cols, k.cols, v.rows, v.cols, mask_entries);
      },
      [&](const Matrix& Q, const Matrix& K, const Matrix& V) {
        Mask mask;
        if (has_mask) {
          mask.resize(Q.rows(), K.rows());
          val(emscripten::typed_memory_view(std::size_t(mask.size()), mask.data())).call<void>("set", mask_js);
        }
        return js_result(attention(Q, K, V, has_mask ? &mask : nullptr, {read_flag(options, "scale", true)}),
                         [](const AttentionResult& r) {
                           return AttentionResultJs{to_js(r.output), to_js(r.weights), copy_bytes(r.fully_masked_rows)};
                         });
      });
}

val multi_head_attention_js(val X_js, val Wq_js, val Wk_js, val Wv_js, val Wo_js, val options) {
  if (auto heads = check_whole(options["heads"], "heads", -1e9, 1e9); !heads.ok()) return failure(heads.error());
  const int heads = options["heads"].as<int>();
  auto inputs = read_matrices<5>(
      {{{"X", &X_js}, {"W_q", &Wq_js}, {"W_k", &Wk_js}, {"W_v", &Wv_js}, {"W_o", &Wo_js}}},
      [&](const std::array<Shape, 5>& s) {
        return check_multi_head_shapes(
            s[0].rows, s[0].cols,
            {{s[1].rows, s[1].cols}, {s[2].rows, s[2].cols}, {s[3].rows, s[3].cols}, {s[4].rows, s[4].cols}}, heads);
      });
  if (!inputs.ok()) return failure(inputs.error());
  const auto& [X, W_q, W_k, W_v, W_o] = inputs.value();
  return js_result(multi_head_attention(X, W_q, W_k, W_v, W_o, heads, read_flag(options, "causal", false),
                                        {read_flag(options, "scale", true)}),
                   [](const MultiHeadResult& r) {
                     return MultiHeadResultJs{to_js(r.output), to_js(r.weights), copy_bytes(r.fully_masked_rows)};
                   });
}

val dot_product_samples_js(val options) {
  for (const char* key : {"dK", "samples", "seed"})
    if (auto whole = check_whole(options[key], key, -1e9, 4294967295.0); !whole.ok()) return failure(whole.error());
  return js_result(
      dot_product_samples(options["dK"].as<int>(), options["samples"].as<int>(), options["seed"].as<std::uint32_t>()),
      [](const DotProductSamples& r) {
        return DotProductSamplesJs{r.d_k, copy_floats(r.raw), copy_floats(r.scaled), r.raw_std, r.scaled_std};
      });
}

// row is a Float32Array; factor is NaN when the caller's was not a number.
val softmax_saturation_js(val row_js, double factor) {
  if (auto length = check_softmax_row_length(std::size_t(row_js["length"].as<double>())); !length.ok())
    return failure(length.error());
  return js_result(softmax_saturation(emscripten::convertJSArrayToNumberVector<float>(row_js), float(factor)),
                   [](const SoftmaxSaturation& r) {
                     return SoftmaxSaturationJs{copy_floats(r.probabilities), r.jacobian_norm};
                   });
}

EngineInfoJs engine_info() {
  using namespace limits;
  return {kernels::simd_enabled(),
          {kMaxSequence, kMaxDim, double(kMaxScoreElements), kMaxPipelineTokens, kMaxDModel, kMaxHeads,
           double(kMaxPipelineHeadScoreElements), kMaxFlashSequence, kMaxFlashBlock, kMaxTraceSequence, kMaxTraceDim,
           double(kMaxSeed)}};
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
// publishes the word names, the array names with their levels (pipeline.h's PipelineLevel), the
// record's words and the element types, so the wrapper mirrors nothing
// (tests/unit/pipeline-format.test.ts pins it).
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
constexpr int kHeaderWords = kHeaderScalarWords + kFieldWords * kPipelineFieldCount;

alignas(16) float fixed_pipeline_block[kFixedPipelineFloats];
PipelineWorkspace pipeline_workspace(fixed_pipeline_block, kFixedPipelineFloats);
PipelineConfig pipeline_request;
std::uint32_t pipeline_table[7];
std::uint32_t pipeline_header[kHeaderWords];
std::string pipeline_message;

std::string pipeline_error() { return pipeline_message; }

val pipeline_format() {
  std::vector<std::string> fields;
  std::vector<int> levels;
  for (const PipelineFieldSpec& spec : kPipelineFieldSpecs) {
    fields.push_back(spec.name);
    levels.push_back(int(spec.level));
  }
  val out = val::object();
  out.set("header", to_js_array(std::vector<std::string>(std::begin(kHeaderWordNames), std::end(kHeaderWordNames))));
  out.set("floatWords", to_js_array(std::vector<std::string>{kHeaderWordNames[kWordScaleFactor]}));
  out.set("fields", to_js_array(fields));
  out.set("levels", to_js_array(levels));
  out.set("fieldWords", kFieldWords);
  out.set("fieldWordNames",
          to_js_array(std::vector<std::string>{"byteOffset", "element", "rank", "dim0", "dim1", "dim2"}));
  out.set("elements", to_js_array(std::vector<std::string>{"float32", "uint8"}));
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
}  // namespace abh::bindings

using namespace abh;
using namespace abh::bindings;

extern "C" {

EMSCRIPTEN_KEEPALIVE std::uint32_t abh_pipeline_stage(int n, int x_len, int wq_len, int wk_len, int wv_len, int wo_len,
                                                      int mask_len) {
  release_request();
  pipeline_message.clear();
  if (auto sizes = check_pipeline_sizes(n, x_len, {wq_len, wk_len, wv_len, wo_len}, mask_len); !sizes.ok()) {
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
    if (auto whole = check_whole_number(name, value, -1e9, 1e9); !whole.ok()) {
      pipeline_message = whole.error();
      return 0;
    }
  if (auto valid_seed = check_seed(seed); !valid_seed.ok()) {
    pipeline_message = valid_seed.error();
    return 0;
  }
  pipeline_request.d_model = int(d_model);
  pipeline_request.heads = int(heads);
  pipeline_request.seed = std::uint32_t(seed);
  pipeline_request.causal = causal != 0;
  pipeline_request.scale = scale != 0;
  pipeline_request.comparison_head = int(comparison_head);
  PipelineView v;
  if (auto run = run_pipeline_into(pipeline_request, pipeline_workspace, v); !run.ok()) {
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
  for (const PipelineField& field : pipeline_fields(v)) {
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
  using emscripten::value_object;
  value_object<AttentionResultJs>("AttentionResult")
      .field("output", &AttentionResultJs::output)
      .field("weights", &AttentionResultJs::weights)
      .field("fullyMaskedRows", &AttentionResultJs::fullyMaskedRows);
  value_object<MultiHeadResultJs>("MultiHeadResult")
      .field("output", &MultiHeadResultJs::output)
      .field("weights", &MultiHeadResultJs::weights)
      .field("fullyMaskedRows", &MultiHeadResultJs::fullyMaskedRows);
  value_object<DotProductSamplesJs>("DotProductSamples")
      .field("dK", &DotProductSamplesJs::dK)
      .field("raw", &DotProductSamplesJs::raw)
      .field("scaled", &DotProductSamplesJs::scaled)
      .field("rawStd", &DotProductSamplesJs::rawStd)
      .field("scaledStd", &DotProductSamplesJs::scaledStd);
  value_object<SoftmaxSaturationJs>("SoftmaxSaturation")
      .field("probabilities", &SoftmaxSaturationJs::probabilities)
      .field("jacobianNorm", &SoftmaxSaturationJs::jacobianNorm);
  value_object<EngineLimitsJs>("EngineLimits")
      .field("maxSequence", &EngineLimitsJs::maxSequence)
      .field("maxDim", &EngineLimitsJs::maxDim)
      .field("maxScoreElements", &EngineLimitsJs::maxScoreElements)
      .field("maxPipelineTokens", &EngineLimitsJs::maxPipelineTokens)
      .field("maxDModel", &EngineLimitsJs::maxDModel)
      .field("maxHeads", &EngineLimitsJs::maxHeads)
      .field("maxPipelineHeadScoreElements", &EngineLimitsJs::maxPipelineHeadScoreElements)
      .field("maxFlashSequence", &EngineLimitsJs::maxFlashSequence)
      .field("maxFlashBlock", &EngineLimitsJs::maxFlashBlock)
      .field("maxTraceSequence", &EngineLimitsJs::maxTraceSequence)
      .field("maxTraceDim", &EngineLimitsJs::maxTraceDim)
      .field("maxSeed", &EngineLimitsJs::maxSeed);
  value_object<EngineInfoJs>("EngineInfo").field("simd", &EngineInfoJs::simd).field("limits", &EngineInfoJs::limits);

  emscripten::function("attention", &attention_js);
  emscripten::function("multiHeadAttention", &multi_head_attention_js);
  emscripten::function("pipelineError", &pipeline_error);
  emscripten::function("pipelineFormat", &pipeline_format);
  emscripten::function("dotProductSamples", &dot_product_samples_js);
  emscripten::function("softmaxSaturation", &softmax_saturation_js);
  emscripten::function("engineInfo", &engine_info);
}
