// The corpus's categorised vocabulary: nouns read from WordNet 3.0 and sorted into the classes the
// frames need, plus the curated words (adjectives, verbs, gendered nouns) of curated.h.
//
// A noun belongs to exactly one class, decided by its most frequent sense: "bat" is an animal or a
// club, never both, so a sentence can never be right for one reading and wrong for the other.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../../tensor.h"  // Expected

namespace abh::train::corpus {

// The noun classes the frames and the adjective families (curated.h) are written against.
enum class NounClass : std::uint8_t {
  kAnimal,     // dog, horse, sparrow: "it", animate adjectives
  kPerson,     // teacher, doctor: no grammatical gender, "he" or "she" by context, "they" when plural
  kMale,       // boy, king, father: "he"
  kFemale,     // girl, queen, mother: "she"
  kThing,      // small objects that go into containers: ball, knife, hat, violin
  kContainer,  // box, bag, suitcase, jar
  kVehicle,    // car, truck, boat
  kFurniture,  // sofa, table, piano-sized things that pass through doors
  kBuilding,   // house, school, barn
  kPath,       // road, street, corridor
  kOpening,    // door, gate, tunnel
  kWater,      // river, lake, stream
  kFood,       // bread, apple, soup (always singular: many are mass nouns)
  kTree,       // tree, bush, oak
  kFlower,     // rose, daisy
  kCount
};
constexpr int kNounClassCount = static_cast<int>(NounClass::kCount);

std::string_view class_name(NounClass cls);

struct Noun {
  std::string singular;
  std::string plural;  // from WordNet's noun.exc, curated overrides, or the regular rule
  NounClass cls = NounClass::kThing;
  int tag_count = 0;  // SemCor tag count of the most frequent sense (cntlist.rev): how common it is
};

class Lexicon {
 public:
  // Reads index.noun, data.noun, noun.exc and cntlist.rev from wordnet_dir.
  static Expected<Lexicon> load(const std::string& wordnet_dir);

  const std::vector<Noun>& nouns() const { return nouns_; }
  const std::vector<int>& members(NounClass cls) const { return members_[static_cast<int>(cls)]; }
  // The noun a written form (singular or plural) belongs to, or -1.
  int find(const std::string& form) const;

 private:
  std::vector<Noun> nouns_;
  std::vector<std::vector<int>> members_;
  std::unordered_map<std::string, int> by_form_;
};

}  // namespace abh::train::corpus
