// The frames' template language (frames.cpp writes it, corpus.cpp fills it): <A> <B> <C> nouns,
// <mA> <mB> a modifier before A or B, <pro> the pronoun, <pos> the possessive, <obj> the object form, <prois> the
// pronoun with "is"/"are" or contracted ("it's"), <be> "was"/"were" agreeing with the pronoun, <beA> <beB> agreeing
// with A or B, <is> <isA> <isB> the same in the present, <doesnotA> <doesnotB> "does not", "doesn't", "do not" or
// "don't" agreeing with A or B, <adj> the deciding word or phrase, {x|y z} one of the alternatives, any other word as
// it is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../../tensor.h"  // Expected

namespace abh::train::corpus {

using Phrase = std::vector<std::string>;

enum class Slot : std::uint8_t {
  kWords,  // literal words, or one of several alternatives
  kNounA,
  kNounB,
  kNounC,
  kModifierA,
  kModifierB,
  kPronoun,     // it, they, he, she
  kPossessive,  // its, their, his, her
  kObject,      // it, them, him, her: the pronoun as an object ("so we fed it")
  kBe,          // was/were agreeing with the pronoun
  kBeA,
  kBeB,
  kIs,         // is/are agreeing with the pronoun (the present-tense frames)
  kPronounIs,  // "it is" or "it's", "they are" or "they're", ...
  kIsA,
  kIsB,
  kDoesNotA,  // does not / doesn't, or do not / don't, agreeing with A or B
  kDoesNotB,
  kDecider,
};

struct Token {
  Slot slot = Slot::kWords;
  std::vector<Phrase> alternatives;  // kWords only
  int determines = -1;               // a "the" before noun slot 0, 1 or 2 (A, B, C), or before its modifier:
                                     // the generator may write another determiner there ("a", "my", "these")
};

// Splits on single spaces.
Phrase split_words(std::string_view text);

// The tokens of a template, or what is wrong with it.
Expected<std::vector<Token>> parse_template(std::string_view text);

}  // namespace abh::train::corpus
