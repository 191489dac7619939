#include "flash.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "attention.h"  // kOutputOverflow
#include "engine_limits.h"
#include "kernels.h"
#include "simd_exp.h"  // the same exp polynomial as the naive softmax, and the ABH_SIMD switch

namespace abh {
namespace {

using kernels::detail::exp_scalar;
#if ABH_SIMD
using kernels::detail::exp_simd;
using kernels::detail::horizontal_sum;
#endif

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Steps 2-3 for one query row of one tile, online. s (cols) holds the row's raw scores q . k against
// the tile's keys, of which the first `visible` are unmasked (causal rows see a prefix of every tile).
// On return s holds P = exp(s * scale - m_new) with zeros for masked keys, m and l are the row's new
// running max and sum, and the result is the rescale factor exp(m_old - m_new) for the accumulator.
float online_softmax_row(float* s, int cols, int visible, float scale, float& m, float& l) {
  // Pass 1: scale, and the tile's row max over the visible keys.
  float tile_max = kNegInf;
  int j = 0;
#if ABH_SIMD
  const v128_t scale_v = wasm_f32x4_splat(scale);
  v128_t max_v = wasm_f32x4_splat(kNegInf);
  for (; j + 4 <= visible; j += 4) {
    const v128_t x = wasm_f32x4_mul(wasm_v128_load(s + j), scale_v);
    wasm_v128_store(s + j, x);
    max_v = wasm_f32x4_max(max_v, x);
  }
  tile_max = std::max(std::max(wasm_f32x4_extract_lane(max_v, 0), wasm_f32x4_extract_lane(max_v, 1)),
                      std::max(wasm_f32x4_extract_lane(max_v, 2), wasm_f32x4_extract_lane(max_v, 3)));
#endif
  for (; j < visible; ++j) {
    s[j] *= scale;
    tile_max = std::max(tile_max, s[j]);
  }
  std::fill(s + visible, s + cols, 0.0f);  // masked keys contribute exp(-inf) = 0

  // The new running max. Still -inf means this row has seen no visible key yet: m and l stay as they
  // are (-inf, 0), and exp(-inf - -inf) = NaN is never evaluated.
  const float m_new = std::max(m, tile_max);
  if (m_new == kNegInf) return 1.0f;
  // m == m_new: exactly 1, no rescale. m == -inf (first visible tile): exp(-inf) = 0, and l, acc are 0.
  const float rescale = m == m_new ? 1.0f : exp_scalar(m - m_new);

  // Pass 2: P = exp(x - m_new) and its row sum.
  float sum = 0.0f;
  j = 0;
#if ABH_SIMD
  const v128_t m_v = wasm_f32x4_splat(m_new);
  v128_t sum_v = wasm_f32x4_splat(0);
  for (; j + 4 <= visible; j += 4) {
    const v128_t e = exp_simd(wasm_f32x4_sub(wasm_v128_load(s + j), m_v));
    wasm_v128_store(s + j, e);
    sum_v = wasm_f32x4_add(sum_v, e);
  }
  sum = horizontal_sum(sum_v);
#endif
  for (; j < visible; ++j) {
    s[j] = exp_scalar(s[j] - m_new);
    sum += s[j];
  }
  l = l * rescale + sum;
  m = m_new;
  return rescale;
}

// Step 4 for one query row of one tile: acc (d_v) = rescale * acc + p (visible) . V (visible, d_v),
// V's rows ldv floats apart. Sixteen (then four) accumulator columns stay in registers while the
// key loop runs, like kernels::matmul.
void rescale_accumulate_row(const float* p, int visible, const float* V, int ldv, float* acc, int d_v, float rescale) {
  int t = 0;
#if ABH_SIMD
  const v128_t a = wasm_f32x4_splat(rescale);
  for (; t + 16 <= d_v; t += 16) {
    v128_t acc0 = wasm_f32x4_mul(wasm_v128_load(acc + t), a);
    v128_t acc1 = wasm_f32x4_mul(wasm_v128_load(acc + t + 4), a);
    v128_t acc2 = wasm_f32x4_mul(wasm_v128_load(acc + t + 8), a);
    v128_t acc3 = wasm_f32x4_mul(wasm_v128_load(acc + t + 12), a);
    for (int j = 0; j < visible; ++j) {
      const v128_t pj = wasm_f32x4_splat(p[j]);
      const float* v = V + std::size_t(j) * ldv + t;
      acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(pj, wasm_v128_load(v)));
      acc1 = wasm_f32x4_add(acc1, wasm_f32x4_mul(pj, wasm_v128_load(v + 4)));
      acc2 = wasm_f32x4_add(acc2, wasm_f32x4_mul(pj, wasm_v128_load(v + 8)));
      acc3 = wasm_f32x4_add(acc3, wasm_f32x4_mul(pj, wasm_v128_load(v + 12)));
    }
    wasm_v128_store(acc + t, acc0);
    wasm_v128_store(acc + t + 4, acc1);
    wasm_v128_store(acc + t + 8, acc2);
    wasm_v128_store(acc + t + 12, acc3);
  }
  for (; t + 4 <= d_v; t += 4) {
    v128_t acc0 = wasm_f32x4_mul(wasm_v128_load(acc + t), a);
    for (int j = 0; j < visible; ++j)
      acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(wasm_f32x4_splat(p[j]), wasm_v128_load(V + std::size_t(j) * ldv + t)));
    wasm_v128_store(acc + t, acc0);
  }
#endif
  for (; t < d_v; ++t) {
    float x = acc[t] * rescale;
    for (int j = 0; j < visible; ++j) x += p[j] * V[std::size_t(j) * ldv + t];
    acc[t] = x;
  }
}

// The deferred softmax division: row (d_v) /= l. A row that saw no key (l == 0) outputs zeros,
// like the naive kernel's fully masked rows.
void normalise_row(float* row, int d_v, float l) {
  if (!(l > 0.0f)) {
    std::fill(row, row + d_v, 0.0f);
    return;
  }
  const float inv = 1.0f / l;
  int t = 0;
#if ABH_SIMD
  const v128_t inv_v = wasm_f32x4_splat(inv);
  for (; t + 4 <= d_v; t += 4) wasm_v128_store(row + t, wasm_f32x4_mul(wasm_v128_load(row + t), inv_v));
#endif
  for (; t < d_v; ++t) row[t] *= inv;
}

// The working memory of one call, allocated once before the loops: one score/probability tile and
// the running max, sum and rescale factor of one query block's rows.
struct Scratch {
  std::vector<float> tile, m, l, rescale;
  Scratch(int block_q, int block_k)
      : tile(std::size_t(block_q) * block_k), m(block_q), l(block_q), rescale(block_q) {}
  std::int64_t floats() const { return std::int64_t(tile.size() + m.size() + l.size() + rescale.size()); }
};

// Copies the step's state into the trace: rows of the query block, after the key block at k0.
void record_step(FlashTrace& trace, const Scratch& s, const Matrix& out, const Matrix& scores, int qb, int kb, int q0,
                 int rows, int k0, int cols, bool skipped) {
  FlashTraceStep step;
  step.q_block = qb;
  step.k_block = kb;
  step.q_start = q0;
  step.q_end = q0 + rows;
  step.k_start = k0;
  step.k_end = k0 + cols;
  step.skipped = skipped;
  step.scores = scores;
  step.probabilities.resize(rows, cols);
  if (skipped) step.probabilities.setZero();
  else std::copy(s.tile.begin(), s.tile.begin() + std::size_t(rows) * cols, step.probabilities.data());
  step.m.assign(s.m.begin(), s.m.begin() + rows);
  step.l.assign(s.l.begin(), s.l.begin() + rows);
  if (skipped) step.rescale.assign(rows, 1.0f);
  else step.rescale.assign(s.rescale.begin(), s.rescale.begin() + rows);
  step.acc = out.block(q0, 0, rows, out.cols());
  trace.steps.push_back(std::move(step));
}

// The one implementation behind both entry points. Shapes are checked; block sizes are clamped to
// n_q, n_k. trace is null on the fast path; tracing copies state out and never changes the numbers.
Matrix run_tiled(const Matrix& Q, const Matrix& K, const Matrix& V, bool causal, float scale, int block_q, int block_k,
                 Scratch& s, FlashTrace* trace) {
  const int n_q = int(Q.rows()), n_k = int(K.rows()), d_k = int(Q.cols()), d_v = int(V.cols());
  const int query_blocks = (n_q + block_q - 1) / block_q, key_blocks = (n_k + block_k - 1) / block_k;
  Matrix out(n_q, d_v);  // each query block's rows double as its accumulator acc
  Matrix scores;         // trace only: the tile's scaled, masked scores before the exp
  float* const tile = s.tile.data();

  for (int qb = 0; qb < query_blocks; ++qb) {
    const int q0 = qb * block_q, rows = std::min(block_q, n_q - q0);
    std::fill(s.m.begin(), s.m.end(), kNegInf);
    std::fill(s.l.begin(), s.l.end(), 0.0f);
    out.middleRows(q0, rows).setZero();

    for (int kb = 0; kb < key_blocks; ++kb) {
      const int k0 = kb * block_k, cols = std::min(block_k, n_k - k0);
      // Causal: every key of this block (and of every later one) is after the block's last query.
      if (causal && k0 > q0 + rows - 1) {
        if (!trace) break;
        scores.setConstant(rows, cols, kNegInf);
        record_step(*trace, s, out, scores, qb, kb, q0, rows, k0, cols, true);
        continue;
      }
      // Step 1: S (rows, cols) = Q_b K_c^T, the only scores that exist at any time.
      const float* Q_b = Q.data() + std::size_t(q0) * d_k;
      const float* K_c = K.data() + std::size_t(k0) * d_k;
      kernels::scores_qkt(Q_b, d_k, K_c, d_k, tile, rows, cols, d_k);
      kernels::repair_overflowed_scores(Q_b, d_k, K_c, d_k, tile, rows, cols, d_k);  // as attention() does
      if (trace) {
        scores.resize(rows, cols);
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j)
            scores(i, j) = (causal && k0 + j > q0 + i) ? kNegInf : tile[std::size_t(i) * cols + j] * scale;
      }
      // Steps 2-4, row by row: online softmax against the running max, then acc = a acc + P V_c.
      for (int i = 0; i < rows; ++i) {
        const int visible = causal ? std::clamp(q0 + i - k0 + 1, 0, cols) : cols;
        float* p = tile + std::size_t(i) * cols;
        s.rescale[i] = online_softmax_row(p, cols, visible, scale, s.m[i], s.l[i]);
        rescale_accumulate_row(p, visible, V.data() + std::size_t(k0) * d_v, d_v, out.data() + std::size_t(q0 + i) * d_v,
                               d_v, s.rescale[i]);
      }
      if (trace) record_step(*trace, s, out, scores, qb, kb, q0, rows, k0, cols, false);
    }
    // out_b = acc / l.
    for (int i = 0; i < rows; ++i) normalise_row(out.data() + std::size_t(q0 + i) * d_v, d_v, s.l[i]);
  }
  return out;
}

template <class T>
Expected<T> fail(const std::string& message) {
  return Expected<T>::failure(message);
}

}  // namespace

std::string check_flash_inputs(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v, const FlashOptions& options) {
  using namespace limits;
  using std::to_string;
  if (n_q < 1 || n_k < 1) return "Q and K need at least one row (got " + to_string(n_q) + " and " + to_string(n_k) + ")";
  if (d_k < 1 || d_v < 1) return "Q and V need at least one column (got d_k = " + to_string(d_k) + ", d_v = " + to_string(d_v) + ")";
  if (k_cols != d_k) return "K has " + to_string(k_cols) + " columns but Q has " + to_string(d_k) + ": queries and keys must share d_k";
  if (v_rows != n_k) return "V has " + to_string(v_rows) + " rows but K has " + to_string(n_k) + ": every key needs a value";
  if (n_q > kMaxFlashSequence || n_k > kMaxFlashSequence)
    return "the tiled kernel's sequence length is limited to " + to_string(kMaxFlashSequence) + " tokens";
  if (d_k > kMaxDim || d_v > kMaxDim) return "d_k and d_v are limited to " + to_string(kMaxDim);
  if (std::int64_t(std::max(n_q, n_k)) * std::max(d_k, d_v) > kMaxFlashMatrixElements)
    return "Q, K and V are limited to " + to_string(kMaxFlashMatrixElements / (1 << 20)) + "M entries each";
  if (options.block_q < 1 || options.block_q > kMaxFlashBlock || options.block_k < 1 || options.block_k > kMaxFlashBlock)
    return "block sizes must be from 1 to " + to_string(kMaxFlashBlock) + " (got block_q = " + to_string(options.block_q) +
           ", block_k = " + to_string(options.block_k) + ")";
  if (options.causal && n_q != n_k)
    return "causal attention needs as many queries as keys (got n_q = " + to_string(n_q) + ", n_k = " + to_string(n_k) + ")";
  return {};
}

Expected<FlashResult> flash_attention(const Matrix& Q, const Matrix& K, const Matrix& V, const FlashOptions& options) {
  const int n_q = int(Q.rows()), n_k = int(K.rows()), d_k = int(Q.cols()), d_v = int(V.cols());
  if (auto error = check_flash_inputs(n_q, n_k, d_k, int(K.cols()), int(V.rows()), d_v, options); !error.empty())
    return fail<FlashResult>(error);
  const int block_q = std::min(options.block_q, n_q), block_k = std::min(options.block_k, n_k);
  const float scale = options.scale ? 1.0f / std::sqrt(float(d_k)) : 1.0f;

  Scratch scratch(block_q, block_k);
  FlashResult result;
  result.output = run_tiled(Q, K, V, options.causal, scale, block_q, block_k, scratch, nullptr);
  if (!result.output.allFinite()) return fail<FlashResult>(kOutputOverflow);
  result.scratch_floats = scratch.floats();
  return result;
}

Expected<FlashTrace> flash_attention_trace(const Matrix& Q, const Matrix& K, const Matrix& V, const FlashOptions& options) {
  using namespace limits;
  const int n_q = int(Q.rows()), n_k = int(K.rows()), d_k = int(Q.cols()), d_v = int(V.cols());
  if (auto error = check_flash_inputs(n_q, n_k, d_k, int(K.cols()), int(V.rows()), d_v, options); !error.empty())
    return fail<FlashTrace>(error);
  if (n_q > kMaxTraceSequence || n_k > kMaxTraceSequence)
    return fail<FlashTrace>("the step-through trace is limited to " + std::to_string(kMaxTraceSequence) + " tokens (got n_q = " +
                            std::to_string(n_q) + ", n_k = " + std::to_string(n_k) + ")");
  if (d_k > kMaxTraceDim || d_v > kMaxTraceDim)
    return fail<FlashTrace>("the step-through trace is limited to d_k and d_v of " + std::to_string(kMaxTraceDim));

  FlashTrace trace;
  trace.n_q = n_q;
  trace.n_k = n_k;
  trace.d_k = d_k;
  trace.d_v = d_v;
  trace.block_q = std::min(options.block_q, n_q);
  trace.block_k = std::min(options.block_k, n_k);
  trace.query_blocks = (n_q + trace.block_q - 1) / trace.block_q;
  trace.key_blocks = (n_k + trace.block_k - 1) / trace.block_k;
  trace.causal = options.causal;
  trace.scale_factor = options.scale ? 1.0f / std::sqrt(float(d_k)) : 1.0f;
  trace.steps.reserve(std::size_t(trace.query_blocks) * trace.key_blocks);

  Scratch scratch(trace.block_q, trace.block_k);
  trace.output = run_tiled(Q, K, V, options.causal, trace.scale_factor, trace.block_q, trace.block_k, scratch, &trace);
  if (!trace.output.allFinite()) return fail<FlashTrace>(kOutputOverflow);
  return trace;
}

}  // namespace abh
