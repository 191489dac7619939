#include "optimizer.h"

#include <cmath>

namespace abh::train {

float gradient_norm(const float* grads, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += double(grads[i]) * double(grads[i]);
  return float(std::sqrt(sum));
}

float clip_gradients(float* grads, std::size_t n, float max_norm) {
  const float norm = gradient_norm(grads, n);
  if (max_norm > 0.0f && norm > max_norm) {
    const float factor = max_norm / norm;
    for (std::size_t i = 0; i < n; ++i) grads[i] *= factor;
  }
  return norm;
}

Optimizer::Optimizer(const OptimizerConfig& config, std::size_t parameter_count)
    : config_(config),
      m_(parameter_count, 0.0f),
      v_(config.kind == OptimizerKind::kAdamW ? parameter_count : 0, 0.0f) {}

void Optimizer::step(float* params, const float* grads) {
  ++t_;
  const OptimizerConfig& c = config_;
  const std::size_t n = m_.size();
  if (c.kind == OptimizerKind::kAdamW) {
    beta1_power_ *= c.beta1;
    beta2_power_ *= c.beta2;
    const float correction1 = 1.0f - beta1_power_, correction2 = 1.0f - beta2_power_;
    for (std::size_t i = 0; i < n; ++i) {
      const float g = grads[i];
      m_[i] = c.beta1 * m_[i] + (1.0f - c.beta1) * g;
      v_[i] = c.beta2 * v_[i] + (1.0f - c.beta2) * g * g;
      const float m_hat = m_[i] / correction1, v_hat = v_[i] / correction2;
      params[i] -= c.learning_rate * (m_hat / (std::sqrt(v_hat) + c.eps) + c.weight_decay * params[i]);
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const float g = grads[i] + c.weight_decay * params[i];
      m_[i] = t_ == 1 ? g : c.momentum * m_[i] + g;
      params[i] -= c.learning_rate * m_[i];
    }
  }
}

}  // namespace abh::train
