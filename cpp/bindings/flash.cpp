// FlashAttention, the tiled kernel (flash.h). Binding only: every rule is the engine's.
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
#include "flash.h"

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <utility>

#include "bindings/common.h"

namespace abh::bindings {
namespace {

// ---- results -----------------------------------------------------------------------------------

struct FlashResultJs {
  JsMatrix output;
  double scratchFloats = 0;
};

struct FlashTraceStepJs {
  int queryBlock = 0, keyBlock = 0, queryStart = 0, queryEnd = 0, keyStart = 0, keyEnd = 0;
  bool skipped = false;
  JsMatrix scores, probabilities;
  val m = val::undefined(), l = val::undefined(), rescale = val::undefined();
  JsMatrix acc;
};

struct FlashTraceJs {
  int nQ = 0, nK = 0, dK = 0, dV = 0, blockQ = 0, blockK = 0, queryBlocks = 0, keyBlocks = 0;
  bool causal = false;
  float scaleFactor = 1;
  JsMatrix output;
  val steps = val::undefined();
};

FlashTraceStepJs step_js(const FlashTraceStep& s) {
  return {s.q_block,        s.k_block,        s.q_start,
          s.q_end,          s.k_start,        s.k_end,
          s.skipped,        to_js(s.scores),  to_js(s.probabilities),
          copy_floats(s.m), copy_floats(s.l), copy_floats(s.rescale),
          to_js(s.acc)};
}

// ---- JS -> engine ------------------------------------------------------------------------------

Expected<FlashOptions> read_flash_options(const val& options) {
  FlashOptions out;
  for (auto [key, target] : {std::pair{"blockQ", &out.block_q}, {"blockK", &out.block_k}}) {
    if (auto whole = check_whole(options[key], key, -1e9, 1e9); !whole.ok()) return Failure{whole.error()};
    *target = options[key].as<int>();
  }
  out.causal = read_flag(options, "causal", false);
  out.scale = read_flag(options, "scale", true);
  return out;
}

// The tiled kernels' result. Its data is a fresh Float32Array, or, when the caller passes
// options.output, that array: a caller that calls again and again then reuses one array. Either way a
// copy, never a view of wasm memory. The reuse is what the option is for: a fresh 128 KiB array
// (n = 512, d_v = 64) costs about 0.45 ms per call in Node on a busy Linux VM, mostly page faults
// (glibc hands the freed array back to the kernel and the next one faults its pages in again),
// against ~2 ms for the attention itself. Checked after the computation, so that input and option
// errors come first; on an error the caller's array is left as it was.
val flash_result_js(const Expected<FlashResult>& result, const val& options_js) {
  if (!result.ok()) return failure(result.error());
  const Matrix& m = result.value().output;
  const std::size_t size = std::size_t(m.size());
  const val destination = options_js["output"];
  JsMatrix output{int(m.rows()), int(m.cols()), destination};
  if (destination.isUndefined()) {
    output.data = copy_floats(m.data(), size);
  } else {
    if (destination["length"].as<double>() != double(size))
      return failure("output must be a Float32Array of " + std::to_string(m.rows()) + " x " + std::to_string(m.cols()) +
                     " = " + std::to_string(size) + " values, the output's shape");
    if (size) destination.call<void>("set", emscripten::typed_memory_view(size, m.data()));
  }
  return val(FlashResultJs{output, double(result.value().scratch_floats)});
}

// ---- entry points --------------------------------------------------------------------------

val flash_attention_js(val Q_js, val K_js, val V_js, val options_js) {
  const auto options = read_flash_options(options_js);
  if (!options.ok()) return failure(options.error());
  return on_qkv(
      Q_js, K_js, V_js,
      [&](Shape q, Shape k, Shape v) {
        return check_flash_inputs(q.rows, k.rows, q.cols, k.cols, v.rows, v.cols, options.value());
      },
      [&](const Matrix& Q, const Matrix& K, const Matrix& V) {
        return flash_result_js(flash_attention(Q, K, V, options.value()), options_js);
      });
}

val flash_multi_head_js(val Q_js, val K_js, val V_js, val options_js) {
  const auto options = read_flash_options(options_js);
  if (!options.ok()) return failure(options.error());
  if (auto heads = check_whole(options_js["heads"], "heads", -1e9, 1e9); !heads.ok()) return failure(heads.error());
  const int heads = options_js["heads"].as<int>();
  return on_qkv(
      Q_js, K_js, V_js,
      [&](Shape q, Shape k, Shape v) {
        return check_flash_multi_head_inputs(q.rows, k.rows, q.cols, k.cols, v.rows, v.cols, heads, options.value());
      },
      [&](const Matrix& Q, const Matrix& K, const Matrix& V) {
        return flash_result_js(flash_multi_head(Q, K, V, heads, options.value()), options_js);
      });
}

val flash_trace_js(val Q_js, val K_js, val V_js, val options_js) {
  const auto options = read_flash_options(options_js);
  if (!options.ok()) return failure(options.error());
  return on_qkv(
      Q_js, K_js, V_js,
      [&](Shape q, Shape k, Shape v) {
        return check_flash_trace_inputs(q.rows, k.rows, q.cols, k.cols, v.rows, v.cols, options.value());
      },
      [&](const Matrix& Q, const Matrix& K, const Matrix& V) {
        return js_result(flash_attention_trace(Q, K, V, options.value()), [](const FlashTrace& t) {
          val steps = val::array();
          for (const FlashTraceStep& step : t.steps) steps.call<void>("push", step_js(step));
          return FlashTraceJs{t.n_q,          t.n_k,        t.d_k,    t.d_v,          t.block_q,       t.block_k,
                              t.query_blocks, t.key_blocks, t.causal, t.scale_factor, to_js(t.output), steps};
        });
      });
}

}  // namespace
}  // namespace abh::bindings

EMSCRIPTEN_BINDINGS(flash_attention) {
  using emscripten::value_object;
  using namespace abh::bindings;
  value_object<FlashResultJs>("FlashResult")
      .field("output", &FlashResultJs::output)
      .field("scratchFloats", &FlashResultJs::scratchFloats);
  value_object<FlashTraceStepJs>("FlashTraceStep")
      .field("queryBlock", &FlashTraceStepJs::queryBlock)
      .field("keyBlock", &FlashTraceStepJs::keyBlock)
      .field("queryStart", &FlashTraceStepJs::queryStart)
      .field("queryEnd", &FlashTraceStepJs::queryEnd)
      .field("keyStart", &FlashTraceStepJs::keyStart)
      .field("keyEnd", &FlashTraceStepJs::keyEnd)
      .field("skipped", &FlashTraceStepJs::skipped)
      .field("scores", &FlashTraceStepJs::scores)
      .field("probabilities", &FlashTraceStepJs::probabilities)
      .field("m", &FlashTraceStepJs::m)
      .field("l", &FlashTraceStepJs::l)
      .field("rescale", &FlashTraceStepJs::rescale)
      .field("acc", &FlashTraceStepJs::acc);
  value_object<FlashTraceJs>("FlashTrace")
      .field("nQ", &FlashTraceJs::nQ)
      .field("nK", &FlashTraceJs::nK)
      .field("dK", &FlashTraceJs::dK)
      .field("dV", &FlashTraceJs::dV)
      .field("blockQ", &FlashTraceJs::blockQ)
      .field("blockK", &FlashTraceJs::blockK)
      .field("queryBlocks", &FlashTraceJs::queryBlocks)
      .field("keyBlocks", &FlashTraceJs::keyBlocks)
      .field("causal", &FlashTraceJs::causal)
      .field("scaleFactor", &FlashTraceJs::scaleFactor)
      .field("output", &FlashTraceJs::output)
      .field("steps", &FlashTraceJs::steps);

  emscripten::function("flashAttention", &flash_attention_js);
  emscripten::function("flashMultiHead", &flash_multi_head_js);
  emscripten::function("flashTrace", &flash_trace_js);
}
