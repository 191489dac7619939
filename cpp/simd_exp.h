// Internal to the engine (kernels.cpp, flash.cpp): the one exp polynomial every softmax uses, in a
// scalar and a SIMD128 form, plus the ABH_SIMD switch. Header-only so that both kernels inline it;
// keep it out of public headers (it pulls in <wasm_simd128.h> under -msimd128).
//
// Range reduction x = k ln2 + r, |r| <= ln2/2, then exp(r) by its Taylor polynomial (Horner),
// then 2^k by building the float's exponent bits. Cody-Waite split of ln2 keeps r exact enough.
// Max relative error ~2.5e-7 on [-87, 88]; exp(x) = 0 below -87.3, for -inf and for NaN.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define ABH_SIMD 1
#else
#define ABH_SIMD 0
#endif

namespace abh::kernels::detail {

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kExpLowest = -87.3f;  // below this exp underflows to a denormal: flush to 0
constexpr float kExpHighest = 88.0f;  // keeps 2^k a finite float
constexpr float kP0 = 1.0f / 720, kP1 = 1.0f / 120, kP2 = 1.0f / 24, kP3 = 1.0f / 6, kP4 = 0.5f;

inline float exp_scalar(float x) {
  if (!(x >= kExpLowest)) return 0.0f;  // also maps -inf (masked scores) and NaN to 0
  x = std::min(x, kExpHighest);
  const float k = std::nearbyint(x * kLog2e);
  const float r = (x - k * kLn2Hi) - k * kLn2Lo;
  float p = kP0;
  p = p * r + kP1;
  p = p * r + kP2;
  p = p * r + kP3;
  p = p * r + kP4;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const std::int32_t bits = (static_cast<std::int32_t>(k) + 127) << 23;
  float two_k;
  std::memcpy(&two_k, &bits, sizeof two_k);
  return p * two_k;
}

#if ABH_SIMD
// The same arithmetic as exp_scalar, lane by lane, and cheaper to run in V8: round-to-nearest by the
// 1.5 * 2^23 "magic" addition (the integer lands in the low mantissa bits, so 2^k's exponent bits are
// one shift and one add away) instead of f32x4.nearest + i32x4.trunc_sat, which x86 V8 expands into
// long sequences; pmin instead of the NaN-propagating f32x4.min; and one mask at the end for every
// input that must give 0 (below the cut-off, -inf, NaN), since `x >= kExpLowest` is false for all
// three. For |x * log2e| < 2^22 the magic rounding is exactly nearbyint (round half to even), so k,
// r and the result are bit for bit those of exp_scalar.
inline v128_t exp_simd(v128_t x) {
  const v128_t valid = wasm_f32x4_ge(x, wasm_f32x4_splat(kExpLowest));
  x = wasm_f32x4_pmin(x, wasm_f32x4_splat(kExpHighest));
  const v128_t magic = wasm_f32x4_splat(12582912.0f);  // 1.5 * 2^23
  const v128_t k_magic = wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(kLog2e)), magic);
  const v128_t k = wasm_f32x4_sub(k_magic, magic);
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(k, wasm_f32x4_splat(kLn2Hi)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(k, wasm_f32x4_splat(kLn2Lo)));
  v128_t p = wasm_f32x4_splat(kP0);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(kP1));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(kP2));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(kP3));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(kP4));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.0f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.0f));
  // k_magic's bits are 0x4B400000 + k; shifted left by 23 the constant part vanishes (its low 9 bits
  // are 0), leaving k << 23, and adding 127 << 23 gives the bits of 2^k.
  const v128_t two_k = wasm_i32x4_add(wasm_i32x4_shl(k_magic, 23), wasm_i32x4_splat(127 << 23));
  return wasm_v128_and(wasm_f32x4_mul(p, two_k), valid);
}

inline float horizontal_sum(v128_t v) {
  return wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 2) +
         wasm_f32x4_extract_lane(v, 3);
}
#endif

}  // namespace abh::kernels::detail
