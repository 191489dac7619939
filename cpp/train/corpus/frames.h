// The sentence frames of the corpus (frames.cpp). A frame is a template over noun slots and the one
// word that decides which noun the pronoun means; see corpus.cpp for the template syntax.
#pragma once

#include <initializer_list>
#include <string_view>

#include "lexicon.h"

namespace abh::train::corpus {

// What decides the antecedent.
enum class Decide : std::uint8_t {
  kMeaning,        // the deciding word describes only one noun's class ("tired" the dog, "busy" the road);
                   // both nouns singular ("it", "its") or both plural ("they", "their")
  kNumber,         // one noun singular, one plural: "it" or "they" picks by agreement
  kGender,         // a male and a female noun: "he" or "she" picks
  kGenderNeutral,  // a gendered noun and a person of no grammatical gender: the pronoun of the other
                   // gender can only be the latter
  kNumberPerson,   // people in the plural and one gendered person: "they" or "he"/"she" picks
  kAnimacy,        // a gendered person (the slot whose class is kPerson; male or female drawn) and a non-person:
                   // "he"/"she" picks the person, "it" (or "they", the non-person in the plural) the other; the
                   // family fits both, so only the pronoun decides ("she" is never a thing, "it" never a person)
  kSelect,         // any two classes of things and animals: a predicate of curated.h's kSelections that fits the
                   // answer's class and not the rival's decides; family_a names the predicates' place ("is",
                   // "did", "obj"), a and b are unused
};

struct FrameSpec {
  std::string_view name;
  std::string_view text;
  Decide decide;
  NounClass a, b;                       // the classes of <A> and <B> (unused by the person frames)
  NounClass c;                          // the distractor <C>, or kCount when the frame has none
  std::string_view family_a, family_b;  // a word of family_a follows when A is the answer, of family_b
                                        // when B is; in the agreement frames the pronoun decides and
                                        // the family only keeps the sentence sensible ("the king
                                        // thanked the girl because she was kind", "... he was
                                        // grateful"); an empty family_b is family_a
  bool heldout;                         // never trained on (Split::kHeldOutFrames)
};

extern const std::initializer_list<FrameSpec> kFrames;

}  // namespace abh::train::corpus
