// The training core, the tiny transformer of cpp/train/ (issue 18). Binding only: every rule and
// number is the trainer's (cpp/train/trainer.h, model.h).
//
//   new Trainer()                       an empty handle; JS must call .delete() when done
//   .configure(config)                  { task?, layers?, heads?, dModel?, layerNorm?, mlp?, scale?, mask?,
//                                         optimizer?, learningRate?, weightDecay?, momentum?, clip?, batch?,
//                                         seed? } -> { parameterCount } | { error }   a fresh seeded model
//   .load(bytes: Uint8Array)            a weights file -> { parameterCount } | { error } (the old model stays)
//   .step(n)                            -> { step, loss, meanLoss, gradientNorm } | { error }
//   .evaluate()                         -> { accuracy, loss, examples, positions }  on the held-out set
//   .analyze(words: string[], topK)     -> { words, ids, unknown: Uint8Array, query,
//                                            top: [{ token, word, probability }],
//                                            layers: [{ attention: JsTensor3 (h, n, n),
//                                                       attentionInput: JsMatrix (n, d_model),
//                                                       W_q, W_k, W_v, W_o: JsMatrix (d_model, d_model) }] }
//                                          | { error }
//   .headShares()                       -> [{ layer, head, referent, otherNoun, adjective, self }]
//   .readHeldout(batches)               -> { done: false, read, examples } | { done: true, evaluation, shares }
//                                          | { error }   evaluate() and headShares() in one pass, `batches`
//                                          held-out batches per call (trainer.h's read_heldout); the next
//                                          call goes on where this one stopped, a new model starts over
//   .attentionScores()                  -> { heads: [{ layer, head, previousToken, induction, inductionLatest, self,
//                                            first, entropy }], layerEntropy: number[], entropy } | { error }
//                                            (trainer.h's HeadScores, over the held-out set)
//   .gradientNorms()                    -> [{ name, norm }] | { error }  each tensor's |gradient| at the last step,
//                                            before clipping, in layout order ([] before the first step)
//   .exportWeights()                    -> Uint8Array (the weights file)
//   .parameters()                       -> Float32Array (the flat buffer, in layout order)
//   .describe()                         -> { config, steps, parameterCount, causal, vocabulary: string[],
//                                            layout: [{ name, offset, rows, cols }] }
//   trainingLimits()                    -> { maxPositions, maxLayers, maxHeads, minDModel, maxDModel, maxBatch,
//                                            maxStepsPerCall, maxTotalSteps, maxLearningRate }
// Every output is a copy; no view into wasm memory leaves this section.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings/common.h"
#include "train/trainer.h"
#include "train/weights_file.h"

namespace abh::bindings {
namespace {

using train::Trainer;

// ---- results (the trainer's own structs are value_objects too: see the EMSCRIPTEN_BINDINGS block) ----

struct LayerAnalysisJs {
  JsTensor3 attention;
  JsMatrix attentionInput, W_q, W_k, W_v, W_o;
};
struct SentenceAnalysisJs {
  val words = val::undefined(), ids = val::undefined(), unknown = val::undefined();
  int query = 0;
  val top = val::undefined(), layers = val::undefined();
};
struct AttentionScoresJs {
  val heads = val::undefined(), layerEntropy = val::undefined();
  float entropy = 0;
};
struct HeldoutPartJs {
  bool done = false;
  double read = 0, examples = 0;
};
struct HeldoutReadJs {
  bool done = true;
  train::Evaluation evaluation;
  val shares = val::undefined();
};
struct GradientNormJs {
  std::string name;
  float norm = 0;
};
struct TrainingLimitsJs {
  int maxPositions = 0, maxLayers = 0, maxHeads = 0, minDModel = 0, maxDModel = 0, maxBatch = 0, maxStepsPerCall = 0,
      maxTotalSteps = 0;
  float maxLearningRate = 0;
};
struct DescriptionJs {
  train::TrainConfig config;
  int steps = 0;
  double parameterCount = 0;
  bool causal = false;
  val vocabulary = val::undefined(), layout = val::undefined();
};
struct CreatedJs {
  double parameterCount = 0;
};

// ---- JS -> engine: config[key] into target when present; a wrong type is an error naming the key ----

Status read_int(const val& config, const char* key, int& target) {
  const val v = config[key];
  if (v.isUndefined()) return Ok{};
  const double x = v.isNumber() ? v.as<double>() : NAN;
  if (!(std::isfinite(x) && x == std::floor(x) && std::abs(x) <= 1e9))
    return Failure{std::string(key) + " must be a whole number"};
  target = int(x);
  return Ok{};
}
Status read_float(const val& config, const char* key, float& target) {
  const val v = config[key];
  if (v.isUndefined()) return Ok{};
  if (!v.isNumber()) return Failure{std::string(key) + " must be a number"};
  const double x = v.as<double>();
  target = std::isfinite(x) && std::abs(x) > 3e38 ? float(x > 0 ? INFINITY : -INFINITY)
                                                  : float(x);  // NaN stays NaN: checked later
  return Ok{};
}
Status read_bool(const val& config, const char* key, bool& target) {
  const val v = config[key];
  if (v.isUndefined()) return Ok{};
  if (v.typeOf().as<std::string>() != "boolean") return Failure{std::string(key) + " must be true or false"};
  target = v.as<bool>();
  return Ok{};
}
Status read_string(const val& config, const char* key, std::string& target) {
  const val v = config[key];
  if (v.isUndefined()) return Ok{};
  if (!v.isString()) return Failure{std::string(key) + " must be a string"};
  target = v.as<std::string>();
  return Ok{};
}

// The training core's limits (model.h, trainer.h), with or without a model: `npm run build:wasm`
// writes them into web/src/engine/generated/limits.json, which the training settings clamp to.
TrainingLimitsJs training_limits() {
  using namespace train;
  return {kMaxPositions, kMaxLayers,       kMaxHeads,      kMinDModel,      kMaxDModel,
          kMaxBatch,     kMaxStepsPerCall, kMaxTotalSteps, kMaxLearningRate};
}

class TrainerJs {
 public:
  val configure(val config) {
    if (config.typeOf().as<std::string>() != "object" || config.isNull())
      return failure("the training configuration must be an object");
    train::TrainConfig c;
    for (const Status& read :
         {read_string(config, "task", c.task), read_int(config, "layers", c.layers), read_int(config, "heads", c.heads),
          read_int(config, "dModel", c.d_model), read_bool(config, "layerNorm", c.layer_norm),
          read_bool(config, "mlp", c.mlp), read_bool(config, "scale", c.scale), read_string(config, "mask", c.mask),
          read_string(config, "optimizer", c.optimizer), read_float(config, "learningRate", c.learning_rate),
          read_float(config, "weightDecay", c.weight_decay), read_float(config, "momentum", c.momentum),
          read_float(config, "clip", c.clip), read_int(config, "batch", c.batch)})
      if (!read.ok()) return failure(read.error());
    if (!config["seed"].isUndefined()) {
      const double seed = number_or_nan(config["seed"]);
      if (!(seed >= 0 && seed <= 4294967295.0 && seed == std::floor(seed)))
        return failure("seed must be a whole number from 0 to 4294967295");
      c.seed = std::uint32_t(seed);
    }
    return adopt(Trainer::create(c));
  }

  val load(val bytes) {
    const auto data = read_file_bytes(bytes, "weights", train::kMaxWeightsBytes);
    if (!data.ok()) return failure(data.error());
    return adopt(Trainer::import_weights(data.value().data(), data.value().size()));
  }

  val step(int steps) {
    reading_ = {};  // a pass under way read the weights before this step
    return with_model(
        [&](Trainer& t) { return js_result(t.step(steps), [](const train::StepReport& r) { return r; }); });
  }

  val evaluate() {
    return with_model([](Trainer& t) { return val(t.evaluate()); });
  }

  val analyze(val words_js, int top_k) {
    return with_model([&](Trainer& t) {
      if (!words_js.isArray()) return failure("the words must be an array of strings");
      const int count = words_js["length"].as<int>();
      if (count > train::kMaxPositions)
        return failure("the trained model reads at most " + std::to_string(train::kMaxPositions) + " words (got " +
                       std::to_string(count) + ")");
      std::vector<std::string> words;
      for (int i = 0; i < count; ++i) {
        const val w = words_js[i];
        if (!w.isString()) return failure("word " + std::to_string(i + 1) + " is not a string");
        words.push_back(w.as<std::string>());
      }
      return js_result(t.analyze(words, top_k), [](const train::SentenceAnalysis& a) {
        val layers = val::array();
        for (const auto& l : a.layers)
          layers.call<void>("push", LayerAnalysisJs{to_js(l.attention), to_js(l.attention_input), to_js(l.W_q),
                                                    to_js(l.W_k), to_js(l.W_v), to_js(l.W_o)});
        return SentenceAnalysisJs{to_js_array(a.tokens.words),  to_js_array(a.tokens.ids),
                                  copy_bytes(a.tokens.unknown), a.query,
                                  to_js_array(a.top),           layers};
      });
    });
  }

  // [] without a model: the page asks before its first training step.
  val head_shares() const { return trainer_ ? to_js_array(trainer_->head_shares()) : val::array(); }

  val read_heldout(int batches) {
    return with_model([&](Trainer& t) {
      if (batches < 1) return failure("batches must be at least 1");
      if (!t.read_heldout(reading_, batches))
        return val(HeldoutPartJs{false, double(reading_.next), double(t.task().heldout().size())});
      const val out(HeldoutReadJs{true, reading_.evaluation, to_js_array(reading_.mean_shares)});
      reading_ = {};
      return out;
    });
  }

  val attention_scores() {
    return with_model([](Trainer& t) {
      const auto scores = t.attention_scores();
      return val(AttentionScoresJs{to_js_array(scores.heads), to_js_array(scores.layer_entropy), scores.entropy});
    });
  }

  val gradient_norms() {
    return with_model([](Trainer& t) {
      const auto& norms = t.gradient_norms();
      const auto& entries = t.layout().entries;
      val out = val::array();
      for (std::size_t i = 0; i < norms.size() && i < entries.size(); ++i)
        out.call<void>("push", GradientNormJs{entries[i].name, norms[i]});
      return out;
    });
  }

  val export_weights() {
    return with_model([](Trainer& t) { return copy_bytes(t.export_weights()); });
  }

  val parameters() {
    return with_model([](Trainer& t) { return copy_floats(t.parameters()); });
  }

  val describe() {
    return with_model([](Trainer& t) {
      return val(DescriptionJs{t.config(), t.steps_done(), double(t.layout().count), t.model_config().causal,
                               to_js_array(t.task().vocabulary().words), to_js_array(t.layout().entries)});
    });
  }

 private:
  // `use(trainer)`, or the one message for every call that needs a model before there is one.
  template <class Use>
  val with_model(Use use) {
    if (!trainer_) return failure("the trainer has no model yet: configure or load one first");
    return use(*trainer_);
  }

  val adopt(Expected<std::unique_ptr<Trainer>> created) {
    if (!created.ok()) return failure(created.error());
    trainer_ = std::move(created.value());
    reading_ = {};
    return val(CreatedJs{double(trainer_->layout().count)});
  }

  std::unique_ptr<Trainer> trainer_;
  // readHeldout's pass under way, for the weights as they are: a new model or a step starts it over.
  train::HeldoutReading reading_;
};

}  // namespace
}  // namespace abh::bindings

EMSCRIPTEN_BINDINGS(training) {
  using emscripten::value_object;
  using namespace abh::bindings;
  using namespace abh::train;
  value_object<TrainConfig>("TrainConfig")
      .field("task", &TrainConfig::task)
      .field("layers", &TrainConfig::layers)
      .field("heads", &TrainConfig::heads)
      .field("dModel", &TrainConfig::d_model)
      .field("layerNorm", &TrainConfig::layer_norm)
      .field("mlp", &TrainConfig::mlp)
      .field("scale", &TrainConfig::scale)
      .field("mask", &TrainConfig::mask)
      .field("optimizer", &TrainConfig::optimizer)
      .field("learningRate", &TrainConfig::learning_rate)
      .field("weightDecay", &TrainConfig::weight_decay)
      .field("momentum", &TrainConfig::momentum)
      .field("clip", &TrainConfig::clip)
      .field("batch", &TrainConfig::batch)
      .field("seed", &TrainConfig::seed);
  value_object<StepReport>("StepReport")
      .field("step", &StepReport::step)
      .field("loss", &StepReport::loss)
      .field("meanLoss", &StepReport::mean_loss)
      .field("gradientNorm", &StepReport::gradient_norm);
  value_object<Evaluation>("Evaluation")
      .field("accuracy", &Evaluation::accuracy)
      .field("loss", &Evaluation::loss)
      .field("examples", &Evaluation::examples)
      .field("positions", &Evaluation::positions);
  value_object<Prediction>("Prediction")
      .field("token", &Prediction::token)
      .field("word", &Prediction::word)
      .field("probability", &Prediction::probability);
  value_object<LayerAnalysisJs>("LayerAnalysis")
      .field("attention", &LayerAnalysisJs::attention)
      .field("attentionInput", &LayerAnalysisJs::attentionInput)
      .field("W_q", &LayerAnalysisJs::W_q)
      .field("W_k", &LayerAnalysisJs::W_k)
      .field("W_v", &LayerAnalysisJs::W_v)
      .field("W_o", &LayerAnalysisJs::W_o);
  value_object<SentenceAnalysisJs>("SentenceAnalysis")
      .field("words", &SentenceAnalysisJs::words)
      .field("ids", &SentenceAnalysisJs::ids)
      .field("unknown", &SentenceAnalysisJs::unknown)
      .field("query", &SentenceAnalysisJs::query)
      .field("top", &SentenceAnalysisJs::top)
      .field("layers", &SentenceAnalysisJs::layers);
  value_object<HeldoutPartJs>("HeldoutPart")
      .field("done", &HeldoutPartJs::done)
      .field("read", &HeldoutPartJs::read)
      .field("examples", &HeldoutPartJs::examples);
  value_object<HeldoutReadJs>("HeldoutRead")
      .field("done", &HeldoutReadJs::done)
      .field("evaluation", &HeldoutReadJs::evaluation)
      .field("shares", &HeldoutReadJs::shares);
  value_object<HeadShares>("HeadShares")
      .field("layer", &HeadShares::layer)
      .field("head", &HeadShares::head)
      .field("referent", &HeadShares::referent)
      .field("otherNoun", &HeadShares::other_noun)
      .field("adjective", &HeadShares::adjective)
      .field("self", &HeadShares::self);
  value_object<HeadScores>("HeadScores")
      .field("layer", &HeadScores::layer)
      .field("head", &HeadScores::head)
      .field("previousToken", &HeadScores::previous_token)
      .field("induction", &HeadScores::induction)
      .field("inductionLatest", &HeadScores::induction_latest)
      .field("self", &HeadScores::self)
      .field("first", &HeadScores::first)
      .field("entropy", &HeadScores::entropy);
  value_object<AttentionScoresJs>("AttentionScores")
      .field("heads", &AttentionScoresJs::heads)
      .field("layerEntropy", &AttentionScoresJs::layerEntropy)
      .field("entropy", &AttentionScoresJs::entropy);
  value_object<GradientNormJs>("GradientNorm")
      .field("name", &GradientNormJs::name)
      .field("norm", &GradientNormJs::norm);
  value_object<ParameterEntry>("ParameterEntry")
      .field("name", &ParameterEntry::name)
      .field("offset", &ParameterEntry::offset)
      .field("rows", &ParameterEntry::rows)
      .field("cols", &ParameterEntry::cols);
  value_object<TrainingLimitsJs>("TrainingLimits")
      .field("maxPositions", &TrainingLimitsJs::maxPositions)
      .field("maxLayers", &TrainingLimitsJs::maxLayers)
      .field("maxHeads", &TrainingLimitsJs::maxHeads)
      .field("minDModel", &TrainingLimitsJs::minDModel)
      .field("maxDModel", &TrainingLimitsJs::maxDModel)
      .field("maxBatch", &TrainingLimitsJs::maxBatch)
      .field("maxStepsPerCall", &TrainingLimitsJs::maxStepsPerCall)
      .field("maxTotalSteps", &TrainingLimitsJs::maxTotalSteps)
      .field("maxLearningRate", &TrainingLimitsJs::maxLearningRate);
  value_object<DescriptionJs>("TrainerDescription")
      .field("config", &DescriptionJs::config)
      .field("steps", &DescriptionJs::steps)
      .field("parameterCount", &DescriptionJs::parameterCount)
      .field("causal", &DescriptionJs::causal)
      .field("vocabulary", &DescriptionJs::vocabulary)
      .field("layout", &DescriptionJs::layout);
  value_object<CreatedJs>("TrainerCreated").field("parameterCount", &CreatedJs::parameterCount);

  emscripten::function("trainingLimits", &training_limits);
  emscripten::class_<TrainerJs>("Trainer")
      .constructor<>()
      .function("configure", &TrainerJs::configure)
      .function("load", &TrainerJs::load)
      .function("step", &TrainerJs::step)
      .function("evaluate", &TrainerJs::evaluate)
      .function("analyze", &TrainerJs::analyze)
      .function("headShares", &TrainerJs::head_shares)
      .function("readHeldout", &TrainerJs::read_heldout)
      .function("attentionScores", &TrainerJs::attention_scores)
      .function("gradientNorms", &TrainerJs::gradient_norms)
      .function("exportWeights", &TrainerJs::export_weights)
      .function("parameters", &TrainerJs::parameters)
      .function("describe", &TrainerJs::describe);
}
