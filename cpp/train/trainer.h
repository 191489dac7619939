// Training and measuring one model on one task: configuration checks, seeded initialisation and
// data, steps, held-out accuracy, and the analysis the page draws (attention per layer and head,
// the prediction at "it", per-head shares, and each layer's attention input and W_q..W_o so the
// walkthrough's pipeline can reproduce the model's attention exactly).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../tensor.h"
#include "model.h"
#include "optimizer.h"
#include "tasks.h"

namespace abh::train {

constexpr int kMaxBatch = 256;
constexpr int kMaxStepsPerCall = 10000;  // one step(n) call
constexpr int kMaxTotalSteps = 100000;   // a model's whole training run
constexpr float kMaxLearningRate = 1.0f;

struct TrainConfig {
  std::string task = "who-is-it";
  int layers = 2;
  int heads = 2;
  int d_model = 32;
  bool layer_norm = true;
  bool mlp = false;
  bool scale = true;
  std::string mask = "task";        // "task" (the task's own: who-is-it "none", induction "causal"), "none" or "causal"
  std::string optimizer = "adamw";  // or "sgd"
  float learning_rate = 3e-3f;
  float weight_decay = 0.0f;
  float momentum = 0.9f;
  float clip = 1.0f;
  int batch = 32;
  std::uint32_t seed = 1;
};

// Empty when valid, else the reason in words for the reader.
Status check_train_config(const TrainConfig& config);

struct StepReport {
  int step = 0;             // steps done in total
  float loss = 0;           // the last step's training loss
  float mean_loss = 0;      // mean over this call's steps
  float gradient_norm = 0;  // the last step's, before clipping
};

struct Evaluation {
  float accuracy = 0;  // held-out: share of loss positions whose top prediction is the target
  float loss = 0;      // held-out mean cross-entropy
  int examples = 0, positions = 0;
};

struct Prediction {
  int token = 0;
  std::string word;
  float probability = 0;
};

struct LayerAnalysis {
  Tensor3 attention;          // (h, n, n)
  Matrix attention_input;     // (n, d_model): what the layer's attention reads (post-LN residual stream)
  Matrix W_q, W_k, W_v, W_o;  // (d_model, d_model)
};

struct SentenceAnalysis {
  TokenizedSentence tokens;
  int query = -1;                     // the position whose prediction is reported ("it", else the last)
  std::vector<LayerAnalysis> layers;  // (L)
  std::vector<Prediction> top;        // the most probable tokens at the query, best first
};

// Mean attention weight from "it" over the held-out set, per layer and head (who-is-it only).
struct HeadShares {
  int layer = 0, head = 0;
  float referent = 0, other_noun = 0, adjective = 0, self = 0;
};

class Trainer {
 public:
  static Expected<std::unique_ptr<Trainer>> create(const TrainConfig& config);

  Expected<StepReport> step(int steps);
  Evaluation evaluate() const;
  Expected<SentenceAnalysis> analyze(const std::vector<std::string>& words, int top_k = 5) const;
  std::vector<HeadShares> head_shares() const;

  const TrainConfig& config() const { return config_; }
  const ModelConfig& model_config() const { return model_; }
  const ParameterLayout& layout() const { return layout_; }
  const Task& task() const { return task_; }
  int steps_done() const { return steps_done_; }
  const std::vector<float>& parameters() const { return params_; }
  const std::vector<float>& gradients() const { return grads_; }

  // The weights file (weights_file.h) of this model, and a trainer built from one.
  std::vector<std::uint8_t> export_weights() const;
  static Expected<std::unique_ptr<Trainer>> import_weights(const std::uint8_t* bytes, std::size_t size);

 private:
  Trainer() = default;
  // Forward on a batch (probs at the target positions into acts); returns the mean loss. Rows::kTargets
  // where only the loss and probabilities are read (training, evaluation), kAll where attention maps are.
  float forward(const Batch& batch, Activations<float>& acts, Rows rows = Rows::kAll) const;

  TrainConfig config_;
  ModelConfig model_;
  ParameterLayout layout_;
  Task task_;
  Optimizer optimizer_;
  SplitMix64 data_rng_{0};
  int steps_done_ = 0;
  std::vector<float> params_, grads_;
  Batch batch_;
  Activations<float> acts_;
  ActivationGrads<float> dacts_;
};

}  // namespace abh::train
