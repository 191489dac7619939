// Helpers shared by the GoogleTest suites in tests/cpp/: random inputs from the engine's own seeded
// generator, the suites' tolerance measures, the double-precision product the kernels are checked
// against, probabilities in the article's whole percent, a tiled-kernel case's name, a substring check
// and a refusal's message, and the central finite-difference check that every backward pass of the
// training core is held to. Test code only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "flash.h"
#include "random.h"
#include "reference.h"
#include "tensor.h"

// gtest only (no gmock in the link): a substring check that prints the whole message on failure.
#define EXPECT_CONTAINS(haystack, needle)                                   \
  do {                                                                      \
    const std::string abh_haystack = (haystack);                            \
    EXPECT_NE(abh_haystack.find(needle), std::string::npos)                 \
        << "expected \"" << (needle) << "\" in \"" << abh_haystack << "\""; \
  } while (0)

namespace abh::test {

// A result's error message, or "(ok)" when it succeeded: what EXPECT_CONTAINS reads a refusal from.
template <class T>
std::string error_of(const Expected<T>& r) {
  return r.ok() ? std::string("(ok)") : r.error();
}

// (rows, cols) unit normals times scale, plus shift.
inline Matrix random_matrix(SplitMix64& rng, int rows, int cols, float scale = 1.0f, float shift = 0.0f) {
  Matrix m(rows, cols);
  for (int i = 0; i < m.size(); ++i) m.data()[i] = rng.normal() * scale + shift;
  return m;
}

// rows x cols unit normals in a buffer with row stride ld; the padding is NaN, so a kernel that reads
// outside the logical (rows, cols) block poisons its result and fails the comparison.
inline std::vector<float> random_strided(SplitMix64& rng, int rows, int cols, int ld) {
  std::vector<float> buffer(std::size_t(rows) * ld, std::numeric_limits<float>::quiet_NaN());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) buffer[std::size_t(r) * ld + c] = rng.normal();
  return buffer;
}

// Probabilities in whole percent, as the article prints them: [0.09 0.24 0.67] is {9, 24, 67}.
inline std::vector<long> in_percent(const std::vector<float>& p) {
  std::vector<long> out;
  for (float x : p) out.push_back(std::lround(x * 100));
  return out;
}

// A case of the tiled kernel (flash_test.cpp, flash_trace_test.cpp), as its failures name it.
inline std::string describe(int n_q, int n_k, int d_k, int d_v, const FlashOptions& o) {
  return "n_q=" + std::to_string(n_q) + " n_k=" + std::to_string(n_k) + " d_k=" + std::to_string(d_k) +
         " d_v=" + std::to_string(d_v) + " block_q=" + std::to_string(o.block_q) +
         " block_k=" + std::to_string(o.block_k) + " causal=" + std::to_string(o.causal) +
         " scale=" + std::to_string(o.scale);
}

// The sanitized build (`npm run test:sanitize`, compiled with ABH_SANITIZED_TESTS) is there to run every
// code path over checked memory, and each case costs it 5-10 times what it costs natively: where a test
// repeats a path many times, it repeats it fewer times there. The native build (`npm run test:native`)
// runs every test at full size.
#ifdef ABH_SANITIZED_TESTS
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// How many of a random sweep's cases run: all natively, a tenth (the first ones of the same seed) in the
// sanitized build.
constexpr int random_cases(int full) { return kSanitizedBuild ? std::max(1, full / 10) : full; }

// lo to hi, both included.
inline int uniform_int(SplitMix64& rng, int lo, int hi) { return lo + int(rng.next() % std::uint64_t(hi - lo + 1)); }

// The (m, n) product of A (m, depth) and B (depth, n) in double, row-major: the plain loop the kernels
// are checked against. A's rows have stride lda; B's rows stride ldb, or, with b_transposed, B is
// stored as its transpose (K in Q K^T): B(p, c) = B[c * ldb + p].
inline std::vector<double> product_in_double(const std::vector<float>& A, int lda, const std::vector<float>& B, int ldb,
                                             int m, int depth, int n, bool b_transposed = false) {
  std::vector<double> out(std::size_t(m) * n, 0.0);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c)
      for (int p = 0; p < depth; ++p)
        out[std::size_t(r) * n + c] +=
            double(A[std::size_t(r) * lda + p]) * B[b_transposed ? std::size_t(c) * ldb + p : std::size_t(p) * ldb + c];
  return out;
}

// max |got - want| / max |want|: the suite's one tolerance measure. A shape mismatch or a non-finite
// value is infinitely wrong; against an all-zero reference (a fully masked row) the difference itself
// is the error, so both must be exactly zero.
inline double relative_error(const Matrix& got, const reference::MatrixD& want) {
  EXPECT_EQ(got.rows(), want.rows());
  EXPECT_EQ(got.cols(), want.cols());
  if (got.rows() != want.rows() || got.cols() != want.cols() || !got.allFinite())
    return std::numeric_limits<double>::infinity();
  const double max_ref = want.cwiseAbs().maxCoeff();
  const double max_diff = (got.cast<double>() - want).cwiseAbs().maxCoeff();
  return max_ref == 0.0 ? max_diff : max_diff / max_ref;
}

// The same over the (rows, cols) block of a buffer with row stride ld, against a row-major reference.
inline double relative_error(const float* got, int ld, const std::vector<double>& want, int rows, int cols) {
  double max_diff = 0.0, max_ref = 0.0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const double g = got[std::size_t(r) * ld + c], w = want[std::size_t(r) * cols + c];
      if (std::isnan(g)) return std::numeric_limits<double>::infinity();
      max_diff = std::max(max_diff, std::abs(g - w));
      max_ref = std::max(max_ref, std::abs(w));
    }
  return max_diff / std::max(max_ref, 1e-300);
}

// ---- the training tests: double vectors and gradients ----

inline std::vector<double> random_vector(abh::SplitMix64& rng, std::size_t n, double scale = 1.0) {
  std::vector<double> v(n);
  for (double& x : v) x = double(rng.normal()) * scale;
  return v;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Checks d(loss)/d(x) for every entry of x by central differences. loss() reads x.
inline void expect_gradient(const char* what, std::vector<double>& x, const std::vector<double>& analytic,
                            const std::function<double()>& loss, double h = 1e-6, double tolerance = 1e-6) {
  ASSERT_EQ(x.size(), analytic.size()) << what;
  double worst = 0;
  std::size_t worst_at = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double saved = x[i];
    x[i] = saved + h;
    const double up = loss();
    x[i] = saved - h;
    const double down = loss();
    x[i] = saved;
    const double numeric = (up - down) / (2 * h);
    const double error = std::abs(numeric - analytic[i]) / std::max(1.0, std::abs(numeric) + std::abs(analytic[i]));
    if (error > worst) worst = error, worst_at = i;
  }
  EXPECT_LT(worst, tolerance) << what << ": worst relative gradient error at entry " << worst_at << " of " << x.size();
}

}  // namespace abh::test
