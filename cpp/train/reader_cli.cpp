// Trains the reader model (reader.h) on the generated corpus and writes its quantized weights file and
// the JSON record beside it: `npm run train:weights` runs it for web/src/model/reader.bin and
// reader-causal.bin with the command lines in reader.args and reader-causal.args.
//
//   abh_train_reader [--causal 0] [--layers 2] [--heads 4] [--d-model 64] [--mlp 1] [--lr 0.002]
//                    [--warmup 200] [--weight-decay 0.01] [--batch 32] [--steps 4000] [--dropout 0.1]
//                    [--seed 1] [--wordnet /usr/share/wordnet] [--log-every 500] [--heldout 2000]
//                    [--handwritten tests/data/reader/handwritten.txt]
//                    [--pairs tests/data/reader/minimal-pairs.txt] [--out reader.bin] [--json reader.json]
//
// Every number in the record is measured on the QUANTIZED model (the file the page loads); the float
// model's generated held-out accuracy is recorded beside it. The record holds no timing, so a rerun
// gives the same bytes; the log (stdout) has the seconds.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "reader.h"
#include "weights_file.h"

using namespace abh::train;

namespace {

constexpr std::uint64_t kHeldoutSeed = 0x68656c64;  // "held": the evaluation sets, whatever the training seed

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

abh::Expected<std::vector<MarkedSentence>> read_marked(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return abh::Failure{"cannot read " + path};
  std::stringstream text;
  text << in.rdbuf();
  return parse_marked_sentences(text.str());
}

std::vector<corpus::Sentence> sentences_of(const std::vector<MarkedSentence>& marked) {
  std::vector<corpus::Sentence> out;
  for (const auto& m : marked) out.push_back(m.sentence);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  ReaderConfig config;
  std::string wordnet = "/usr/share/wordnet", out_path, json_path, handwritten_path, pairs_path;
  int log_every = 500, heldout_count = 2000;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "missing value after %s\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    const int integer = std::atoi(value.c_str());
    const float real = std::strtof(value.c_str(), nullptr);
    if (flag == "--causal")
      config.causal = value == "1";
    else if (flag == "--layers")
      config.layers = integer;
    else if (flag == "--heads")
      config.heads = integer;
    else if (flag == "--d-model")
      config.d_model = integer;
    else if (flag == "--mlp")
      config.mlp = value == "1";
    else if (flag == "--lr")
      config.learning_rate = real;
    else if (flag == "--warmup")
      config.warmup = integer;
    else if (flag == "--weight-decay")
      config.weight_decay = real;
    else if (flag == "--batch")
      config.batch = integer;
    else if (flag == "--steps")
      config.steps = integer;
    else if (flag == "--dropout")
      config.word_dropout = real;
    else if (flag == "--seed")
      config.seed = std::uint32_t(std::strtoul(value.c_str(), nullptr, 10));
    else if (flag == "--wordnet")
      wordnet = value;
    else if (flag == "--log-every")
      log_every = integer;
    else if (flag == "--heldout")
      heldout_count = integer;
    else if (flag == "--handwritten")
      handwritten_path = value;
    else if (flag == "--pairs")
      pairs_path = value;
    else if (flag == "--out")
      out_path = value;
    else if (flag == "--json")
      json_path = value;
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  const auto fail = [](const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    return 1;
  };

  auto generator = corpus::Generator::make(wordnet, config.seed);
  auto evaluation_generator = corpus::Generator::make(wordnet, kHeldoutSeed);
  if (!generator.ok()) return fail(generator.error());
  if (!evaluation_generator.ok()) return fail(evaluation_generator.error());
  corpus::Generator& corpus = generator.value();
  std::vector<corpus::Sentence> heldout_words, heldout_frames;
  for (int i = 0; i < heldout_count; ++i) {
    heldout_words.push_back(evaluation_generator.value().sample(corpus::Split::kHeldOutWords));
    heldout_frames.push_back(evaluation_generator.value().sample(corpus::Split::kHeldOutFrames));
  }
  std::vector<MarkedSentence> handwritten, pairs;
  for (auto [path, set] : {std::pair{&handwritten_path, &handwritten}, {&pairs_path, &pairs}}) {
    if (path->empty()) continue;
    auto read = read_marked(*path);
    if (!read.ok()) return fail(*path + ": " + read.error());
    *set = std::move(read.value());
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
    const ReaderScore words = trainer.model().evaluate(heldout_words);
    const ReaderScore frames = trainer.model().evaluate(heldout_frames);
    const ReaderScore hand = trainer.model().evaluate(sentences_of(handwritten));
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
  const ReaderScore float_words = trainer.model().evaluate(heldout_words);
  const ReaderScore words = shipped.evaluate(heldout_words), frames = shipped.evaluate(heldout_frames);
  const ReaderScore hand = shipped.evaluate(sentences_of(handwritten));
  const auto pair_sentences = sentences_of(pairs);
  const std::vector<int> pair_answers = shipped.answers(pair_sentences);
  int pairs_both = 0;
  for (std::size_t i = 0; i + 1 < pair_answers.size(); i += 2)
    pairs_both +=
        pair_answers[i] == pair_sentences[i].antecedent && pair_answers[i + 1] == pair_sentences[i + 1].antecedent;
  const int pair_count = int(pair_answers.size() / 2);
  std::printf("quantized: held-out words %.4f (float %.4f), frames %.4f, hand-written %.4f, pairs %d/%d\n",
              double(words.accuracy()), double(float_words.accuracy()), double(frames.accuracy()),
              double(hand.accuracy()), pairs_both, pair_count);

  // the hand-written accuracy per tag (the phenomena), and the sentences it gets wrong
  const std::vector<int> hand_answers = shipped.answers(sentences_of(handwritten));
  std::map<std::string, std::pair<int, int>> by_tag;  // tag -> (right, total)
  std::string wrong;
  for (std::size_t i = 0; i < handwritten.size(); ++i) {
    const corpus::Sentence& s = handwritten[i].sentence;
    const int said = hand_answers[i];
    for (const auto& tag : handwritten[i].tags) by_tag[tag].first += said == s.antecedent, ++by_tag[tag].second;
    if (said == s.antecedent) continue;
    wrong += std::string(wrong.empty() ? "" : ",\n") + "    {\"text\": " + json_string(handwritten[i].text) +
             ", \"expected\": " + json_string(s.words[s.antecedent]) +
             ", \"answered\": " + (said >= 0 ? json_string(s.words[said]) : "null") + "}";
  }
  for (const auto& [tag, counts] : by_tag) std::printf("  %-16s %3d / %3d\n", tag.c_str(), counts.first, counts.second);

  if (!out_path.empty()) {
    std::ofstream(out_path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    std::printf("wrote %s (%zu bytes)\n", out_path.c_str(), bytes.size());
  }
  if (!json_path.empty()) {
    std::ofstream json(json_path);
    std::string heldout_frame_names;
    for (int f = 0; f < corpus.frame_count(); ++f)
      if (corpus.frame_is_heldout(f))
        heldout_frame_names += (heldout_frame_names.empty() ? "" : ", ") + json_string(corpus.frame_name(f));
    std::string tags;
    for (const auto& [tag, counts] : by_tag)
      tags += std::string(tags.empty() ? "" : ", ") + json_string(tag) + ": [" + std::to_string(counts.first) + ", " +
              std::to_string(counts.second) + "]";
    char pairs_accuracy[32];
    std::snprintf(pairs_accuracy, sizeof pairs_accuracy, "%.4f", pair_count ? double(pairs_both) / pair_count : 0.0);
    const ModelConfig& m = shipped.config;
    json << "{\n  \"task\": \"" << (config.causal ? "reader-causal" : "reader")
         << "\",\n  \"causal\": " << (config.causal ? "true" : "false") << ",\n  \"layers\": " << m.layers
         << ",\n  \"heads\": " << m.heads << ",\n  \"dModel\": " << m.d_model
         << ",\n  \"mlp\": " << (m.mlp ? "true" : "false") << ",\n  \"positions\": " << m.positions
         << ",\n  \"parameters\": " << shipped.layout.count
         << ",\n  \"vocabulary\": " << shipped.vocabulary.words.size() << ",\n  \"frames\": " << corpus.frame_count()
         << ",\n  \"heldoutFrameNames\": [" << heldout_frame_names << "],\n  \"learningRate\": " << config.learning_rate
         << ",\n  \"warmup\": " << config.warmup << ",\n  \"weightDecay\": " << config.weight_decay
         << ",\n  \"wordDropout\": " << config.word_dropout << ",\n  \"batch\": " << config.batch
         << ",\n  \"steps\": " << config.steps << ",\n  \"seed\": " << config.seed << ",\n  \"bytes\": " << bytes.size()
         << ",\n  \"quantization\": \"int8, one float32 scale per row\""
         << ",\n  \"heldoutWords\": " << score_json(words) << ",\n  \"heldoutWordsFloat\": " << score_json(float_words)
         << ",\n  \"heldoutFrames\": " << score_json(frames) << ",\n  \"handwritten\": " << score_json(hand)
         << ",\n  \"handwrittenByTag\": {" << tags << "},\n  \"minimalPairs\": {\"pairs\": " << pair_count
         << ", \"bothRight\": " << pairs_both << ", \"accuracy\": " << pairs_accuracy << "}"
         << ",\n  \"handwrittenWrong\": [\n"
         << wrong << "\n  ]\n}\n";
  }
  return 0;
}
