#include "flash.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "attention.h"  // kOutputOverflow
#include "engine_limits.h"
#include "kernels.h"
#include "microkernels.h"  // DotTile, OuterTile, vf; the same exp polynomial as the naive softmax

namespace abh {
namespace {

using namespace kernels::detail;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The four steps of a tile are separate functions on purpose: one function per loop nest keeps
// V8's register allocator from spilling the micro-tiles' accumulators (measured: the fully inlined
// run_tiled was ~30% slower).
#define ABH_TILE_STEP __attribute__((noinline))

// How the tile is laid out: key-major, S^T. The tile buffer holds (cols, rows) with row stride
// `rows`: entry (j, i) is query q0 + i against key k0 + j. Four neighbouring queries are then one
// vector, so the online softmax runs across queries (the running max m, sum l and rescale factor
// of four rows in one register), and in step 4 the probabilities of four queries for one key are
// the splatted A operand of the outer-product tile, against rows of V read in place.
//
// Causal: key k0 + j is visible to query q0 + i iff k0 + j <= q0 + i. For the four queries from i,
// keys from j_end(i) = q0 + i + 4 - k0 on are invisible to all four and are never touched.

// Keys visible to at least one of the queries i .. i + lanes - 1 of this tile: [0, result).
inline int visible_keys(bool causal, int q0, int i, int lanes, int k0, int cols) {
  return causal ? std::clamp(q0 + i + lanes - k0, 0, cols) : cols;
}

// Step 1 on one tile: T (cols, rows) = K_c Q_b^T, raw dot products. Dot tiles of 4 queries x 2 keys
// (8 accumulators, reduced to two columns of four); with `causal`, keys after all four queries are
// skipped (their entries are never read). The same summation order as kernels::scores_qkt, so the
// scores are bit for bit those of the naive kernel.
ABH_TILE_STEP void tile_scores(const float* Q_b, int ldq, const float* K_c, int ldk, float* T, int rows, int cols, int d,
                               bool causal, int q0, int k0) {
  const int d4 = d & ~3;
  int i = 0;
  for (; i + 4 <= rows; i += 4) {
    const float* q = Q_b + std::size_t(i) * ldq;
    const int j_end = visible_keys(causal, q0, i, 4, k0, cols);
    int j = 0;
    for (; j + 2 <= j_end; j += 2) {
      const float* k = K_c + std::size_t(j) * ldk;
      DotTile<4, 2> t;
      t.run(q, ldq, k, ldk, d4);
      float* c0 = T + std::size_t(j) * rows + i;
      vstore(c0, vreduce4(t.acc[0][0], t.acc[1][0], t.acc[2][0], t.acc[3][0]));
      vstore(c0 + rows, vreduce4(t.acc[0][1], t.acc[1][1], t.acc[2][1], t.acc[3][1]));
      if (d4 < d)
        for (int jj = 0; jj < 2; ++jj)
          for (int r = 0; r < 4; ++r)
            c0[std::size_t(jj) * rows + r] += dot_tail(q + std::size_t(r) * ldq, k + std::size_t(jj) * ldk, d4, d);
    }
    if (j < j_end) {  // one key left
      const float* k = K_c + std::size_t(j) * ldk;
      DotTile<4, 1> t;
      t.run(q, ldq, k, ldk, d4);
      float* c0 = T + std::size_t(j) * rows + i;
      vstore(c0, vreduce4(t.acc[0][0], t.acc[1][0], t.acc[2][0], t.acc[3][0]));
      if (d4 < d)
        for (int r = 0; r < 4; ++r) c0[r] += dot_tail(q + std::size_t(r) * ldq, k, d4, d);
    }
  }
  for (; i < rows; ++i) {  // fewer than four queries left: one at a time
    const float* q = Q_b + std::size_t(i) * ldq;
    const int j_end = visible_keys(causal, q0, i, 1, k0, cols);
    for (int j = 0; j < j_end; ++j) {
      const float* k = K_c + std::size_t(j) * ldk;
      DotTile<1, 1> t;
      t.run(q, ldq, k, ldk, d4);
      T[std::size_t(j) * rows + i] = vhsum(t.acc[0][0]) + dot_tail(q, k, d4, d);
    }
  }
}

// Scores past float32's range come out of step 1 as +-inf or NaN; like attention() (see
// kernels::repair_overflowed_scores) they are recomputed in double and clamped. A vector scan of
// the visible entries first, the repair only if it finds one.
ABH_TILE_STEP void repair_tile(const float* Q_b, int ldq, const float* K_c, int ldk, float* T, int rows, int cols, int d, bool causal,
                 int q0, int k0) {
  vmask bad = vmask_none();
  bool any = false;
  int i = 0;
  for (; i + 4 <= rows; i += 4) {
    const int j_end = visible_keys(causal, q0, i, 4, k0, cols);
    for (int j = 0; j < j_end; ++j) bad = vmask_or(bad, vnot_finite(vload(T + std::size_t(j) * rows + i)));
  }
  for (; i < rows; ++i)
    for (int j = 0; j < visible_keys(causal, q0, i, 1, k0, cols); ++j) any = any || !std::isfinite(T[std::size_t(j) * rows + i]);
  if (!any && !vany(bad)) return;
  constexpr double kMax = std::numeric_limits<float>::max();
  for (int j = 0; j < cols; ++j)
    for (int r = 0; r < rows; ++r) {
      float& s = T[std::size_t(j) * rows + r];
      if ((causal && k0 + j > q0 + r) || std::isfinite(s)) continue;
      const float* q = Q_b + std::size_t(r) * ldq;
      const float* k = K_c + std::size_t(j) * ldk;
      double dot = 0;
      for (int t = 0; t < d; ++t) dot += double(q[t]) * double(k[t]);
      s = float(std::max(-kMax, std::min(kMax, dot)));
    }
}

// Steps 2-3 on one tile, online: for each query, x = score * scale (-inf where masked), the tile's
// max, m_new = max(m, tile max), P = exp(x - m_new) in place, l = l * rescale + sum P, where
// rescale = exp(m - m_new) is 1 when the max stayed and 0 on the first visible tile. A query that
// has seen no visible key yet keeps m = -inf, l = 0, rescale = 1 (exp(-inf - -inf) is never taken).
// Four queries per vector; fewer than four left, one at a time with the same arithmetic.
ABH_TILE_STEP void online_softmax(float* T, int rows, int cols, float scale, bool causal, int q0, int k0, float* m, float* l,
                    float* rescale) {
  const vf scale_v = vsplat(scale), neg_inf_v = vsplat(kNegInf), zero_v = vzero(), one_v = vsplat(1.0f);
  int i = 0;
  for (; i + 4 <= rows; i += 4) {
    const int j_end = visible_keys(causal, q0, i, 4, k0, cols);
    const float qi = float(q0 + i);
    const vf query_v = vadd(vsplat(qi), vmake(0.0f, 1.0f, 2.0f, 3.0f));
    // Pass A: the tile's max per query. Raw scores: for scale > 0, max(s) * scale is exactly
    // max(s * scale) (rounding is monotonic), so the scaling waits for pass B. Keys before j_all are
    // visible to all four queries; only the last few need the causal mask.
    const int j_all = causal ? std::clamp(q0 + i - k0 + 1, 0, j_end) : j_end;
    vf max_a = neg_inf_v, max_b = neg_inf_v;
    int j = 0;
    for (; j + 2 <= j_all; j += 2) {
      max_a = vmax(max_a, vload(T + std::size_t(j) * rows + i));
      max_b = vmax(max_b, vload(T + std::size_t(j + 1) * rows + i));
    }
    for (; j < j_all; ++j) max_a = vmax(max_a, vload(T + std::size_t(j) * rows + i));
    for (; j < j_end; ++j)
      max_a = vmax(max_a, vselect(vle(vsplat(float(k0 + j)), query_v), vload(T + std::size_t(j) * rows + i), neg_inf_v));
    const vf max_v = vmul(vmax(max_a, max_b), scale_v);
    const vf m_old = vload(m + i), m_new = vmax(m_old, max_v);
    const vf m_use = vselect(veq(m_new, neg_inf_v), zero_v, m_new);  // exp(-inf - 0) = 0 for unseen rows
    const vf resc = vselect(veq(m_old, m_new), one_v, vexp(vsub(m_old, m_new)));
    // Pass B: P = exp(s * scale - m_new), column sums; masked entries exp(-inf) = 0.
    vf sum_a = zero_v, sum_b = zero_v;
    for (j = 0; j + 2 <= j_all; j += 2) {
      float* t = T + std::size_t(j) * rows + i;
      const vf p0 = vexp(vsub(vmul(vload(t), scale_v), m_use));
      const vf p1 = vexp(vsub(vmul(vload(t + rows), scale_v), m_use));
      vstore(t, p0);
      vstore(t + rows, p1);
      sum_a = vadd(sum_a, p0);
      sum_b = vadd(sum_b, p1);
    }
    for (; j < j_end; ++j) {
      float* t = T + std::size_t(j) * rows + i;
      vf x = vmul(vload(t), scale_v);
      if (j >= j_all) x = vselect(vle(vsplat(float(k0 + j)), query_v), x, neg_inf_v);
      const vf p = vexp(vsub(x, m_use));
      vstore(t, p);
      sum_a = vadd(sum_a, p);
    }
    const vf sum_v = vadd(sum_a, sum_b);
    vstore(l + i, vadd(vmul(vload(l + i), resc), sum_v));
    vstore(m + i, m_new);
    vstore(rescale + i, resc);
  }
  for (; i < rows; ++i) {
    const int j_end = visible_keys(causal, q0, i, 1, k0, cols);
    float tile_max = kNegInf;
    for (int j = 0; j < j_end; ++j) {
      float& x = T[std::size_t(j) * rows + i];
      x *= scale;
      tile_max = std::max(tile_max, x);
    }
    const float m_new = std::max(m[i], tile_max);
    if (m_new == kNegInf) {
      rescale[i] = 1.0f;
      for (int j = 0; j < j_end; ++j) T[std::size_t(j) * rows + i] = 0.0f;
      continue;
    }
    const float resc = m[i] == m_new ? 1.0f : exp_scalar(m[i] - m_new);
    float sum = 0.0f;
    for (int j = 0; j < j_end; ++j) {
      float& x = T[std::size_t(j) * rows + i];
      x = exp_scalar(x - m_new);
      sum += x;
    }
    l[i] = l[i] * resc + sum;
    m[i] = m_new;
    rescale[i] = resc;
  }
}

// Step 4 on one tile: acc (rows, d_v) = rescale * acc + P V_c, with P read from the key-major tile
// and V_c's rows in place. Outer-product tiles of 4 queries x 8 (then 4) columns of V.
// On the first key block (`first`) acc is not read: it starts at zero, so the output needs no
// separate zeroing pass.
template <int MR>
ABH_INLINE void accumulate_rows(const float* T, int ldt, int j_end, const float* V_c, int ldv, float* acc, int ldacc, int d_v,
                                const float* rescale, bool first) {
  int c = 0;
  for (; c + 8 <= d_v; c += 8) {
    OuterTile<MR, 2> t;
    if (first) t.zero();
    else t.load_scaled(acc + c, ldacc, rescale);
    t.run(T, 1, ldt, V_c + c, ldv, 0, j_end);
    t.store(acc + c, ldacc);
  }
  for (; c + 4 <= d_v; c += 4) {
    OuterTile<MR, 1> t;
    if (first) t.zero();
    else t.load_scaled(acc + c, ldacc, rescale);
    t.run(T, 1, ldt, V_c + c, ldv, 0, j_end);
    t.store(acc + c, ldacc);
  }
  for (; c < d_v; ++c)
    for (int r = 0; r < MR; ++r) {
      float x = first ? 0.0f : acc[std::size_t(r) * ldacc + c] * rescale[r];
      for (int j = 0; j < j_end; ++j) x += T[std::size_t(j) * ldt + r] * V_c[std::size_t(j) * ldv + c];
      acc[std::size_t(r) * ldacc + c] = x;
    }
}

ABH_TILE_STEP void tile_accumulate(const float* T, int rows, int cols, const float* V_c, int d_v, float* acc,
                                   const float* rescale, bool causal, int q0, int k0, bool first) {
  int i = 0;
  for (; i + 4 <= rows; i += 4)
    accumulate_rows<4>(T + i, rows, visible_keys(causal, q0, i, 4, k0, cols), V_c, d_v, acc + std::size_t(i) * d_v, d_v,
                       d_v, rescale + i, first);
  for (; i < rows; ++i)
    accumulate_rows<1>(T + i, rows, visible_keys(causal, q0, i, 1, k0, cols), V_c, d_v, acc + std::size_t(i) * d_v, d_v,
                       d_v, rescale + i, first);
}

// The deferred softmax division: row (d_v) /= l. A row that saw no key (l == 0) outputs zeros,
// like the naive kernel's fully masked rows.
void normalise_row(float* row, int d_v, float l) {
  if (!(l > 0.0f)) {
    std::fill(row, row + d_v, 0.0f);
    return;
  }
  const float inv = 1.0f / l;
  const vf inv_v = vsplat(inv);
  int t = 0;
  for (; t + 4 <= d_v; t += 4) vstore(row + t, vmul(vload(row + t), inv_v));
  for (; t < d_v; ++t) row[t] *= inv;
}

// Matrix::allFinite, four lanes at a time (Eigen's own packet math is off under wasm).
bool all_finite(const Matrix& m) {
  const float* p = m.data();
  const std::size_t size = std::size_t(m.size()), size4 = size & ~std::size_t(3);
  vmask bad = vmask_none();
  for (std::size_t i = 0; i < size4; i += 4) bad = vmask_or(bad, vnot_finite(vload(p + i)));
  if (vany(bad)) return false;
  for (std::size_t i = size4; i < size; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

// The working memory of one call, allocated once before the loops: one score/probability tile and
// the running max, sum and rescale factor of one query block's rows.
struct Scratch {
  std::vector<float> tile, m, l, rescale;
  Scratch(int block_q, int block_k)
      : tile(std::size_t(block_q) * block_k), m(block_q), l(block_q), rescale(block_q) {}
  std::int64_t floats() const { return std::int64_t(tile.size() + m.size() + l.size() + rescale.size()); }
};

// Copies the step's state into the trace: rows of the query block, after the key block at k0. The
// tile is key-major; the trace's matrices are query-major, with 0 for keys a row cannot see.
void record_step(FlashTrace& trace, const Scratch& s, const Matrix& out, const Matrix& scores, int qb, int kb, int q0,
                 int rows, int k0, int cols, bool causal, bool skipped) {
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
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      step.probabilities(i, j) = skipped || (causal && k0 + j > q0 + i) ? 0.0f : s.tile[std::size_t(j) * rows + i];
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
    // No zeroing of the block's output rows: the first key block (never skipped, key 0 is visible to
    // every query) writes them.
    const float* Q_b = Q.data() + std::size_t(q0) * d_k;
    float* acc = out.data() + std::size_t(q0) * d_v;

    for (int kb = 0; kb < key_blocks; ++kb) {
      const int k0 = kb * block_k, cols = std::min(block_k, n_k - k0);
      // Causal: every key of this block (and of every later one) is after the block's last query.
      if (causal && k0 > q0 + rows - 1) {
        if (!trace) break;
        scores.setConstant(rows, cols, kNegInf);
        record_step(*trace, s, out, scores, qb, kb, q0, rows, k0, cols, causal, true);
        continue;
      }
      const float* K_c = K.data() + std::size_t(k0) * d_k;
      // Step 1: S^T (cols, rows) = K_c Q_b^T, the only scores that exist at any time.
      tile_scores(Q_b, d_k, K_c, d_k, tile, rows, cols, d_k, causal, q0, k0);
      repair_tile(Q_b, d_k, K_c, d_k, tile, rows, cols, d_k, causal, q0, k0);  // as attention() does
      if (trace) {
        scores.resize(rows, cols);
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j)
            scores(i, j) = (causal && k0 + j > q0 + i) ? kNegInf : tile[std::size_t(j) * rows + i] * scale;
      }
      // Steps 2-3: online softmax against the running max. Step 4: acc = rescale acc + P V_c.
      online_softmax(tile, rows, cols, scale, causal, q0, k0, s.m.data(), s.l.data(), s.rescale.data());
      tile_accumulate(tile, rows, cols, V.data() + std::size_t(k0) * d_v, d_v, acc, s.rescale.data(), causal, q0, k0, kb == 0);
      if (trace) record_step(*trace, s, out, scores, qb, kb, q0, rows, k0, cols, causal, false);
    }
    // out_b = acc / l.
    for (int i = 0; i < rows; ++i) normalise_row(acc + std::size_t(i) * d_v, d_v, s.l[i]);
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
  if (!all_finite(result.output)) return fail<FlashResult>(kOutputOverflow);
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
  if (!all_finite(trace.output)) return fail<FlashTrace>(kOutputOverflow);
  return trace;
}

}  // namespace abh
