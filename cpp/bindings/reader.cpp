// The reader model of step 1 (issue 38, cpp/train/reader.h). Binding only: every rule and number is
// the model's (ReaderModel::answer, decode_reader_weights).
//
//   new ReaderModel()                  an empty handle; JS must call .delete() when done
//   .load(bytes: Uint8Array)           a reader weights file -> { parameterCount } | { error } (the old model stays)
//   .useAliases(bytes: Uint8Array)     an alias table (reader_aliases.h) for the loaded model -> { aliases: count
//                                        kept } | { error } (the old table stays)
//   .answer(words: string[], pronoun)  pronoun -1: the sentence's first pronoun ->
//                                        { words, unknown: Uint8Array, readAs: string[] (the known word an
//                                          aliased word was read as, '' where none), aliasRelation: string[]
//                                          (kReaderAliasRelations, '' where none), candidates: Uint8Array, pronoun,
//                                          queries: number[], pointer: JsMatrix (queries, n), antecedent,
//                                          probability, attention: JsTensor3[] (per layer (heads, n, n)) }
//                                        | { error }
//   .answerWithin(words, allowed: Uint8Array, pronoun)  the same with attention restricted to a pattern,
//                                        allowed (n, n) row-major, 1 where word i may use word j (issue 40)
//   .answerVariants(words, pronoun, positions: number[], replacement: string)
//                                      the sentence again once per position with that word replaced, in
//                                        one call (step 1's flips) -> Float32Array (variants, 2): each
//                                        variant's antecedent (-1: none) and probability | { error }
//   .describe()                        -> { causal, layers, heads, dModel, mlp, positions, parameterCount,
//                                           steps, seed, vocabularySize, aliasCount } | { error }
// Every output is a copy; no view into wasm memory leaves this section.
#include "train/reader.h"

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bindings/common.h"
#include "train/weights_file.h"

namespace abh::bindings {
namespace {

using train::ReaderAnswer;
using train::ReaderModel;

struct ReaderAnswerJs {
  val words = val::undefined(), unknown = val::undefined(), readAs = val::undefined(), aliasRelation = val::undefined(),
      candidates = val::undefined();
  int pronoun = -1;
  val queries = val::undefined();
  JsMatrix pointer;
  int antecedent = -1;
  float probability = 0;
  val attention = val::undefined();
};

struct ReaderDescriptionJs {
  bool causal = false, mlp = false;
  int layers = 0, heads = 0, dModel = 0, positions = 0;
  double parameterCount = 0;
  int steps = 0;
  double seed = 0;
  int vocabularySize = 0, aliasCount = 0;
};

struct ReaderAliasesJs {
  int aliases = 0;
};

struct ReaderLoadedJs {
  double parameterCount = 0;
};

ReaderAnswerJs to_js(const ReaderAnswer& a, const ReaderModel& model) {
  const int n = int(a.words.size());
  ReaderAnswerJs out;
  out.words = to_js_array(a.words);
  out.unknown = copy_bytes(a.unknown);
  std::vector<std::string> read_as, relation;
  for (int i = 0; i < n; ++i) {
    const bool aliased = a.read_as[std::size_t(i)] >= 0;
    read_as.push_back(aliased ? model.vocabulary.words[std::size_t(a.read_as[std::size_t(i)])] : "");
    relation.push_back(aliased ? std::string(train::kReaderAliasRelations[a.relation[std::size_t(i)]]) : "");
  }
  out.readAs = to_js_array(read_as);
  out.aliasRelation = to_js_array(relation);
  out.candidates = copy_bytes(a.candidates);
  out.pronoun = a.pronoun;
  out.queries = to_js_array(a.queries);
  out.pointer = {int(a.queries.size()), n, copy_floats(a.pointer)};
  out.antecedent = a.antecedent;
  out.probability = a.probability;
  out.attention = val::array();
  const std::size_t per_layer = std::size_t(a.heads) * std::size_t(n) * std::size_t(n);
  for (int l = 0; l < a.layers; ++l)
    out.attention.call<void>(
        "push", JsTensor3{a.heads, n, n, copy_floats(a.attention.data() + std::size_t(l) * per_layer, per_layer)});
  return out;
}

class ReaderModelJs {
 public:
  val load(val bytes) {
    const auto data = read_file_bytes(bytes, "reader weights", train::kMaxReaderWeightsBytes);
    if (!data.ok()) return failure(data.error());
    auto decoded = train::decode_reader_weights(data.value().data(), data.value().size());
    if (!decoded.ok()) return failure(decoded.error());
    model_ = std::make_unique<ReaderModel>(std::move(decoded.value()));
    return val(ReaderLoadedJs{double(model_->layout.count)});
  }

  val use_aliases(val bytes) {
    if (!model_) return failure("no reader model is loaded");
    const auto data = read_file_bytes(bytes, "reader alias table", train::kMaxReaderAliasBytes);
    if (!data.ok()) return failure(data.error());
    const auto kept =
        model_->use_aliases(std::string_view(reinterpret_cast<const char*>(data.value().data()), data.value().size()));
    if (!kept.ok()) return failure(kept.error());
    return val(ReaderAliasesJs{kept.value()});
  }

  // words: an array of strings (the TypeScript wrapper checks the types); pronoun: -1 or a word index.
  val answer(val words, int pronoun) const {
    if (!model_) return failure("no reader model is loaded");
    const std::vector<std::string> list = emscripten::vecFromJSArray<std::string>(words);
    return js_result(model_->answer(list, pronoun), [this](const ReaderAnswer& a) { return to_js(a, *model_); });
  }

  // allowed: a Uint8Array of n * n entries (the model checks its size and values).
  val answer_within(val words, val allowed, int pronoun) const {
    if (!model_) return failure("no reader model is loaded");
    if (allowed.typeOf().as<std::string>() != "object" || allowed.isNull() || !allowed["length"].isNumber())
      return failure("the pattern must be a Uint8Array");
    const double cells = allowed["length"].as<double>();
    if (cells > double(train::kMaxReaderPositions) * train::kMaxReaderPositions)
      return failure("the pattern is larger than the model's longest sentence allows");
    const std::vector<std::string> list = emscripten::vecFromJSArray<std::string>(words);
    const std::vector<std::uint8_t> mask = emscripten::convertJSArrayToNumberVector<std::uint8_t>(allowed);
    return js_result(model_->answer(list, mask, pronoun), [this](const ReaderAnswer& a) { return to_js(a, *model_); });
  }

  // positions: an array of word indexes (the model refuses out-of-range sentences; indexes are checked here).
  val answer_variants(val words, int pronoun, val positions, const std::string& replacement) const {
    if (!model_) return failure("no reader model is loaded");
    const std::vector<std::string> list = emscripten::vecFromJSArray<std::string>(words);
    const std::vector<int> at = emscripten::vecFromJSArray<int>(positions);
    std::vector<float> out;
    out.reserve(at.size() * 2);
    for (const int position : at) {
      if (position < 0 || position >= int(list.size()))
        return failure("a variant's position " + std::to_string(position) + " is not a word of the sentence");
      std::vector<std::string> variant = list;
      variant[std::size_t(position)] = replacement;
      const auto answer = model_->answer(variant, pronoun);
      if (!answer.ok()) return failure(answer.error());
      out.push_back(float(answer.value().antecedent));
      out.push_back(answer.value().probability);
    }
    return copy_floats(out);
  }

  val describe() const {
    if (!model_) return failure("no reader model is loaded");
    const train::ModelConfig& c = model_->config;
    return val(ReaderDescriptionJs{c.causal, c.mlp, c.layers, c.heads, c.d_model, c.positions,
                                   double(model_->layout.count), model_->steps, double(model_->seed),
                                   int(model_->vocabulary.words.size()), int(model_->aliases.size())});
  }

 private:
  std::unique_ptr<ReaderModel> model_;
};

}  // namespace
}  // namespace abh::bindings

EMSCRIPTEN_BINDINGS(abh_reader) {
  using namespace abh::bindings;
  using emscripten::value_object;
  value_object<ReaderAnswerJs>("ReaderAnswer")
      .field("words", &ReaderAnswerJs::words)
      .field("unknown", &ReaderAnswerJs::unknown)
      .field("readAs", &ReaderAnswerJs::readAs)
      .field("aliasRelation", &ReaderAnswerJs::aliasRelation)
      .field("candidates", &ReaderAnswerJs::candidates)
      .field("pronoun", &ReaderAnswerJs::pronoun)
      .field("queries", &ReaderAnswerJs::queries)
      .field("pointer", &ReaderAnswerJs::pointer)
      .field("antecedent", &ReaderAnswerJs::antecedent)
      .field("probability", &ReaderAnswerJs::probability)
      .field("attention", &ReaderAnswerJs::attention);
  value_object<ReaderDescriptionJs>("ReaderDescription")
      .field("causal", &ReaderDescriptionJs::causal)
      .field("mlp", &ReaderDescriptionJs::mlp)
      .field("layers", &ReaderDescriptionJs::layers)
      .field("heads", &ReaderDescriptionJs::heads)
      .field("dModel", &ReaderDescriptionJs::dModel)
      .field("positions", &ReaderDescriptionJs::positions)
      .field("parameterCount", &ReaderDescriptionJs::parameterCount)
      .field("steps", &ReaderDescriptionJs::steps)
      .field("seed", &ReaderDescriptionJs::seed)
      .field("vocabularySize", &ReaderDescriptionJs::vocabularySize)
      .field("aliasCount", &ReaderDescriptionJs::aliasCount);
  value_object<ReaderAliasesJs>("ReaderAliases").field("aliases", &ReaderAliasesJs::aliases);
  value_object<ReaderLoadedJs>("ReaderLoaded").field("parameterCount", &ReaderLoadedJs::parameterCount);

  emscripten::class_<ReaderModelJs>("ReaderModel")
      .constructor<>()
      .function("load", &ReaderModelJs::load)
      .function("useAliases", &ReaderModelJs::use_aliases)
      .function("answer", &ReaderModelJs::answer)
      .function("answerWithin", &ReaderModelJs::answer_within)
      .function("answerVariants", &ReaderModelJs::answer_variants)
      .function("describe", &ReaderModelJs::describe);
}
