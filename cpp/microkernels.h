// Internal to the engine (kernels.cpp, flash.cpp): register-blocked micro-kernels for the two
// products attention is made of, written once over a 4-lane float vector `vf` that is a wasm
// SIMD128 register under -msimd128 and four plain floats otherwise. The scalar build and the
// native build therefore run the very same blocking, tails and loop bounds as the SIMD build (the
// native GoogleTest suite exercises them), and only the lane arithmetic differs.
//
// The shape, and why (V8 on x86-64 gives wasm about 15 allocatable xmm registers; wasm SIMD128
// has no fused multiply-add, so a multiply-add is f32x4.mul + f32x4.add):
//
//   outer_tile<MR, NV>   C (MR rows, 4*NV columns) += A . B, one k step at a time: MR splats of A
//                        (v128.load32_splat) against NV vectors of one row of B. MR = 4, NV = 2 is
//                        the main tile: 8 accumulators + 2 B vectors + 1 splat, 6 loads per 16
//                        arithmetic instructions (the layout of XNNPACK's 4x8 wasmsimd GEMM and of
//                        MLAS's 2x16 wasm kernel). B rows are read straight from row-major V or W, so
//                        weights . V and the projections need no packing; Q . K^T multiplies by a
//                        transposed block of K (kernels.cpp) or by packed panels (flash.cpp), which
//                        also spares the dot-product form's horizontal reductions. When A's MR
//                        values of one step are adjacent (a_row = 1) and B's row is one pointer, V8
//                        addresses every load from two registers plus constant offsets.
//
// Tails (fewer than MR rows, fewer than 4 keys, d not a multiple of 4) are handled by the callers
// with the smaller template instances and a scalar remainder; no kernel reads outside its operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "simd_exp.h"  // ABH_SIMD, exp_scalar, exp_simd

#if defined(__GNUC__)
#define ABH_INLINE __attribute__((always_inline)) inline
#define ABH_INLINE_LAMBDA __attribute__((always_inline))  // after a lambda's parameter list
#else
#define ABH_INLINE inline
#define ABH_INLINE_LAMBDA
#endif

// Loops over a tile's rows and vectors have compile-time trip counts and must be unrolled
// completely, or the accumulators live in memory instead of registers.
#if defined(__clang__)
#define ABH_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define ABH_UNROLL _Pragma("GCC unroll 16")
#else
#define ABH_UNROLL
#endif

namespace abh::kernels::detail {

// ---- the 4-lane vector -----------------------------------------------------------------------

#if ABH_SIMD

using vf = v128_t;

ABH_INLINE vf vzero() { return wasm_f32x4_splat(0.0f); }
ABH_INLINE vf vsplat(float x) { return wasm_f32x4_splat(x); }
ABH_INLINE vf vmake(float a, float b, float c, float d) { return wasm_f32x4_make(a, b, c, d); }
ABH_INLINE vf vload(const float* p) { return wasm_v128_load(p); }
ABH_INLINE vf vload_splat(const float* p) { return wasm_v128_load32_splat(p); }
ABH_INLINE void vstore(float* p, vf v) { wasm_v128_store(p, v); }
ABH_INLINE vf vadd(vf a, vf b) { return wasm_f32x4_add(a, b); }
ABH_INLINE vf vsub(vf a, vf b) { return wasm_f32x4_sub(a, b); }
ABH_INLINE vf vmul(vf a, vf b) { return wasm_f32x4_mul(a, b); }
// pmax: a < b ? b : a, one maxps on x86 (f32x4.max's NaN and signed-zero rules cost V8 a sequence).
// Inputs here are never NaN (scores are repaired first).
ABH_INLINE vf vmax(vf a, vf b) { return wasm_f32x4_pmax(a, b); }
ABH_INLINE vf vmadd(vf acc, vf a, vf b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }
ABH_INLINE vf vexp(vf x) { return exp_simd(x); }
ABH_INLINE float vlane(vf v, int lane) {
  switch (lane) {
    case 0:
      return wasm_f32x4_extract_lane(v, 0);
    case 1:
      return wasm_f32x4_extract_lane(v, 1);
    case 2:
      return wasm_f32x4_extract_lane(v, 2);
    default:
      return wasm_f32x4_extract_lane(v, 3);
  }
}
ABH_INLINE float vhsum(vf v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 2)) +
         (wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 3));
}
ABH_INLINE float vhmax(vf v) {
  const vf m = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  return wasm_f32x4_extract_lane(wasm_f32x4_pmax(m, wasm_i32x4_shuffle(m, m, 1, 0, 3, 2)), 0);
}
// Lane masks: all-ones where the condition holds.
using vmask = v128_t;
ABH_INLINE vmask vle(vf a, vf b) { return wasm_f32x4_le(a, b); }
ABH_INLINE vmask vnonzero_u8x4(const std::uint8_t* p) {  // 4 mask bytes -> 4 lanes
  const v128_t bytes = wasm_v128_load32_zero(p);
  return wasm_i32x4_ne(wasm_u32x4_extend_low_u16x8(wasm_u16x8_extend_low_u8x16(bytes)), wasm_i32x4_splat(0));
}
ABH_INLINE vf vselect(vmask m, vf if_true, vf if_false) { return wasm_v128_bitselect(if_true, if_false, m); }
ABH_INLINE bool vany(vmask m) { return wasm_v128_any_true(m); }
ABH_INLINE vmask vmask_or(vmask a, vmask b) { return wasm_v128_or(a, b); }
// All-ones in lanes whose value is +-inf or NaN.
ABH_INLINE vmask vnot_finite(vf x) {
  return wasm_v128_not(wasm_f32x4_lt(wasm_f32x4_abs(x), wasm_f32x4_splat(__builtin_inff())));
}
ABH_INLINE vmask vmask_none() { return wasm_i32x4_splat(0); }
ABH_INLINE vmask veq(vf a, vf b) { return wasm_f32x4_eq(a, b); }
// Lanes I0..I3 of a's and b's eight (b's are 4 to 7).
template <int I0, int I1, int I2, int I3>
ABH_INLINE vf vshuffle(vf a, vf b) {
  return wasm_i32x4_shuffle(a, b, I0, I1, I2, I3);
}

#else  // portable: GCC/Clang vector extensions. Native builds get SSE/AVX code from them; the scalar
       // wasm build (no -msimd128) gets plain f32 arithmetic, lane by lane.

typedef float vf __attribute__((vector_size(16)));
typedef std::int32_t vmask __attribute__((vector_size(16)));  // lanes of 0 or -1
typedef std::uint32_t vbits __attribute__((vector_size(16)));

ABH_INLINE vf vzero() { return vf{0.0f, 0.0f, 0.0f, 0.0f}; }
ABH_INLINE vf vsplat(float x) { return vf{x, x, x, x}; }
ABH_INLINE vf vmake(float a, float b, float c, float d) { return vf{a, b, c, d}; }
ABH_INLINE vf vload(const float* p) {
  vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
ABH_INLINE vf vload_splat(const float* p) { return vsplat(*p); }
ABH_INLINE void vstore(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
ABH_INLINE vf vadd(vf a, vf b) { return a + b; }
ABH_INLINE vf vsub(vf a, vf b) { return a - b; }
ABH_INLINE vf vmul(vf a, vf b) { return a * b; }
ABH_INLINE vf vmadd(vf acc, vf a, vf b) { return acc + a * b; }
ABH_INLINE vf vselect(vmask m, vf if_true, vf if_false) { return (vf)(((vmask)if_true & m) | ((vmask)if_false & ~m)); }
ABH_INLINE vf vmax(vf a, vf b) { return vselect(a < b, b, a); }  // like pmax
ABH_INLINE float vlane(vf v, int lane) { return v[lane]; }
ABH_INLINE float vhsum(vf v) { return (v[0] + v[2]) + (v[1] + v[3]); }
ABH_INLINE float vhmax(vf v) {
  const float a = v[0] < v[2] ? v[2] : v[0], b = v[1] < v[3] ? v[3] : v[1];
  return a < b ? b : a;
}
ABH_INLINE vmask vle(vf a, vf b) { return a <= b; }
ABH_INLINE vmask veq(vf a, vf b) { return a == b; }
ABH_INLINE vmask vnonzero_u8x4(const std::uint8_t* p) { return vmask{p[0], p[1], p[2], p[3]} != 0; }
ABH_INLINE bool vany(vmask m) { return (m[0] | m[1] | m[2] | m[3]) != 0; }
ABH_INLINE vmask vmask_or(vmask a, vmask b) { return a | b; }
ABH_INLINE vmask vmask_none() { return vmask{0, 0, 0, 0}; }
// All-ones in lanes whose value is +-inf or NaN: !(|x| < inf).
ABH_INLINE vmask vnot_finite(vf x) {
  const vf abs = (vf)((vmask)x & 0x7fffffff);
  return ~(abs < vsplat(__builtin_inff()));
}
template <int I0, int I1, int I2, int I3>
ABH_INLINE vf vshuffle(vf a, vf b) {
  return __builtin_shufflevector(a, b, I0, I1, I2, I3);
}
// exp_simd's arithmetic in vector-extension form: lane for lane the same as exp_scalar.
ABH_INLINE vf vexp(vf x) {
  const vmask valid = x >= vsplat(kExpLowest);
  x = vselect(vsplat(kExpHighest) < x, vsplat(kExpHighest), x);
  const vf magic = vsplat(12582912.0f);
  const vf k_magic = x * vsplat(kLog2e) + magic;
  const vf k = k_magic - magic;
  vf r = x - k * vsplat(kLn2Hi);
  r = r - k * vsplat(kLn2Lo);
  vf p = vsplat(kP0);
  p = p * r + vsplat(kP1);
  p = p * r + vsplat(kP2);
  p = p * r + vsplat(kP3);
  p = p * r + vsplat(kP4);
  p = p * r + vsplat(1.0f);
  p = p * r + vsplat(1.0f);
  const vf two_k = (vf)(((vbits)k_magic << 23) + (127u << 23));
  return (vf)((vmask)(p * two_k) & valid);
}

#endif

// Rows a, b, c, d of a 4x4 block in, its columns out (a[0] b[0] c[0] d[0], ...): V8 emits
// unpcklps/unpckhps/movlhps/movhlps for these shuffles.
ABH_INLINE void vtranspose4(vf& a, vf& b, vf& c, vf& d) {
  const vf ab_lo = vshuffle<0, 4, 1, 5>(a, b), ab_hi = vshuffle<2, 6, 3, 7>(a, b);
  const vf cd_lo = vshuffle<0, 4, 1, 5>(c, d), cd_hi = vshuffle<2, 6, 3, 7>(c, d);
  a = vshuffle<0, 1, 4, 5>(ab_lo, cd_lo);
  b = vshuffle<2, 3, 6, 7>(ab_lo, cd_lo);
  c = vshuffle<0, 1, 4, 5>(ab_hi, cd_hi);
  d = vshuffle<2, 3, 6, 7>(ab_hi, cd_hi);
}

// ---- outer-product tile: C (MR, 4 NV) += A (MR, k) . B (k, 4 NV) ---------------------------------
//
// A's element (r, p) is a[r * a_row + p * a_step]: a_step = 1 reads rows of a row-major matrix
// (weights, X), a_row = 1 reads columns (the tiled kernel's key-major probabilities). B's row p is
// b + p * ldb, 4 NV contiguous floats. Steps p run from p_begin to p_end.

template <int MR, int NV>
struct OuterTile {
  static constexpr int kCols = 4 * NV;
  vf acc[MR][NV];

  ABH_INLINE void zero() {
    ABH_UNROLL
    for (int r = 0; r < MR; ++r) ABH_UNROLL
    for (int v = 0; v < NV; ++v) acc[r][v] = vzero();
  }

  ABH_INLINE void run(const float* a, std::ptrdiff_t a_row, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t ldb,
                      int p_begin, int p_end) {
    const float* a_p = a + p_begin * a_step;
    const float* b_p = b + std::ptrdiff_t(p_begin) * ldb;
    for (int p = p_begin; p < p_end; ++p) {
      vf bv[NV];
      ABH_UNROLL
      for (int v = 0; v < NV; ++v) bv[v] = vload(b_p + 4 * v);
      ABH_UNROLL
      for (int r = 0; r < MR; ++r) {
        const vf av = vload_splat(a_p + r * a_row);  // a_row == 1: one address, immediate offsets
        ABH_UNROLL
        for (int v = 0; v < NV; ++v) acc[r][v] = vmadd(acc[r][v], av, bv[v]);
      }
      a_p += a_step;
      b_p += ldb;
    }
  }

  // C rows at c + r * ldc, all 4 NV columns.
  ABH_INLINE void store(float* c, std::ptrdiff_t ldc) const {
    ABH_UNROLL
    for (int r = 0; r < MR; ++r) ABH_UNROLL
    for (int v = 0; v < NV; ++v) vstore(c + r * ldc + 4 * v, acc[r][v]);
  }
  ABH_INLINE void load(const float* c, std::ptrdiff_t ldc) {
    ABH_UNROLL
    for (int r = 0; r < MR; ++r) ABH_UNROLL
    for (int v = 0; v < NV; ++v) acc[r][v] = vload(c + r * ldc + 4 * v);
  }
  // acc = C * factor[r] for each row (the tiled kernel's rescale of its running output).
  ABH_INLINE void load_scaled(const float* c, std::ptrdiff_t ldc, const float* factor) {
    ABH_UNROLL
    for (int r = 0; r < MR; ++r) {
      const vf f = vload_splat(factor + r);
      ABH_UNROLL
      for (int v = 0; v < NV; ++v) acc[r][v] = vmul(vload(c + r * ldc + 4 * v), f);
    }
  }
};

// Walks n columns in outer-product tiles of 8 (two vectors), then 4: `tile_at(tile, col)` fills,
// runs and stores a fresh OuterTile<MR, 2 or 1> for the columns from col. Returns the first column
// no tile covered (n % 4 of them are left), for the caller's scalar remainder.
template <int MR, class TileAt>
ABH_INLINE int for_each_column_tile(int n, TileAt&& tile_at) {
  int col = 0;
  for (; col + 8 <= n; col += 8) {
    OuterTile<MR, 2> tile;
    tile_at(tile, col);
  }
  for (; col + 4 <= n; col += 4) {
    OuterTile<MR, 1> tile;
    tile_at(tile, col);
  }
  return col;
}

}  // namespace abh::kernels::detail
