#include "tasks.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>

namespace abh::train {

namespace {

// The who-is-it grammar. Frames keep the article's wording; "{A}" is the animate noun, "{P}" the
// place, "{J}" the adjective. Frames 0-3 name the animal first, 4-6 the place first, so the answer
// is never a fixed position.
// Plain arrays of string views, not vectors of strings: a global that allocates would hold memory in
// every wasm instance from its start, before anyone asks for a task (tests/unit/hardening.test.ts).
using Words = std::initializer_list<std::string_view>;
const Words kFrames[] = {
    {"the", "{A}", "crossed", "the", "{P}", "because", "it", "was", "{J}"},
    {"the", "{A}", "did", "not", "cross", "the", "{P}", "because", "it", "was", "too", "{J}"},
    {"the", "{A}", "stopped", "at", "the", "{P}", "because", "it", "was", "too", "{J}"},
    {"the", "{A}", "avoided", "the", "{P}", "because", "it", "was", "{J}"},
    {"the", "{P}", "was", "crossed", "by", "the", "{A}", "because", "it", "was", "{J}"},
    {"the", "{P}", "was", "not", "crossed", "by", "the", "{A}", "because", "it", "was", "too", "{J}"},
    {"the", "{P}", "was", "avoided", "by", "the", "{A}", "because", "it", "was", "{J}"},
};
constexpr std::string_view kAnimals[] = {"animal", "dog",   "cat",  "horse",  "cow", "fox",
                                         "deer",   "sheep", "goat", "rabbit", "man", "child"};
constexpr std::string_view kPlaces[] = {"road", "street", "river", "bridge", "field", "path", "track", "square"};
constexpr std::string_view kAnimalAdjectives[] = {"tired",  "hungry", "scared", "sleepy",
                                                  "afraid", "weak",   "lazy",   "nervous"};
constexpr std::string_view kPlaceAdjectives[] = {"wide", "busy", "wet", "crowded", "long", "narrow", "icy", "muddy"};

constexpr int kInductionSymbols = 16;
constexpr int kInductionLength = kMaxPositions;
constexpr int kInductionMinPeriod = 2, kInductionMaxPeriod = 8;
constexpr int kInductionHeldout = 256;
// Fixed seeds of the held-out sets: the same whatever the training seed.
constexpr std::uint32_t kHeldoutSeed = 0x68656c64;  // "held"
constexpr std::uint32_t kHeldoutPercent = 8;

std::uint32_t fnv1a(std::string_view bytes, std::uint32_t hash = 2166136261u) {
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 16777619u;
  }
  return hash;
}

}  // namespace

int Vocabulary::id(std::string_view word) const {
  for (std::size_t i = 0; i < words.size(); ++i)
    if (words[i] == word) return int(i);
  return kUnk;
}

std::uint32_t Vocabulary::checksum() const {
  std::uint32_t hash = 2166136261u;
  for (const auto& w : words) hash = fnv1a(w + "\n", hash);
  return hash;
}

std::string normalize_word(std::string_view word) {
  std::string out(word);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  while (!out.empty() && std::string_view(".,!?;:\"'").find(out.back()) != std::string_view::npos) out.pop_back();
  return out;
}

const std::vector<std::string>& Task::names() {
  static const std::vector<std::string> names = {"who-is-it", "induction"};
  return names;
}

Expected<Task> Task::make(std::string_view name) {
  Task task;
  if (name == "who-is-it") {
    task.build_who_is_it();
  } else if (name == "induction") {
    task.build_induction();
  } else {
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "\"" : ", \"") + n + "\"";
    return Expected<Task>::failure("unknown task \"" + std::string(name.substr(0, 40)) + "\": the tasks are " + known);
  }
  task.name_ = std::string(name);
  return task;
}

TokenizedSentence Task::tokenize(const std::vector<std::string>& words) const {
  TokenizedSentence out;
  for (const auto& w : words) {
    out.words.push_back(normalize_word(w));
    const int id =
        out.words.back().empty() || out.words.back()[0] == '<' ? Vocabulary::kUnk : vocab_.id(out.words.back());
    out.ids.push_back(id);
    out.unknown.push_back(id == Vocabulary::kUnk);
  }
  return out;
}

void Task::build_who_is_it() {
  kind_ = TaskKind::kWhoIsIt;
  vocab_.words = {"<pad>", "<unk>"};
  auto add = [&](std::string_view view) {
    const std::string w(view);
    if (std::find(vocab_.words.begin(), vocab_.words.end(), w) == vocab_.words.end()) vocab_.words.push_back(w);
    return vocab_.id(w);
  };
  for (const auto& frame : kFrames) {
    frames_.emplace_back();
    for (const auto& w : frame)
      frames_.back().push_back(w == "{A}"   ? kAnimalSlot
                               : w == "{P}" ? kPlaceSlot
                               : w == "{J}" ? kAdjectiveSlot
                                            : add(w));
  }
  it_ = vocab_.id("it");
  for (const auto& w : kAnimals) animals_.push_back(add(w));
  for (const auto& w : kPlaces) places_.push_back(add(w));
  for (const auto& w : kAnimalAdjectives) animal_adjectives_.push_back(add(w));
  for (const auto& w : kPlaceAdjectives) place_adjectives_.push_back(add(w));
  sequence_length_ = 0;
  for (const auto& frame : frames_) sequence_length_ = std::max(sequence_length_, int(frame.size()));

  // Held out: a fixed pseudo-random ~8% of (animal, place, adjective), plus the article's two
  // sentences ("animal", "road", "tired" / "wide"), so that the page's answer to them is never a
  // memorised training sentence.
  const std::size_t NA = animals_.size(), NP = places_.size(),
                    NJ = animal_adjectives_.size() + place_adjectives_.size();
  heldout_combination_.assign(NA * NP * NJ, 0);
  for (std::size_t i = 0; i < heldout_combination_.size(); ++i)
    heldout_combination_[i] = SplitMix64(stream_seed(kHeldoutSeed, i)).next() % 100 < kHeldoutPercent;
  heldout_combination_[(0 * NP + 0) * NJ + 0] = 1;                              // animal, road, tired
  heldout_combination_[(0 * NP + 0) * NJ + animal_adjectives_.size() + 0] = 1;  // animal, road, wide
  for (std::size_t a = 0; a < NA; ++a)
    for (std::size_t p = 0; p < NP; ++p)
      for (std::size_t j = 0; j < NJ; ++j)
        if (heldout_combination_[(a * NP + p) * NJ + j])
          for (int f = 0; f < int(frames_.size()); ++f)
            heldout_.push_back(who_is_it_example(f, int(a), int(p), int(j)));
}

bool Task::is_heldout_combination(int animal, int place, int adjective) const {
  if (kind_ != TaskKind::kWhoIsIt) return false;
  const auto index = [](const std::vector<int>& list, int id) {
    return int(std::find(list.begin(), list.end(), id) - list.begin());
  };
  const int a = index(animals_, animal), p = index(places_, place);
  int j = index(animal_adjectives_, adjective);
  if (j == int(animal_adjectives_.size())) j = int(animal_adjectives_.size()) + index(place_adjectives_, adjective);
  if (a == int(animals_.size()) || p == int(places_.size()) ||
      j >= int(animal_adjectives_.size() + place_adjectives_.size()))
    return false;
  return heldout_combination_[(std::size_t(a) * places_.size() + p) *
                                  (animal_adjectives_.size() + place_adjectives_.size()) +
                              j];
}

// animal, place: indices into the noun lists; adjective: index into animal then place adjectives.
Example Task::who_is_it_example(int frame, int animal, int place, int adjective) const {
  Example ex;
  const bool animate = adjective < int(animal_adjectives_.size());
  const int adjective_id =
      animate ? animal_adjectives_[adjective] : place_adjectives_[adjective - animal_adjectives_.size()];
  int animal_pos = -1, place_pos = -1;
  for (const int w : frames_[frame]) {
    const int pos = int(ex.tokens.size());
    if (w == kAnimalSlot) {
      ex.tokens.push_back(animals_[animal]);
      animal_pos = pos;
    } else if (w == kPlaceSlot) {
      ex.tokens.push_back(places_[place]);
      place_pos = pos;
    } else if (w == kAdjectiveSlot) {
      ex.tokens.push_back(adjective_id);
      ex.adjective = pos;
    } else {
      ex.tokens.push_back(w);
      if (w == it_) ex.query = pos;
    }
  }
  ex.referent = animate ? animal_pos : place_pos;
  ex.other = animate ? place_pos : animal_pos;
  ex.targets.assign(ex.tokens.size(), -1);
  ex.targets[ex.query] = ex.tokens[ex.referent];
  return ex;
}

void Task::build_induction() {
  kind_ = TaskKind::kInduction;
  vocab_.words = {"<pad>", "<unk>"};
  for (int s = 0; s < kInductionSymbols; ++s) vocab_.words.push_back(std::string(1, char('a' + s)));
  sequence_length_ = kInductionLength;
  SplitMix64 rng(stream_seed(kHeldoutSeed, 0x696e64756374ull));  // "induct"
  for (int i = 0; i < kInductionHeldout; ++i) heldout_.push_back(induction_example(rng));
}

Example Task::induction_example(SplitMix64& rng) const {
  Example ex;
  const int period = kInductionMinPeriod + int(rng.next() % (kInductionMaxPeriod - kInductionMinPeriod + 1));
  ex.period = period;
  std::vector<int> segment(period);
  for (int& s : segment) s = 2 + int(rng.next() % kInductionSymbols);
  for (int t = 0; t < sequence_length_; ++t) ex.tokens.push_back(segment[t % period]);
  // at position t the model predicts token t + 1: a repeat once t + 1 >= period
  ex.targets.assign(ex.tokens.size(), -1);
  for (int t = period - 1; t + 1 < sequence_length_; ++t) ex.targets[t] = ex.tokens[t + 1];
  return ex;
}

Example Task::sample(SplitMix64& rng) const {
  if (kind_ == TaskKind::kInduction) return induction_example(rng);
  const int NJ = int(animal_adjectives_.size() + place_adjectives_.size());
  for (;;) {  // rejection: ~8% of draws are held out
    const int frame = int(rng.next() % frames_.size());
    const int a = int(rng.next() % animals_.size()), p = int(rng.next() % places_.size()), j = int(rng.next() % NJ);
    if (!heldout_combination_[(std::size_t(a) * places_.size() + p) * NJ + j]) return who_is_it_example(frame, a, p, j);
  }
}

void Task::pack(const std::vector<Example>& examples, std::size_t first, int count, Batch& out) const {
  pack_batch(examples, first, count, sequence_length_, Vocabulary::kPad, out);
}

void Task::sample_batch(SplitMix64& rng, int B, Batch& out) const {
  std::vector<Example> examples;
  examples.reserve(B);
  for (int b = 0; b < B; ++b) examples.push_back(sample(rng));
  pack(examples, 0, B, out);
}

}  // namespace abh::train
