// Trains the reader model (reader.h) on the generated corpus and writes its quantized weights file and
// the JSON record beside it: `npm run train:weights` runs it for web/src/model/reader.bin and
// reader-causal.bin with the command lines in reader.args and reader-causal.args.
//
//   abh_train_reader [--causal 0] [--layers 2] [--heads 4] [--d-model 64] [--mlp 1] [--lr 0.002]
//                    [--warmup 200] [--weight-decay 0.01] [--batch 32] [--steps 4000] [--dropout 0.1]
//                    [--seed 1] [--wordnet /usr/share/wordnet] [--log-every 500] [--heldout 2000]
//                    [--handwritten tests/data/reader/handwritten.txt]
//                    [--pairs tests/data/reader/minimal-pairs.txt] [--twins 0] [--out reader.bin] [--json reader.json]
//   abh_train_reader --evaluate reader.bin [--heldout 2000] [--handwritten ...] [--pairs ...]
//                    measures a weights file and prints the diagnosis (by tag, kinds of error) only
//
// Every number in the record is measured on the QUANTIZED model (the file the page loads); the float
// model's generated held-out accuracy is recorded beside it. The record holds no timing, so a rerun
// gives the same bytes; the log (stdout) has the seconds.
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
#include "reader_eval.h"
#include "weights_file.h"

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
      "minimal pairs: %d not both right, %d answered with the same word both times; %d pairs change a word outside "
      "the vocabulary (%d of them both right)\n",
      m.pairs - m.pairs_both_right, m.pairs_same_answer, m.pairs_unknown_change, m.pairs_unknown_change_right);
  const ReaderErrorKinds& e = m.handwritten_errors;
  std::printf(
      "hand-written wrong: %d chose the rival, %d another word; %d with the antecedent unknown, %d with an "
      "unknown word after the pronoun\n",
      e.rival, e.other_word, e.unknown_antecedent, e.unknown_after_pronoun);
  std::printf("resolving head: layer %d head %d, %.3f mean weight on the antecedent over %d held-out sentences\n",
              m.resolving.layer + 1, m.resolving.head + 1, m.resolving.share, m.resolving.sentences);
}

}  // namespace

int main(int argc, char** argv) {
  ReaderConfig config;
  std::string wordnet = "/usr/share/wordnet", out_path, json_path, handwritten_path, pairs_path, evaluate_path;
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
                          .add("--out", out_path)
                          .add("--json", json_path)
                          .add("--evaluate", evaluate_path)
                          .parse(argc, argv);
  if (!parsed) return 2;
  const auto fail = [](const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    return 1;
  };

  // --twins 1: each training sentence with its twin (corpus.h); the command line in .args records it
  auto generator = corpus::Generator::make(wordnet, config.seed, twins ? corpus::Twins::kOn : corpus::Twins::kOff);
  if (!generator.ok()) return fail(generator.error());
  corpus::Generator& corpus = generator.value();
  const auto evaluation = reader_evaluation_sets(wordnet, heldout_count, handwritten_path, pairs_path);
  if (!evaluation.ok()) return fail(evaluation.error());
  const ReaderEvaluationSets& sets = evaluation.value();
  const auto handwritten = sentences_of(sets.handwritten);
  if (!evaluate_path.empty()) {  // a weights file measured and diagnosed, nothing trained or written
    std::ifstream in(evaluate_path, std::ios::binary);
    const std::vector<std::uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto model = decode_reader_weights(file.data(), file.size());
    if (!model.ok()) return fail(evaluate_path + ": " + model.error());
    const ReaderMeasurements m = measure_reader(model.value(), sets);
    std::printf("%s: held-out words %.4f, frames %.4f, hand-written %.4f, pairs %d/%d\n", evaluate_path.c_str(),
                double(m.heldout_words.accuracy()), double(m.heldout_frames.accuracy()),
                double(m.handwritten.accuracy()), m.pairs_both_right, m.pairs);
    print_diagnosis(m);
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

  // the shipped model is the quantized one: measure that
  const auto bytes = encode_reader_weights(trainer.model());
  auto decoded = decode_reader_weights(bytes.data(), bytes.size());
  if (!decoded.ok()) return fail(decoded.error());
  const ReaderModel& shipped = decoded.value();
  const ReaderScore float_words = trainer.model().evaluate(sets.heldout_words);
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
  if (!json_path.empty()) {
    std::ofstream json(json_path);
    std::string heldout_frame_names, tags, wrong;
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
    char pairs_accuracy[32];
    std::snprintf(pairs_accuracy, sizeof pairs_accuracy, "%.4f", double(m.pairs_accuracy()));
    char share[32];
    std::snprintf(share, sizeof share, "%.4f", m.resolving.share);
    const ModelConfig& c = shipped.config;
    json << "{\n  \"task\": \"" << (config.causal ? "reader-causal" : "reader")
         << "\",\n  \"causal\": " << (config.causal ? "true" : "false") << ",\n  \"layers\": " << c.layers
         << ",\n  \"heads\": " << c.heads << ",\n  \"dModel\": " << c.d_model
         << ",\n  \"mlp\": " << (c.mlp ? "true" : "false") << ",\n  \"positions\": " << c.positions
         << ",\n  \"parameters\": " << shipped.layout.count
         << ",\n  \"vocabulary\": " << shipped.vocabulary.words.size() << ",\n  \"frames\": " << corpus.frame_count()
         << ",\n  \"heldoutFrameNames\": [" << heldout_frame_names << "],\n  \"learningRate\": " << config.learning_rate
         << ",\n  \"warmup\": " << config.warmup << ",\n  \"weightDecay\": " << config.weight_decay
         << ",\n  \"wordDropout\": " << config.word_dropout << ",\n  \"batch\": " << config.batch
         << ",\n  \"steps\": " << config.steps << ",\n  \"seed\": " << config.seed << ",\n  \"bytes\": " << bytes.size()
         << ",\n  \"quantization\": \"int8, one float32 scale per row\""
         << ",\n  \"heldoutWords\": " << score_json(m.heldout_words)
         << ",\n  \"heldoutWordsFloat\": " << score_json(float_words)
         << ",\n  \"heldoutFrames\": " << score_json(m.heldout_frames)
         << ",\n  \"handwritten\": " << score_json(m.handwritten) << ",\n  \"handwrittenByTag\": {" << tags
         << "},\n  \"minimalPairs\": {\"pairs\": " << m.pairs << ", \"bothRight\": " << m.pairs_both_right
         << ", \"accuracy\": " << pairs_accuracy << "},\n  \"resolvingHead\": {\"layer\": " << m.resolving.layer
         << ", \"head\": " << m.resolving.head << ", \"share\": " << share
         << ", \"sentences\": " << m.resolving.sentences << "},\n  \"handwrittenWrong\": [\n"
         << wrong << "\n  ]\n}\n";
  }
  return 0;
}
