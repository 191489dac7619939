// The training tasks, generated from a seed in C++ (the one source of truth for their vocabulary):
//
//   "who-is-it"  the article's question. Sentences from a small grammar around "the animal crossed
//                the road because it was tired": an animate noun, a place noun, several frames with
//                both noun orders, and an adjective that fits only one of them (tired, hungry, ...
//                describe the animal; wide, busy, ... the place). The loss sits at "it" and its target
//                is the noun "it" refers to. Bidirectional attention (the adjective comes after "it").
//                Some (animal, place, adjective) combinations are held out: never in a training batch.
//   "induction"  causal: a random segment of symbols repeated with a random period; the loss sits at
//                every position whose next token is a repeat (predictable by looking back one period).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../random.h"
#include "../tensor.h"
#include "model.h"

namespace abh::train {

// kReader is the reader model's (reader.h): its corpus comes from corpus::Generator, not from Task.
enum class TaskKind : std::uint32_t { kWhoIsIt = 0, kInduction = 1, kReader = 2 };

struct Vocabulary {
  std::vector<std::string> words;  // id -> word; 0 is "<pad>", 1 is "<unk>"
  static constexpr int kPad = 0, kUnk = 1;
  int id(std::string_view normalized_word) const;  // kUnk when absent
  std::uint32_t checksum() const;                  // FNV-1a of the words joined by '\n': a weights file's vocabulary
};

// Lowercase (ASCII) and strip trailing punctuation (. , ! ? ; : and quotes): "Tired." -> "tired".
std::string normalize_word(std::string_view word);

struct TokenizedSentence {
  std::vector<std::string> words;     // normalized
  std::vector<int> ids;               // Vocabulary::kUnk for words outside the vocabulary
  std::vector<std::uint8_t> unknown;  // 1 where the word is outside the vocabulary
};

// One sequence of a task, with what the analysis needs to know about it.
struct Example {
  std::vector<int> tokens;   // (n)
  std::vector<int> targets;  // (n): target token id at the loss positions, -1 elsewhere
  // who-is-it only (-1 otherwise): the positions of "it", of the noun it refers to, of the other
  // noun and of the adjective.
  int query = -1, referent = -1, other = -1, adjective = -1;
  // induction only (-1 otherwise): the segment's length; tokens[t] == tokens[t - period] for t >= period.
  int period = -1;
};

class Task {
 public:
  // Unknown names give an error listing the known ones.
  static Expected<Task> make(std::string_view name);
  static const std::vector<std::string>& names();

  TaskKind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  const Vocabulary& vocabulary() const { return vocab_; }
  int sequence_length() const { return sequence_length_; }  // the batch's T (<= kMaxPositions)
  bool causal() const { return kind_ == TaskKind::kInduction; }

  TokenizedSentence tokenize(const std::vector<std::string>& words) const;

  // A training example (who-is-it: never a held-out combination) and a batch of them, padded to
  // sequence_length().
  Example sample(SplitMix64& rng) const;
  void sample_batch(SplitMix64& rng, int B, Batch& out) const;
  // The fixed held-out set (the same for every training seed).
  const std::vector<Example>& heldout() const { return heldout_; }
  // who-is-it: whether (animal, place, adjective) word ids form a held-out combination.
  bool is_heldout_combination(int animal, int place, int adjective) const;

  // Pads examples [first, first + count) into a batch.
  void pack(const std::vector<Example>& examples, std::size_t first, int count, Batch& out) const;

  Task() = default;  // empty; use make()

 private:
  void build_who_is_it();
  void build_induction();
  Example who_is_it_example(int frame, int animal, int place, int adjective) const;
  Example induction_example(SplitMix64& rng) const;

  TaskKind kind_ = TaskKind::kWhoIsIt;
  std::string name_;
  Vocabulary vocab_;
  int sequence_length_ = 0;
  std::vector<Example> heldout_;
  // who-is-it grammar, as word ids
  std::vector<int> animals_, places_, animal_adjectives_, place_adjectives_;
  // the frames as word ids, their slots as the negative kSlot* below: sampling a batch then looks no word up
  static constexpr int kAnimalSlot = -1, kPlaceSlot = -2, kAdjectiveSlot = -3;
  std::vector<std::vector<int>> frames_;
  int it_ = -1;                                    // the id of "it", where the loss sits
  std::vector<std::uint8_t> heldout_combination_;  // (animals, places, adjectives) flags
};

}  // namespace abh::train
