#include "reference.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace abh::reference {

MatrixD softmax_rows(const MatrixD& x) {
  MatrixD out(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const double row_max = x.row(i).maxCoeff();
    if (row_max == -std::numeric_limits<double>::infinity()) {
      out.row(i).setZero();
      continue;
    }
    const auto e = (x.row(i).array() - row_max).exp();
    out.row(i) = e / e.sum();
  }
  return out;
}

std::pair<MatrixD, MatrixD> attention(const MatrixD& Q, const MatrixD& K, const MatrixD& V, const Mask* mask,
                                      bool scale) {
  MatrixD scores = Q * K.transpose();
  if (scale) scores /= std::sqrt(double(Q.cols()));
  if (mask)
    for (Eigen::Index i = 0; i < scores.rows(); ++i)
      for (Eigen::Index j = 0; j < scores.cols(); ++j)
        if (!(*mask)(i, j)) scores(i, j) = -std::numeric_limits<double>::infinity();
  MatrixD weights = softmax_rows(scores);
  return {weights * V, weights};
}

std::pair<MatrixD, std::vector<MatrixD>> multi_head_attention(const MatrixD& X, const MatrixD& W_q, const MatrixD& W_k,
                                                              const MatrixD& W_v, const MatrixD& W_o, int h,
                                                              bool causal, bool scale) {
  const Eigen::Index n = X.rows(), d_model = X.cols(), d_k = d_model / h;
  const MatrixD Q = X * W_q, K = X * W_k, V = X * W_v;
  const Mask mask = causal_mask(int(n));
  MatrixD merged(n, d_model);
  std::vector<MatrixD> weights;
  for (int head = 0; head < h; ++head) {
    auto [out, w] = attention(Q.middleCols(head * d_k, d_k), K.middleCols(head * d_k, d_k),
                              V.middleCols(head * d_k, d_k), causal ? &mask : nullptr, scale);
    merged.middleCols(head * d_k, d_k) = out;
    weights.push_back(std::move(w));
  }
  return {merged * W_o, weights};
}

Mask sparse_mask(int n, const SparsePattern& pattern) {
  Mask mask(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const bool allowed = !pattern.causal || j <= i;
      const bool in_window = pattern.causal ? i - j < pattern.window : std::abs(i - j) < pattern.window;
      const bool global = i < pattern.global || j < pattern.global;
      const bool strided = pattern.stride > 0 && (i - j) % pattern.stride == 0;
      mask(i, j) = allowed && (in_window || global || strided) ? 1 : 0;
    }
  return mask;
}

double elu_plus_one(double x) { return x > 0 ? x + 1 : std::exp(x); }

MatrixD linear_attention(const MatrixD& Q, const MatrixD& K, const MatrixD& V, bool causal) {
  const MatrixD phi_q = Q.unaryExpr([](double x) { return elu_plus_one(x); });
  const MatrixD phi_k = K.unaryExpr([](double x) { return elu_plus_one(x); });
  MatrixD out(Q.rows(), V.cols());
  for (Eigen::Index i = 0; i < Q.rows(); ++i) {
    const Eigen::Index keys = causal ? i + 1 : K.rows();
    const MatrixD summary = phi_k.topRows(keys).transpose() * V.topRows(keys);  // (d_k, d_v)
    const Eigen::VectorXd normaliser = phi_k.topRows(keys).colwise().sum().transpose();
    out.row(i) = phi_q.row(i) * summary / phi_q.row(i).dot(normaliser);
  }
  return out;
}

}  // namespace abh::reference
