#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "microkernels.h"  // vf, OuterTile (and simd_exp.h: exp_scalar, ABH_SIMD)

namespace abh::kernels {
namespace {

using namespace detail;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Keys per block in scores_qkt: the transposed block (16 KiB at d = 64) stays in L1 while every query passes.
constexpr int kScoreKeyBlock = 64;
// Reduction steps per block in the outer-product loops: a (4, kc) strip of A stays in L1 across all
// column panels, and accumulators round-trip through C once per block.
constexpr int kDepthBlock = 512;

// ---- C (rows, n) = A (rows, k) . B (k, n) for MR <= 4 rows, steps [p_begin, p_end) -------------
// A's element (r, p) is a[r * a_row + p * a_step]. Panels of 8 columns, then 4, then a scalar
// remainder. With `accumulate` the result is added to C instead of replacing it.
template <int MR>
ABH_INLINE void outer_rows(const float* a, std::ptrdiff_t a_row, std::ptrdiff_t a_step, const float* B,
                           std::ptrdiff_t ldb, float* C, std::ptrdiff_t ldc, int n, int p_begin, int p_end,
                           bool accumulate) {
  int col = for_each_column_tile<MR>(n, [&](auto& tile, int c) ABH_INLINE_LAMBDA {
    if (accumulate)
      tile.load(C + c, ldc);
    else
      tile.zero();
    tile.run(a, a_row, a_step, B + c, ldb, p_begin, p_end);
    tile.store(C + c, ldc);
  });
  for (; col < n; ++col)
    for (int r = 0; r < MR; ++r) {
      float acc = accumulate ? C[r * ldc + col] : 0.0f;
      for (int p = p_begin; p < p_end; ++p) acc += a[r * a_row + p * a_step] * B[std::ptrdiff_t(p) * ldb + col];
      C[r * ldc + col] = acc;
    }
}

// Dispatches a row count of 1..4 to its template instance (a switch, so that everything stays inlined
// into the calling kernel).
ABH_INLINE void outer_rows_n(int rows, const float* a, std::ptrdiff_t a_row, std::ptrdiff_t a_step, const float* B,
                             std::ptrdiff_t ldb, float* C, std::ptrdiff_t ldc, int n, int p_begin, int p_end,
                             bool accumulate) {
  switch (rows) {
    case 4:
      outer_rows<4>(a, a_row, a_step, B, ldb, C, ldc, n, p_begin, p_end, accumulate);
      break;
    case 3:
      outer_rows<3>(a, a_row, a_step, B, ldb, C, ldc, n, p_begin, p_end, accumulate);
      break;
    case 2:
      outer_rows<2>(a, a_row, a_step, B, ldb, C, ldc, n, p_begin, p_end, accumulate);
      break;
    default:
      outer_rows<1>(a, a_row, a_step, B, ldb, C, ldc, n, p_begin, p_end, accumulate);
      break;
  }
}

// S (n_q, width), row stride lds, = Q (n_q, d) . KT (d, width), row stride ldkt: the one instance of
// the outer-product loops that both score kernels use (each instance is ~10 KB of wasm). Not inlined,
// so that it stays one function, under this name (tests/unit/wasm-simd.test.ts looks for it).
__attribute__((noinline)) void scores_transposed_block(const float* Q, int ldq, const float* KT, int ldkt, float* S,
                                                       int lds, int n_q, int width, int d) {
  for (int i = 0; i < n_q; i += 4)
    outer_rows_n(std::min(4, n_q - i), Q + std::size_t(i) * ldq, ldq, 1, KT, ldkt, S + std::size_t(i) * lds, lds, width,
                 0, d, false);
}

}  // namespace

bool simd_enabled() { return ABH_SIMD == 1; }

float exp_approx(float x) { return exp_scalar(x); }

void matmul(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int m, int k, int n) {
  for (int row = 0; row < m; row += 4) {
    const int rows = std::min(4, m - row);
    const float* a = A + std::size_t(row) * lda;
    float* c = C + std::size_t(row) * ldc;
    if (k == 0) {
      for (int r = 0; r < rows; ++r) std::fill(c + std::size_t(r) * ldc, c + std::size_t(r) * ldc + n, 0.0f);
      continue;
    }
    for (int p = 0; p < k; p += kDepthBlock) {
      const int p_end = std::min(k, p + kDepthBlock);
      outer_rows_n(rows, a, lda, 1, B, ldb, c, ldc, n, p, p_end, p > 0);
    }
  }
}

void scores_qkt(const float* Q, int ldq, const float* K, int ldk, float* S, int n_q, int n_k, int d) {
  // A block of keys transposed, kt (d, width): then every score is an outer-product accumulation
  // ((0 + q_0 k_0) + q_1 k_1) + ... in order of t, with no horizontal reduction and no depth tail.
  // flash.cpp's tiles sum in the same order, so the two kernels produce the same bits for a score
  // (the tests of huge, ill-conditioned scores rely on that). One allocation per call, outside the loops.
  std::vector<float> kt(std::size_t(d) * kScoreKeyBlock);
  for (int j0 = 0; j0 < n_k; j0 += kScoreKeyBlock) {
    const int width = std::min(kScoreKeyBlock, n_k - j0);
    for (int j = 0; j < width; ++j) {
      const float* k = K + std::size_t(j0 + j) * ldk;
      for (int t = 0; t < d; ++t) kt[std::size_t(t) * kScoreKeyBlock + j] = k[t];
    }
    scores_transposed_block(Q, ldq, kt.data(), kScoreKeyBlock, S + j0, n_k, n_q, width, d);
  }
}

void transpose_keys(const float* K, int ldk, int n_k, int d, float* KT) {
  for (int j = 0; j < n_k; ++j)
    for (int t = 0; t < d; ++t) KT[std::size_t(t) * n_k + j] = K[std::size_t(j) * ldk + t];
}

void scores_qkt_transposed(const float* Q, int ldq, const float* KT, float* S, int n_q, int n_k, int d) {
  scores_transposed_block(Q, ldq, KT, n_k, S, n_k, n_q, n_k, d);
}

void scale_mask_softmax(const float* S, float* W, const std::uint8_t* mask, int n_q, int n_k, float scale,
                        std::uint8_t* fully_masked) {
  const vf scale_v = vsplat(scale), neg_inf_v = vsplat(kNegInf), one_v = vsplat(1.0f);
  const int n4 = n_k & ~3;
  for (int i = 0; i < n_q; ++i) {
    const float* s_row = S + std::size_t(i) * n_k;
    float* w_row = W + std::size_t(i) * n_k;
    const std::uint8_t* m_row = mask ? mask + std::size_t(i) * n_k : nullptr;

    // Pass 1: the row max of x = s * scale (-inf where masked). Without a mask nothing is stored:
    // pass 2 recomputes x from S (S and W may alias; each entry is read before it is written).
    // With a mask, x goes to W, and [lo, hi) is the span of 4-lane chunks holding a visible key:
    // outside it every weight is 0 and pass 2 skips the exp (causal rows: half the row).
    vf max_a = neg_inf_v, max_b = neg_inf_v;
    int lo = 0, hi = n_k;
    int j = 0;
    if (!m_row) {
      for (; j + 8 <= n4; j += 8) {
        max_a = vmax(max_a, vmul(vload(s_row + j), scale_v));
        max_b = vmax(max_b, vmul(vload(s_row + j + 4), scale_v));
      }
      for (; j < n4; j += 4) max_a = vmax(max_a, vmul(vload(s_row + j), scale_v));
    } else {
      lo = n_k;
      hi = 0;
      for (; j < n4; j += 4) {
        // Four mask bytes at once: all 1 (the common case: no mask, or inside a causal row's
        // prefix) and all 0 need no per-lane select.
        std::uint32_t bytes;
        std::memcpy(&bytes, m_row + j, 4);
        vf x = vmul(vload(s_row + j), scale_v);
        if (bytes == 0x01010101u) {
          lo = std::min(lo, j);
          hi = j + 4;
        } else if (bytes == 0) {
          x = neg_inf_v;
        } else {
          const vmask visible = vnonzero_u8x4(m_row + j);
          x = vselect(visible, x, neg_inf_v);
          if (vany(visible)) {
            lo = std::min(lo, j);
            hi = j + 4;
          }
        }
        vstore(w_row + j, x);
        max_a = vmax(max_a, x);
      }
    }
    float row_max = vhmax(vmax(max_a, max_b));
    for (; j < n_k; ++j) {
      const bool visible = !m_row || m_row[j];
      const float x = visible ? s_row[j] * scale : kNegInf;
      if (m_row) w_row[j] = x;
      row_max = std::max(row_max, x);
      if (visible && m_row) lo = std::min(lo, j), hi = j + 1;
    }
    if (row_max == kNegInf) {  // every key blocked: defined zeros instead of 0/0
      std::fill(w_row, w_row + n_k, 0.0f);
      if (fully_masked) fully_masked[i] = 1;
      continue;
    }
    if (fully_masked) fully_masked[i] = 0;

    // Pass 2: exp(x - max) and the row sum over [lo, hi); zeros outside. Pass 3: normalise.
    const float* x_row = m_row ? w_row : s_row;  // where x is: stored by pass 1, or s * scale
    const vf x_scale = m_row ? one_v : scale_v;
    const float x_scale_1 = m_row ? 1.0f : scale;
    std::fill(w_row, w_row + lo, 0.0f);
    std::fill(w_row + hi, w_row + n_k, 0.0f);
    const vf max_v = vsplat(row_max);
    vf sum_a = vzero(), sum_b = vzero();
    j = lo;
    for (; j + 8 <= hi; j += 8) {
      const vf e0 = vexp(vsub(vmul(vload(x_row + j), x_scale), max_v));
      const vf e1 = vexp(vsub(vmul(vload(x_row + j + 4), x_scale), max_v));
      vstore(w_row + j, e0);
      vstore(w_row + j + 4, e1);
      sum_a = vadd(sum_a, e0);
      sum_b = vadd(sum_b, e1);
    }
    for (; j + 4 <= hi; j += 4) {
      const vf e = vexp(vsub(vmul(vload(x_row + j), x_scale), max_v));
      vstore(w_row + j, e);
      sum_a = vadd(sum_a, e);
    }
    float sum = vhsum(vadd(sum_a, sum_b));
    for (; j < hi; ++j) {
      w_row[j] = exp_scalar(x_row[j] * x_scale_1 - row_max);
      sum += w_row[j];
    }
    const float inv_sum = 1.0f / sum;
    const vf inv_v = vsplat(inv_sum);
    j = lo;
    for (; j + 4 <= hi; j += 4) vstore(w_row + j, vmul(vload(w_row + j), inv_v));
    for (; j < hi; ++j) w_row[j] *= inv_sum;
  }
}

void weighted_sum(const float* W, const float* V, int ldv, float* O, int ldo, int n_q, int n_k, int d_v) {
  for (int i = 0; i < n_q; i += 4) {
    const int rows = std::min(4, n_q - i);
    const float* w = W + std::size_t(i) * n_k;
    float* o = O + std::size_t(i) * ldo;
    // Keys outside [lo, hi) have zero weight in every one of these rows (causal rows: all keys past
    // the last row's own position), so they are skipped; zeros inside the span cost a multiply by 0.
    int lo = n_k, hi = 0;
    for (int r = 0; r < rows; ++r) {
      const float* w_row = w + std::size_t(r) * n_k;
      int first = 0;
      while (first < lo && w_row[first] == 0.0f) ++first;
      lo = std::min(lo, first);
      int last = n_k;
      while (last > hi && w_row[last - 1] == 0.0f) --last;
      hi = std::max(hi, last);
    }
    if (lo >= hi) {
      for (int r = 0; r < rows; ++r) std::fill(o + std::size_t(r) * ldo, o + std::size_t(r) * ldo + d_v, 0.0f);
      continue;
    }
    for (int p = lo; p < hi; p += kDepthBlock) {
      const int p_end = std::min(hi, p + kDepthBlock);
      outer_rows_n(rows, w, n_k, 1, V, ldv, o, ldo, d_v, p, p_end, p > lo);
    }
  }
}

std::size_t first_non_finite(const float* p, std::size_t count) {
  const std::size_t count4 = count & ~std::size_t(3);
  vmask bad = vmask_none();
  for (std::size_t i = 0; i < count4; i += 4) bad = vmask_or(bad, vnot_finite(vload(p + i)));
  const std::size_t scalar_from = vany(bad) ? 0 : count4;
  for (std::size_t i = scalar_from; i < count; ++i)
    if (!std::isfinite(p[i])) return i;
  return count;
}

int repair_overflowed_scores(const float* Q, int ldq, const float* K, int ldk, float* S, int n_q, int n_k, int d) {
  constexpr double kMax = std::numeric_limits<float>::max();
  int repaired = 0;
  const int n4 = n_k & ~3;
  for (int i = 0; i < n_q; ++i) {
    float* s_row = S + std::size_t(i) * n_k;
    // A vector scan first: rows without an overflow (all of them, in practice) cost one compare per 4.
    vmask bad = vmask_none();
    for (int j = 0; j < n4; j += 4) bad = vmask_or(bad, vnot_finite(vload(s_row + j)));
    bool any = vany(bad);
    for (int j = n4; j < n_k && !any; ++j) any = !std::isfinite(s_row[j]);
    if (!any) continue;
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
