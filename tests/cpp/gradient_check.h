// Shared by the training tests: random double vectors and the central finite-difference check that
// every backward pass is held to.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "random.h"

namespace abh::test {

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
