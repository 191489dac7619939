#include "trainer.h"

#include <algorithm>
#include <cmath>

#include "weights_file.h"

namespace abh::train {

namespace {

std::string number(double x) {
  if (std::isnan(x)) return "NaN";
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

ModelConfig model_config_of(const TrainConfig& c, const Task& task) {
  ModelConfig m;
  m.vocab = int(task.vocabulary().words.size());
  m.layers = c.layers;
  m.heads = c.heads;
  m.d_model = c.d_model;
  m.layer_norm = c.layer_norm;
  m.mlp = c.mlp;
  m.scale = c.scale;
  m.causal = c.mask == "causal" || (c.mask == "task" && task.causal());
  return m;
}

Matrix matrix_of(const float* data, int rows, int cols) { return Eigen::Map<const Matrix>(data, rows, cols); }

}  // namespace

Status check_train_config(const TrainConfig& c) {
  if (const auto task = Task::make(c.task); !task.ok()) return Failure{task.error()};
  if (c.layers < 1 || c.layers > kMaxLayers)
    return Failure{"layers must be 1 to " + std::to_string(kMaxLayers) + " (got " + std::to_string(c.layers) + ")"};
  if (c.heads < 1 || c.heads > kMaxHeads)
    return Failure{"heads must be 1 to " + std::to_string(kMaxHeads) + " (got " + std::to_string(c.heads) + ")"};
  if (c.d_model < kMinDModel || c.d_model > kMaxDModel)
    return Failure{"d_model must be " + std::to_string(kMinDModel) + " to " + std::to_string(kMaxDModel) + " (got " +
                   std::to_string(c.d_model) + ")"};
  if (c.d_model % c.heads != 0)
    return Failure{"heads (" + std::to_string(c.heads) + ") must divide d_model (" + std::to_string(c.d_model) +
                   ") so that every head gets d_k = d_model / heads columns"};
  if (c.mask != "task" && c.mask != "none" && c.mask != "causal")
    return Failure{"mask must be \"task\", \"none\" or \"causal\" (got \"" + c.mask.substr(0, 40) + "\")"};
  if (c.optimizer != "adamw" && c.optimizer != "sgd")
    return Failure{"optimizer must be \"adamw\" or \"sgd\" (got \"" + c.optimizer.substr(0, 40) + "\")"};
  if (!(c.learning_rate > 0.0f && c.learning_rate <= kMaxLearningRate))
    return Failure{"the learning rate must be a number above 0 and at most " + number(kMaxLearningRate) + " (got " +
                   number(c.learning_rate) + ")"};
  if (!(c.weight_decay >= 0.0f && c.weight_decay <= 1.0f))
    return Failure{"the weight decay must be 0 to 1 (got " + number(c.weight_decay) + ")"};
  if (!(c.momentum >= 0.0f && c.momentum < 1.0f))
    return Failure{"the momentum must be at least 0 and below 1 (got " + number(c.momentum) + ")"};
  if (!(c.clip >= 0.0f && c.clip <= 1e6f))
    return Failure{"the gradient clip must be 0 (off) to 1e6 (got " + number(c.clip) + ")"};
  if (c.batch < 1 || c.batch > kMaxBatch)
    return Failure{"the batch must be 1 to " + std::to_string(kMaxBatch) + " (got " + std::to_string(c.batch) + ")"};
  return Ok{};
}

Expected<std::unique_ptr<Trainer>> Trainer::create(const TrainConfig& config) {
  using E = Expected<std::unique_ptr<Trainer>>;
  if (const Status valid = check_train_config(config); !valid.ok()) return Failure{valid.error()};
  std::unique_ptr<Trainer> t(new Trainer());
  t->config_ = config;
  t->task_ = Task::make(config.task).value();
  t->model_ = model_config_of(config, t->task_);
  t->layout_ = ParameterLayout::of(t->model_);
  t->params_.assign(t->layout_.count, 0.0f);
  t->grads_.assign(t->layout_.count, 0.0f);
  initialize_parameters(t->layout_, config.seed, t->params_.data());
  OptimizerConfig o;
  o.kind = config.optimizer == "sgd" ? OptimizerKind::kSgd : OptimizerKind::kAdamW;
  o.learning_rate = config.learning_rate;
  o.weight_decay = config.weight_decay;
  o.momentum = config.momentum;
  o.clip = config.clip;
  t->optimizer_ = Optimizer(o, t->layout_.count);
  t->data_rng_ = SplitMix64(stream_seed(config.seed, 0x6461746100000000ull));  // "data"
  return E(std::move(t));
}

float Trainer::forward(const Batch& batch, Activations<float>& acts, Rows rows) const {
  return model_forward(model_, layout_, params_.data(), batch, acts, rows);
}

Expected<StepReport> Trainer::step(int steps) {
  using E = Expected<StepReport>;
  if (steps < 1 || steps > kMaxStepsPerCall)
    return E::failure("steps must be 1 to " + std::to_string(kMaxStepsPerCall) + " per call (got " +
                      std::to_string(steps) + ")");
  if (steps_done_ + steps > kMaxTotalSteps)
    return E::failure("a model trains for at most " + std::to_string(kMaxTotalSteps) + " steps (" +
                      std::to_string(steps_done_) + " done, " + std::to_string(steps) + " more asked)");
  StepReport report;
  double loss_sum = 0;
  for (int s = 0; s < steps; ++s) {
    task_.sample_batch(data_rng_, config_.batch, batch_);
    const float loss = forward(batch_, acts_, Rows::kTargets);
    std::fill(grads_.begin(), grads_.end(), 0.0f);
    model_backward(model_, layout_, params_.data(), grads_.data(), batch_, acts_, dacts_);
    if (s + 1 == steps) {  // the per-tensor norms before clipping rescales them (only the last step's are kept)
      gradient_norms_.resize(layout_.entries.size());
      for (std::size_t e = 0; e < layout_.entries.size(); ++e) {
        const ParameterEntry& entry = layout_.entries[e];
        gradient_norms_[e] = gradient_norm(grads_.data() + entry.offset, std::size_t(entry.rows) * entry.cols);
      }
    }
    const float norm = clip_gradients(grads_.data(), grads_.size(), optimizer_.config().clip);
    if (!std::isfinite(loss) || !std::isfinite(norm))
      return E::failure("training diverged at step " + std::to_string(steps_done_ + 1) +
                        " (the loss or the gradient is not finite); " +
                        "the weights are those before that step: lower the learning rate");
    optimizer_.step(params_.data(), grads_.data());
    ++steps_done_;
    loss_sum += loss;
    report.loss = loss;
    report.gradient_norm = norm;
  }
  report.step = steps_done_;
  report.mean_loss = float(loss_sum / steps);
  return report;
}

template <typename Visit>
std::size_t Trainer::for_each_heldout_batch(Rows rows, Visit&& visit, std::size_t first,
                                            std::size_t max_batches) const {
  const auto& set = task_.heldout();
  Activations<float> acts;
  Batch batch;
  for (std::size_t done = 0; first < set.size() && done < max_batches; first += kHeldoutBatch, ++done) {
    const int count = int(std::min<std::size_t>(kHeldoutBatch, set.size() - first));
    task_.pack(set, first, count, batch);
    forward(batch, acts, rows);
    visit(static_cast<const Batch&>(batch), static_cast<const Activations<float>&>(acts), first, count);
  }
  return std::min(first, set.size());
}

void Trainer::add_evaluation(const Activations<float>& acts, int& correct, int& positions, double& loss) const {
  const int V = model_.vocab;
  for (int p = 0; p < acts.P; ++p) {
    const float* pr = acts.probs.data() + std::size_t(p) * V;
    const int best = int(std::max_element(pr, pr + V) - pr);
    correct += best == acts.target_tokens[p];
    loss += acts.losses[p];
  }
  positions += acts.P;
}

Evaluation Trainer::evaluation_of(int correct, int positions, double loss) const {
  Evaluation e;
  e.examples = int(task_.heldout().size());
  e.positions = positions;
  e.accuracy = positions ? float(correct) / float(positions) : 0.0f;
  e.loss = positions ? float(loss / positions) : 0.0f;
  return e;
}

Evaluation Trainer::evaluate() const {
  int correct = 0, positions = 0;
  double loss = 0;
  for_each_heldout_batch(Rows::kTargets, [&](const Batch&, const Activations<float>& acts, std::size_t, int) {
    add_evaluation(acts, correct, positions, loss);
  });
  return evaluation_of(correct, positions, loss);
}

Expected<SentenceAnalysis> Trainer::analyze(const std::vector<std::string>& words, int top_k) const {
  using E = Expected<SentenceAnalysis>;
  if (words.empty()) return E::failure("the sentence is empty");
  if (int(words.size()) > kMaxPositions)
    return E::failure("the trained model reads at most " + std::to_string(kMaxPositions) + " words (got " +
                      std::to_string(words.size()) + ")");
  if (top_k < 1 || top_k > model_.vocab) top_k = std::min(5, model_.vocab);
  SentenceAnalysis out;
  out.tokens = task_.tokenize(words);
  const int n = int(words.size()), C = model_.d_model, NH = model_.heads;
  const int it = task_.vocabulary().id("it");
  out.query = n - 1;
  if (task_.kind() == TaskKind::kWhoIsIt)
    for (int i = 0; i < n; ++i)
      if (out.tokens.ids[i] == it) {
        out.query = i;
        break;
      }
  Batch batch;
  batch.B = 1;
  batch.T = n;
  batch.tokens = out.tokens.ids;
  batch.targets.assign(n, -1);
  batch.targets[out.query] = 0;  // any token: only the probabilities at the query are read
  batch.lengths = {n};
  Activations<float> acts;
  forward(batch, acts);
  for (int l = 0; l < model_.layers; ++l) {
    LayerAnalysis layer;
    layer.attention = Tensor3(NH, n, n);
    std::copy(acts.layer[l].att.begin(), acts.layer[l].att.end(), layer.attention.data.begin());
    layer.attention_input = matrix_of(acts.layer[l].ln1.data(), n, C);
    const auto w = layer_tensors(params_.data(), layout_.layer[l]);
    layer.W_q = matrix_of(w.W_q, C, C);
    layer.W_k = matrix_of(w.W_k, C, C);
    layer.W_v = matrix_of(w.W_v, C, C);
    layer.W_o = matrix_of(w.W_o, C, C);
    out.layers.push_back(std::move(layer));
  }
  std::vector<int> order(model_.vocab);
  for (int i = 0; i < model_.vocab; ++i) order[i] = i;
  const float* pr = acts.probs.data();
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return pr[a] > pr[b]; });
  for (int i = 0; i < top_k; ++i) out.top.push_back({order[i], task_.vocabulary().words[order[i]], pr[order[i]]});
  return out;
}

std::vector<HeadShares> Trainer::zero_shares() const {
  std::vector<HeadShares> shares;
  if (task_.kind() != TaskKind::kWhoIsIt) return shares;
  for (int l = 0; l < model_.layers; ++l)
    for (int h = 0; h < model_.heads; ++h) shares.push_back({l, h, 0, 0, 0, 0});
  return shares;
}

void Trainer::add_shares(const Batch& batch, const Activations<float>& acts, std::size_t first, int count,
                         std::vector<HeadShares>& sums) const {
  if (sums.empty()) return;  // not who-is-it: no referent to share
  const auto& set = task_.heldout();
  const int Tn = batch.T, NH = model_.heads;
  for (int b = 0; b < count; ++b) {
    const Example& ex = set[first + b];
    for (int l = 0; l < model_.layers; ++l)
      for (int h = 0; h < NH; ++h) {
        const float* row = acts.layer[l].att.data() + ((std::size_t(b) * NH + h) * Tn + ex.query) * Tn;
        HeadShares& s = sums[std::size_t(l) * NH + h];
        s.referent += row[ex.referent];
        s.other_noun += row[ex.other];
        s.adjective += row[ex.adjective];
        s.self += row[ex.query];
      }
  }
}

std::vector<HeadShares> Trainer::shares_of(std::vector<HeadShares> sums) const {
  const auto& set = task_.heldout();
  const float inv = set.empty() ? 0.0f : 1.0f / float(set.size());
  for (auto& s : sums) s.referent *= inv, s.other_noun *= inv, s.adjective *= inv, s.self *= inv;
  return sums;
}

std::vector<HeadShares> Trainer::head_shares() const {
  std::vector<HeadShares> sums = zero_shares();
  if (sums.empty()) return sums;
  for_each_heldout_batch(Rows::kAll, [&](const Batch& batch, const Activations<float>& acts, std::size_t first,
                                         int count) { add_shares(batch, acts, first, count, sums); });
  return shares_of(std::move(sums));
}

bool Trainer::read_heldout(HeldoutReading& reading, int batches) const {
  if (reading.done) return true;
  if (!reading.started) reading.shares = zero_shares(), reading.started = true;
  // Rows::kAll: the shares read every query's attention row; the probabilities at the targets are the
  // same as evaluate()'s (the rows are computed alike, kTargets only skips the others).
  reading.next = for_each_heldout_batch(
      Rows::kAll,
      [&](const Batch& batch, const Activations<float>& acts, std::size_t first, int count) {
        add_evaluation(acts, reading.correct, reading.positions, reading.loss);
        add_shares(batch, acts, first, count, reading.shares);
      },
      reading.next, std::size_t(std::max(batches, 1)));
  if (reading.next < task_.heldout().size()) return false;
  reading.done = true;
  reading.evaluation = evaluation_of(reading.correct, reading.positions, reading.loss);
  reading.mean_shares = shares_of(reading.shares);
  return true;
}

HeadScores HeadScoreSums::mean(int layer, int head) const {
  const auto over = [](double sum, std::int64_t n) { return n ? float(sum / double(n)) : 0.0f; };
  HeadScores s;
  s.layer = layer, s.head = head;
  s.previous_token = over(previous_token, previous_rows);
  s.induction = over(induction, induction_rows);
  s.induction_latest = over(induction_latest, induction_rows);
  s.self = over(self, rows);
  s.first = over(first, rows);
  s.entropy = over(entropy, rows);
  return s;
}

// att (NH,T,T) of one sequence; sums (NH). Rows are the queries i < length that see >= 2 keys.
void accumulate_head_scores(const float* att, int NH, int Tn, int length, bool causal, int period,
                            HeadScoreSums* sums) {
  for (int h = 0; h < NH; ++h) {
    HeadScoreSums& s = sums[h];
    for (int i = 0; i < length; ++i) {
      const int visible = causal ? std::min(i + 1, length) : length;  // keys 0 .. visible-1
      if (visible < 2) continue;
      const float* a = att + (std::size_t(h) * Tn + i) * Tn;
      double entropy = 0;
      for (int j = 0; j < visible; ++j)
        if (a[j] > 0.0f) entropy -= double(a[j]) * std::log(double(a[j]));  // 0 ln 0 = 0
      s.entropy += entropy;
      s.self += a[i];
      s.first += a[0];
      ++s.rows;
      if (i >= 1) s.previous_token += a[i - 1], ++s.previous_rows;
      // the key after the previous occurrence of token i; i-period+1 <= i-2 keeps it apart from i-1
      if (period >= 3 && i >= period) {
        s.induction_latest += a[i - period + 1];
        for (int j = i - period + 1; j >= 1; j -= period) s.induction += a[j];
        ++s.induction_rows;
      }
    }
  }
}

AttentionScores Trainer::attention_scores() const {
  const int NH = model_.heads, NL = model_.layers;
  std::vector<HeadScoreSums> sums(std::size_t(NL) * NH);
  const auto& set = task_.heldout();
  // Rows::kAll: every query row of every layer.
  for_each_heldout_batch(
      Rows::kAll, [&](const Batch& batch, const Activations<float>& acts, std::size_t first, int count) {
        const int Tn = batch.T;
        for (int b = 0; b < count; ++b)
          for (int l = 0; l < NL; ++l)
            accumulate_head_scores(acts.layer[l].att.data() + std::size_t(b) * NH * Tn * Tn, NH, Tn, batch.lengths[b],
                                   model_.causal, set[first + b].period, sums.data() + std::size_t(l) * NH);
      });
  AttentionScores out;
  double total = 0;
  for (int l = 0; l < NL; ++l) {
    double layer = 0;
    for (int h = 0; h < NH; ++h) {
      out.heads.push_back(sums[std::size_t(l) * NH + h].mean(l, h));
      layer += out.heads.back().entropy;
    }
    out.layer_entropy.push_back(float(layer / NH));
    total += layer;
  }
  out.entropy = float(total / (double(NL) * NH));
  return out;
}

std::vector<std::uint8_t> Trainer::export_weights() const {
  WeightsFile file;
  file.config = config_;
  file.steps = steps_done_;
  file.heldout_accuracy = evaluate().accuracy;
  file.parameters = params_;
  return encode_weights(file);
}

Expected<std::unique_ptr<Trainer>> Trainer::import_weights(const std::uint8_t* bytes, std::size_t size) {
  using E = Expected<std::unique_ptr<Trainer>>;
  auto file = decode_weights(bytes, size);
  if (!file.ok()) return E::failure(file.error());
  auto trainer = create(file.value().config);
  if (!trainer.ok()) return trainer;
  trainer.value()->params_ = std::move(file.value().parameters);
  trainer.value()->steps_done_ = file.value().steps;
  return trainer;
}

}  // namespace abh::train
