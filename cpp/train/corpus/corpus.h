// The reader-model corpus (issue 38): pronoun-resolution sentences over real English words, generated
// deterministically from a seed. This header is the contract between the generator (corpus.cpp,
// lexicon.cpp) and the trainer's "reader" task: the trainer only ever sees Sentence values.
//
// Words come from WordNet 3.0 (Debian's wordnet-base, read at training time only) plus a small curated
// table in this folder for what WordNet cannot say (which adjectives fit which categories, size words,
// gendered nouns, plural forms). The page never reads WordNet: the trained model's weights file carries
// its vocabulary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../../tensor.h"  // Expected

namespace abh::train::corpus {

// Where a sentence may be drawn from. Held-out sentences are never produced for kTrain: kHeldOutWords
// are (word, word, frame) combinations never trained on; kHeldOutFrames are whole frames never trained on.
enum class Split : std::uint8_t { kTrain = 0, kHeldOutWords = 1, kHeldOutFrames = 2 };

struct Sentence {
  std::vector<std::string> words;  // normalized tokens as the page tokenizes them: lower-case, no punctuation
  int pronoun = -1;                // index into words of the pronoun to resolve (it, they, he, she, its, ...)
  int antecedent = -1;             // index of the head noun the pronoun refers to
  std::vector<int> candidates;     // indices of every noun the pronoun could grammatically refer to
                                   // (antecedent included, ascending)
  int frame = -1;                  // which frame wrote it (0 .. frame_count() - 1)
};

class Lexicon;  // the categorised vocabulary (lexicon.h)

// Whether kTrain follows a sentence with its twin: the same words but the one that decides, and the other noun
// the answer (corpus.cpp). Off, kTrain draws the sentences the shipped models were trained on.
enum class Twins : bool { kOff = false, kOn = true };

// Why a sentence's answer is what it is, for tests and for reading the corpus (abh_corpus).
struct Trace {
  std::string decider;  // the word or phrase after the pronoun ("tired", "paw was sore"): it decides the
                        // answer unless agreement does
  std::string family;   // the curated family the decider came from (curated_words.cpp)
  std::vector<std::string> candidate_classes;  // the noun class of each candidate, in candidates' order
  bool agreement = false;                      // number or gender decides, not meaning
  int distractor = -1;                         // position of the frame's distractor noun, never the answer
};

class Generator {
 public:
  // wordnet_dir: e.g. /usr/share/wordnet. Fails with a message when the files are missing or unreadable.
  static Expected<Generator> make(const std::string& wordnet_dir, std::uint64_t seed, Twins twins = Twins::kOff);

  // The next sentence of a split; the same seed gives the same sequence for each split.
  Sentence sample(Split split);
  Sentence sample(Split split, Trace* trace);  // the same sentence as sample(split), and why

  // Whether (frame, antecedent noun in the singular, decider) is one of the combinations kHeldOutWords keeps from
  // kTrain.
  bool heldout_combination(int frame, const std::string& antecedent, const std::string& decider) const;
  const Lexicon& lexicon() const;

  // Every word the generator can write (sorted, unique, >= 3,000 of them): the model's vocabulary.
  const std::vector<std::string>& vocabulary() const;

  int frame_count() const;
  const std::string& frame_name(int frame) const;  // e.g. "because-too-adjective", "passive", "fit-size"
  bool frame_is_heldout(int frame) const;

  Generator(Generator&&) noexcept;
  Generator& operator=(Generator&&) noexcept;
  ~Generator();

 private:
  struct State;
  template <class>
  friend class abh::Expected;  // holds a default-constructed Generator when make() fails
  Generator() = default;
  explicit Generator(State* state);
  State* state_ = nullptr;
};

}  // namespace abh::train::corpus
