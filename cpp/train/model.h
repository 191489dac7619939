// The trained model: token + position embeddings, L layers of (optional pre-LayerNorm) multi-head
// self-attention with a residual, an optional (pre-LayerNorm) ReLU MLP with a residual, a final
// LayerNorm (when LayerNorm is on), and a head computed only at the positions that carry a target
// (the loss is cross-entropy there, averaged): an unembedding to the vocabulary (step 11's tasks), or
// a pointer over the sequence's own positions (the reader model: its answer is a word of the sentence).
//
// All parameters live in one flat buffer and all gradients in another of the same layout, published
// by ParameterLayout (names, offsets, shapes): the weights file, the bindings and the page read it.
// Templated on the scalar like ops.h: float for training, double for the gradient tests.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../random.h"
#include "ops.h"

namespace abh::train {

constexpr int kMaxPositions = 16;        // learned position embeddings: the longest sequence step 11's models read
constexpr int kMaxReaderPositions = 64;  // the reader model's longest sentence (ModelConfig::positions)
constexpr int kMaxLayers = 4;
constexpr int kMaxHeads = 8;
constexpr int kMinDModel = 4, kMaxDModel = 128;
constexpr int kMlpExpansion = 4;  // the MLP's hidden width is 4 d_model, as in GPT-2

// What the model answers with at a target position: a token of the vocabulary (targets are token ids),
// or a position of the sequence (targets are positions; ops.h's pointer_forward).
enum class Head : std::uint8_t { kVocabulary = 0, kPointer = 1 };

struct ModelConfig {
  int vocab = 0;
  int positions = kMaxPositions;  // rows of the position embedding: a batch's T must not exceed it
  int layers = 2;
  int heads = 2;
  int d_model = 32;
  bool layer_norm = true;  // pre-LN before attention and MLP, and a final LN
  bool mlp = false;
  bool scale = true;    // 1/sqrt(d_k) on the scores
  bool causal = false;  // false: every token sees every (non-padding) token
  Head head = Head::kVocabulary;
};

struct ParameterEntry {
  std::string name;        // e.g. "layer1.W_q"
  std::size_t offset = 0;  // in floats from the start of the parameter buffer
  int rows = 0, cols = 0;  // vectors have rows = 1
};

// Offsets into the flat buffer; -1-free: absent tensors (no LN, no MLP) have size 0 and no entry.
struct LayerOffsets {
  std::size_t ln1_w = 0, ln1_b = 0;                // (C)
  std::size_t W_q = 0, W_k = 0, W_v = 0, W_o = 0;  // (C,C), (in, out)
  std::size_t ln2_w = 0, ln2_b = 0;                // (C)
  std::size_t fc_w = 0, fc_b = 0;                  // (C,4C), (4C)
  std::size_t proj_w = 0, proj_b = 0;              // (4C,C), (C)
};

struct ParameterLayout {
  std::size_t wte = 0;  // (V,C) token embeddings
  std::size_t wpe = 0;  // (positions,C) position embeddings
  LayerOffsets layer[kMaxLayers];
  std::size_t lnf_w = 0, lnf_b = 0;     // (C)
  std::size_t w_out = 0;                // (C,V) unembedding "w_out", or (C,C) the pointer head's "W_p"
  std::size_t count = 0;                // total floats
  std::vector<ParameterEntry> entries;  // every tensor in buffer order

  static ParameterLayout of(const ModelConfig& config);
};

// Which rows a forward pass computes. kAll: every position in every layer (the analysis shows whole
// attention maps). kTargets: the last layer computes its keys and values everywhere but its queries,
// attention rows, W_o, residual, MLP and final LayerNorm only at the target positions, since nothing
// else reaches the loss; the loss and every gradient get the same bits as with kAll (tested).
enum class Rows { kAll, kTargets };

// One forward pass's every intermediate, axis-named; sized for (B,T) by resize(). With Rows::kTargets
// the last layer's per-query buffers have P rows (R below) instead of B*T, and its att is (P*NH,T).
template <class T>
struct Activations {
  int B = 0, Tn = 0, P = 0;  // Tn: positions per sequence; P: positions with a target
  Rows rows = Rows::kAll;
  std::vector<T> encoded;  // (B,T,C) wte + wpe
  struct Layer {
    std::vector<T> ln1, ln1_mean, ln1_rstd;  // (B,T,C), (B,T), (B,T): the attention input (or = residual)
    std::vector<T> q, k, v;                  // (B,T,C)
    std::vector<T> att;                      // (B,NH,T,T) attention weights
    std::vector<T> atty;                     // (B,T,C) heads concatenated
    std::vector<T> attproj;                  // (B,T,C) atty W_o
    std::vector<T> residual2;                // (B,T,C) residual + attproj
    std::vector<T> ln2, ln2_mean, ln2_rstd;  // (B,T,C), (B,T), (B,T)
    std::vector<T> fch, fch_relu;            // (B,T,4C)
    std::vector<T> fcproj;                   // (B,T,C)
    std::vector<T> residual3;                // (B,T,C) the layer's output
  } layer[kMaxLayers];
  std::vector<T> lnf, lnf_mean, lnf_rstd;  // (B,T,C), (B,T), (B,T)
  std::vector<int> target_rows;            // (P) b*T + t of each target position
  std::vector<int> target_tokens;          // (P)
  std::vector<int> target_start;           // (B+1) sequence b's targets are target_rows[target_start[b]..]
  std::vector<int> target_pos;             // (P) t of each target position
  std::vector<T> last_in,
      last_residual;             // (P,C) the last layer's attention input and residual at the targets (kTargets)
  std::vector<T> gathered;       // (P,C) final hidden state at the target positions
  std::vector<T> logits, probs;  // (P,V); the pointer head: probs (P,T) over positions, no logits
  std::vector<T> pointer_u;      // (P,C) gathered W_p (the pointer head)
  std::vector<T> losses;         // (P)
  std::vector<T> scratch;        // attention and matmul-transpose workspace
};

// Gradients of the activations (same shapes), reused across steps.
template <class T>
struct ActivationGrads {
  std::vector<T> residual;               // (B,T,C) the gradient flowing down the residual stream
  std::vector<T> residual_rows;          // (P,C) the same in the last layer under Rows::kTargets
  std::vector<T> ln, q, k, v, atty;      // (B,T,C)
  std::vector<T> fch, fch_relu;          // (B,T,4C)
  std::vector<T> lnf, gathered, logits;  // (B,T,C), (P,C), (P,V)
  std::vector<T> pointer_u;              // (P,C)
};

// What a batch is: tokens (B,T), targets (B,T) with -1 where there is no loss (else a token id, or
// with the pointer head a position of the same sequence), lengths (B) (key positions >= lengths[b]
// are padding, masked from attention). T <= the model's positions.
struct Batch {
  int B = 0, T = 0;
  std::vector<int> tokens, targets, lengths;
  // Inference only, B = 1: (T, T) keys each query may use (AttentionShape::allowed); empty: all of them.
  std::vector<std::uint8_t> allowed;
};

// Examples [first, first + count) as a batch of rows of Tn positions: tokens padded with `pad`,
// targets with -1, lengths the examples' own. An Example has tokens and targets of one length <= Tn.
// The tasks pack to their fixed length; the reader model to its longest sentence.
template <class Example>
void pack_batch(const std::vector<Example>& examples, std::size_t first, int count, int Tn, int pad, Batch& out) {
  out.B = count;
  out.T = Tn;
  out.tokens.assign(std::size_t(count) * Tn, pad);
  out.targets.assign(std::size_t(count) * Tn, -1);
  out.lengths.assign(count, 0);
  for (int b = 0; b < count; ++b) {
    const Example& ex = examples[first + b];
    std::copy(ex.tokens.begin(), ex.tokens.end(), out.tokens.begin() + std::ptrdiff_t(b) * Tn);
    std::copy(ex.targets.begin(), ex.targets.end(), out.targets.begin() + std::ptrdiff_t(b) * Tn);
    out.lengths[b] = int(ex.tokens.size());
  }
}

// Pointers to one layer's tensors in a flat buffer.
template <class T>
struct LayerTensors {
  T *ln1_w, *ln1_b, *W_q, *W_k, *W_v, *W_o, *ln2_w, *ln2_b, *fc_w, *fc_b, *proj_w, *proj_b;
};
template <class T>
LayerTensors<T> layer_tensors(T* base, const LayerOffsets& o) {
  return {base + o.ln1_w, base + o.ln1_b, base + o.W_q,  base + o.W_k,  base + o.W_v,    base + o.W_o,
          base + o.ln2_w, base + o.ln2_b, base + o.fc_w, base + o.fc_b, base + o.proj_w, base + o.proj_b};
}

// Seeded initialisation of every tensor (see model.cpp for the distributions).
void initialize_parameters(const ParameterLayout& layout, std::uint32_t seed, float* params);

// Sizes a buffer without clearing it: every forward buffer is written in full before it is read, and
// the backward pass zeroes the gradients it accumulates into (zero()).
template <class T>
void resize(std::vector<T>& v, std::size_t n) {
  if (v.size() != n) v.resize(n);
}
template <class T>
void zero(std::vector<T>& v, std::size_t n) {
  v.assign(n, T(0));
}

// ---- forward: returns the mean loss over the target positions (0 when there are none) -----------
template <class T>
T model_forward(const ModelConfig& cfg, const ParameterLayout& L, const T* params, const Batch& batch,
                Activations<T>& a, Rows rows = Rows::kAll) {
  const int B = batch.B, Tn = batch.T, C = cfg.d_model, NH = cfg.heads, V = cfg.vocab, H4 = kMlpExpansion * C;
  const std::size_t BT = std::size_t(B) * Tn, BTC = BT * C;
  const bool pointer = cfg.head == Head::kPointer;
  if (pointer) rows = Rows::kAll;  // every position is a key of the pointer: all rows reach the loss
  a.B = B;
  a.Tn = Tn;
  a.rows = rows;
  // attention needs T*T + HS*T; each matmul backward one transposed weight matrix
  resize(a.scratch, std::max({std::size_t(Tn) * Tn + std::size_t(C) * Tn, std::size_t(H4) * C, std::size_t(V) * C}));

  // the target positions, in row order (the loss and the kTargets last layer read them)
  a.target_rows.clear();
  a.target_tokens.clear();
  a.target_pos.clear();
  a.target_start.assign(1, 0);
  for (int b = 0; b < B; ++b) {
    for (int t = 0; t < Tn; ++t) {
      const std::size_t i = std::size_t(b) * Tn + t;
      if (batch.targets[i] < 0) continue;
      a.target_rows.push_back(int(i));
      a.target_tokens.push_back(batch.targets[i]);
      a.target_pos.push_back(t);
    }
    a.target_start.push_back(int(a.target_rows.size()));
  }
  const int P = a.P = int(a.target_rows.size());
  const auto gather = [&](std::vector<T>& dst, const T* src) {
    resize(dst, std::size_t(P) * C);
    for (int p = 0; p < P; ++p)
      std::copy(src + std::size_t(a.target_rows[p]) * C, src + std::size_t(a.target_rows[p] + 1) * C,
                dst.data() + std::size_t(p) * C);
  };

  // pass 1: embeddings
  resize(a.encoded, BTC);
  encoder_forward(a.encoded.data(), batch.tokens.data(), params + L.wte, params + L.wpe, B, Tn, C);
  const T* residual = a.encoded.data();

  // pass 2: the layers; R rows leave each (B*T, or P in the kTargets last layer)
  std::size_t R = BT;
  for (int l = 0; l < cfg.layers; ++l) {
    auto& al = a.layer[l];
    const auto w = layer_tensors(params, L.layer[l]);
    const bool narrow = rows == Rows::kTargets && l == cfg.layers - 1;
    R = narrow ? std::size_t(P) : BT;
    const std::size_t RC = R * C;
    AttentionShape shape{B, Tn, C, NH, cfg.causal, cfg.scale};
    if (narrow) shape.query_start = a.target_start.data(), shape.query_pos = a.target_pos.data();
    if (!batch.allowed.empty()) shape.allowed = batch.allowed.data();
    const T* attn_in = residual;
    if (cfg.layer_norm) {
      resize(al.ln1, BTC), resize(al.ln1_mean, BT), resize(al.ln1_rstd, BT);
      layernorm_forward(al.ln1.data(), al.ln1_mean.data(), al.ln1_rstd.data(), residual, w.ln1_w, w.ln1_b, int(BT), C);
      attn_in = al.ln1.data();
    } else {
      al.ln1.assign(residual, residual + BTC);  // kept: the attention input the analysis reports
    }
    const T* query_in = attn_in;      // (R,C)
    const T* residual_in = residual;  // (R,C)
    if (narrow) {
      gather(a.last_in, attn_in), gather(a.last_residual, residual);
      query_in = a.last_in.data(), residual_in = a.last_residual.data();
    }
    resize(al.q, RC), resize(al.k, BTC), resize(al.v, BTC);
    matmul_forward(al.q.data(), query_in, w.W_q, static_cast<const T*>(nullptr), int(R), C, C);
    matmul_forward(al.k.data(), attn_in, w.W_k, static_cast<const T*>(nullptr), int(BT), C, C);
    matmul_forward(al.v.data(), attn_in, w.W_v, static_cast<const T*>(nullptr), int(BT), C, C);
    resize(al.att, R * NH * Tn), resize(al.atty, RC);
    attention_forward(al.atty.data(), al.att.data(), al.q.data(), al.k.data(), al.v.data(), batch.lengths.data(), shape,
                      a.scratch.data());
    resize(al.attproj, RC), resize(al.residual2, RC);
    matmul_forward(al.attproj.data(), al.atty.data(), w.W_o, static_cast<const T*>(nullptr), int(R), C, C);
    residual_forward(al.residual2.data(), residual_in, al.attproj.data(), RC);
    residual = al.residual2.data();
    if (cfg.mlp) {
      const T* mlp_in = residual;
      if (cfg.layer_norm) {
        resize(al.ln2, RC), resize(al.ln2_mean, R), resize(al.ln2_rstd, R);
        layernorm_forward(al.ln2.data(), al.ln2_mean.data(), al.ln2_rstd.data(), residual, w.ln2_w, w.ln2_b, int(R), C);
        mlp_in = al.ln2.data();
      }
      resize(al.fch, R * H4), resize(al.fch_relu, R * H4), resize(al.fcproj, RC), resize(al.residual3, RC);
      matmul_forward(al.fch.data(), mlp_in, w.fc_w, static_cast<const T*>(w.fc_b), int(R), C, H4);
      relu_forward(al.fch_relu.data(), al.fch.data(), R * H4);
      matmul_forward(al.fcproj.data(), al.fch_relu.data(), w.proj_w, static_cast<const T*>(w.proj_b), int(R), H4, C);
      residual_forward(al.residual3.data(), residual, al.fcproj.data(), RC);
      residual = al.residual3.data();
    }
  }

  // pass 3: final LayerNorm
  const T* final_hidden = residual;
  if (cfg.layer_norm) {
    resize(a.lnf, R * C), resize(a.lnf_mean, R), resize(a.lnf_rstd, R);
    layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), residual, params + L.lnf_w, params + L.lnf_b,
                      int(R), C);
    final_hidden = a.lnf.data();
  }

  // pass 4, pointer head: u = h W_p at the targets, softmax over the sequence's positions
  if (pointer) {
    gather(a.gathered, final_hidden);
    resize(a.pointer_u, std::size_t(P) * C), resize(a.probs, std::size_t(P) * Tn), resize(a.losses, P);
    matmul_forward(a.pointer_u.data(), a.gathered.data(), params + L.w_out, static_cast<const T*>(nullptr), P, C, C);
    const PointerShape shape{B, Tn, C, cfg.causal, a.target_start.data(), a.target_pos.data(), batch.lengths.data()};
    pointer_forward(a.probs.data(), a.losses.data(), a.pointer_u.data(), final_hidden, a.target_tokens.data(), shape);
  } else {
    // pass 4: unembedding and cross-entropy at the target positions only
    resize(a.gathered, std::size_t(P) * C), resize(a.logits, std::size_t(P) * V), resize(a.probs, std::size_t(P) * V),
        resize(a.losses, P);
    if (rows == Rows::kTargets)
      std::copy(final_hidden, final_hidden + std::size_t(P) * C, a.gathered.data());
    else
      gather(a.gathered, final_hidden);
    matmul_forward(a.logits.data(), a.gathered.data(), params + L.w_out, static_cast<const T*>(nullptr), P, C, V);
    crossentropy_forward(a.probs.data(), a.losses.data(), a.logits.data(), a.target_tokens.data(), P, V);
  }
  T loss = 0;
  for (int p = 0; p < P; ++p) loss += a.losses[p];
  return P ? loss / T(P) : T(0);
}

// ---- backward: grads (the parameter layout) += d(mean loss)/d(params); after model_forward --------
// Rows whose gradient is zero are skipped (under kTargets, the last layer's non-target rows): adding
// a zero product to a sum that started at +0 never changes it, so the bits are the same as with kAll.
template <class T>
void model_backward(const ModelConfig& cfg, const ParameterLayout& L, const T* params, T* grads, const Batch& batch,
                    Activations<T>& a, ActivationGrads<T>& d) {
  const int B = a.B, Tn = a.Tn, C = cfg.d_model, V = cfg.vocab, H4 = kMlpExpansion * C, P = a.P;
  const std::size_t BT = std::size_t(B) * Tn, BTC = BT * C;
  const bool targets_only = a.rows == Rows::kTargets;
  T* const scratch = a.scratch.data();
  if (P == 0) return;
  const auto fill_zero = [](std::vector<T>& v, std::size_t n) {
    std::fill(v.begin(), v.begin() + std::ptrdiff_t(n), T(0));
  };

  auto layer_output = [&](int l) -> const T* {
    if (l < 0) return a.encoded.data();
    return cfg.mlp ? a.layer[l].residual3.data() : a.layer[l].residual2.data();
  };

  // pass 4 backward: cross-entropy and unembedding (or the pointer: its scores reach every position's
  // final hidden state directly, and W_p's product the targets'), scattered back to the targets (kAll)
  const std::size_t R_last = targets_only ? std::size_t(P) : BT;  // rows leaving the last layer
  zero(d.gathered, std::size_t(P) * C), zero(d.lnf, R_last * C);
  if (cfg.head == Head::kPointer) {
    const T* final_hidden = cfg.layer_norm ? a.lnf.data() : layer_output(cfg.layers - 1);
    const PointerShape shape{B, Tn, C, cfg.causal, a.target_start.data(), a.target_pos.data(), batch.lengths.data()};
    zero(d.pointer_u, std::size_t(P) * C);
    pointer_backward(d.pointer_u.data(), d.lnf.data(), a.probs.data(), a.pointer_u.data(), final_hidden,
                     a.target_tokens.data(), shape, T(1) / T(P));
    matmul_backward(d.gathered.data(), grads + L.w_out, static_cast<T*>(nullptr), d.pointer_u.data(), a.gathered.data(),
                    params + L.w_out, scratch, P, C, C);
  } else {
    zero(d.logits, std::size_t(P) * V);
    crossentropy_backward(d.logits.data(), a.probs.data(), a.target_tokens.data(), P, V, T(1) / T(P));
    matmul_backward(d.gathered.data(), grads + L.w_out, static_cast<T*>(nullptr), d.logits.data(), a.gathered.data(),
                    params + L.w_out, scratch, P, C, V);
  }
  for (int p = 0; p < P; ++p) {
    const std::size_t row = targets_only ? std::size_t(p) : std::size_t(a.target_rows[p]);
    for (int c = 0; c < C; ++c) d.lnf[row * C + c] += d.gathered[std::size_t(p) * C + c];
  }

  // pass 3 backward: final LayerNorm -> gradient on the last residual stream
  zero(d.residual, BTC);
  if (targets_only) zero(d.residual_rows, std::size_t(P) * C);
  T* const dlast = targets_only ? d.residual_rows.data() : d.residual.data();  // (R_last,C)
  if (cfg.layer_norm)
    layernorm_backward(dlast, grads + L.lnf_w, grads + L.lnf_b, d.lnf.data(), layer_output(cfg.layers - 1),
                       params + L.lnf_w, a.lnf_mean.data(), a.lnf_rstd.data(), int(R_last), C);
  else
    std::copy(d.lnf.begin(), d.lnf.begin() + std::ptrdiff_t(R_last * C), dlast);

  // pass 2 backward: the layers, last to first. dres holds d(loss)/d(layer output) on entry and
  // d.residual d(loss)/d(layer input) on exit (the residual connections pass it through unchanged,
  // plus what each branch adds). R rows per query-side buffer, as in the forward pass.
  resize(d.ln, BTC), resize(d.q, BTC), resize(d.k, BTC), resize(d.v, BTC), resize(d.atty, BTC);
  if (cfg.mlp) resize(d.fch, BT * H4), resize(d.fch_relu, BT * H4);
  for (int l = cfg.layers - 1; l >= 0; --l) {
    auto& al = a.layer[l];
    const auto w = layer_tensors(params, L.layer[l]);
    const auto g = layer_tensors(grads, L.layer[l]);
    const T* layer_in = layer_output(l - 1);
    const bool narrow = targets_only && l == cfg.layers - 1;
    const std::size_t R = narrow ? std::size_t(P) : BT, RC = R * C;
    T* const dres = narrow ? dlast : d.residual.data();  // (R,C)
    AttentionShape shape{B, Tn, C, cfg.heads, cfg.causal, cfg.scale};
    if (narrow) shape.query_start = a.target_start.data(), shape.query_pos = a.target_pos.data();
    if (cfg.mlp) {
      // residual3 = residual2 + proj(relu(fc(ln2(residual2))))
      fill_zero(d.fch_relu, R * H4), fill_zero(d.fch, R * H4), fill_zero(d.ln, RC);
      matmul_backward(d.fch_relu.data(), g.proj_w, g.proj_b, dres, al.fch_relu.data(), w.proj_w, scratch, int(R), H4,
                      C);
      relu_backward(d.fch.data(), al.fch.data(), d.fch_relu.data(), R * H4);
      const T* mlp_in = cfg.layer_norm ? al.ln2.data() : al.residual2.data();
      matmul_backward(d.ln.data(), g.fc_w, g.fc_b, d.fch.data(), mlp_in, w.fc_w, scratch, int(R), C, H4);
      if (cfg.layer_norm)
        layernorm_backward(dres, g.ln2_w, g.ln2_b, d.ln.data(), al.residual2.data(), w.ln2_w, al.ln2_mean.data(),
                           al.ln2_rstd.data(), int(R), C);
      else
        for (std::size_t i = 0; i < RC; ++i) dres[i] += d.ln[i];
    }
    // residual2 = layer_in + W_o(attention(ln1(layer_in)))
    fill_zero(d.atty, RC), fill_zero(d.q, RC), fill_zero(d.k, BTC), fill_zero(d.v, BTC), fill_zero(d.ln, BTC);
    matmul_backward(d.atty.data(), g.W_o, static_cast<T*>(nullptr), dres, al.atty.data(), w.W_o, scratch, int(R), C, C);
    attention_backward(d.q.data(), d.k.data(), d.v.data(), d.atty.data(), al.q.data(), al.k.data(), al.v.data(),
                       al.att.data(), shape, scratch);
    const T* attn_in = al.ln1.data();
    if (narrow) {
      // the query rows' share of d.ln, computed in d.atty (read already) and placed at the targets; it is
      // the first term of each row's sum, so the kAll order is kept. The residual passes through there too.
      fill_zero(d.atty, RC);
      matmul_backward(d.atty.data(), g.W_q, static_cast<T*>(nullptr), d.q.data(), a.last_in.data(), w.W_q, scratch, P,
                      C, C);
      for (int p = 0; p < P; ++p) {
        const std::size_t row = std::size_t(a.target_rows[p]) * C;
        std::copy(d.atty.data() + std::size_t(p) * C, d.atty.data() + std::size_t(p + 1) * C, d.ln.data() + row);
        std::copy(dres + std::size_t(p) * C, dres + std::size_t(p + 1) * C, d.residual.data() + row);
      }
    } else {
      matmul_backward(d.ln.data(), g.W_q, static_cast<T*>(nullptr), d.q.data(), attn_in, w.W_q, scratch, int(BT), C, C);
    }
    matmul_backward(d.ln.data(), g.W_k, static_cast<T*>(nullptr), d.k.data(), attn_in, w.W_k, scratch, int(BT), C, C);
    matmul_backward(d.ln.data(), g.W_v, static_cast<T*>(nullptr), d.v.data(), attn_in, w.W_v, scratch, int(BT), C, C);
    if (cfg.layer_norm)
      layernorm_backward(d.residual.data(), g.ln1_w, g.ln1_b, d.ln.data(), layer_in, w.ln1_w, al.ln1_mean.data(),
                         al.ln1_rstd.data(), int(BT), C);
    else
      for (std::size_t i = 0; i < BTC; ++i) d.residual[i] += d.ln[i];
  }

  // pass 1 backward: embeddings
  encoder_backward(grads + L.wte, grads + L.wpe, d.residual.data(), batch.tokens.data(), B, Tn, C);
}

}  // namespace abh::train
