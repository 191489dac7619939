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
constexpr int kHeldoutBatch = 64;  // examples per forward pass over the held-out set

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

// evaluate() and head_shares() in one pass over the held-out set, read a few batches per call
// (Trainer::read_heldout), so that a caller with a frame to keep can spread the pass over several
// calls: the page reads the shipped model a task at a time, ~10 ms each on a phone's CPU, where the two
// whole passes were 140-190 ms each. The sums stay sums until the last batch.
struct HeldoutReading {
  bool started = false;
  std::size_t next = 0;  // the first held-out example not read yet
  int correct = 0, positions = 0;
  double loss = 0;
  std::vector<HeadShares> shares;  // (L*NH) sums over the examples read so far
  bool done = false;
  Evaluation evaluation;                // set once done
  std::vector<HeadShares> mean_shares;  // set once done: what head_shares() returns
};

// What each head does, averaged over the held-out set (any task): the measurements behind "heads
// specialise" (induction) and "why scale" (entropy). Each is a mean over query rows of one number read
// off that row of the head's attention a (a[i][j]: the weight query i puts on key j), counting only
// rows i < length (padding queries are not rows) that see at least two keys (so the causal row 0,
// which must put all its weight on itself, does not count as a choice):
//   previous_token  a[i][i-1], over those rows with i >= 1. 1: the head copies the previous token
//                   into position i, the first half of an induction circuit.
//   induction       over those rows of induction examples with period >= 3 and i >= period: the
//                   total weight on the keys right after the earlier copies of token i, j = i-period+1,
//                   i-2*period+1, ... >= 1 (token j-1 equals token i, and token j is the one that comes
//                   next). 1: the head is an induction head (Olsson et al.'s "prefix matching"; a head
//                   may spread its weight over every earlier copy, all of which predict right). Period 2
//                   is left out because there j = i-1 and the score would be the previous-token
//                   score again. 0 with no such row (e.g. who-is-it).
//   induction_latest  the same on the latest copy only, a[i][i-period+1].
//   self            a[i][i];  first  a[i][0] (a head with nothing to do often parks its weight there).
//   entropy         -sum_j a[i][j] ln a[i][j] in nats: 0 for one-hot, ln(keys seen) for uniform.
struct HeadScores {
  int layer = 0, head = 0;
  float previous_token = 0, induction = 0, induction_latest = 0, self = 0, first = 0, entropy = 0;
};

struct AttentionScores {
  std::vector<HeadScores> heads;     // (L*NH), layer-major
  std::vector<float> layer_entropy;  // (L) mean entropy over the layer's heads (equal rows per head)
  float entropy = 0;                 // mean over every layer and head
};

// Running sums for one head over many sequences.
struct HeadScoreSums {
  double previous_token = 0, induction = 0, induction_latest = 0, self = 0, first = 0, entropy = 0;
  std::int64_t rows = 0, previous_rows = 0, induction_rows = 0;
  HeadScores mean(int layer, int head) const;
};

// Adds one sequence's rows of one layer to sums. att is (NH,T,T) for that sequence (row i, key j at
// att[(h*T + i)*T + j]); length is its non-padding length; period its induction period (-1: none);
// sums is (NH). The rows' weights are read as they are (they sum to 1 over the keys the row sees).
void accumulate_head_scores(const float* att, int NH, int Tn, int length, bool causal, int period, HeadScoreSums* sums);

class Trainer {
 public:
  static Expected<std::unique_ptr<Trainer>> create(const TrainConfig& config);

  Expected<StepReport> step(int steps);
  Evaluation evaluate() const;
  Expected<SentenceAnalysis> analyze(const std::vector<std::string>& words, int top_k = 5) const;
  std::vector<HeadShares> head_shares() const;
  // Reads up to `batches` more held-out batches into `reading` (a default HeldoutReading starts the
  // pass); when the last is read, sets reading.done, .evaluation and .mean_shares (equal to evaluate()
  // and head_shares()). Returns reading.done.
  bool read_heldout(HeldoutReading& reading, int batches) const;
  // Per-head scores and attention entropy over the held-out set (see HeadScores).
  AttentionScores attention_scores() const;
  // The L2 norm of each tensor's gradient at the last step (before clipping), in layout().entries
  // order; empty before the first step. Step s's gradient is taken at the weights after s - 1 steps,
  // so after step(1) these are the gradients of the freshly initialised model.
  const std::vector<float>& gradient_norms() const { return gradient_norms_; }

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
  // The held-out set in batches of up to kHeldoutBatch examples: forward on each, then
  // visit(batch, acts, first, count) with the batch's examples [first, first + count) of heldout().
  // From example `first` on, at most `max_batches` batches; returns the first example not visited.
  template <typename Visit>
  std::size_t for_each_heldout_batch(Rows rows, Visit&& visit, std::size_t first = 0,
                                     std::size_t max_batches = SIZE_MAX) const;
  // One batch's share of evaluate() and of head_shares(), and the means of the sums over the whole set.
  void add_evaluation(const Activations<float>& acts, int& correct, int& positions, double& loss) const;
  void add_shares(const Batch& batch, const Activations<float>& acts, std::size_t first, int count,
                  std::vector<HeadShares>& sums) const;
  Evaluation evaluation_of(int correct, int positions, double loss) const;
  std::vector<HeadShares> shares_of(std::vector<HeadShares> sums) const;
  std::vector<HeadShares> zero_shares() const;

  TrainConfig config_;
  ModelConfig model_;
  ParameterLayout layout_;
  Task task_;
  Optimizer optimizer_;
  SplitMix64 data_rng_{0};
  int steps_done_ = 0;
  std::vector<float> params_, grads_;
  std::vector<float> gradient_norms_;  // (layout_.entries) the last step's, before clipping
  Batch batch_;
  Activations<float> acts_;
  ActivationGrads<float> dacts_;
};

}  // namespace abh::train
