// The optimisers, over the flat parameter and gradient buffers: AdamW (decoupled weight decay, as
// in PyTorch's torch.optim.AdamW) and SGD with momentum (PyTorch's form: the weight decay is added
// to the gradient). Global gradient-norm clipping runs before either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace abh::train {

enum class OptimizerKind : std::uint32_t { kAdamW = 0, kSgd = 1 };

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kAdamW;
  float learning_rate = 3e-3f;
  float weight_decay = 0.0f;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;  // AdamW
  float momentum = 0.9f;                            // SGD
  float clip = 1.0f;                                // max global gradient norm; 0 = no clipping
};

// sqrt(sum of squares), summed in double in index order (deterministic everywhere).
float gradient_norm(const float* grads, std::size_t n);
// Scales grads so their norm is at most max_norm (no-op for max_norm <= 0); returns the norm before.
float clip_gradients(float* grads, std::size_t n, float max_norm);

class Optimizer {
 public:
  Optimizer() = default;
  Optimizer(const OptimizerConfig& config, std::size_t parameter_count);
  // One update of params with grads (already clipped). t counts from 1.
  void step(float* params, const float* grads);
  int steps() const { return t_; }
  void set_learning_rate(float learning_rate) { config_.learning_rate = learning_rate; }  // a schedule's
  const OptimizerConfig& config() const { return config_; }

 private:
  OptimizerConfig config_;
  std::vector<float> m_, v_;  // AdamW moments; SGD uses m_ as its momentum buffer
  int t_ = 0;
  float beta1_power_ = 1.0f, beta2_power_ = 1.0f;  // beta^t by repeated product: no pow()
};

}  // namespace abh::train
