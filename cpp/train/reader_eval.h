// The reader model's measurements, shared by its trainer (reader_cli.cpp, which records them) and the
// shipped-weights test (which reproduces them): the generated held-out sets drawn again from a fixed
// seed, the hand-written sets of tests/data/reader, and every accuracy on them. Native only: it calls
// the corpus generator, which reads WordNet (the page never does).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "reader.h"

namespace abh::train {

struct ReaderEvaluationSets {
  std::vector<corpus::Sentence> heldout_words, heldout_frames;  // generated (corpus::Split)
  std::vector<MarkedSentence> handwritten, pairs;               // pairs: lines 2i and 2i+1
};

inline Expected<std::vector<MarkedSentence>> read_marked_sentences(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Failure{"cannot read " + path};
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = parse_marked_sentences(text.str());
  if (!parsed.ok()) return Failure{path + ": " + parsed.error()};
  return parsed;
}

// count sentences of each generated held-out split; empty paths leave a hand-written set empty.
inline Expected<ReaderEvaluationSets> reader_evaluation_sets(const std::string& wordnet_dir, int count,
                                                             const std::string& handwritten_path,
                                                             const std::string& pairs_path) {
  auto generator = corpus::Generator::make(wordnet_dir, kReaderEvaluationSeed);
  if (!generator.ok()) return Failure{generator.error()};
  ReaderEvaluationSets sets;
  for (int i = 0; i < count; ++i) {
    sets.heldout_words.push_back(generator.value().sample(corpus::Split::kHeldOutWords));
    sets.heldout_frames.push_back(generator.value().sample(corpus::Split::kHeldOutFrames));
  }
  for (auto [path, set] : {std::pair{&handwritten_path, &sets.handwritten}, {&pairs_path, &sets.pairs}}) {
    if (path->empty()) continue;
    auto read = read_marked_sentences(*path);
    if (!read.ok()) return Failure{read.error()};
    *set = std::move(read.value());
  }
  return sets;
}

// The integer after "field": inside the record's object "key": { ... } (the records are ours: flat
// objects, reader_cli.cpp writes them); -1 when the record has no such field.
inline int record_int(const std::string& record, const std::string& key, const std::string& field) {
  const std::size_t object = record.find("\"" + key + "\": {");
  if (object == std::string::npos) return -1;
  const std::size_t at = record.find("\"" + field + "\": ", object);
  return at == std::string::npos ? -1 : std::atoi(record.c_str() + at + field.size() + 4);
}

struct ReaderWrongAnswer {
  std::string text, expected, answered;  // answered is empty when the model refused the sentence
};

// The head whose attention from the pronoun puts the most mean weight on the antecedent: the head the
// page shows beside the answer. Measured on generated held-out sentences (never trained on), so the
// page needs no test data to find it; a sentence whose pronoun is contracted ("it's") is left out, as
// the page asks only about the pronouns is_reader_pronoun names.
struct ReaderResolvingHead {
  int layer = 0, head = 0, sentences = 0;
  double share = 0;  // that head's mean weight from the pronoun on the antecedent
};

inline ReaderResolvingHead resolving_head(const ReaderModel& model, const std::vector<corpus::Sentence>& sentences) {
  const int layers = model.config.layers, heads = model.config.heads;
  std::vector<double> totals(std::size_t(layers * heads), 0.0);
  ReaderResolvingHead best;
  for (const corpus::Sentence& s : sentences) {
    const auto answer = model.answer(s.words, s.pronoun);
    if (!answer.ok()) continue;
    const std::size_t n = s.words.size();
    for (std::size_t lh = 0; lh < totals.size(); ++lh)  // attention is (layers, heads, n, n)
      totals[lh] += answer.value().attention[(lh * n + std::size_t(s.pronoun)) * n + std::size_t(s.antecedent)];
    ++best.sentences;
  }
  const std::size_t top = std::size_t(std::max_element(totals.begin(), totals.end()) - totals.begin());
  best.layer = int(top) / heads;
  best.head = int(top) % heads;
  best.share = best.sentences ? totals[top] / best.sentences : 0.0;
  return best;
}

// How the hand-written answers go wrong (the trainer's log): the marked rival, or a word that is no
// candidate at all ("hungry" in "the hungry fox"); and how often a wrong answer's sentence has its
// antecedent, or any word after the pronoun, outside the vocabulary.
struct ReaderErrorKinds {
  int rival = 0, other_word = 0, unknown_antecedent = 0, unknown_after_pronoun = 0;
};

struct ReaderMeasurements {
  ReaderScore heldout_words, heldout_frames, handwritten;
  int pairs = 0, pairs_both_right = 0;
  int pairs_same_answer = 0;     // pairs the model answers with the same word both times: the changed word was ignored
  int pairs_unknown_change = 0;  // pairs where a word that differs between the two is outside the vocabulary
  int pairs_unknown_change_right = 0;                             // of those, both right
  std::map<std::string, std::pair<int, int>> handwritten_by_tag;  // tag -> (right, sentences)
  std::map<std::string, std::pair<int, int>> pairs_by_tag;        // tag -> (pairs both right, pairs)
  ReaderErrorKinds handwritten_errors;
  // words of the hand-written sentences and of the pairs (each occurrence) outside the vocabulary:
  // read through an alias, or as <unk>
  int handwritten_aliased = 0, handwritten_unknown = 0, pairs_aliased = 0, pairs_unknown = 0;
  std::vector<ReaderWrongAnswer> handwritten_wrong;
  ReaderResolvingHead resolving;
  float pairs_accuracy() const { return pairs ? float(pairs_both_right) / float(pairs) : 0.0f; }
};

inline std::vector<corpus::Sentence> sentences_of(const std::vector<MarkedSentence>& marked) {
  std::vector<corpus::Sentence> out;
  for (const auto& m : marked) out.push_back(m.sentence);
  return out;
}

inline ReaderMeasurements measure_reader(const ReaderModel& model, const ReaderEvaluationSets& sets) {
  ReaderMeasurements m;
  m.heldout_words = model.evaluate(sets.heldout_words);
  m.heldout_frames = model.evaluate(sets.heldout_frames);
  const auto handwritten = sentences_of(sets.handwritten), pairs = sentences_of(sets.pairs);
  m.handwritten = model.evaluate(handwritten);
  const std::vector<int> pair_answers = model.answers(pairs);
  const auto unknown = [&](const std::string& word) { return model.token_id(word) == ReaderVocabulary::kUnk; };
  const auto answered_word = [&](std::size_t i) {
    return pair_answers[i] >= 0 ? pairs[i].words[std::size_t(pair_answers[i])] : std::string();
  };
  m.pairs = int(pairs.size() / 2);
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
    const bool both = pair_answers[i] == pairs[i].antecedent && pair_answers[i + 1] == pairs[i + 1].antecedent;
    m.pairs_both_right += both;
    const std::vector<std::string>&one = pairs[i].words, &two = pairs[i + 1].words;
    const auto in = [](const std::vector<std::string>& words, const std::string& w) {
      return std::find(words.begin(), words.end(), w) != words.end();
    };
    bool unknown_change = false;  // a word of one sentence and not the other is outside the vocabulary
    for (const std::string& w : one) unknown_change |= !in(two, w) && unknown(w);
    for (const std::string& w : two) unknown_change |= !in(one, w) && unknown(w);
    m.pairs_unknown_change += unknown_change;
    m.pairs_unknown_change_right += unknown_change && both;
    m.pairs_same_answer += !answered_word(i).empty() && answered_word(i) == answered_word(i + 1);
    for (const auto& tag : sets.pairs[i].tags) m.pairs_by_tag[tag].first += both, ++m.pairs_by_tag[tag].second;
  }
  const auto count_unknown = [&](const std::vector<corpus::Sentence>& set, int& aliased, int& unread) {
    for (const corpus::Sentence& s : set)
      for (const std::string& w : s.words) {
        const ReaderAlias* alias = nullptr;
        unread += model.token_id(w, &alias) == ReaderVocabulary::kUnk;
        aliased += alias != nullptr;
      }
  };
  count_unknown(handwritten, m.handwritten_aliased, m.handwritten_unknown);
  count_unknown(pairs, m.pairs_aliased, m.pairs_unknown);
  const std::vector<int> answers = model.answers(handwritten);
  for (std::size_t i = 0; i < handwritten.size(); ++i) {
    const corpus::Sentence& s = handwritten[i];
    const bool right = answers[i] == s.antecedent;
    for (const auto& tag : sets.handwritten[i].tags)
      m.handwritten_by_tag[tag].first += right, ++m.handwritten_by_tag[tag].second;
    if (right) continue;
    m.handwritten_wrong.push_back({sets.handwritten[i].text, s.words[std::size_t(s.antecedent)],
                                   answers[i] >= 0 ? s.words[std::size_t(answers[i])] : std::string()});
    ReaderErrorKinds& e = m.handwritten_errors;
    const bool rival = std::find(s.candidates.begin(), s.candidates.end(), answers[i]) != s.candidates.end();
    e.rival += rival;
    e.other_word += !rival;
    e.unknown_antecedent += unknown(s.words[std::size_t(s.antecedent)]);
    e.unknown_after_pronoun +=
        std::any_of(s.words.begin() + s.pronoun + 1, s.words.end(), [&](const std::string& w) { return unknown(w); });
  }
  std::vector<corpus::Sentence> generated = sets.heldout_words;
  generated.insert(generated.end(), sets.heldout_frames.begin(), sets.heldout_frames.end());
  m.resolving = resolving_head(model, generated);
  return m;
}

}  // namespace abh::train
