// The hot loops of attention. Two paths with one interface: wasm SIMD128 intrinsics when compiled
// with -msimd128, portable scalar C++ otherwise (the native build, and the scalar wasm build that
// the benchmarks compare against). Both use the same exp polynomial, so they agree to float
// rounding. Every kernel here is checked against the plain Eigen reference in reference.h.
//
// All buffers are row-major float32; "ld" arguments are row strides in floats, which lets a
// kernel read one head's (n, d_k) slice straight out of an (n, d_model) projection.
#pragma once

#include <cstddef>
#include <cstdint>

namespace abh::kernels {

// True when this build runs the SIMD128 path (reported on the page and in benchmarks).
bool simd_enabled();

// C (m, n) = A (m, k) · B (k, n).
void matmul(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int m, int k, int n);

// Step 1, scores. S (n_q, n_k) = Q (n_q, d) · K (n_k, d)^T.
void scores_qkt(const float* Q, int ldq, const float* K, int ldk, float* S, int n_q, int n_k, int d);

// Step 1 for callers that score many blocks of rows against one K: KT (d, n_k) is K transposed
// (transpose_keys), packed once. S (n_q, n_k) = Q (n_q, d) · KT, bit for bit what scores_qkt gives.
void transpose_keys(const float* K, int ldk, int n_k, int d, float* KT);
void scores_qkt_transposed(const float* Q, int ldq, const float* KT, float* S, int n_q, int n_k, int d);

// Steps 2-3 fused: weights = softmax(mask(S * scale)) row by row, max subtracted for stability.
// mask is (n_q, n_k) with 1 = allowed, or nullptr for no mask. A row with every key blocked gets
// all-zero weights (where NumPy would give NaN) and fully_masked[row] = 1; fully_masked may be null.
// S and W may alias.
void scale_mask_softmax(const float* S, float* W, const std::uint8_t* mask, int n_q, int n_k, float scale,
                        std::uint8_t* fully_masked);

// Step 4, weighted sum. O (n_q, d_v) = W (n_q, n_k) · V (n_k, d_v). Zero weights are skipped, so
// causal rows cost only their visible keys.
void weighted_sum(const float* W, const float* V, int ldv, float* O, int ldo, int n_q, int n_k, int d_v);

// Scores past float32's range (inputs around 1e19 and up) come out of scores_qkt as +-inf or NaN
// (inf - inf inside a dot product). This pass finds them and recomputes just those entries in
// double, clamped to +-FLT_MAX, so softmax still sees the right order of magnitude instead of NaN.
// Cheap: one O(n_q n_k) scan; the O(d) recompute runs only for entries that overflowed.
// Returns how many entries it repaired.
int repair_overflowed_scores(const float* Q, int ldq, const float* K, int ldk, float* S, int n_q, int n_k, int d);

// The index of the first +-inf or NaN among p[0 .. count), or count if every value is finite. A
// vector scan; the element-wise search runs only once it has found one.
std::size_t first_non_finite(const float* p, std::size_t count);

// exp(x) with a degree-6 polynomial after range reduction (max relative error ~2e-7 on
// [-87, 88]); exp(x) = 0 below -87.3. Exposed so tests can check it against std::exp.
float exp_approx(float x);

}  // namespace abh::kernels
