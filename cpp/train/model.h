// The trained model: token + position embeddings, L layers of (optional pre-LayerNorm) multi-head
// self-attention with a residual, an optional (pre-LayerNorm) ReLU MLP with a residual, a final
// LayerNorm (when LayerNorm is on), and an unembedding to the vocabulary whose logits are computed
// only at the positions that carry a target (the loss is cross-entropy there, averaged).
//
// All parameters live in one flat buffer and all gradients in another of the same layout, published
// by ParameterLayout (names, offsets, shapes): the weights file, the bindings and the page read it.
// Templated on the scalar like ops.h: float for training, double for the gradient tests.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "../random.h"
#include "ops.h"

namespace abh::train {

constexpr int kMaxPositions = 16;  // learned position embeddings: the longest sequence a model reads
constexpr int kMaxLayers = 4;
constexpr int kMaxHeads = 8;
constexpr int kMinDModel = 4, kMaxDModel = 128;
constexpr int kMlpExpansion = 4;  // the MLP's hidden width is 4 d_model, as in GPT-2

struct ModelConfig {
  int vocab = 0;
  int layers = 2;
  int heads = 2;
  int d_model = 32;
  bool layer_norm = true;  // pre-LN before attention and MLP, and a final LN
  bool mlp = false;
  bool scale = true;   // 1/sqrt(d_k) on the scores
  bool causal = false;  // false: every token sees every (non-padding) token
};

struct ParameterEntry {
  std::string name;  // e.g. "layer1.W_q"
  std::size_t offset = 0;  // in floats from the start of the parameter buffer
  int rows = 0, cols = 0;  // vectors have rows = 1
};

// Offsets into the flat buffer; -1-free: absent tensors (no LN, no MLP) have size 0 and no entry.
struct LayerOffsets {
  std::size_t ln1_w = 0, ln1_b = 0;            // (C)
  std::size_t W_q = 0, W_k = 0, W_v = 0, W_o = 0;  // (C,C), (in, out)
  std::size_t ln2_w = 0, ln2_b = 0;            // (C)
  std::size_t fc_w = 0, fc_b = 0;              // (C,4C), (4C)
  std::size_t proj_w = 0, proj_b = 0;          // (4C,C), (C)
};

struct ParameterLayout {
  std::size_t wte = 0;  // (V,C) token embeddings
  std::size_t wpe = 0;  // (kMaxPositions,C) position embeddings
  LayerOffsets layer[kMaxLayers];
  std::size_t lnf_w = 0, lnf_b = 0;  // (C)
  std::size_t w_out = 0;             // (C,V) unembedding
  std::size_t count = 0;             // total floats
  std::vector<ParameterEntry> entries;  // every tensor in buffer order

  static ParameterLayout of(const ModelConfig& config);
};

// One forward pass's every intermediate, axis-named; sized for (B,T) by resize().
template <class T>
struct Activations {
  int B = 0, Tn = 0, P = 0;           // Tn: positions per sequence; P: positions with a target
  std::vector<T> encoded;             // (B,T,C) wte + wpe
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
  std::vector<T> gathered;                 // (P,C) final hidden state at the target positions
  std::vector<T> logits, probs;            // (P,V)
  std::vector<T> losses;                   // (P)
  std::vector<T> scratch;                  // attention and matmul-transpose workspace
};

// Gradients of the activations (same shapes), reused across steps.
template <class T>
struct ActivationGrads {
  std::vector<T> residual;                 // (B,T,C) the gradient flowing down the residual stream
  std::vector<T> ln, q, k, v, atty;         // (B,T,C)
  std::vector<T> fch, fch_relu;            // (B,T,4C)
  std::vector<T> lnf, gathered, logits;    // (B,T,C), (P,C), (P,V)
};

// What a batch is: tokens (B,T), targets (B,T) with -1 where there is no loss, lengths (B) (key
// positions >= lengths[b] are padding, masked from attention).
struct Batch {
  int B = 0, T = 0;
  std::vector<int> tokens, targets, lengths;
};

// Pointers to one layer's tensors in a flat buffer.
template <class T>
struct LayerTensors {
  T *ln1_w, *ln1_b, *W_q, *W_k, *W_v, *W_o, *ln2_w, *ln2_b, *fc_w, *fc_b, *proj_w, *proj_b;
};
template <class T>
LayerTensors<T> layer_tensors(T* base, const LayerOffsets& o) {
  return {base + o.ln1_w, base + o.ln1_b, base + o.W_q, base + o.W_k, base + o.W_v, base + o.W_o,
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
T model_forward(const ModelConfig& cfg, const ParameterLayout& L, const T* params, const Batch& batch, Activations<T>& a) {
  const int B = batch.B, Tn = batch.T, C = cfg.d_model, NH = cfg.heads, V = cfg.vocab, H4 = kMlpExpansion * C;
  const std::size_t BT = std::size_t(B) * Tn, BTC = BT * C;
  a.B = B;
  a.Tn = Tn;
  // attention needs T*T + HS*T; each matmul backward one transposed weight matrix
  resize(a.scratch, std::max({std::size_t(Tn) * Tn + std::size_t(C) * Tn, std::size_t(H4) * C, std::size_t(V) * C}));
  const AttentionShape shape{B, Tn, C, NH, cfg.causal, cfg.scale};

  // pass 1: embeddings
  resize(a.encoded, BTC);
  encoder_forward(a.encoded.data(), batch.tokens.data(), params + L.wte, params + L.wpe, B, Tn, C);
  const T* residual = a.encoded.data();

  // pass 2: the layers
  for (int l = 0; l < cfg.layers; ++l) {
    auto& al = a.layer[l];
    const auto w = layer_tensors(params, L.layer[l]);
    const T* attn_in = residual;
    if (cfg.layer_norm) {
      resize(al.ln1, BTC), resize(al.ln1_mean, BT), resize(al.ln1_rstd, BT);
      layernorm_forward(al.ln1.data(), al.ln1_mean.data(), al.ln1_rstd.data(), residual, w.ln1_w, w.ln1_b, int(BT), C);
      attn_in = al.ln1.data();
    } else {
      al.ln1.assign(residual, residual + BTC);  // kept: the attention input the analysis reports
    }
    resize(al.q, BTC), resize(al.k, BTC), resize(al.v, BTC);
    matmul_forward(al.q.data(), attn_in, w.W_q, static_cast<const T*>(nullptr), int(BT), C, C);
    matmul_forward(al.k.data(), attn_in, w.W_k, static_cast<const T*>(nullptr), int(BT), C, C);
    matmul_forward(al.v.data(), attn_in, w.W_v, static_cast<const T*>(nullptr), int(BT), C, C);
    resize(al.att, std::size_t(B) * NH * Tn * Tn), resize(al.atty, BTC);
    attention_forward(al.atty.data(), al.att.data(), al.q.data(), al.k.data(), al.v.data(), batch.lengths.data(), shape, a.scratch.data());
    resize(al.attproj, BTC), resize(al.residual2, BTC);
    matmul_forward(al.attproj.data(), al.atty.data(), w.W_o, static_cast<const T*>(nullptr), int(BT), C, C);
    residual_forward(al.residual2.data(), residual, al.attproj.data(), BTC);
    residual = al.residual2.data();
    if (cfg.mlp) {
      const T* mlp_in = residual;
      if (cfg.layer_norm) {
        resize(al.ln2, BTC), resize(al.ln2_mean, BT), resize(al.ln2_rstd, BT);
        layernorm_forward(al.ln2.data(), al.ln2_mean.data(), al.ln2_rstd.data(), residual, w.ln2_w, w.ln2_b, int(BT), C);
        mlp_in = al.ln2.data();
      }
      resize(al.fch, BT * H4), resize(al.fch_relu, BT * H4), resize(al.fcproj, BTC), resize(al.residual3, BTC);
      matmul_forward(al.fch.data(), mlp_in, w.fc_w, static_cast<const T*>(w.fc_b), int(BT), C, H4);
      relu_forward(al.fch_relu.data(), al.fch.data(), BT * H4);
      matmul_forward(al.fcproj.data(), al.fch_relu.data(), w.proj_w, static_cast<const T*>(w.proj_b), int(BT), H4, C);
      residual_forward(al.residual3.data(), residual, al.fcproj.data(), BTC);
      residual = al.residual3.data();
    }
  }

  // pass 3: final LayerNorm
  const T* final_hidden = residual;
  if (cfg.layer_norm) {
    resize(a.lnf, BTC), resize(a.lnf_mean, BT), resize(a.lnf_rstd, BT);
    layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), residual, params + L.lnf_w, params + L.lnf_b, int(BT), C);
    final_hidden = a.lnf.data();
  }

  // pass 4: unembedding and cross-entropy at the target positions only
  a.target_rows.clear();
  a.target_tokens.clear();
  for (std::size_t i = 0; i < BT; ++i)
    if (batch.targets[i] >= 0) {
      a.target_rows.push_back(int(i));
      a.target_tokens.push_back(batch.targets[i]);
    }
  const int P = a.P = int(a.target_rows.size());
  resize(a.gathered, std::size_t(P) * C), resize(a.logits, std::size_t(P) * V), resize(a.probs, std::size_t(P) * V), resize(a.losses, P);
  for (int p = 0; p < P; ++p)
    for (int c = 0; c < C; ++c) a.gathered[std::size_t(p) * C + c] = final_hidden[std::size_t(a.target_rows[p]) * C + c];
  matmul_forward(a.logits.data(), a.gathered.data(), params + L.w_out, static_cast<const T*>(nullptr), P, C, V);
  crossentropy_forward(a.probs.data(), a.losses.data(), a.logits.data(), a.target_tokens.data(), P, V);
  T loss = 0;
  for (int p = 0; p < P; ++p) loss += a.losses[p];
  return P ? loss / T(P) : T(0);
}

// ---- backward: grads (the parameter layout) += d(mean loss)/d(params); after model_forward --------
template <class T>
void model_backward(const ModelConfig& cfg, const ParameterLayout& L, const T* params, T* grads, const Batch& batch,
                    Activations<T>& a, ActivationGrads<T>& d) {
  const int B = a.B, Tn = a.Tn, C = cfg.d_model, V = cfg.vocab, H4 = kMlpExpansion * C, P = a.P;
  const std::size_t BT = std::size_t(B) * Tn, BTC = BT * C;
  const AttentionShape shape{B, Tn, C, cfg.heads, cfg.causal, cfg.scale};
  T* const scratch = a.scratch.data();
  if (P == 0) return;

  // pass 4 backward: cross-entropy and unembedding, scattered back to the target positions
  zero(d.logits, std::size_t(P) * V), zero(d.gathered, std::size_t(P) * C), zero(d.lnf, BTC);
  crossentropy_backward(d.logits.data(), a.probs.data(), a.target_tokens.data(), P, V, T(1) / T(P));
  matmul_backward(d.gathered.data(), grads + L.w_out, static_cast<T*>(nullptr), d.logits.data(), a.gathered.data(), params + L.w_out,
                  scratch, P, C, V);
  for (int p = 0; p < P; ++p)
    for (int c = 0; c < C; ++c) d.lnf[std::size_t(a.target_rows[p]) * C + c] += d.gathered[std::size_t(p) * C + c];

  // pass 3 backward: final LayerNorm -> gradient on the last residual stream
  zero(d.residual, BTC);
  auto layer_output = [&](int l) -> const T* {
    if (l < 0) return a.encoded.data();
    return cfg.mlp ? a.layer[l].residual3.data() : a.layer[l].residual2.data();
  };
  if (cfg.layer_norm)
    layernorm_backward(d.residual.data(), grads + L.lnf_w, grads + L.lnf_b, d.lnf.data(), layer_output(cfg.layers - 1), params + L.lnf_w,
                       a.lnf_mean.data(), a.lnf_rstd.data(), int(BT), C);
  else
    d.residual = d.lnf;

  // pass 2 backward: the layers, last to first. d.residual holds d(loss)/d(layer output) on entry
  // and d(loss)/d(layer input) on exit (the residual connections pass it through unchanged, plus
  // what each branch adds).
  resize(d.ln, BTC), resize(d.q, BTC), resize(d.k, BTC), resize(d.v, BTC), resize(d.atty, BTC);
  if (cfg.mlp) resize(d.fch, BT * H4), resize(d.fch_relu, BT * H4);
  for (int l = cfg.layers - 1; l >= 0; --l) {
    auto& al = a.layer[l];
    const auto w = layer_tensors(params, L.layer[l]);
    const auto g = layer_tensors(grads, L.layer[l]);
    const T* layer_in = layer_output(l - 1);
    if (cfg.mlp) {
      // residual3 = residual2 + proj(relu(fc(ln2(residual2))))
      std::fill(d.fch_relu.begin(), d.fch_relu.end(), T(0));
      std::fill(d.fch.begin(), d.fch.end(), T(0));
      std::fill(d.ln.begin(), d.ln.end(), T(0));
      matmul_backward(d.fch_relu.data(), g.proj_w, g.proj_b, d.residual.data(), al.fch_relu.data(), w.proj_w, scratch, int(BT), H4, C);
      relu_backward(d.fch.data(), al.fch.data(), d.fch_relu.data(), BT * H4);
      const T* mlp_in = cfg.layer_norm ? al.ln2.data() : al.residual2.data();
      matmul_backward(d.ln.data(), g.fc_w, g.fc_b, d.fch.data(), mlp_in, w.fc_w, scratch, int(BT), C, H4);
      if (cfg.layer_norm)
        layernorm_backward(d.residual.data(), g.ln2_w, g.ln2_b, d.ln.data(), al.residual2.data(), w.ln2_w, al.ln2_mean.data(),
                           al.ln2_rstd.data(), int(BT), C);
      else
        for (std::size_t i = 0; i < BTC; ++i) d.residual[i] += d.ln[i];
    }
    // residual2 = layer_in + W_o(attention(ln1(layer_in)))
    std::fill(d.atty.begin(), d.atty.end(), T(0));
    std::fill(d.q.begin(), d.q.end(), T(0));
    std::fill(d.k.begin(), d.k.end(), T(0));
    std::fill(d.v.begin(), d.v.end(), T(0));
    std::fill(d.ln.begin(), d.ln.end(), T(0));
    matmul_backward(d.atty.data(), g.W_o, static_cast<T*>(nullptr), d.residual.data(), al.atty.data(), w.W_o, scratch, int(BT), C, C);
    attention_backward(d.q.data(), d.k.data(), d.v.data(), d.atty.data(), al.q.data(), al.k.data(), al.v.data(), al.att.data(), shape,
                       scratch);
    const T* attn_in = al.ln1.data();
    matmul_backward(d.ln.data(), g.W_q, static_cast<T*>(nullptr), d.q.data(), attn_in, w.W_q, scratch, int(BT), C, C);
    matmul_backward(d.ln.data(), g.W_k, static_cast<T*>(nullptr), d.k.data(), attn_in, w.W_k, scratch, int(BT), C, C);
    matmul_backward(d.ln.data(), g.W_v, static_cast<T*>(nullptr), d.v.data(), attn_in, w.W_v, scratch, int(BT), C, C);
    if (cfg.layer_norm)
      layernorm_backward(d.residual.data(), g.ln1_w, g.ln1_b, d.ln.data(), layer_in, w.ln1_w, al.ln1_mean.data(), al.ln1_rstd.data(),
                         int(BT), C);
    else
      for (std::size_t i = 0; i < BTC; ++i) d.residual[i] += d.ln[i];
  }

  // pass 1 backward: embeddings
  encoder_backward(grads + L.wte, grads + L.wpe, d.residual.data(), batch.tokens.data(), B, Tn, C);
}

}  // namespace abh::train
