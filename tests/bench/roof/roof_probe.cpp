// The roof: how many f32x4 multiply-adds per second this wasm engine sustains on one core.
// wasm SIMD128 has no fused multiply-add, so a multiply-add is f32x4.mul then f32x4.add: 8 flops.
//
// The loop is the best case of a GEMM inner loop: 8 independent accumulators (4 rows x 2 vectors),
// the 4 row multipliers in registers, and 2 v128 loads per 8 multiply-adds from a 2 KiB buffer that
// stays in L1. Nothing is loop-invariant (the loaded vectors change every step, the multipliers
// every pass), so no compiler can hoist the work. A checksum keeps it from being optimised away.
//
// Built standalone, no JS glue (tests/bench/build.ts):
//   emcc roof_probe.cpp -O3 -msimd128 --no-entry -o roof_probe.wasm
#include <wasm_simd128.h>

#define EXPORT(name) extern "C" __attribute__((export_name(name)))

namespace {
constexpr int kSteps = 64;  // v128 pairs in the buffer
float buffer[kSteps * 8];
}  // namespace

EXPORT("roof_init") void roof_init() {
  for (int i = 0; i < kSteps * 8; ++i) buffer[i] = 1e-3f * float(1 + i % 7);
}

// passes * kSteps * 8 multiply-adds = passes * 4096 flops.
EXPORT("roof_run") float roof_run(int passes) {
  v128_t a00 = wasm_f32x4_splat(0), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;
  v128_t s0 = wasm_f32x4_splat(0.5f), s1 = wasm_f32x4_splat(0.25f), s2 = wasm_f32x4_splat(0.125f),
         s3 = wasm_f32x4_splat(0.0625f);
  const v128_t ds = wasm_f32x4_splat(1e-7f);
  for (int pass = 0; pass < passes; ++pass) {
    const float* b = buffer;
#pragma clang loop unroll(disable)
    for (int k = 0; k < kSteps; ++k, b += 8) {
      const v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4);
      a00 = wasm_f32x4_add(a00, wasm_f32x4_mul(s0, b0));
      a01 = wasm_f32x4_add(a01, wasm_f32x4_mul(s0, b1));
      a10 = wasm_f32x4_add(a10, wasm_f32x4_mul(s1, b0));
      a11 = wasm_f32x4_add(a11, wasm_f32x4_mul(s1, b1));
      a20 = wasm_f32x4_add(a20, wasm_f32x4_mul(s2, b0));
      a21 = wasm_f32x4_add(a21, wasm_f32x4_mul(s2, b1));
      a30 = wasm_f32x4_add(a30, wasm_f32x4_mul(s3, b0));
      a31 = wasm_f32x4_add(a31, wasm_f32x4_mul(s3, b1));
    }
    s0 = wasm_f32x4_add(s0, ds);
    s1 = wasm_f32x4_add(s1, ds);
    s2 = wasm_f32x4_add(s2, ds);
    s3 = wasm_f32x4_add(s3, ds);
  }
  const v128_t sum = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(a00, a01), wasm_f32x4_add(a10, a11)),
                                    wasm_f32x4_add(wasm_f32x4_add(a20, a21), wasm_f32x4_add(a30, a31)));
  return wasm_f32x4_extract_lane(sum, 0) + wasm_f32x4_extract_lane(sum, 3);
}
