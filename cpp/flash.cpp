// The tiled FlashAttention kernel (flash.h): packing, the SIMD tile steps, the online softmax, the
// trace and the checks. ~510 lines in one file on purpose: the tile steps are separate noinline
// functions (CMakeLists.txt says why) that share this file's helpers and Scratch layout, which no
// other file should see.
#include "flash.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "attention.h"  // kOutputOverflow, score_scale, all_finite
#include "engine_limits.h"
#include "kernels.h"
#include "microkernels.h"  // OuterTile, vf; the same exp polynomial as the naive softmax

namespace abh {
namespace {

using namespace kernels::detail;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The four steps of a tile are separate functions on purpose: one function per loop nest keeps
// V8's register allocator from spilling the micro-tiles' accumulators (measured: the fully inlined
// run_tiled was ~30% slower).
#define ABH_TILE_STEP __attribute__((noinline))

// How the tile is laid out: key-major, S^T. The tile buffer holds (cols, rows) with row stride
// ldt = rows rounded up to 4: entry (j, i) is query q0 + i against key k0 + j. Four neighbouring
// queries are then one vector, so the online softmax runs across queries (the running max m, sum l
// and rescale factor of four rows in one register), and in step 4 the probabilities of four queries
// for one key are the splatted A operand of the outer-product tile, against rows of V read in place.
// Lanes rows..ldt-1 are padding: their queries are zero, so their scores are 0 and stay finite; they
// never reach the output.
//
// Step 1 is an outer product too, over packed copies: Q_b^T (d, ldt), packed once per query block
// and read by every key block, and K_c in panels of 4 keys (for each t, the 4 keys' t-th entries
// side by side), packed once per tile. Each micro-tile step then reads 4 splats from one pointer and
// 2 vectors from another, both at constant offsets: V8 turns those into plain loads, where reading
// rows of Q and K in place cost an address computation per load (measured on the generated x64
// code). Packing is O(tile) work against the tile's O(tile * d).
//
// Causal: key k0 + j is visible to query q0 + i iff k0 + j <= q0 + i. For the queries from i on,
// keys from j_end(i) = q0 + i + lanes - k0 on are invisible to all of them and are never read.

inline int round_up4(int x) { return (x + 3) & ~3; }

// Keys visible to at least one of the queries i .. i + lanes - 1 of this tile: [0, result).
inline int visible_keys(bool causal, int q0, int i, int lanes, int k0, int cols) {
  return causal ? std::clamp(q0 + i + lanes - k0, 0, cols) : cols;
}

// Q_b (rows, d), row stride ldq, transposed into qt (d, ldt); padding lanes zero.
ABH_TILE_STEP void pack_queries(const float* Q_b, int ldq, int rows, int d, float* qt, int ldt) {
  for (int t = 0; t < d; ++t) {
    float* qt_row = qt + std::size_t(t) * ldt;
    for (int i = 0; i < rows; ++i) qt_row[i] = Q_b[std::size_t(i) * ldq + t];
    for (int i = rows; i < ldt; ++i) qt_row[i] = 0.0f;
  }
}

// K_c (cols, d), row stride ldk, into panels of 4 keys: kp[j0 * d + 4 t + r] = K_c(j0 + r, t) for
// j0 a multiple of 4; keys past cols are zero. Four keys' entries t..t+3 are a 4x4 block whose
// transpose is four consecutive panel vectors, so most of the packing is 4 loads, 8 shuffles and 4
// stores per 16 floats (the element-by-element copy was 3-4% of a call).
ABH_TILE_STEP void pack_keys(const float* K_c, int ldk, int cols, int d, float* kp) {
  const int d4 = d & ~3;
  for (int j0 = 0; j0 < cols; j0 += 4) {
    float* panel = kp + std::size_t(j0) * d;
    const int keys = std::min(4, cols - j0);
    const float* k[4];
    for (int r = 0; r < 4; ++r)
      k[r] = K_c + std::size_t(j0 + std::min(r, keys - 1)) * ldk;  // missing keys: zeroed below
    for (int t = 0; t < d4; t += 4) {
      vf a = vload(k[0] + t), b = vload(k[1] + t), c = vload(k[2] + t), e = vload(k[3] + t);
      vtranspose4(a, b, c, e);
      vstore(panel + 4 * t, a);
      vstore(panel + 4 * t + 4, b);
      vstore(panel + 4 * t + 8, c);
      vstore(panel + 4 * t + 12, e);
    }
    for (int t = d4; t < d; ++t)
      for (int r = 0; r < 4; ++r) panel[4 * t + r] = k[r][t];
    for (int r = keys; r < 4; ++r)
      for (int t = 0; t < d; ++t) panel[4 * t + r] = 0.0f;
  }
}

// Step 1 on one tile: T (cols, ldt) = K_c Q_b^T, raw dot products, from the packed kp and qt.
// Outer-product tiles of 4 keys x 8 queries (8 accumulators), then 4 queries; keys are padded to a
// multiple of 4 in kp and T. With `causal`, key panels after all of a tile's queries are skipped.
// Each score is summed over t in order from 0, as kernels::scores_qkt does: the same bits.
ABH_TILE_STEP void tile_scores(const float* kp, const float* qt, int ldt, int d, float* T, int cols, bool causal,
                               int q0, int k0) {
  for_each_column_tile<4>(ldt, [&](auto& t, int i) ABH_INLINE_LAMBDA {
    const int j_end = visible_keys(causal, q0, i, t.kCols, k0, cols);
    for (int j = 0; j < j_end; j += 4) {
      t.zero();
      t.run(kp + std::size_t(j) * d, 1, 4, qt + i, ldt, 0, d);
      t.store(T + std::size_t(j) * ldt + i, ldt);
    }
  });  // ldt is a multiple of 4: no query is left over
}

// Scores past float32's range come out of step 1 as +-inf or NaN; like attention() (see
// kernels::repair_overflowed_scores) they are recomputed in double and clamped. A vector scan of
// the visible entries first (x - x is 0 for finite x, NaN otherwise), the repair only if it finds one.
ABH_TILE_STEP void repair_tile(const float* Q_b, int ldq, const float* K_c, int ldk, float* T, int ldt, int rows,
                               int cols, int d, bool causal, int q0, int k0) {
  vf check = vzero();
  for (int i = 0; i < ldt; i += 4) {
    const int j_end = visible_keys(causal, q0, i, 4, k0, cols);
    for (int j = 0; j < j_end; ++j) {
      const vf x = vload(T + std::size_t(j) * ldt + i);
      check = vadd(check, vsub(x, x));
    }
  }
  if (!vany(vnot_finite(check))) return;
  constexpr double kMax = std::numeric_limits<float>::max();
  for (int j = 0; j < cols; ++j)
    for (int r = 0; r < rows; ++r) {
      float& s = T[std::size_t(j) * ldt + r];
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
// Four queries per vector, padding lanes included (their m, l are never read).
ABH_TILE_STEP void online_softmax(float* T, int ldt, int cols, float scale, bool causal, int q0, int k0, float* m,
                                  float* l, float* rescale) {
  const vf scale_v = vsplat(scale), neg_inf_v = vsplat(kNegInf), zero_v = vzero(), one_v = vsplat(1.0f);
  for (int i = 0; i < ldt; i += 4) {
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
      max_a = vmax(max_a, vload(T + std::size_t(j) * ldt + i));
      max_b = vmax(max_b, vload(T + std::size_t(j + 1) * ldt + i));
    }
    for (; j < j_all; ++j) max_a = vmax(max_a, vload(T + std::size_t(j) * ldt + i));
    for (; j < j_end; ++j)
      max_a = vmax(max_a, vselect(vle(vsplat(float(k0 + j)), query_v), vload(T + std::size_t(j) * ldt + i), neg_inf_v));
    const vf max_v = vmul(vmax(max_a, max_b), scale_v);
    const vf m_old = vload(m + i), m_new = vmax(m_old, max_v);
    const vf m_use = vselect(veq(m_new, neg_inf_v), zero_v, m_new);  // exp(-inf - 0) = 0 for unseen rows
    const vf resc = vselect(veq(m_old, m_new), one_v, vexp(vsub(m_old, m_new)));
    // Pass B: P = exp(s * scale - m_new), column sums; masked entries exp(-inf) = 0.
    vf sum_a = zero_v, sum_b = zero_v;
    for (j = 0; j + 2 <= j_all; j += 2) {
      float* t = T + std::size_t(j) * ldt + i;
      const vf p0 = vexp(vsub(vmul(vload(t), scale_v), m_use));
      const vf p1 = vexp(vsub(vmul(vload(t + ldt), scale_v), m_use));
      vstore(t, p0);
      vstore(t + ldt, p1);
      sum_a = vadd(sum_a, p0);
      sum_b = vadd(sum_b, p1);
    }
    for (; j < j_end; ++j) {
      float* t = T + std::size_t(j) * ldt + i;
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
}

// Step 4 on one tile: acc (rows, d_v) = rescale * acc + P V_c, with P read from the key-major tile
// and V_c's rows in place. Outer-product tiles of 4 queries x 8 (then 4) columns of V.
// On the first key block (`first`) acc is not read: it starts at zero, so the output needs no
// separate zeroing pass.
template <int MR>
ABH_INLINE void accumulate_rows(const float* T, int ldt, int j_end, const float* V_c, int ldv, float* acc, int ldacc,
                                int d_v, const float* rescale, bool first) {
  int c = for_each_column_tile<MR>(d_v, [&](auto& t, int col) ABH_INLINE_LAMBDA {
    if (first)
      t.zero();
    else
      t.load_scaled(acc + col, ldacc, rescale);
    t.run(T, 1, ldt, V_c + col, ldv, 0, j_end);
    t.store(acc + col, ldacc);
  });
  for (; c < d_v; ++c)
    for (int r = 0; r < MR; ++r) {
      float x = first ? 0.0f : acc[std::size_t(r) * ldacc + c] * rescale[r];
      for (int j = 0; j < j_end; ++j) x += T[std::size_t(j) * ldt + r] * V_c[std::size_t(j) * ldv + c];
      acc[std::size_t(r) * ldacc + c] = x;
    }
}

ABH_TILE_STEP void tile_accumulate(const float* T, int ldt, int rows, int cols, const float* V_c, int ldv, int d_v,
                                   float* acc, int ldacc, const float* rescale, bool causal, int q0, int k0,
                                   bool first) {
  int i = 0;
  for (; i + 4 <= rows; i += 4)
    accumulate_rows<4>(T + i, ldt, visible_keys(causal, q0, i, 4, k0, cols), V_c, ldv, acc + std::size_t(i) * ldacc,
                       ldacc, d_v, rescale + i, first);
  for (; i < rows; ++i)
    accumulate_rows<1>(T + i, ldt, visible_keys(causal, q0, i, 1, k0, cols), V_c, ldv, acc + std::size_t(i) * ldacc,
                       ldacc, d_v, rescale + i, first);
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

// The working memory of one call, allocated once before the loops and shared by every head: one
// score/probability tile (round_up4(block_k), ldt), the running max, sum and rescale factor of one
// query block's rows (ldt = round_up4(block_q)), and the packed Q_b^T (d_k, ldt) and K_c panels
// (round_up4(block_k), d_k).
struct Scratch {
  int ldt;
  std::vector<float> tile, m, l, rescale, qt, kp;
  Scratch(int block_q, int block_k, int d_k)
      : ldt(round_up4(block_q)),
        tile(std::size_t(round_up4(block_k)) * ldt),
        m(ldt),
        l(ldt),
        rescale(ldt),
        qt(std::size_t(d_k) * ldt),
        kp(std::size_t(round_up4(block_k)) * d_k) {}
  std::int64_t floats() const {
    return std::int64_t(tile.size() + m.size() + l.size() + rescale.size() + qt.size() + kp.size());
  }
};

// Copies the step's state into the trace: rows of the query block, after the key block at k0. The
// tile is key-major; the trace's matrices are query-major, with 0 for keys a row cannot see.
void record_step(FlashTrace& trace, const Scratch& s, const float* acc, int ldacc, int d_v, const Matrix& scores,
                 int qb, int kb, int q0, int rows, int k0, int cols, bool causal, bool skipped) {
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
      step.probabilities(i, j) = skipped || (causal && k0 + j > q0 + i) ? 0.0f : s.tile[std::size_t(j) * s.ldt + i];
  step.m.assign(s.m.begin(), s.m.begin() + rows);
  step.l.assign(s.l.begin(), s.l.begin() + rows);
  if (skipped)
    step.rescale.assign(rows, 1.0f);
  else
    step.rescale.assign(s.rescale.begin(), s.rescale.begin() + rows);
  step.acc = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>(acc, rows, d_v, Eigen::OuterStride<>(ldacc));
  trace.steps.push_back(std::move(step));
}

// One head, one query block at a time. Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v) and the output
// (n_q, d_v) are read and written through row strides, so a head can be a column slice of wider
// matrices. Shapes are checked; block sizes are clamped to n_q, n_k. trace is null on the fast
// path; tracing copies state out and never changes the numbers.
struct HeadView {
  const float* Q;
  int ldq;
  const float* K;
  int ldk;
  const float* V;
  int ldv;
  float* out;
  int ldo;
  int n_q, n_k, d_k, d_v;
};

void run_tiled(const HeadView& h, bool causal, float scale, int block_q, int block_k, Scratch& s, FlashTrace* trace) {
  const int query_blocks = (h.n_q + block_q - 1) / block_q, key_blocks = (h.n_k + block_k - 1) / block_k;
  const int ldt = s.ldt;
  Matrix scores;  // trace only: the tile's scaled, masked scores before the exp
  float* const tile = s.tile.data();

  for (int qb = 0; qb < query_blocks; ++qb) {
    const int q0 = qb * block_q, rows = std::min(block_q, h.n_q - q0);
    std::fill(s.m.begin(), s.m.end(), kNegInf);
    std::fill(s.l.begin(), s.l.end(), 0.0f);
    // No zeroing of the block's output rows: the first key block (never skipped, key 0 is visible to
    // every query) writes them.
    const float* Q_b = h.Q + std::size_t(q0) * h.ldq;
    float* acc = h.out + std::size_t(q0) * h.ldo;
    pack_queries(Q_b, h.ldq, rows, h.d_k, s.qt.data(), ldt);

    for (int kb = 0; kb < key_blocks; ++kb) {
      const int k0 = kb * block_k, cols = std::min(block_k, h.n_k - k0);
      // Causal: every key of this block (and of every later one) is after the block's last query.
      if (causal && k0 > q0 + rows - 1) {
        if (!trace) break;
        scores.setConstant(rows, cols, kNegInf);
        record_step(*trace, s, acc, h.ldo, h.d_v, scores, qb, kb, q0, rows, k0, cols, causal, true);
        continue;
      }
      const float* K_c = h.K + std::size_t(k0) * h.ldk;
      // Step 1: S^T (cols, rows) = K_c Q_b^T, the only scores that exist at any time.
      pack_keys(K_c, h.ldk, cols, h.d_k, s.kp.data());
      tile_scores(s.kp.data(), s.qt.data(), ldt, h.d_k, tile, cols, causal, q0, k0);
      repair_tile(Q_b, h.ldq, K_c, h.ldk, tile, ldt, rows, cols, h.d_k, causal, q0, k0);  // as attention() does
      if (trace) {
        scores.resize(rows, cols);
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j)
            scores(i, j) = (causal && k0 + j > q0 + i) ? kNegInf : tile[std::size_t(j) * ldt + i] * scale;
      }
      // Steps 2-3: online softmax against the running max. Step 4: acc = rescale acc + P V_c.
      online_softmax(tile, ldt, cols, scale, causal, q0, k0, s.m.data(), s.l.data(), s.rescale.data());
      tile_accumulate(tile, ldt, rows, cols, h.V + std::size_t(k0) * h.ldv, h.ldv, h.d_v, acc, h.ldo, s.rescale.data(),
                      causal, q0, k0, kb == 0);
      if (trace) record_step(*trace, s, acc, h.ldo, h.d_v, scores, qb, kb, q0, rows, k0, cols, causal, false);
    }
    // out_b = acc / l.
    for (int i = 0; i < rows; ++i) normalise_row(acc + std::size_t(i) * h.ldo, h.d_v, s.l[i]);
  }
}

HeadView whole(const Matrix& Q, const Matrix& K, const Matrix& V, Matrix& out) {
  return {Q.data(),   int(Q.cols()),   K.data(),      int(K.cols()), V.data(),      int(V.cols()),
          out.data(), int(out.cols()), int(Q.rows()), int(K.rows()), int(Q.cols()), int(V.cols())};
}

Status check_flash_matrix_size(int rows, int cols) {
  if (std::int64_t(rows) * cols > limits::kMaxFlashMatrixElements)
    return Failure{"Q, K and V are limited to " + std::to_string(limits::kMaxFlashMatrixElements / (1 << 20)) +
                   "M entries each"};
  return Ok{};
}

}  // namespace

Status check_flash_inputs(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v, const FlashOptions& options) {
  using namespace limits;
  using std::to_string;
  if (auto shapes = check_qkv_shapes(n_q, n_k, d_k, k_cols, v_rows, d_v); !shapes.ok()) return shapes;
  if (auto sizes = check_qkv_limits(n_q, n_k, d_k, d_v, kMaxFlashSequence, "the tiled kernel's sequence length");
      !sizes.ok())
    return sizes;
  if (auto size = check_flash_matrix_size(std::max(n_q, n_k), std::max(d_k, d_v)); !size.ok()) return size;
  if (options.block_q < 1 || options.block_q > kMaxFlashBlock || options.block_k < 1 ||
      options.block_k > kMaxFlashBlock)
    return Failure{"block sizes must be from 1 to " + to_string(kMaxFlashBlock) +
                   " (got block_q = " + to_string(options.block_q) + ", block_k = " + to_string(options.block_k) + ")"};
  if (options.causal && n_q != n_k)
    return Failure{"causal attention needs as many queries as keys (got n_q = " + to_string(n_q) +
                   ", n_k = " + to_string(n_k) + ")"};
  return Ok{};
}

Status check_flash_multi_head_inputs(int n_q, int n_k, int width_qk, int k_cols, int v_rows, int width_v, int heads,
                                     const FlashOptions& options) {
  using std::to_string;
  if (heads < 1 || heads > limits::kMaxHeads)
    return Failure{"heads must be from 1 to " + to_string(limits::kMaxHeads) + " (got " + to_string(heads) + ")"};
  if (width_qk % heads != 0 || width_v % heads != 0)
    return Failure{"Q has " + to_string(width_qk) + " and V " + to_string(width_v) + " columns: both must split into " +
                   to_string(heads) + " heads of equal width"};
  if (k_cols != width_qk)
    return Failure{"K has " + to_string(k_cols) + " columns but Q has " + to_string(width_qk) +
                   ": queries and keys must share heads * d_k"};
  if (auto head = check_flash_inputs(n_q, n_k, width_qk / heads, width_qk / heads, v_rows, width_v / heads, options);
      !head.ok())
    return head;
  return check_flash_matrix_size(std::max(n_q, n_k), std::max(width_qk, width_v));
}

Status check_flash_trace_inputs(int n_q, int n_k, int d_k, int k_cols, int v_rows, int d_v,
                                const FlashOptions& options) {
  using namespace limits;
  using std::to_string;
  if (auto inputs = check_flash_inputs(n_q, n_k, d_k, k_cols, v_rows, d_v, options); !inputs.ok()) return inputs;
  if (n_q > kMaxTraceSequence || n_k > kMaxTraceSequence)
    return Failure{"the step-through trace is limited to " + to_string(kMaxTraceSequence) +
                   " tokens (got n_q = " + to_string(n_q) + ", n_k = " + to_string(n_k) + ")"};
  if (d_k > kMaxTraceDim || d_v > kMaxTraceDim)
    return Failure{"the step-through trace is limited to d_k and d_v of " + to_string(kMaxTraceDim)};
  return Ok{};
}

Expected<FlashResult> flash_attention(const Matrix& Q, const Matrix& K, const Matrix& V, const FlashOptions& options) {
  const int n_q = int(Q.rows()), n_k = int(K.rows()), d_k = int(Q.cols()), d_v = int(V.cols());
  if (auto inputs = check_flash_inputs(n_q, n_k, d_k, int(K.cols()), int(V.rows()), d_v, options); !inputs.ok())
    return Failure{inputs.error()};
  if (auto finite = check_finite({{"Q", &Q}, {"K", &K}, {"V", &V}}); !finite.ok()) return Failure{finite.error()};
  const int block_q = std::min(options.block_q, n_q), block_k = std::min(options.block_k, n_k);
  const float scale = score_scale(d_k, options.scale);

  Scratch scratch(block_q, block_k, d_k);
  FlashResult result;
  result.output.resize(n_q, d_v);
  run_tiled(whole(Q, K, V, result.output), options.causal, scale, block_q, block_k, scratch, nullptr);
  if (!all_finite(result.output)) return Failure{kOutputOverflow};
  result.scratch_floats = scratch.floats();
  return result;
}

Expected<FlashResult> flash_multi_head(const Matrix& Q, const Matrix& K, const Matrix& V, int heads,
                                       const FlashOptions& options) {
  const int n_q = int(Q.rows()), n_k = int(K.rows()), width_qk = int(Q.cols()), width_v = int(V.cols());
  if (auto inputs =
          check_flash_multi_head_inputs(n_q, n_k, width_qk, int(K.cols()), int(V.rows()), width_v, heads, options);
      !inputs.ok())
    return Failure{inputs.error()};
  if (auto finite = check_finite({{"Q", &Q}, {"K", &K}, {"V", &V}}); !finite.ok()) return Failure{finite.error()};
  const int d_k = width_qk / heads, d_v = width_v / heads;
  const int block_q = std::min(options.block_q, n_q), block_k = std::min(options.block_k, n_k);
  const float scale = score_scale(d_k, options.scale);

  Scratch scratch(block_q, block_k, d_k);
  FlashResult result;
  result.output.resize(n_q, width_v);
  for (int head = 0; head < heads; ++head) {
    const HeadView view{Q.data() + std::size_t(head) * d_k,
                        width_qk,
                        K.data() + std::size_t(head) * d_k,
                        width_qk,
                        V.data() + std::size_t(head) * d_v,
                        width_v,
                        result.output.data() + std::size_t(head) * d_v,
                        width_v,
                        n_q,
                        n_k,
                        d_k,
                        d_v};
    run_tiled(view, options.causal, scale, block_q, block_k, scratch, nullptr);
  }
  if (!all_finite(result.output)) return Failure{kOutputOverflow};
  result.scratch_floats = scratch.floats();
  return result;
}

Expected<FlashTrace> flash_attention_trace(const Matrix& Q, const Matrix& K, const Matrix& V,
                                           const FlashOptions& options) {
  const int n_q = int(Q.rows()), n_k = int(K.rows()), d_k = int(Q.cols()), d_v = int(V.cols());
  if (auto inputs = check_flash_trace_inputs(n_q, n_k, d_k, int(K.cols()), int(V.rows()), d_v, options); !inputs.ok())
    return Failure{inputs.error()};
  if (auto finite = check_finite({{"Q", &Q}, {"K", &K}, {"V", &V}}); !finite.ok()) return Failure{finite.error()};

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
  trace.scale_factor = score_scale(d_k, options.scale);
  trace.steps.reserve(std::size_t(trace.query_blocks) * trace.key_blocks);

  Scratch scratch(trace.block_q, trace.block_k, d_k);
  trace.output.resize(n_q, d_v);
  run_tiled(whole(Q, K, V, trace.output), options.causal, trace.scale_factor, trace.block_q, trace.block_k, scratch,
            &trace);
  if (!all_finite(trace.output)) return Failure{kOutputOverflow};
  return trace;
}

}  // namespace abh
