// What every binding file of cpp/bindings/ shares, and nothing else: copying typed arrays into and
// out of wasm memory, and the error convention of the wasm boundary. Only cpp/bindings/ includes
// Emscripten's headers; the math in cpp/ knows nothing of them.
//
// Boundary shapes (mirrored by web/src/engine/types.ts; the pipeline has its own, see attention.cpp):
//   JsMatrix  = { rows, cols, data: Float32Array }            row-major
//   JsTensor3 = { heads, rows, cols, data: Float32Array }     row-major, heads outermost
//   failures  = { error: string }  (the JS wrapper throws it as an EngineError)
// Inputs are copied into wasm memory once; outputs are copied out into fresh typed arrays before
// returning, so no JS object ever holds a view into memory that a later call could grow.
// Results are embind value_objects (registered next to the functions that return them): their
// fields are declared once, in the EMSCRIPTEN_BINDINGS block, instead of set one by one.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attention.h"
#include "tensor.h"

namespace abh::bindings {

using emscripten::val;

// ---- engine -> JS ----------------------------------------------------------------------------

// A fresh Float32Array filled by set(): V8 copies a view of wasm memory into a new typed array
// element by element when it is the constructor's (or slice()'s) source, ~3x slower than
// allocating and then set() (measured 0.45 ms against 0.13 ms for 128 KiB, most of a 512-token call).
inline val copy_floats(const float* data, std::size_t size) {
  val out = val::global("Float32Array").new_(size);
  out.call<void>("set", emscripten::typed_memory_view(size, data));
  return out;
}
inline val copy_floats(const std::vector<float>& values) { return copy_floats(values.data(), values.size()); }

inline val copy_bytes(const std::uint8_t* data, std::size_t size) {
  val out = val::global("Uint8Array").new_(size);
  out.call<void>("set", emscripten::typed_memory_view(size, data));
  return out;
}
inline val copy_bytes(const std::vector<std::uint8_t>& bytes) { return copy_bytes(bytes.data(), bytes.size()); }

// JsMatrix and JsTensor3, as value_objects ("Matrix", "Tensor3": registered in shared.cpp, which both modules link).
struct JsMatrix {
  int rows = 0, cols = 0;
  val data = val::undefined();
};
struct JsTensor3 {
  int heads = 0, rows = 0, cols = 0;
  val data = val::undefined();
};

inline JsMatrix to_js(const Matrix& m) {
  return {int(m.rows()), int(m.cols()), copy_floats(m.data(), std::size_t(m.size()))};
}
inline JsTensor3 to_js(const Tensor3& t) { return {t.heads, t.rows, t.cols, copy_floats(t.data)}; }

// A JS array of each item converted by embind (numbers, strings, value_objects).
template <class T>
val to_js_array(const std::vector<T>& items) {
  val out = val::array();
  for (const T& item : items) out.call<void>("push", item);
  return out;
}

// ---- the error convention --------------------------------------------------------------------

inline val failure(const std::string& message) {
  val out = val::object();
  out.set("error", message);
  return out;
}

// The JS value of a result: `convert(value)` (a value_object or a val), or { error } when it failed.
template <class T, class Convert>
val js_result(const Expected<T>& result, Convert convert) {
  if (!result.ok()) return failure(result.error());
  return val(convert(result.value()));
}

// ---- JS -> engine ----------------------------------------------------------------------------
// The TypeScript wrapper has checked the JavaScript types (a matrix is an object whose data is a
// Float32Array, a mask a Uint8Array, flags are booleans, options objects) and passes NaN for a
// number that is not one. Everything else is checked here or by the engine, with the engine's rules
// (attention.h, flash.h, pipeline.h), before any input is copied into wasm memory.

inline double number_or_nan(const val& v) { return v.isNumber() ? v.as<double>() : std::nan(""); }

inline Status check_whole(const val& v, const char* name, double lo, double hi) {
  return check_whole_number(name, number_or_nan(v), lo, hi);
}

inline bool read_flag(const val& options, const char* key, bool fallback) {
  const val v = options[key];
  return v.isUndefined() ? fallback : v.as<bool>();
}

struct Shape {
  int rows = 0, cols = 0;
};

// The inputs of one call, { rows, cols, data } each: every shape first, then `check` (the call's
// shape rules, on the shapes alone), then the copies, each with one set() straight into the matrix.
// So a request over a limit is refused before any of it is in wasm memory. Finiteness is the
// kernels' check (check_finite), made on the copies.
template <std::size_t N, class Check>
Expected<std::array<Matrix, N>> read_matrices(const std::array<std::pair<const char*, const val*>, N>& inputs,
                                              Check check) {
  std::array<Shape, N> shapes;
  for (std::size_t i = 0; i < N; ++i) {
    const char* const name = inputs[i].first;
    const val& js = *inputs[i].second;
    if (!check_whole(js["rows"], name, 0, 1 << 30).ok() || !check_whole(js["cols"], name, 0, 1 << 30).ok())
      return Failure{std::string(name) + " must be { rows, cols, data } with whole-number rows and cols"};
    shapes[i] = {js["rows"].as<int>(), js["cols"].as<int>()};
    const std::int64_t expected = std::int64_t(shapes[i].rows) * shapes[i].cols;
    const double length = js["data"]["length"].as<double>();
    if (length != double(expected))
      return Failure{std::string(name) + ".data has " + std::to_string(std::int64_t(length)) +
                     " values, expected rows x cols = " + std::to_string(expected)};
    if (expected > (std::int64_t(1) << 26)) return Failure{std::string(name) + " is larger than the engine accepts"};
  }
  if (Status valid = check(shapes); !valid.ok()) return Failure{valid.error()};
  std::array<Matrix, N> out;
  for (std::size_t i = 0; i < N; ++i) {
    out[i].resize(shapes[i].rows, shapes[i].cols);
    if (const std::size_t size = std::size_t(out[i].size()))
      val(emscripten::typed_memory_view(size, out[i].data())).call<void>("set", (*inputs[i].second)["data"]);
  }
  return out;
}

// The bytes of a weights file from JS (`what` names it in the messages: "the <what> must be a
// Uint8Array"), refused before the copy when it is longer than max_bytes.
inline Expected<std::vector<std::uint8_t>> read_file_bytes(const val& bytes, const std::string& what,
                                                           std::size_t max_bytes) {
  if (bytes.typeOf().as<std::string>() != "object" || bytes.isNull() || !bytes["length"].isNumber())
    return Failure{"the " + what + " must be a Uint8Array"};
  const double length = bytes["length"].as<double>();
  if (length > double(max_bytes))
    return Failure{"the " + what + " file is too large (" + std::to_string(std::int64_t(length)) + " bytes)"};
  return emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
}

// An attention entry point's walk over Q, K and V: read them, `check` (the call's shape rules, on
// their shapes, as read_matrices), then `run(Q, K, V)` to the JS value; a refusal comes back as { error }.
template <class Check, class Run>
val on_qkv(const val& Q_js, const val& K_js, const val& V_js, Check check, Run run) {
  auto qkv = read_matrices<3>({{{"Q", &Q_js}, {"K", &K_js}, {"V", &V_js}}},
                              [&](const std::array<Shape, 3>& s) { return check(s[0], s[1], s[2]); });
  if (!qkv.ok()) return failure(qkv.error());
  const auto& [Q, K, V] = qkv.value();
  return run(Q, K, V);
}

}  // namespace abh::bindings
