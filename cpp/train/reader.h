// The reader model (issue 38): a transformer that reads the reader's own sentence (up to
// kMaxReaderPositions words from a vocabulary of thousands) and answers "what does the pronoun refer
// to?" with a POSITION of that sentence (model.h's pointer head), never a word it was not given.
//
//   bidirectional  the loss sits at the pronoun; its target is the antecedent's position.
//   causal         trained with the causal mask; a left-to-right model cannot know at "it" what comes
//                  later, so the loss sits at every position from the pronoun to the end (wherever the
//                  antecedent is already visible): the page shows at which later word the answer settles.
//
// Training reads corpus::Sentence values from a SentenceSource (corpus::Generator in the trainer, a
// stand-in in the tests); word dropout turns training words into <unk> so that the model learns to use
// the sentence's structure when a word is unknown. The weights file (weights_file.h) carries the config,
// the vocabulary and which words were candidate antecedents, so inference needs nothing else.
#pragma once

#include <cstdint>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../random.h"
#include "../tensor.h"
#include "corpus/corpus.h"
#include "model.h"
#include "optimizer.h"

namespace abh::train {

// The words the reader model resolves; a sentence's question is its first of them.
bool is_reader_pronoun(std::string_view normalized_word);

// A word as the reader model reads it: ASCII lower case, leading and trailing characters that are not
// letters or digits stripped ("(Tired." -> "tired"; inner apostrophes stay: "didn't").
std::string reader_token(std::string_view word);

// A hand-marked sentence (tests/data/reader/README.md): "The [trophy] did not fit in the <suitcase>
// because {it} was too big.  # size-fit" -> the words, the pronoun, the antecedent and the rival (its
// candidates), and the tags after '#'.
struct MarkedSentence {
  corpus::Sentence sentence;
  std::string text;  // the line without marks and tags
  std::vector<std::string> tags;
};
// Every sentence of a file's text in order (blank lines and lines starting with '#' skipped); a line
// without exactly one of each mark is refused with its line number.
Expected<std::vector<MarkedSentence>> parse_marked_sentences(std::string_view text);

struct ReaderVocabulary {
  static constexpr int kPad = 0, kUnk = 1;
  std::vector<std::string> words;  // id -> word: "<pad>", "<unk>", then the corpus's words
  // (words) 1: a noun the model may name: a candidate antecedent in a training sentence, or a word
  // WordNet reads mostly as a noun (reader_wordnet_nouns, added when the trained model is written)
  std::vector<std::uint8_t> nouns;

  // "<pad>", "<unk>" and the given words (duplicates and empty words dropped, order kept).
  static ReaderVocabulary of(const std::vector<std::string>& corpus_words);
  int id(std::string_view normalized_word) const;  // kUnk when absent
  void index();                                    // rebuilds the lookup after words changed

 private:
  std::unordered_map<std::string, int> ids_;
};

// How a word outside the vocabulary can still be read (reader_aliases.h makes the table from WordNet):
// the relation each alias came from, most precise first. Declared once: the generator writes these
// names, use_aliases reads them, the page shows them.
inline constexpr std::string_view kReaderAliasRelations[] = {"form", "synonym", "similar", "hypernym", "cousin"};
constexpr int kReaderAliasRelationCount = int(std::size(kReaderAliasRelations));
// The largest alias table a model takes (the shipped one is far smaller).
constexpr std::size_t kMaxReaderAliasBytes = 8 << 20;

// A word outside the vocabulary read as a known one.
struct ReaderAlias {
  int id = 0;                 // the vocabulary word it is read as
  std::uint8_t relation = 0;  // index into kReaderAliasRelations
};

using SentenceSource = std::function<corpus::Sentence(corpus::Split)>;

// The generator seed of the held-out evaluation sets, whatever the training seed: the trainer records
// accuracies on them and the shipped-weights test draws the same sentences again.
constexpr std::uint64_t kReaderEvaluationSeed = 0x68656c64;  // "held"

struct ReaderConfig {
  bool causal = false;
  int layers = 2, heads = 4, d_model = 64;
  bool mlp = true;              // with pre-LayerNorm, always on in the reader
  float learning_rate = 2e-3f;  // the peak: linear warm-up, then cosine decay to a tenth at the last step
  int warmup = 200;
  float weight_decay = 0.01f;
  float clip = 1.0f;
  int batch = 32;
  int steps = 4000;           // the whole run (the schedule's length)
  float word_dropout = 0.1f;  // chance that a training word other than the pronoun reads as <unk>
  std::uint32_t seed = 1;
};

Status check_reader_config(const ReaderConfig& config);

// One sentence as the model sees it.
struct ReaderExample {
  std::vector<int> tokens;   // (n)
  std::vector<int> targets;  // (n): the antecedent's position at the loss positions, -1 elsewhere
  int pronoun = -1, antecedent = -1;
};

// What the model answers for one sentence.
struct ReaderAnswer {
  std::vector<std::string> words;        // (n) normalized
  std::vector<std::uint8_t> unknown;     // (n) 1: outside the vocabulary and its aliases (read as <unk>)
  std::vector<int> read_as;              // (n) the vocabulary id an aliased word was read as, -1: not aliased
  std::vector<std::uint8_t> relation;    // (n) the alias's relation (kReaderAliasRelations) where read_as >= 0
  std::vector<std::uint8_t> candidates;  // (n) 1: a known noun or an unknown word, not a pronoun (candidates_of)
  int pronoun = -1;                      // -1: the sentence has no pronoun the model resolves
  // The positions with a pointer distribution: the pronoun (bidirectional), or the pronoun and every
  // later position (causal). pointer is (queries, n); row q's weights sum to 1 over the positions it sees.
  std::vector<int> queries;
  std::vector<float> pointer;
  int antecedent = -1;    // the answer: the argmax of the last query row (-1 without a pronoun)
  float probability = 0;  // its weight
  int layers = 0, heads = 0;
  std::vector<float> attention;  // (layers, heads, n, n): row i is query i's weights over the keys
};

struct ReaderScore {
  int sentences = 0, correct = 0, refused = 0;  // refused: too long, no pronoun or a bad antecedent
  double loss = 0;                              // mean cross-entropy of the answer row
  float accuracy() const { return sentences ? float(correct) / float(sentences) : 0.0f; }
};

class ReaderModel {
 public:
  ModelConfig config;
  ParameterLayout layout;
  std::vector<float> parameters;
  ReaderVocabulary vocabulary;
  int steps = 0;
  std::uint32_t seed = 0;
  // word -> the known word it is read as (use_aliases); empty: every unknown word reads as <unk>.
  // Inference only: training never reads aliases, so the model is the same with or without them.
  std::unordered_map<std::string, ReaderAlias> aliases;

  // Reads an alias table (reader_aliases.h: "target relation word word..." per line), replacing the
  // old one: a word the vocabulary already has, or whose target it lacks, is skipped (the table names
  // words, so it outlives a retrained vocabulary). Returns the words kept; a malformed line is refused
  // with its number and the old table stays.
  Expected<int> use_aliases(std::string_view table);
  // The id a normalized word reads: its own, its alias's (then *alias points at the alias), or <unk>.
  int token_id(std::string_view word, const ReaderAlias** alias = nullptr) const;

  // A model of the config's shape with zero parameters, and a freshly initialised one (seeded).
  static ReaderModel shaped(const ReaderConfig& config, ReaderVocabulary vocabulary);
  static ReaderModel initialized(const ReaderConfig& config, ReaderVocabulary vocabulary);

  // Tokenizes (reader_token) and looks up words; refuses an empty or too long sentence, or a pronoun
  // index that is not a pronoun of it. pronoun -1: the sentence's first pronoun (none: no question).
  Expected<ReaderAnswer> answer(const std::vector<std::string>& words, int pronoun = -1) const;
  // The same with attention restricted to a pattern, at inference only (issue 40: what a window or a
  // sparse pattern does to the answer): allowed is (n, n), row-major, 1 where query i may use key j, on
  // top of the model's own causal mask; every diagonal entry must be 1. All ones gives answer()'s bits.
  Expected<ReaderAnswer> answer(const std::vector<std::string>& words, const std::vector<std::uint8_t>& allowed,
                                int pronoun = -1) const;
  // 1 where a word can be the answer: a noun of the vocabulary (vocabulary.nouns) or an unknown word (it
  // may be a noun the model never saw); never a pronoun, nor a word without a letter or digit (the
  // flips' stand-in "?"). words normalized, ids their token ids.
  std::vector<std::uint8_t> candidates_of(const std::vector<std::string>& words, const std::vector<int>& ids) const;
  // The model's answer on each sentence against its antecedent (batched forward passes).
  ReaderScore evaluate(const std::vector<corpus::Sentence>& sentences) const;
  // The position each sentence's answer row points at most (-1 where refused).
  std::vector<int> answers(const std::vector<corpus::Sentence>& sentences) const;

  // The example of a sentence (no dropout), or why it cannot be one.
  Expected<ReaderExample> example(const corpus::Sentence& sentence) const;
  // With word dropout at the given rate (rng drawn once per word other than the pronoun).
  Expected<ReaderExample> example(const corpus::Sentence& sentence, float dropout, SplitMix64& rng) const;
  // Pads examples into a batch of T = the longest of them.
  static void pack(const std::vector<ReaderExample>& examples, std::size_t first, int count, Batch& out);

 private:
  Expected<ReaderAnswer> answer_with(const std::vector<std::string>& words, int pronoun,
                                     const std::vector<std::uint8_t>* allowed) const;
  template <typename Visit>
  void for_each_batch(const std::vector<corpus::Sentence>& sentences, Visit&& visit) const;
};

struct ReaderStep {
  int step = 0;
  float loss = 0;  // mean over the call's steps
  float learning_rate = 0;
};

class ReaderTrainer {
 public:
  // vocabulary: the corpus's words (the generator's vocabulary()).
  static Expected<ReaderTrainer> create(const ReaderConfig& config, const std::vector<std::string>& vocabulary,
                                        SentenceSource source);
  Expected<ReaderStep> step(int steps);
  const ReaderModel& model() const { return model_; }
  const ReaderConfig& config() const { return config_; }
  int steps_done() const { return model_.steps; }

  ReaderTrainer() = default;  // empty; use create()

 private:
  float learning_rate_at(int step) const;

  ReaderConfig config_;
  ReaderModel model_;
  SentenceSource source_;
  Optimizer optimizer_;
  SplitMix64 dropout_rng_{0};
  std::vector<float> grads_;
  std::vector<ReaderExample> examples_;
  Batch batch_;
  Activations<float> acts_;
  ActivationGrads<float> dacts_;
};

}  // namespace abh::train
