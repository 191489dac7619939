// Trains the reader model (reader.h) on the generated corpus and writes its quantized weights file and
// the JSON record beside it: `npm run train:weights` runs it for web/src/model/reader.bin and
// reader-causal.bin with the command lines in reader.args and reader-causal.args, then makes the alias
// table and measures both files with it (`npm run measure:reader` does only those two).
//
//   abh_train_reader [--causal 0] [--layers 2] [--heads 4] [--d-model 64] [--mlp 1] [--lr 0.002]
//                    [--warmup 200] [--weight-decay 0.01] [--batch 32] [--steps 4000] [--dropout 0.1]
//                    [--seed 1] [--wordnet /usr/share/wordnet] [--log-every 500] [--heldout 2000]
//                    [--handwritten tests/data/reader/handwritten.txt]
//                    [--pairs tests/data/reader/minimal-pairs.txt] [--twins 0] [--aliases reader-aliases.txt]
//                    [--out reader.bin] [--json reader.json]
//   abh_train_reader --evaluate reader.bin [--aliases ...] [--heldout 2000] [--handwritten ...] [--pairs ...]
//                    [--json reader.json]
//                    measures a weights file and prints the diagnosis (by tag, kinds of error, what each
//                    alias relation changes); with --json it rewrites the record of that file (the other
//                    flags as in its .args; the float model's accuracy is kept from the old record)
//   abh_train_reader --make-aliases reader-aliases.txt --evaluate reader.bin [--wordnet ...]
//                    writes the alias table (reader_aliases.h) for that file's vocabulary
//
// Every number in the record is measured on the QUANTIZED model (the file the page loads) with the
// alias table given (as the page reads it); the float model's generated held-out accuracy is recorded
// beside it (the generated sentences have no word outside the vocabulary: aliases never change it). The
// record holds no timing, so a rerun gives the same bytes; the log (stdout) has the seconds.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli_flags.h"
#include "corpus/corpus.h"
#include "reader.h"
#include "reader_aliases.h"
#include "reader_eval.h"
#include "weights_file.h"

using namespace abh;
using namespace abh::train;

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

std::string score_json(const ReaderScore& s) {
  char text[160];
  std::snprintf(text, sizeof text, "{\"sentences\": %d, \"correct\": %d, \"refused\": %d, \"accuracy\": %.4f}",
                s.sentences, s.correct, s.refused, double(s.accuracy()));
  return text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The hand-written and minimal-pair results by tag, how the wrong answers go wrong, and the resolving
// head: what the generator's next change should aim at.
void print_diagnosis(const ReaderMeasurements& m) {
  std::printf("hand-written by tag (right / sentences), minimal pairs by tag (both right / pairs):\n");
  for (const auto& [tag, counts] : m.handwritten_by_tag) {
    const auto pairs = m.pairs_by_tag.find(tag);
    std::printf("  %-16s %3d / %3d", tag.c_str(), counts.first, counts.second);
    if (pairs != m.pairs_by_tag.end()) std::printf("   pairs %3d / %3d", pairs->second.first, pairs->second.second);
    std::printf("\n");
  }
  std::printf(
      "minimal pairs: %d not both right, %d answered with the same word both times; %d pairs change a word read as "
      "<unk> (%d of them both right)\n",
      m.pairs - m.pairs_both_right, m.pairs_same_answer, m.pairs_unknown_change, m.pairs_unknown_change_right);
  const ReaderErrorKinds& e = m.handwritten_errors;
  std::printf(
      "hand-written wrong: %d chose the rival, %d another word; %d with the antecedent read as <unk>, %d with a word "
      "read as <unk> after the pronoun\n",
      e.rival, e.other_word, e.unknown_antecedent, e.unknown_after_pronoun);
  std::printf("words outside the vocabulary: hand-written %d read through an alias, %d as <unk>; pairs %d and %d\n",
              m.handwritten_aliased, m.handwritten_unknown, m.pairs_aliased, m.pairs_unknown);
  std::printf("resolving head: layer %d head %d, %.3f mean weight on the antecedent over %d held-out sentences\n",
              m.resolving.layer + 1, m.resolving.head + 1, m.resolving.share, m.resolving.sentences);
}

// What each alias relation changes on its own, against no aliases at all: hand-written sentences that
// go right -> wrong and wrong -> right, and minimal pairs that stop or start being both right.
void print_alias_effects(const ReaderModel& with_aliases, const ReaderEvaluationSets& sets) {
  const auto handwritten = sentences_of(sets.handwritten), pairs = sentences_of(sets.pairs);
  const auto outcomes = [&](const ReaderModel& model) {
    std::vector<bool> sentence, pair;
    const std::vector<int> h = model.answers(handwritten), p = model.answers(pairs);
    for (std::size_t i = 0; i < handwritten.size(); ++i) sentence.push_back(h[i] == handwritten[i].antecedent);
    for (std::size_t i = 0; i + 1 < pairs.size(); i += 2)
      pair.push_back(p[i] == pairs[i].antecedent && p[i + 1] == pairs[i + 1].antecedent);
    return std::pair{sentence, pair};
  };
  ReaderModel model = with_aliases;
  model.aliases.clear();
  const auto base = outcomes(model);
  std::printf("alias relation: entries used; hand-written right->wrong / wrong->right; pairs lost / gained\n");
  for (int r = -1; r < kReaderAliasRelationCount; ++r) {
    model.aliases.clear();
    for (const auto& [word, alias] : with_aliases.aliases)
      if (r < 0 || alias.relation == r) model.aliases.emplace(word, alias);
    const auto now = outcomes(model);
    if (r < 0)  // the sentences all the aliases change, with the words they alias
      for (std::size_t i = 0; i < now.first.size(); ++i) {
        if (now.first[i] == base.first[i]) continue;
        std::string read;
        for (const std::string& w : handwritten[i].words)
          if (const ReaderAlias* alias = nullptr; model.token_id(w, &alias) >= 0 && alias)
            read += " " + w + "->" + model.vocabulary.words[std::size_t(alias->id)] + " (" +
                    std::string(kReaderAliasRelations[alias->relation]) + ")";
        std::printf("    %s: %s;%s\n", now.first[i] ? "now right" : "now wrong", sets.handwritten[i].text.c_str(),
                    read.c_str());
      }
    int worse = 0, better = 0, lost = 0, gained = 0;
    for (std::size_t i = 0; i < now.first.size(); ++i)
      worse += base.first[i] && !now.first[i], better += !base.first[i] && now.first[i];
    for (std::size_t i = 0; i < now.second.size(); ++i)
      lost += base.second[i] && !now.second[i], gained += !base.second[i] && now.second[i];
    std::printf("  %-9s %6zu   %3d / %3d   %3d / %3d\n", r < 0 ? "all" : std::string(kReaderAliasRelations[r]).c_str(),
                model.aliases.size(), worse, better, lost, gained);
  }
}

// The record beside a weights file (web/src/model/reader*.json): what the page, the docs and the
// shipped-weights test read.
void write_record(const std::string& path, const ReaderConfig& config, corpus::Generator& corpus,
                  const ReaderModel& shipped, std::size_t bytes, const ReaderMeasurements& m,
                  const ReaderScore& float_words) {
  std::ofstream json(path);
  std::string heldout_frame_names, tags, wrong, relations;
  for (int f = 0; f < corpus.frame_count(); ++f)
    if (corpus.frame_is_heldout(f))
      heldout_frame_names += (heldout_frame_names.empty() ? "" : ", ") + json_string(corpus.frame_name(f));
  for (const auto& [tag, counts] : m.handwritten_by_tag)
    tags += std::string(tags.empty() ? "" : ", ") + json_string(tag) + ": [" + std::to_string(counts.first) + ", " +
            std::to_string(counts.second) + "]";
  for (const auto& w : m.handwritten_wrong)
    wrong += std::string(wrong.empty() ? "" : ",\n") + "    {\"text\": " + json_string(w.text) +
             ", \"expected\": " + json_string(w.expected) +
             ", \"answered\": " + (w.answered.empty() ? "null" : json_string(w.answered)) + "}";
  std::vector<int> by_relation(kReaderAliasRelationCount, 0);
  for (const auto& entry : shipped.aliases) ++by_relation[entry.second.relation];
  for (int r = 0; r < kReaderAliasRelationCount; ++r)
    relations += std::string(r ? ", " : "") + json_string(std::string(kReaderAliasRelations[r])) + ": " +
                 std::to_string(by_relation[std::size_t(r)]);
  char pairs_accuracy[32];
  std::snprintf(pairs_accuracy, sizeof pairs_accuracy, "%.4f", double(m.pairs_accuracy()));
  char share[32];
  std::snprintf(share, sizeof share, "%.4f", m.resolving.share);
  const ModelConfig& c = shipped.config;
  json << "{\n  \"task\": \"" << (c.causal ? "reader-causal" : "reader")
       << "\",\n  \"causal\": " << (c.causal ? "true" : "false") << ",\n  \"layers\": " << c.layers
       << ",\n  \"heads\": " << c.heads << ",\n  \"dModel\": " << c.d_model
       << ",\n  \"mlp\": " << (c.mlp ? "true" : "false") << ",\n  \"positions\": " << c.positions
       << ",\n  \"parameters\": " << shipped.layout.count << ",\n  \"vocabulary\": " << shipped.vocabulary.words.size()
       << ",\n  \"frames\": " << corpus.frame_count() << ",\n  \"heldoutFrameNames\": [" << heldout_frame_names
       << "],\n  \"learningRate\": " << config.learning_rate << ",\n  \"warmup\": " << config.warmup
       << ",\n  \"weightDecay\": " << config.weight_decay << ",\n  \"wordDropout\": " << config.word_dropout
       << ",\n  \"batch\": " << config.batch << ",\n  \"steps\": " << shipped.steps << ",\n  \"seed\": " << shipped.seed
       << ",\n  \"bytes\": " << bytes << ",\n  \"quantization\": \"int8, one float32 scale per row\""
       << ",\n  \"aliases\": {\"words\": " << shipped.aliases.size() << ", \"byRelation\": {" << relations << "}}"
       << ",\n  \"unknownWords\": {\"handwrittenAliased\": " << m.handwritten_aliased
       << ", \"handwrittenUnknown\": " << m.handwritten_unknown << ", \"pairsAliased\": " << m.pairs_aliased
       << ", \"pairsUnknown\": " << m.pairs_unknown << "}"
       << ",\n  \"heldoutWords\": " << score_json(m.heldout_words)
       << ",\n  \"heldoutWordsFloat\": " << score_json(float_words)
       << ",\n  \"heldoutFrames\": " << score_json(m.heldout_frames)
       << ",\n  \"handwritten\": " << score_json(m.handwritten) << ",\n  \"handwrittenByTag\": {" << tags
       << "},\n  \"minimalPairs\": {\"pairs\": " << m.pairs << ", \"bothRight\": " << m.pairs_both_right
       << ", \"accuracy\": " << pairs_accuracy << "},\n  \"resolvingHead\": {\"layer\": " << m.resolving.layer
       << ", \"head\": " << m.resolving.head << ", \"share\": " << share << ", \"sentences\": " << m.resolving.sentences
       << "},\n  \"handwrittenWrong\": [\n"
       << wrong << "\n  ]\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  ReaderConfig config;
  std::string wordnet = "/usr/share/wordnet", out_path, json_path, handwritten_path, pairs_path, evaluate_path,
              aliases_path, make_aliases_path;
  int log_every = 500, heldout_count = 2000, twins = 0;
  const bool parsed = CliFlags()
                          .add("--causal", config.causal)
                          .add("--layers", config.layers)
                          .add("--heads", config.heads)
                          .add("--d-model", config.d_model)
                          .add("--mlp", config.mlp)
                          .add("--lr", config.learning_rate)
                          .add("--warmup", config.warmup)
                          .add("--weight-decay", config.weight_decay)
                          .add("--batch", config.batch)
                          .add("--steps", config.steps)
                          .add("--dropout", config.word_dropout)
                          .add("--seed", config.seed)
                          .add("--wordnet", wordnet)
                          .add("--log-every", log_every)
                          .add("--heldout", heldout_count)
                          .add("--handwritten", handwritten_path)
                          .add("--pairs", pairs_path)
                          .add("--twins", twins)
                          .add("--aliases", aliases_path)
                          .add("--make-aliases", make_aliases_path)
                          .add("--out", out_path)
                          .add("--json", json_path)
                          .add("--evaluate", evaluate_path)
                          .parse(argc, argv);
  if (!parsed) return 2;
  const auto fail = [](const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    return 1;
  };
  const auto load = [&](const std::string& path) -> Expected<ReaderModel> {
    const std::string file = read_file(path);
    auto model = decode_reader_weights(reinterpret_cast<const std::uint8_t*>(file.data()), file.size());
    if (!model.ok()) return Failure{path + ": " + model.error()};
    return model;
  };
  // the alias table the page loads with the model, when given
  const auto use_aliases = [&](ReaderModel& model) -> Status {
    if (aliases_path.empty()) return Ok{};
    const std::string table = read_file(aliases_path);
    if (table.empty()) return Failure{"cannot read the alias table " + aliases_path};
    const auto kept = model.use_aliases(table);
    if (!kept.ok()) return Failure{aliases_path + ": " + kept.error()};
    std::printf("%s: %d aliases for this vocabulary\n", aliases_path.c_str(), kept.value());
    return Ok{};
  };

  if (!make_aliases_path.empty()) {  // the alias table for a weights file's vocabulary, nothing else
    if (evaluate_path.empty())
      return fail("--make-aliases needs --evaluate: the weights file whose vocabulary it serves");
    const auto model = load(evaluate_path);
    if (!model.ok()) return fail(model.error());
    const auto entries = make_reader_aliases(wordnet, model.value().vocabulary.words, model.value().vocabulary.nouns);
    if (!entries.ok()) return fail(entries.error());
    const std::string table = format_reader_aliases(entries.value());
    std::ofstream(make_aliases_path, std::ios::binary).write(table.data(), std::streamsize(table.size()));
    std::vector<int> by_relation(kReaderAliasRelationCount, 0);
    for (const auto& e : entries.value()) ++by_relation[e.relation];
    std::printf("wrote %s: %zu aliases (%zu bytes):", make_aliases_path.c_str(), entries.value().size(), table.size());
    for (int r = 0; r < kReaderAliasRelationCount; ++r)
      std::printf(" %s %d", std::string(kReaderAliasRelations[r]).c_str(), by_relation[std::size_t(r)]);
    std::printf("\n");
    return 0;
  }

  // --twins 1: each training sentence with its twin (corpus.h); the command line in .args records it
  auto generator = corpus::Generator::make(wordnet, config.seed, twins ? corpus::Twins::kOn : corpus::Twins::kOff);
  if (!generator.ok()) return fail(generator.error());
  corpus::Generator& corpus = generator.value();
  const auto evaluation = reader_evaluation_sets(wordnet, heldout_count, handwritten_path, pairs_path);
  if (!evaluation.ok()) return fail(evaluation.error());
  const ReaderEvaluationSets& sets = evaluation.value();
  const auto handwritten = sentences_of(sets.handwritten);
  if (!evaluate_path.empty()) {  // a weights file measured and diagnosed, nothing trained
    auto model = load(evaluate_path);
    if (!model.ok()) return fail(model.error());
    if (Status s = use_aliases(model.value()); !s.ok()) return fail(s.error());
    const ReaderMeasurements m = measure_reader(model.value(), sets);
    std::printf("%s: held-out words %.4f, frames %.4f, hand-written %.4f, pairs %d/%d\n", evaluate_path.c_str(),
                double(m.heldout_words.accuracy()), double(m.heldout_frames.accuracy()),
                double(m.handwritten.accuracy()), m.pairs_both_right, m.pairs);
    print_diagnosis(m);
    if (!model.value().aliases.empty()) print_alias_effects(model.value(), sets);
    if (!json_path.empty()) {
      // the float model is not in the file: its count (on sentences aliases never touch) stays the record's
      const std::string old = read_file(json_path);
      ReaderScore float_words;
      float_words.sentences = record_int(old, "heldoutWordsFloat", "sentences");
      float_words.correct = record_int(old, "heldoutWordsFloat", "correct");
      float_words.refused = record_int(old, "heldoutWordsFloat", "refused");
      if (float_words.sentences != m.heldout_words.sentences)
        return fail(json_path + " has no float accuracy on " + std::to_string(m.heldout_words.sentences) +
                    " held-out sentences to keep: retrain with --json");
      write_record(json_path, config, corpus, model.value(), read_file(evaluate_path).size(), m, float_words);
      std::printf("wrote %s\n", json_path.c_str());
    }
    return 0;
  }

  auto made = ReaderTrainer::create(config, corpus.vocabulary(),
                                    [&corpus](corpus::Split split) { return corpus.sample(split); });
  if (!made.ok()) return fail(made.error());
  ReaderTrainer& trainer = made.value();
  std::printf("vocabulary %zu words, %d frames, %zu parameters\n", trainer.model().vocabulary.words.size(),
              corpus.frame_count(), trainer.model().layout.count);
  const auto start = std::chrono::steady_clock::now();
  for (int done = 0; done < config.steps;) {
    const int chunk = std::min(log_every > 0 ? log_every : config.steps, config.steps - done);
    const auto report = trainer.step(chunk);
    if (!report.ok()) return fail(report.error());
    done += chunk;
    const ReaderScore words = trainer.model().evaluate(sets.heldout_words);
    const ReaderScore frames = trainer.model().evaluate(sets.heldout_frames);
    const ReaderScore hand = trainer.model().evaluate(handwritten);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("step %6d  loss %.4f  lr %.5f  held-out words %.4f  frames %.4f  hand-written %.4f  (%.0f s)\n", done,
                double(report.value().loss), double(report.value().learning_rate), double(words.accuracy()),
                double(frames.accuracy()), double(hand.accuracy()), seconds);
    std::fflush(stdout);
  }

  // the words it may name: its training candidates and every other noun of its vocabulary
  ReaderModel trained = trainer.model();
  const auto wordnet_nouns = reader_wordnet_nouns(wordnet, trained.vocabulary.words);
  if (!wordnet_nouns.ok()) return fail(wordnet_nouns.error());
  for (std::size_t i = 0; i < trained.vocabulary.nouns.size(); ++i)
    trained.vocabulary.nouns[i] |= wordnet_nouns.value()[i];
  // the shipped model is the quantized one: measure that
  const auto bytes = encode_reader_weights(trained);
  auto decoded = decode_reader_weights(bytes.data(), bytes.size());
  if (!decoded.ok()) return fail(decoded.error());
  ReaderModel& shipped = decoded.value();
  if (Status s = use_aliases(shipped); !s.ok()) return fail(s.error());
  const ReaderScore float_words = trained.evaluate(sets.heldout_words);
  const ReaderMeasurements m = measure_reader(shipped, sets);
  std::printf("quantized: held-out words %.4f (float %.4f), frames %.4f, hand-written %.4f, pairs %d/%d\n",
              double(m.heldout_words.accuracy()), double(float_words.accuracy()), double(m.heldout_frames.accuracy()),
              double(m.handwritten.accuracy()), m.pairs_both_right, m.pairs);
  print_diagnosis(m);

  if (!out_path.empty()) {
    std::ofstream(out_path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    std::printf("wrote %s (%zu bytes)\n", out_path.c_str(), bytes.size());
  }
  if (!json_path.empty()) write_record(json_path, config, corpus, shipped, bytes.size(), m, float_words);
  return 0;
}
