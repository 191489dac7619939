#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "simd_exp.h"  // exp_scalar, exp_simd, horizontal_sum and the ABH_SIMD switch

namespace abh::kernels {
namespace {

using detail::exp_scalar;
#if ABH_SIMD
using detail::exp_simd;
using detail::horizontal_sum;
#endif

}  // namespace

bool simd_enabled() { return ABH_SIMD == 1; }

float exp_approx(float x) { return exp_scalar(x); }

void matmul(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int m, int k, int n) {
  for (int row = 0; row < m; ++row) {
    const float* a_row = A + std::size_t(row) * lda;
    float* c_row = C + std::size_t(row) * ldc;
    int col = 0;
#if ABH_SIMD
    // 16 output columns live in four registers while the whole k loop runs.
    for (; col + 16 <= n; col += 16) {
      v128_t acc0 = wasm_f32x4_splat(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
      for (int p = 0; p < k; ++p) {
        const v128_t a = wasm_f32x4_splat(a_row[p]);
        const float* b = B + std::size_t(p) * ldb + col;
        acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(a, wasm_v128_load(b)));
        acc1 = wasm_f32x4_add(acc1, wasm_f32x4_mul(a, wasm_v128_load(b + 4)));
        acc2 = wasm_f32x4_add(acc2, wasm_f32x4_mul(a, wasm_v128_load(b + 8)));
        acc3 = wasm_f32x4_add(acc3, wasm_f32x4_mul(a, wasm_v128_load(b + 12)));
      }
      wasm_v128_store(c_row + col, acc0);
      wasm_v128_store(c_row + col + 4, acc1);
      wasm_v128_store(c_row + col + 8, acc2);
      wasm_v128_store(c_row + col + 12, acc3);
    }
    for (; col + 4 <= n; col += 4) {
      v128_t acc = wasm_f32x4_splat(0);
      for (int p = 0; p < k; ++p)
        acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_splat(a_row[p]),
                                                 wasm_v128_load(B + std::size_t(p) * ldb + col)));
      wasm_v128_store(c_row + col, acc);
    }
#endif
    for (; col < n; ++col) {
      float acc = 0.0f;
      for (int p = 0; p < k; ++p) acc += a_row[p] * B[std::size_t(p) * ldb + col];
      c_row[col] = acc;
    }
  }
}

void scores_qkt(const float* Q, int ldq, const float* K, int ldk, float* S, int n_q, int n_k, int d) {
  for (int i = 0; i < n_q; ++i) {
    const float* q = Q + std::size_t(i) * ldq;
    float* s_row = S + std::size_t(i) * n_k;
    int j = 0;
#if ABH_SIMD
    // Four keys at once: q is loaded once per chunk and reused against four key rows.
    for (; j + 4 <= n_k; j += 4) {
      const float* k0 = K + std::size_t(j) * ldk;
      const float* k1 = k0 + ldk;
      const float* k2 = k1 + ldk;
      const float* k3 = k2 + ldk;
      v128_t acc0 = wasm_f32x4_splat(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
      int t = 0;
      for (; t + 4 <= d; t += 4) {
        const v128_t qv = wasm_v128_load(q + t);
        acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(qv, wasm_v128_load(k0 + t)));
        acc1 = wasm_f32x4_add(acc1, wasm_f32x4_mul(qv, wasm_v128_load(k1 + t)));
        acc2 = wasm_f32x4_add(acc2, wasm_f32x4_mul(qv, wasm_v128_load(k2 + t)));
        acc3 = wasm_f32x4_add(acc3, wasm_f32x4_mul(qv, wasm_v128_load(k3 + t)));
      }
      float s0 = horizontal_sum(acc0), s1 = horizontal_sum(acc1);
      float s2 = horizontal_sum(acc2), s3 = horizontal_sum(acc3);
      for (; t < d; ++t) {
        s0 += q[t] * k0[t];
        s1 += q[t] * k1[t];
        s2 += q[t] * k2[t];
        s3 += q[t] * k3[t];
      }
      s_row[j] = s0;
      s_row[j + 1] = s1;
      s_row[j + 2] = s2;
      s_row[j + 3] = s3;
    }
#endif
    for (; j < n_k; ++j) {
      const float* k = K + std::size_t(j) * ldk;
      float acc = 0.0f;
      for (int t = 0; t < d; ++t) acc += q[t] * k[t];
      s_row[j] = acc;
    }
  }
}

void scale_mask_softmax(const float* S, float* W, const std::uint8_t* mask, int n_q, int n_k,
                        float scale, std::uint8_t* fully_masked) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < n_q; ++i) {
    const float* s_row = S + std::size_t(i) * n_k;
    float* w_row = W + std::size_t(i) * n_k;
    const std::uint8_t* m_row = mask ? mask + std::size_t(i) * n_k : nullptr;

    // Pass 1: scale, mask to -inf, track the row max.
    float row_max = kNegInf;
    for (int j = 0; j < n_k; ++j) {
      const float x = (m_row && !m_row[j]) ? kNegInf : s_row[j] * scale;
      w_row[j] = x;
      row_max = std::max(row_max, x);
    }
    if (row_max == kNegInf) {  // every key blocked: defined zeros instead of 0/0
      std::fill(w_row, w_row + n_k, 0.0f);
      if (fully_masked) fully_masked[i] = 1;
      continue;
    }
    if (fully_masked) fully_masked[i] = 0;

    // Pass 2: exp(x - max) and the row sum. Pass 3: normalise.
    float sum = 0.0f;
    int j = 0;
#if ABH_SIMD
    const v128_t max_v = wasm_f32x4_splat(row_max);
    v128_t sum_v = wasm_f32x4_splat(0);
    for (; j + 4 <= n_k; j += 4) {
      const v128_t e = exp_simd(wasm_f32x4_sub(wasm_v128_load(w_row + j), max_v));
      wasm_v128_store(w_row + j, e);
      sum_v = wasm_f32x4_add(sum_v, e);
    }
    sum = horizontal_sum(sum_v);
#endif
    for (; j < n_k; ++j) {
      w_row[j] = exp_scalar(w_row[j] - row_max);
      sum += w_row[j];
    }
    const float inv_sum = 1.0f / sum;
    j = 0;
#if ABH_SIMD
    const v128_t inv_v = wasm_f32x4_splat(inv_sum);
    for (; j + 4 <= n_k; j += 4) wasm_v128_store(w_row + j, wasm_f32x4_mul(wasm_v128_load(w_row + j), inv_v));
#endif
    for (; j < n_k; ++j) w_row[j] *= inv_sum;
  }
}

void weighted_sum(const float* W, const float* V, int ldv, float* O, int ldo, int n_q, int n_k, int d_v) {
  for (int i = 0; i < n_q; ++i) {
    const float* w_row = W + std::size_t(i) * n_k;
    float* o_row = O + std::size_t(i) * ldo;
    std::fill(o_row, o_row + d_v, 0.0f);
    for (int j = 0; j < n_k; ++j) {
      const float w = w_row[j];
      if (w == 0.0f) continue;
      const float* v_row = V + std::size_t(j) * ldv;
      int t = 0;
#if ABH_SIMD
      const v128_t w_v = wasm_f32x4_splat(w);
      for (; t + 4 <= d_v; t += 4)
        wasm_v128_store(o_row + t, wasm_f32x4_add(wasm_v128_load(o_row + t),
                                                  wasm_f32x4_mul(w_v, wasm_v128_load(v_row + t))));
#endif
      for (; t < d_v; ++t) o_row[t] += w * v_row[t];
    }
  }
}

int repair_overflowed_scores(const float* Q, int ldq, const float* K, int ldk, float* S, int n_q, int n_k, int d) {
  constexpr double kMax = std::numeric_limits<float>::max();
  int repaired = 0;
  for (int i = 0; i < n_q; ++i) {
    float* s_row = S + std::size_t(i) * n_k;
    for (int j = 0; j < n_k; ++j) {
      if (std::isfinite(s_row[j])) continue;
      const float* q = Q + std::size_t(i) * ldq;
      const float* k = K + std::size_t(j) * ldk;
      double dot = 0;
      for (int t = 0; t < d; ++t) dot += double(q[t]) * double(k[t]);
      s_row[j] = float(std::max(-kMax, std::min(kMax, dot)));
      ++repaired;
    }
  }
  return repaired;
}

}  // namespace abh::kernels
