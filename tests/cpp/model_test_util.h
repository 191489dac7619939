// A helper shared by the training core's suites (train_test.cpp, reader_model_test.cpp): the float
// model the page and the trainer run, checked against the double model whose gradient the finite
// differences vouched for. Test code only; apart from test_util.h because only these suites include
// the training core's headers.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "train/model.h"

namespace abh::test {

/** The float model's run on the double model's parameters, for checks that go on from it. */
struct FloatModelRun {
  std::vector<float> params, grads;
  train::Activations<float> acts;
  train::ActivationGrads<float> dacts;
};

/**
 * The float model on `params` (the double model's, whose mean loss is `loss` and gradient `grads` on
 * `batch`) computes the same loss and gradient to float rounding.
 */
inline FloatModelRun expect_float_model_agrees(const train::ModelConfig& m, const train::ParameterLayout& layout,
                                               const std::vector<double>& params, const std::vector<double>& grads,
                                               double loss, const train::Batch& batch, const std::string& what) {
  FloatModelRun f{std::vector<float>(params.begin(), params.end()), std::vector<float>(layout.count, 0.0f), {}, {}};
  EXPECT_NEAR(train::model_forward(m, layout, f.params.data(), batch, f.acts), loss, 1e-5 * std::max(1.0, loss))
      << what;
  train::model_backward(m, layout, f.params.data(), f.grads.data(), batch, f.acts, f.dacts);
  double worst = 0;
  for (std::size_t i = 0; i < grads.size(); ++i) worst = std::max(worst, std::abs(grads[i] - f.grads[i]));
  EXPECT_LT(worst, 1e-4) << what;
  return f;
}

}  // namespace abh::test
