// Shapes shared by the whole engine. Everything is row-major float32, like the page's Float32Arrays.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace abh {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
// 1 = query row may attend to key column, 0 = blocked (its score becomes -inf before softmax).
using Mask = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A stack of equally shaped matrices, e.g. per-head weights (h, n, n). Row-major, heads outermost.
struct Tensor3 {
  int heads = 0, rows = 0, cols = 0;
  std::vector<float> data;

  Tensor3() = default;
  Tensor3(int h, int r, int c) : heads(h), rows(r), cols(c), data(std::size_t(h) * r * c, 0.0f) {}
  float* head(int h) { return data.data() + std::size_t(h) * rows * cols; }
  const float* head(int h) const { return data.data() + std::size_t(h) * rows * cols; }
  float at(int h, int r, int c) const { return head(h)[std::size_t(r) * cols + c]; }
};

// The engine never throws or aborts on bad input (the wasm build has no exceptions): every public
// entry point returns an Expected, either a value or the message that the page shows to the reader.
// A check with nothing to return is a Status; any Expected can be built from a Failure, so a failed
// check passes on as `return Failure{status.error()};`.
struct Failure {
  std::string message;
};

template <class T>
class Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}                    // NOLINT(google-explicit-constructor)
  Expected(Failure failure) : error_(std::move(failure.message)) {}  // NOLINT(google-explicit-constructor)
  static Expected failure(std::string message) { return Failure{std::move(message)}; }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const T& value() const { return value_; }
  T& value() { return value_; }

 private:
  T value_{};
  std::string error_;
};

// The value of a check that passed.
struct Ok {};
using Status = Expected<Ok>;

}  // namespace abh
