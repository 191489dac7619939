// The training core's layers, each as a forward/backward pair side by side (after karpathy/llm.c
// train_gpt2.c). Templated on the scalar: the model trains in float; the tests run the same code in
// double and compare every backward pass with central finite differences.
//
// Length (~510 lines): every layer's forward and backward stay side by side in one header, and as
// templates they must be visible to the float model and to the double-precision gradient tests alike.
//
// Conventions: B = batch, T = positions, C = d_model, NH = heads, HS = C / NH (the walkthrough's d_k),
// V = vocabulary, OC/IC = a matmul's output/input channels. Every buffer is row-major with its axes
// named in the comment at its entry. Backward passes ACCUMULATE (+=) into gradient buffers, so the
// caller zeroes them once per step.
//
// Determinism: the same bits in the native, SIMD-wasm and scalar-wasm builds. Every sum runs in one
// fixed order (no reassociation, -ffp-contract=off), exp is the engine's own polynomial (simd_exp.h)
// and log is written below, so no libm result whose last bits depend on the C library is used.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "../simd_exp.h"

namespace abh::train {

// ---- elementary functions ----------------------------------------------------------------------

inline float exp_of(float x) { return kernels::detail::exp_scalar(x); }
inline double exp_of(double x) { return std::exp(x); }  // the double reference only (tests)

// log(x) for x > 0 by x = m 2^e, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1),
// |s| <= 0.172: the odd series to s^11 is below float rounding. Bit manipulation and + * / only.
inline float log_of(float x) {
  if (!(x > 0.0f)) return x == 0.0f ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  if (x == std::numeric_limits<float>::infinity()) return x;
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  int e = int((bits >> 23) & 0xff);
  if (e == 0) {       // denormal: scale into the normal range first
    x *= 8388608.0f;  // 2^23
    std::memcpy(&bits, &x, sizeof bits);
    e = int((bits >> 23) & 0xff) - 23;
  }
  e -= 127;
  bits = (bits & 0x007fffffu) | 0x3f800000u;  // m in [1, 2)
  float m;
  std::memcpy(&m, &bits, sizeof m);
  if (m > 1.41421356f) {
    m *= 0.5f;
    ++e;
  }
  const float s = (m - 1.0f) / (m + 1.0f), s2 = s * s;
  float p = 1.0f / 11;
  p = p * s2 + 1.0f / 9;
  p = p * s2 + 1.0f / 7;
  p = p * s2 + 1.0f / 5;
  p = p * s2 + 1.0f / 3;
  p = p * s2 + 1.0f;
  return float(e) * 0.693147181f + 2.0f * s * p;
}
inline double log_of(double x) { return std::log(x); }

// ---- the one matmul kernel ---------------------------------------------------------------------
//
// out (N, M) += A (N, K) . B (K, M). A is read through strides (A[n, k] = A[n * a_row + k * a_col]),
// so A^T costs no copy; B and out are row-major with leading dimensions ldb and ldo.
// Each out[n, m] is out[n, m] + A[n,0] B[0,m] + A[n,1] B[1,m] + ... added in k order: the SIMD path
// runs four (or sixteen) output columns at once but keeps exactly that order per element, so both
// paths give the same bits.

// W output columns from m of one row o += a . B, held in W local accumulators across the whole k
// loop: their additions are independent (no latency chain; the compiler may keep them in vector
// registers), while each element still sees its products in k order.
template <int W, class T>
inline void matmul_columns(T* o, const T* a, int a_col, const T* B, int ldb, int K, int m) {
  T acc[W];
  for (int j = 0; j < W; ++j) acc[j] = o[m + j];
  for (int k = 0; k < K; ++k) {
    const T x = a[std::size_t(k) * a_col];
    const T* b = B + std::size_t(k) * ldb + m;
    for (int j = 0; j < W; ++j) acc[j] += x * b[j];
  }
  for (int j = 0; j < W; ++j) o[m + j] = acc[j];
}

template <class T>
void matmul_accumulate(T* out, int ldo, const T* A, int a_row, int a_col, const T* B, int ldb, int N, int K, int M) {
  // Blocks of 16, then 4, then single output columns.
  for (int n = 0; n < N; ++n) {
    T* o = out + std::size_t(n) * ldo;
    const T* a = A + std::size_t(n) * a_row;
    int m = 0;
    for (; m + 16 <= M; m += 16) matmul_columns<16>(o, a, a_col, B, ldb, K, m);
    for (; m + 4 <= M; m += 4) matmul_columns<4>(o, a, a_col, B, ldb, K, m);
    for (; m < M; ++m) matmul_columns<1>(o, a, a_col, B, ldb, K, m);
  }
}

#if ABH_SIMD
// Two rows of out at a time (each B vector loaded once feeds both) and sixteen columns (eight
// accumulators hide the adder's latency); A's entries arrive by load32_splat, one instruction even
// when A is read transposed.
template <>
inline void matmul_accumulate<float>(float* out, int ldo, const float* A, int a_row, int a_col, const float* B, int ldb,
                                     int N, int K, int M) {
  const std::size_t ka = std::size_t(a_col), kb = std::size_t(ldb);
  int n = 0;
  for (; n + 2 <= N; n += 2) {
    float* o0 = out + std::size_t(n) * ldo;
    float* o1 = o0 + ldo;
    const float* a0 = A + std::size_t(n) * a_row;
    const float* a1 = a0 + a_row;
    int m = 0;
    for (; m + 16 <= M; m += 16) {
      v128_t c00 = wasm_v128_load(o0 + m), c01 = wasm_v128_load(o0 + m + 4), c02 = wasm_v128_load(o0 + m + 8),
             c03 = wasm_v128_load(o0 + m + 12);
      v128_t c10 = wasm_v128_load(o1 + m), c11 = wasm_v128_load(o1 + m + 4), c12 = wasm_v128_load(o1 + m + 8),
             c13 = wasm_v128_load(o1 + m + 12);
      for (int k = 0; k < K; ++k) {
        const v128_t x0 = wasm_v128_load32_splat(a0 + k * ka), x1 = wasm_v128_load32_splat(a1 + k * ka);
        const float* b = B + k * kb + m;
        const v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4), b2 = wasm_v128_load(b + 8),
                     b3 = wasm_v128_load(b + 12);
        c00 = wasm_f32x4_add(c00, wasm_f32x4_mul(x0, b0));
        c01 = wasm_f32x4_add(c01, wasm_f32x4_mul(x0, b1));
        c02 = wasm_f32x4_add(c02, wasm_f32x4_mul(x0, b2));
        c03 = wasm_f32x4_add(c03, wasm_f32x4_mul(x0, b3));
        c10 = wasm_f32x4_add(c10, wasm_f32x4_mul(x1, b0));
        c11 = wasm_f32x4_add(c11, wasm_f32x4_mul(x1, b1));
        c12 = wasm_f32x4_add(c12, wasm_f32x4_mul(x1, b2));
        c13 = wasm_f32x4_add(c13, wasm_f32x4_mul(x1, b3));
      }
      wasm_v128_store(o0 + m, c00), wasm_v128_store(o0 + m + 4, c01), wasm_v128_store(o0 + m + 8, c02),
          wasm_v128_store(o0 + m + 12, c03);
      wasm_v128_store(o1 + m, c10), wasm_v128_store(o1 + m + 4, c11), wasm_v128_store(o1 + m + 8, c12),
          wasm_v128_store(o1 + m + 12, c13);
    }
    for (; m + 4 <= M; m += 4) {
      v128_t c0 = wasm_v128_load(o0 + m), c1 = wasm_v128_load(o1 + m);
      for (int k = 0; k < K; ++k) {
        const v128_t b = wasm_v128_load(B + k * kb + m);
        c0 = wasm_f32x4_add(c0, wasm_f32x4_mul(wasm_v128_load32_splat(a0 + k * ka), b));
        c1 = wasm_f32x4_add(c1, wasm_f32x4_mul(wasm_v128_load32_splat(a1 + k * ka), b));
      }
      wasm_v128_store(o0 + m, c0);
      wasm_v128_store(o1 + m, c1);
    }
    for (; m < M; ++m) {
      float s0 = o0[m], s1 = o1[m];
      for (int k = 0; k < K; ++k) {
        s0 += a0[k * ka] * B[k * kb + m];
        s1 += a1[k * ka] * B[k * kb + m];
      }
      o0[m] = s0;
      o1[m] = s1;
    }
  }
  for (; n < N; ++n) {  // the last row of an odd N
    float* o = out + std::size_t(n) * ldo;
    const float* a = A + std::size_t(n) * a_row;
    int m = 0;
    for (; m + 4 <= M; m += 4) {
      v128_t c = wasm_v128_load(o + m);
      for (int k = 0; k < K; ++k)
        c = wasm_f32x4_add(c, wasm_f32x4_mul(wasm_v128_load32_splat(a + k * ka), wasm_v128_load(B + k * kb + m)));
      wasm_v128_store(o + m, c);
    }
    for (; m < M; ++m) {
      float acc = o[m];
      for (int k = 0; k < K; ++k) acc += a[k * ka] * B[k * kb + m];
      o[m] = acc;
    }
  }
}
#endif

// dst (cols, rows) = src (rows, cols)^T, src with leading dimension ld.
template <class T>
void transpose(T* dst, const T* src, int rows, int cols, int ld) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) dst[std::size_t(c) * rows + r] = src[std::size_t(r) * ld + c];
}

// ---- 1. embeddings ----------------------------------------------------------------------------

// out is (B,T,C), tokens is (B,T), wte is (V,C), wpe is (maxT,C): out[b,t] = wte[token] + wpe[t].
template <class T>
void encoder_forward(T* out, const int* tokens, const T* wte, const T* wpe, int B, int Tn, int C) {
  for (int bt = 0; bt < B * Tn; ++bt) {
    const T* w = wte + std::size_t(tokens[bt]) * C;
    const T* p = wpe + std::size_t(bt % Tn) * C;
    T* o = out + std::size_t(bt) * C;
    for (int c = 0; c < C; ++c) o[c] = w[c] + p[c];
  }
}
template <class T>
void encoder_backward(T* dwte, T* dwpe, const T* dout, const int* tokens, int B, int Tn, int C) {
  for (int bt = 0; bt < B * Tn; ++bt) {
    T* dw = dwte + std::size_t(tokens[bt]) * C;
    T* dp = dwpe + std::size_t(bt % Tn) * C;
    const T* d = dout + std::size_t(bt) * C;
    for (int c = 0; c < C; ++c) {
      dw[c] += d[c];
      dp[c] += d[c];
    }
  }
}

// ---- 2. layer norm ----------------------------------------------------------------------------

constexpr float kLayerNormEps = 1e-5f;

// out is (N,C), mean and rstd are (N) (kept for backward), inp is (N,C), weight and bias are (C).
template <class T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* inp, const T* weight, const T* bias, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const T* x = inp + std::size_t(n) * C;
    T m = 0;
    for (int c = 0; c < C; ++c) m += x[c];
    m = m / T(C);
    T v = 0;
    for (int c = 0; c < C; ++c) v += (x[c] - m) * (x[c] - m);
    v = v / T(C);
    const T s = T(1) / std::sqrt(v + T(kLayerNormEps));  // sqrt is correctly rounded everywhere
    T* o = out + std::size_t(n) * C;
    for (int c = 0; c < C; ++c) o[c] = (s * (x[c] - m)) * weight[c] + bias[c];
    mean[n] = m;
    rstd[n] = s;
  }
}
template <class T>
void layernorm_backward(T* dinp, T* dweight, T* dbias, const T* dout, const T* inp, const T* weight, const T* mean,
                        const T* rstd, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const T* x = inp + std::size_t(n) * C;
    const T* d = dout + std::size_t(n) * C;
    T* dx = dinp + std::size_t(n) * C;
    const T m = mean[n], s = rstd[n];
    // dnorm = dout * weight; dx = s * (dnorm - mean(dnorm) - norm * mean(dnorm * norm))
    T dnorm_mean = 0, dnorm_norm_mean = 0;
    for (int c = 0; c < C; ++c) {
      const T norm = (x[c] - m) * s, dnorm = weight[c] * d[c];
      dnorm_mean += dnorm;
      dnorm_norm_mean += dnorm * norm;
    }
    dnorm_mean = dnorm_mean / T(C);
    dnorm_norm_mean = dnorm_norm_mean / T(C);
    for (int c = 0; c < C; ++c) {
      const T norm = (x[c] - m) * s, dnorm = weight[c] * d[c];
      dbias[c] += d[c];
      dweight[c] += norm * d[c];
      dx[c] += ((dnorm - dnorm_mean) - norm * dnorm_norm_mean) * s;
    }
  }
}

// ---- 3. matmul (projections, MLP, unembedding) ---------------------------------------------------

// out is (N,OC) = inp (N,IC) . w (IC,OC) + bias (OC, or null). w is (in, out) so that Q = X W_q
// reads exactly as in the walkthrough.
template <class T>
void matmul_forward(T* out, const T* inp, const T* w, const T* bias, int N, int IC, int OC) {
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < OC; ++o) out[std::size_t(n) * OC + o] = bias ? bias[o] : T(0);
  matmul_accumulate(out, OC, inp, IC, 1, w, OC, N, IC, OC);
}
// dinp (N,IC) += dout (N,OC) . w^T; dw (IC,OC) += inp^T . dout; dbias (OC) += sum over N of dout.
// w_transposed is (OC,IC) scratch, so that the first product also runs along contiguous rows.
template <class T>
void matmul_backward(T* dinp, T* dw, T* dbias, const T* dout, const T* inp, const T* w, T* w_transposed, int N, int IC,
                     int OC) {
  if (dinp) {
    transpose(w_transposed, w, IC, OC, OC);
    matmul_accumulate(dinp, IC, dout, OC, 1, w_transposed, IC, N, OC, IC);
  }
  matmul_accumulate(dw, OC, inp, 1, IC, dout, OC, IC, N, OC);
  if (dbias)
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < OC; ++o) dbias[o] += dout[std::size_t(n) * OC + o];
}

// ---- 4. multi-head self-attention (no biases: Q = X W_q exactly as on the page) -----------------

struct AttentionShape {
  int B = 0, T = 0, C = 0, NH = 0;
  bool causal = false;
  bool scale = true;
  // Which positions are queries. Null: all of them (q, out and dq are (B,T,C), att is (B,NH,T,T)).
  // Otherwise sequence b's queries are rows query_start[b] .. query_start[b+1]-1 of q, out and dq
  // (Q,C), at positions query_pos[row], and att is (Q*NH,T) ordered (b, h, query): training's last
  // layer, whose outputs are needed only where the loss is. Each kept row gets the same bits.
  const int* query_start = nullptr;  // (B+1)
  const int* query_pos = nullptr;    // (Q)
  // Inference only (attention_backward ignores it): (T, T), 0 where query position t may not use key j
  // (a window or sparse pattern, issue 40), on top of the causal mask and the padding. Null: every key.
  // Each row must allow at least its own position.
  const std::uint8_t* allowed = nullptr;
  int HS() const { return C / NH; }
  int first_query(int b) const { return query_start ? query_start[b] : b * T; }
  int queries(int b) const { return query_start ? query_start[b + 1] - query_start[b] : T; }
  int position(int row, int b) const { return query_pos ? query_pos[row] : row - b * T; }
};

// Visits each (sequence b, head h) block, in the order forward and backward both walk: row0 is b's first
// row of k and v (B,T,C), qrow0 its first query row, col head h's first column, first and nq b's query
// rows from first on.
struct AttentionBlock {
  int b, h, first, nq;
  std::size_t row0, qrow0, col;
};
template <class Visit>
void for_each_attention_block(const AttentionShape& s, Visit&& visit) {
  const int Tn = s.T, C = s.C, HS = s.HS();
  for (int b = 0; b < s.B; ++b) {
    const int first = s.first_query(b);
    for (int h = 0; h < s.NH; ++h)
      visit(AttentionBlock{b, h, first, s.queries(b), std::size_t(b) * Tn * C, std::size_t(first) * C,
                           std::size_t(h) * HS});
  }
}

// out holds the query rows: head h writes columns h*HS .. (h+1)*HS-1, like cpp/pipeline.cpp's split_heads.
// att (per sequence and head, (queries, T)): softmax(mask(scale * q_h k_h^T)), kept for backward. k, v
// are (B,T,C). lengths is (B): key positions >= lengths[b] are padding and masked. scratch holds HS*T.
template <class T>
void attention_forward(T* out, T* att, const T* q, const T* k, const T* v, const int* lengths, const AttentionShape& s,
                       T* scratch) {
  const int Tn = s.T, C = s.C, HS = s.HS();
  const T scale = s.scale ? T(1) / std::sqrt(T(HS)) : T(1);
  for_each_attention_block(s, [&](const AttentionBlock& block) {
    const auto [b, h, first, nq, row0, qrow0, col] = block;
    T* a = att + (std::size_t(first) * s.NH + std::size_t(h) * nq) * Tn;
    // pass 1: raw scores q_h k_h^T, (nq,T), through k_h^T (HS,T) in scratch
    transpose(scratch, k + row0 + col, Tn, HS, C);
    for (std::size_t i = 0; i < std::size_t(nq) * Tn; ++i) a[i] = 0;
    matmul_accumulate(a, Tn, q + qrow0 + col, C, 1, scratch, Tn, nq, HS, Tn);
    // pass 2: scale, mask, softmax along each query row
    for (int i = 0; i < nq; ++i) {
      T* r = a + std::size_t(i) * Tn;
      const int t = s.position(first + i, b);
      const int visible = s.causal ? std::min(t + 1, lengths[b]) : lengths[b];
      const std::uint8_t* keep = s.allowed ? s.allowed + std::size_t(t) * Tn : nullptr;
      T max = -std::numeric_limits<T>::infinity();
      for (int j = 0; j < visible; ++j)
        if (!keep || keep[j]) max = std::max(max, r[j] * scale);
      T sum = 0;
      for (int j = 0; j < visible; ++j) {
        r[j] = !keep || keep[j] ? exp_of(r[j] * scale - max) : T(0);
        sum += r[j];
      }
      const T inv = visible > 0 ? T(1) / sum : T(0);
      for (int j = 0; j < visible; ++j) r[j] *= inv;
      for (int j = visible; j < Tn; ++j) r[j] = 0;
    }
    // pass 3: weights . v_h into the head's columns of out
    for (int i = 0; i < nq; ++i)
      for (int c = 0; c < HS; ++c) out[qrow0 + std::size_t(i) * C + col + c] = 0;
    matmul_accumulate(out + qrow0 + col, C, a, Tn, 1, v + row0 + col, C, nq, Tn, HS);
  });
}
// dq (query rows, C), dk, dv (B,T,C) += ...; dout (query rows, C); att from forward; scratch holds
// T*T + HS*T. Positions that are not queries contribute nothing (their gradient would be zero).
template <class T>
void attention_backward(T* dq, T* dk, T* dv, const T* dout, const T* q, const T* k, const T* v, const T* att,
                        const AttentionShape& s, T* scratch) {
  const int Tn = s.T, C = s.C, HS = s.HS();
  const T scale = s.scale ? T(1) / std::sqrt(T(HS)) : T(1);
  T* const datt = scratch;                                 // (nq,T)
  T* const v_transposed = scratch + std::size_t(Tn) * Tn;  // (HS,T)
  for_each_attention_block(s, [&](const AttentionBlock& block) {
    const auto [b, h, first, nq, row0, qrow0, col] = block;
    const T* a = att + (std::size_t(first) * s.NH + std::size_t(h) * nq) * Tn;
    // pass 3 backward: datt = dout_h v_h^T, dv_h += att^T dout_h
    transpose(v_transposed, v + row0 + col, Tn, HS, C);
    for (std::size_t i = 0; i < std::size_t(nq) * Tn; ++i) datt[i] = 0;
    matmul_accumulate(datt, Tn, dout + qrow0 + col, C, 1, v_transposed, Tn, nq, HS, Tn);
    matmul_accumulate(dv + row0 + col, C, a, 1, Tn, dout + qrow0 + col, C, Tn, nq, HS);
    // pass 2 backward: softmax (masked entries have weight 0, so they get no gradient), then
    // scale
    for (int i = 0; i < nq; ++i) {
      const T* p = a + std::size_t(i) * Tn;
      T* d = datt + std::size_t(i) * Tn;
      T dot = 0;
      for (int j = 0; j < Tn; ++j) dot += p[j] * d[j];
      for (int j = 0; j < Tn; ++j) d[j] = (p[j] * (d[j] - dot)) * scale;  // now dscores
    }
    // pass 1 backward: dq_h += dscores k_h, dk_h += dscores^T q_h
    matmul_accumulate(dq + qrow0 + col, C, datt, Tn, 1, k + row0 + col, C, nq, Tn, HS);
    matmul_accumulate(dk + row0 + col, C, datt, 1, Tn, q + qrow0 + col, C, Tn, nq, HS);
  });
}

// ---- 5. residual and ReLU ------------------------------------------------------------------------

// out (N) = a + b; backward: da += dout, db += dout.
template <class T>
void residual_forward(T* out, const T* a, const T* b, std::size_t N) {
  for (std::size_t i = 0; i < N; ++i) out[i] = a[i] + b[i];
}
template <class T>
void residual_backward(T* da, T* db, const T* dout, std::size_t N) {
  for (std::size_t i = 0; i < N; ++i) {
    da[i] += dout[i];
    db[i] += dout[i];
  }
}

template <class T>
void relu_forward(T* out, const T* inp, std::size_t N) {
  for (std::size_t i = 0; i < N; ++i) out[i] = inp[i] > T(0) ? inp[i] : T(0);
}
template <class T>
void relu_backward(T* dinp, const T* inp, const T* dout, std::size_t N) {
  for (std::size_t i = 0; i < N; ++i) dinp[i] += inp[i] > T(0) ? dout[i] : T(0);
}

// ---- 6. softmax + cross-entropy at the target rows -------------------------------------------------

// probs is (P,V) = softmax(logits (P,V)); losses is (P) = -log probs[p, targets[p]].
template <class T>
void crossentropy_forward(T* probs, T* losses, const T* logits, const int* targets, int P, int V) {
  for (int p = 0; p < P; ++p) {
    const T* z = logits + std::size_t(p) * V;
    T* pr = probs + std::size_t(p) * V;
    T max = z[0];
    for (int i = 1; i < V; ++i) max = std::max(max, z[i]);
    T sum = 0;
    for (int i = 0; i < V; ++i) {
      pr[i] = exp_of(z[i] - max);
      sum += pr[i];
    }
    // the loss from the log-sum-exp, so a probability that underflows still gives a finite loss
    losses[p] = (log_of(sum) + max) - z[targets[p]];
    const T inv = T(1) / sum;
    for (int i = 0; i < V; ++i) pr[i] *= inv;
  }
}
// dlogits (P,V) += (probs - onehot(target)) * dloss, where dloss = 1/P for the mean loss.
template <class T>
void crossentropy_backward(T* dlogits, const T* probs, const int* targets, int P, int V, T dloss) {
  for (int p = 0; p < P; ++p)
    for (int i = 0; i < V; ++i)
      dlogits[std::size_t(p) * V + i] += (probs[std::size_t(p) * V + i] - (i == targets[p] ? T(1) : T(0))) * dloss;
}

// ---- 7. pointer head: a distribution over the sequence's own positions ----------------------------
//
// The reader model answers with a word of its sentence, not of a vocabulary: at query row p (sequence
// b_p, position t_p) the logit of position j is s_j = u_p . h_j / sqrt(C), where u = h_query W_p is
// computed by matmul_forward above and h (B,T,C) is the final hidden state. Visible positions: j <
// lengths[b], j != t_p (a word does not refer to itself) and, causal, j <= t_p. Invisible positions get
// probability 0 and no gradient. The target (a position) must be visible; the reader task ensures it.
struct PointerShape {
  int B = 0, T = 0, C = 0;
  bool causal = false;
  const int* query_start = nullptr;  // (B+1) sequence b's queries are rows query_start[b] .. query_start[b+1]-1
  const int* query_pos = nullptr;    // (P) the position t_p of each query row
  const int* lengths = nullptr;      // (B)
  int visible_end(int b, int t) const { return causal ? std::min(t + 1, lengths[b]) : lengths[b]; }
};

// Visits every query row p of sequence b at position t, with its visible end: the forward and the
// backward pass walk the queries alike.
template <class Visit>
void for_each_pointer_query(const PointerShape& s, Visit&& visit) {
  for (int b = 0; b < s.B; ++b)
    for (int p = s.query_start[b]; p < s.query_start[b + 1]; ++p) {
      const int t = s.query_pos[p];
      visit(b, p, t, s.visible_end(b, t));
    }
}

// probs (P,T), losses (P) = -log probs[p, targets[p]]; u (P,C); hidden (B,T,C); targets (P) positions.
template <class T>
void pointer_forward(T* probs, T* losses, const T* u, const T* hidden, const int* targets, const PointerShape& s) {
  const int Tn = s.T, C = s.C;
  const T scale = T(1) / std::sqrt(T(C));
  for_each_pointer_query(s, [&](int b, int p, int t, int end) {
    const T* up = u + std::size_t(p) * C;
    T* pr = probs + std::size_t(p) * Tn;
    T max = -std::numeric_limits<T>::infinity();
    for (int j = 0; j < Tn; ++j) {
      if (j >= end || j == t) {
        pr[j] = 0;
        continue;
      }
      const T* h = hidden + (std::size_t(b) * Tn + j) * C;
      T dot = 0;
      for (int c = 0; c < C; ++c) dot += up[c] * h[c];
      pr[j] = dot * scale;  // the logit, until the softmax below
      max = std::max(max, pr[j]);
    }
    const T target_logit = pr[targets[p]];
    T sum = 0;
    for (int j = 0; j < end; ++j)
      if (j != t) sum += pr[j] = exp_of(pr[j] - max);
    losses[p] = (log_of(sum) + max) - target_logit;
    const T inv = T(1) / sum;
    for (int j = 0; j < end; ++j) pr[j] *= inv;
  });
}
// du (P,C) += ...; dhidden (B,T,C) += ...; dloss per query row (1/P for the mean loss).
template <class T>
void pointer_backward(T* du, T* dhidden, const T* probs, const T* u, const T* hidden, const int* targets,
                      const PointerShape& s, T dloss) {
  const int Tn = s.T, C = s.C;
  const T scale = T(1) / std::sqrt(T(C));
  for_each_pointer_query(s, [&](int b, int p, int t, int end) {
    const T* up = u + std::size_t(p) * C;
    T* dup = du + std::size_t(p) * C;
    for (int j = 0; j < end; ++j) {
      if (j == t) continue;
      const T dlogit = (probs[std::size_t(p) * Tn + j] - (j == targets[p] ? T(1) : T(0))) * dloss * scale;
      const T* h = hidden + (std::size_t(b) * Tn + j) * C;
      T* dh = dhidden + (std::size_t(b) * Tn + j) * C;
      for (int c = 0; c < C; ++c) {
        dup[c] += dlogit * h[c];
        dh[c] += dlogit * up[c];
      }
    }
  });
}

}  // namespace abh::train
