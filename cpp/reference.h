// The article's NumPy, transcribed line by line into Eigen in double precision: the plain reference
// that every fast kernel is tested against. Slow on purpose; no SIMD, no fusion, no tricks.
#pragma once

#include "attention.h"
#include "long_context.h"

namespace abh::reference {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// softmax(x, axis=-1) with the row max subtracted; rows that are all -inf become zeros.
MatrixD softmax_rows(const MatrixD& x);

// attention(Q, K, V, mask) -> (output, weights); scale = false skips the / sqrt(d_k).
std::pair<MatrixD, MatrixD> attention(const MatrixD& Q, const MatrixD& K, const MatrixD& V, const Mask* mask,
                                      bool scale = true);

// multi_head_attention(X, W_q, W_k, W_v, W_o, h) -> (output, weights as h stacked (n, n) blocks).
std::pair<MatrixD, std::vector<MatrixD>> multi_head_attention(const MatrixD& X, const MatrixD& W_q, const MatrixD& W_k,
                                                              const MatrixD& W_v, const MatrixD& W_o, int h,
                                                              bool causal, bool scale = true);

// The sparse pattern's mask written from its definition, cell by cell: (i, j) is attended when j is
// allowed at all (causal: j <= i) and j is in i's window, or i or j is a global token, or i - j is
// a multiple of the stride.
Mask sparse_mask(int n, const SparsePattern& pattern);

// phi(x) = elu(x) + 1, and linear attention as its formula reads, without rescaling:
// out_i = phi(q_i)^T (sum_j phi(k_j) v_j^T) / (phi(q_i) . sum_j phi(k_j)), j over all keys (causal: j <= i).
double elu_plus_one(double x);
MatrixD linear_attention(const MatrixD& Q, const MatrixD& K, const MatrixD& V, bool causal);

}  // namespace abh::reference
