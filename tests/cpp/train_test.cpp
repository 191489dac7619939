// The training core's arithmetic (cpp/train/): the elementary functions, every op's backward pass and
// the whole model's gradient against central finite differences in double precision, the parameter
// layout, and the optimisers against hand-computed steps. Training itself is trainer_test.cpp's; the
// reader model has its own file (reader_model_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model_test_util.h"
#include "random.h"
#include "test_util.h"
#include "train/model.h"
#include "train/ops.h"
#include "train/optimizer.h"
#include "train/tasks.h"

namespace {

using namespace abh::train;
using namespace abh::test;  // test_util.h and model_test_util.h

// ---- elementary functions -------------------------------------------------------------------

TEST(TrainMath, LogMatchesTheLibraryToFloatRounding) {
  double worst = 0;
  for (float x : {1e-38f, 1e-30f, 1e-10f, 0.001f, 0.1f, 0.5f, 0.70710678f, 0.9999f, 1.0f, 1.0001f, 1.41421356f, 1.5f,
                  2.0f, 2.7182818f, 10.0f, 123.456f, 1e10f, 3e38f}) {
    const double exact = std::log(double(x));
    worst = std::max(worst, std::abs(double(log_of(x)) - exact) / std::max(1.0, std::abs(exact)));
  }
  abh::SplitMix64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const float x = std::ldexp(1.0f + float(rng.next() >> 41) / 8388608.0f, int(rng.next() % 200) - 100);
    const double exact = std::log(double(x));
    worst = std::max(worst, std::abs(double(log_of(x)) - exact) / std::max(1.0, std::abs(exact)));
  }
  EXPECT_LT(worst, 3e-7);
  EXPECT_EQ(log_of(1.0f), 0.0f);
  EXPECT_EQ(log_of(0.0f), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(log_of(-1.0f)));
  EXPECT_NEAR(log_of(1e-45f), std::log(double(1e-45f)), 1e-5);  // the smallest denormal
}

TEST(TrainMath, MatmulKernelMatchesTheDefinitionWithStrides) {
  abh::SplitMix64 rng(3);
  for (auto [N, K, M] : {std::tuple{1, 1, 1}, {3, 5, 7}, {4, 16, 33}, {7, 2, 20}}) {
    std::vector<float> A(std::size_t(K) * N), B(std::size_t(K) * M), out(std::size_t(N) * M);
    for (float& x : A) x = rng.normal();
    for (float& x : B) x = rng.normal();
    for (float& x : out) x = rng.normal();
    std::vector<float> expected = out;
    for (int n = 0; n < N; ++n)
      for (int m = 0; m < M; ++m) {
        float acc = expected[std::size_t(n) * M + m];
        for (int k = 0; k < K; ++k)
          acc += A[std::size_t(k) * N + n] * B[std::size_t(k) * M + m];  // A stored (K, N): A^T
        expected[std::size_t(n) * M + m] = acc;
      }
    matmul_accumulate(out.data(), M, A.data(), 1, N, B.data(), M, N, K, M);
    EXPECT_EQ(0, std::memcmp(out.data(), expected.data(), out.size() * sizeof(float))) << N << "x" << K << "x" << M;
  }
}

// ---- every op's backward against finite differences, in double ---------------------------------

TEST(TrainGradients, Encoder) {
  abh::SplitMix64 rng(11);
  const int B = 2, Tn = 3, C = 4, V = 5;
  const std::vector<int> tokens = {0, 4, 4, 2, 1, 0};
  auto wte = random_vector(rng, V * C), wpe = random_vector(rng, kMaxPositions * C), r = random_vector(rng, B * Tn * C);
  std::vector<double> out(B * Tn * C), dwte(V * C, 0.0), dwpe(kMaxPositions * C, 0.0);
  auto loss = [&] {
    encoder_forward(out.data(), tokens.data(), wte.data(), wpe.data(), B, Tn, C);
    return dot(out, r);
  };
  encoder_backward(dwte.data(), dwpe.data(), r.data(), tokens.data(), B, Tn, C);
  expect_gradient("wte", wte, dwte, loss);
  expect_gradient("wpe", wpe, dwpe, loss);
}

// The loss lambdas copy the loop's structured bindings by name: C++17 lets no lambda capture a
// binding implicitly, which clang (the sanitized and fuzz build) enforces and g++ does not.
TEST(TrainGradients, LayerNorm) {
  abh::SplitMix64 rng(12);
  for (auto [N, C] : {std::pair{1, 2}, {3, 5}, {6, 16}}) {
    auto inp = random_vector(rng, N * C, 2.0), w = random_vector(rng, C), b = random_vector(rng, C),
         r = random_vector(rng, N * C);
    std::vector<double> out(N * C), mean(N), rstd(N), dinp(N * C, 0.0), dw(C, 0.0), db(C, 0.0);
    auto loss = [&, N = N, C = C] {
      layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), w.data(), b.data(), N, C);
      return dot(out, r);
    };
    loss();
    layernorm_backward(dinp.data(), dw.data(), db.data(), r.data(), inp.data(), w.data(), mean.data(), rstd.data(), N,
                       C);
    expect_gradient("layernorm inp", inp, dinp, loss);
    expect_gradient("layernorm weight", w, dw, loss);
    expect_gradient("layernorm bias", b, db, loss);
  }
}

TEST(TrainGradients, Matmul) {
  abh::SplitMix64 rng(13);
  for (auto [N, IC, OC, with_bias] :
       {std::tuple{1, 1, 1, false}, {4, 3, 5, true}, {6, 8, 17, false}, {5, 16, 4, true}}) {
    auto inp = random_vector(rng, N * IC), w = random_vector(rng, IC * OC), bias = random_vector(rng, OC),
         r = random_vector(rng, N * OC);
    std::vector<double> out(N * OC), dinp(N * IC, 0.0), dw(IC * OC, 0.0), db(OC, 0.0), scratch(IC * OC);
    auto loss = [&, N = N, IC = IC, OC = OC, with_bias = with_bias] {
      matmul_forward(out.data(), inp.data(), w.data(), with_bias ? bias.data() : nullptr, N, IC, OC);
      return dot(out, r);
    };
    matmul_backward(dinp.data(), dw.data(), with_bias ? db.data() : nullptr, r.data(), inp.data(), w.data(),
                    scratch.data(), N, IC, OC);
    expect_gradient("matmul inp", inp, dinp, loss);
    expect_gradient("matmul weight", w, dw, loss);
    if (with_bias) expect_gradient("matmul bias", bias, db, loss);
  }
}

TEST(TrainGradients, Attention) {
  abh::SplitMix64 rng(14);
  struct Case {
    int B, T, C, NH;
    bool causal, scale;
    std::vector<int> lengths;
  };
  for (const Case& c :
       {Case{1, 1, 2, 1, false, true, {1}}, Case{2, 4, 4, 2, false, true, {4, 2}}, Case{2, 5, 6, 3, true, true, {5, 3}},
        Case{1, 6, 8, 2, false, false, {6}}, Case{3, 3, 8, 4, true, false, {3, 1, 2}}}) {
    const AttentionShape shape{c.B, c.T, c.C, c.NH, c.causal, c.scale};
    const std::size_t BTC = std::size_t(c.B) * c.T * c.C;
    auto q = random_vector(rng, BTC), k = random_vector(rng, BTC), v = random_vector(rng, BTC),
         r = random_vector(rng, BTC);
    std::vector<double> out(BTC), att(std::size_t(c.B) * c.NH * c.T * c.T), dq(BTC, 0.0), dk(BTC, 0.0), dv(BTC, 0.0);
    std::vector<double> scratch(std::size_t(c.T) * c.T + std::size_t(c.C) * c.T);
    auto loss = [&] {
      attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), c.lengths.data(), shape, scratch.data());
      return dot(out, r);
    };
    loss();
    // the weights are a distribution over the visible keys, and padding/future keys get none
    for (int b = 0; b < c.B; ++b)
      for (int h = 0; h < c.NH; ++h)
        for (int i = 0; i < c.T; ++i) {
          double sum = 0;
          for (int j = 0; j < c.T; ++j) {
            const double w = att[((std::size_t(b) * c.NH + h) * c.T + i) * c.T + j];
            if (j >= c.lengths[b] || (c.causal && j > i)) {
              EXPECT_EQ(w, 0.0);
            }
            sum += w;
          }
          EXPECT_NEAR(sum, 1.0, 1e-12);
        }
    attention_backward(dq.data(), dk.data(), dv.data(), r.data(), q.data(), k.data(), v.data(), att.data(), shape,
                       scratch.data());
    expect_gradient("attention q", q, dq, loss);
    expect_gradient("attention k", k, dk, loss);
    expect_gradient("attention v", v, dv, loss);
  }
}

TEST(TrainGradients, ResidualAndRelu) {
  abh::SplitMix64 rng(15);
  const std::size_t N = 20;
  auto a = random_vector(rng, N), b = random_vector(rng, N), r = random_vector(rng, N);
  for (double& x : a)
    if (std::abs(x) < 0.01) x = 0.5;  // ReLU's kink: finite differences need distance from 0
  std::vector<double> out(N), da(N, 0.0), db(N, 0.0), relu(N), drelu(N, 0.0);
  auto residual_loss = [&] {
    residual_forward(out.data(), a.data(), b.data(), N);
    return dot(out, r);
  };
  residual_backward(da.data(), db.data(), r.data(), N);
  expect_gradient("residual a", a, da, residual_loss);
  expect_gradient("residual b", b, db, residual_loss);
  auto relu_loss = [&] {
    relu_forward(relu.data(), a.data(), N);
    return dot(relu, r);
  };
  relu_backward(drelu.data(), a.data(), r.data(), N);
  expect_gradient("relu", a, drelu, relu_loss);
}

TEST(TrainGradients, CrossEntropy) {
  abh::SplitMix64 rng(16);
  for (auto [P, V] : {std::pair{1, 2}, {3, 7}, {5, 40}}) {
    auto logits = random_vector(rng, P * V, 3.0);
    std::vector<int> targets(P);
    for (int p = 0; p < P; ++p) targets[p] = int(rng.next() % V);
    std::vector<double> probs(P * V), losses(P), dlogits(P * V, 0.0);
    auto loss = [&, P = P, V = V] {
      crossentropy_forward(probs.data(), losses.data(), logits.data(), targets.data(), P, V);
      double s = 0;
      for (double l : losses) s += l;
      return s / P;
    };
    loss();
    crossentropy_backward(dlogits.data(), probs.data(), targets.data(), P, V, 1.0 / P);
    expect_gradient("cross-entropy logits", logits, dlogits, loss);
  }
}

// ---- the whole model's gradient, in double, at several shapes -----------------------------------

TEST(TrainGradients, WholeModel) {
  struct Case {
    int layers, heads, d_model;
    bool layer_norm, mlp, scale, causal;
  };
  abh::SplitMix64 rng(17);
  for (const Case& c : {Case{1, 1, 4, false, false, true, false}, Case{2, 2, 8, true, false, true, false},
                        Case{2, 4, 8, true, true, false, true}, Case{3, 2, 6, false, true, true, false}}) {
    ModelConfig m;
    m.vocab = 7;
    m.layers = c.layers;
    m.heads = c.heads;
    m.d_model = c.d_model;
    m.layer_norm = c.layer_norm;
    m.mlp = c.mlp;
    m.scale = c.scale;
    m.causal = c.causal;
    const ParameterLayout layout = ParameterLayout::of(m);
    std::vector<float> init(layout.count);
    initialize_parameters(layout, 5, init.data());
    std::vector<double> params(init.begin(), init.end());
    for (double& p : params) p += 0.1 * double(rng.normal());  // off the init's exact ones and zeros
    Batch batch;
    batch.B = 2;
    batch.T = 5;
    batch.lengths = {5, 3};
    for (int i = 0; i < batch.B * batch.T; ++i) batch.tokens.push_back(int(rng.next() % m.vocab));
    batch.targets = {-1, 3, -1, 2, 6, 1, -1, 4, -1, -1};
    Activations<double> acts;
    ActivationGrads<double> dacts;
    std::vector<double> grads(layout.count, 0.0);
    auto loss = [&] { return model_forward(m, layout, params.data(), batch, acts); };
    loss();
    model_backward(m, layout, params.data(), grads.data(), batch, acts, dacts);
    const std::string what = "model L" + std::to_string(c.layers) + " h" + std::to_string(c.heads) + " C" +
                             std::to_string(c.d_model) + (c.layer_norm ? " LN" : "") + (c.mlp ? " MLP" : "") +
                             (c.causal ? " causal" : "");
    expect_gradient(what.c_str(), params, grads, loss, 1e-6, 2e-6);
    // and the float model computes the same loss and gradient to float rounding
    [[maybe_unused]] auto [params_f, grads_f, acts_f, dacts_f] =
        expect_float_model_agrees(m, layout, params, grads, loss(), batch, what);
    // computing the last layer at the target rows only (training's forward) changes no bit
    Activations<float> acts_t;
    ActivationGrads<float> dacts_t;
    std::vector<float> grads_t(layout.count, 0.0f);
    const float loss_all = model_forward(m, layout, params_f.data(), batch, acts_f);
    const float loss_targets = model_forward(m, layout, params_f.data(), batch, acts_t, Rows::kTargets);
    EXPECT_EQ(std::memcmp(&loss_all, &loss_targets, sizeof loss_all), 0)
        << what << ": " << loss_all << " vs " << loss_targets;
    model_backward(m, layout, params_f.data(), grads_t.data(), batch, acts_t, dacts_t);
    ASSERT_EQ(acts_t.probs.size(), acts_f.probs.size());
    EXPECT_EQ(std::memcmp(acts_t.probs.data(), acts_f.probs.data(), acts_f.probs.size() * sizeof(float)), 0) << what;
    EXPECT_EQ(acts_t.layer[c.layers - 1].att.size(), std::size_t(acts_t.P) * c.heads * batch.T) << what;
    for (std::size_t i = 0; i < grads_f.size(); ++i)
      ASSERT_EQ(std::memcmp(&grads_f[i], &grads_t[i], sizeof(float)), 0)
          << what << ": gradient " << i << " " << grads_f[i] << " vs " << grads_t[i];
  }
}

TEST(TrainModel, ParameterLayoutIsContiguousAndNamed) {
  ModelConfig m;
  m.vocab = 10;
  m.mlp = true;
  const ParameterLayout L = ParameterLayout::of(m);
  std::size_t next = 0;
  for (const auto& e : L.entries) {
    EXPECT_EQ(e.offset, next) << e.name;
    next += std::size_t(e.rows) * e.cols;
  }
  EXPECT_EQ(next, L.count);
  EXPECT_EQ(L.entries.front().name, "wte");
  EXPECT_EQ(L.entries.back().name, "w_out");
  // the default who-is-it model: 2 layers x 2 heads, d_model 32, no MLP
  ModelConfig d;
  d.vocab = int(Task::make("who-is-it").value().vocabulary().words.size());
  EXPECT_EQ(ParameterLayout::of(d).count,
            std::size_t(2 * d.vocab * 32 + 16 * 32 + 2 * (4 * 32 * 32 + 2 * 32) + 2 * 32));
}

// ---- optimisers -------------------------------------------------------------------------------

TEST(TrainOptimizer, AdamWStepsMatchHandComputedValues) {
  OptimizerConfig c;
  c.learning_rate = 0.1f;
  c.weight_decay = 0.01f;
  Optimizer opt(c, 2);
  float p[2] = {1.0f, -2.0f};
  const float g1[2] = {0.5f, 0.0f};
  opt.step(p, g1);
  // step 1: m = 0.05, v = 0.00025, m_hat = 0.5, v_hat = 0.25: p -= 0.1 (0.5 / (0.5 + 1e-8) + 0.01 p)
  EXPECT_NEAR(p[0], 1.0 - 0.1 * (0.5 / (0.5 + 1e-8) + 0.01), 1e-6);
  EXPECT_NEAR(p[1], -2.0 - 0.1 * (0.0 + 0.01 * -2.0), 1e-6);  // zero gradient: only the decay
  const double p0 = p[0];
  const float g2[2] = {-0.25f, 0.0f};
  opt.step(p, g2);
  // step 2: m = 0.9 0.05 - 0.025 = 0.02, v = 0.999 0.00025 + 0.001 0.0625 = 0.00031225
  const double m_hat = 0.02 / (1 - 0.81), v_hat = 0.00031225 / (1 - 0.998001);
  EXPECT_NEAR(p[0], p0 - 0.1 * (m_hat / (std::sqrt(v_hat) + 1e-8) + 0.01 * p0), 1e-6);
  EXPECT_EQ(opt.steps(), 2);
}

TEST(TrainOptimizer, SgdWithMomentumMatchesHandComputedValues) {
  OptimizerConfig c;
  c.kind = OptimizerKind::kSgd;
  c.learning_rate = 0.1f;
  c.momentum = 0.9f;
  Optimizer opt(c, 1);
  float p = 1.0f;
  const float g = 0.5f;
  opt.step(&p, &g);
  EXPECT_FLOAT_EQ(p, 0.95f);  // buffer 0.5
  opt.step(&p, &g);
  EXPECT_FLOAT_EQ(p, 0.855f);  // buffer 0.9 0.5 + 0.5 = 0.95
}

TEST(TrainOptimizer, ClippingScalesToTheMaximumNorm) {
  float g[2] = {3.0f, 4.0f};
  EXPECT_FLOAT_EQ(clip_gradients(g, 2, 1.0f), 5.0f);
  EXPECT_FLOAT_EQ(g[0], 0.6f);
  EXPECT_FLOAT_EQ(g[1], 0.8f);
  float small[2] = {0.3f, 0.4f};
  EXPECT_FLOAT_EQ(clip_gradients(small, 2, 1.0f), 0.5f);
  EXPECT_EQ(small[0], 0.3f);  // under the limit: untouched
  float off[2] = {30.0f, 40.0f};
  clip_gradients(off, 2, 0.0f);
  EXPECT_EQ(off[1], 40.0f);
}

}  // namespace
