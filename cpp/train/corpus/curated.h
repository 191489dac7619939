// What WordNet cannot say, written by hand (curated.cpp, curated_words.cpp): which WordNet subtrees make each noun
// class, words placed in a class by hand, words left out, plural forms, and the adjective families that say which
// classes a word can describe. The frames (frames.cpp) are written against these names.
//
// The tables are plain arrays of string views (no allocation before a generator is made).
#pragma once

#include <initializer_list>
#include <string_view>

#include "lexicon.h"

namespace abh::train::corpus {

using WordList = std::initializer_list<std::string_view>;

// Every noun whose most frequent sense lies under WordNet's `lemma`, sense `sense` (1-based, as in
// index.noun), belongs to `cls`. Earlier rows win: "car" is a container in WordNet, a vehicle here.
struct ClassRoot {
  NounClass cls;
  std::string_view lemma;
  int sense;
  int min_tag_count = 1;  // how often its most frequent sense must be tagged in SemCor: how common
};
extern const std::initializer_list<ClassRoot> kClassRoots;

// Subtrees the corpus leaves out: people it should not name (villains, victims) and animals the
// frames cannot use (fish cannot cross a road).
extern const std::initializer_list<ClassRoot> kExcludedRoots;

// Words placed in a class by hand, whatever WordNet's tag counts say: gendered nouns (WordNet files
// "king" under sovereign, not male), paths and openings (spread over several WordNet subtrees), and
// common words WordNet never tagged in its corpus.
struct CuratedNoun {
  NounClass cls;
  WordList words;
};
extern const std::initializer_list<CuratedNoun> kCuratedNouns;

// Words never used: offensive, archaic, or misleading in the frames (a mass noun, a word whose
// everyday sense is not its WordNet class).
extern const WordList kBlockedNouns;

// Plurals where noun.exc gives an archaic form or the regular rule is wrong.
struct PluralOverride {
  std::string_view singular, plural;
};
extern const std::initializer_list<PluralOverride> kPluralOverrides;

// A family of words (adjectives or possessed-part phrases) that can describe only nouns of `classes`.
// A frame decides its antecedent by drawing the word from one noun's family: "tired" (animate) can
// only be the dog, "busy" (path) only the road.
struct Family {
  std::string_view name;
  std::initializer_list<NounClass> classes;
  WordList words;  // a word may be several tokens: "paw was sore"
};
extern const std::initializer_list<Family> kFamilies;

// The selectional table: predicates and the noun classes they fit, for the frames that set any two classes side by
// side ("we saw the car near the bread and it was stale"). Each family's `classes` lists every class the
// predicate can describe, so a noun of any other class is a rival it cannot mean. The name says where the predicate
// stands: "is:" after "was" ("it was stale"), "did:" a verb phrase after the pronoun ("it broke down"), "obj:" a
// verb before the pronoun as its object ("so we fed it"). No phrase holds a possessive: "they" must read as well.
extern const std::initializer_list<Family> kSelections;

// Wording that never decides the answer, which the generator adds around every frame (corpus.cpp) so
// that the model meets sentences as readers write them: a time before the sentence, "very" before the
// deciding adjective ("much" before "too"), "seemed" for "was", and words after the deciding one.
extern const WordList kLeadIns, kIntensifiers, kBeforeToo, kCopulas, kTails;

// Adjectives put before a noun that never decide the answer ("the old dog", "the red box").
struct Modifiers {
  NounClass cls;
  WordList words;
};
extern const std::initializer_list<Modifiers> kModifiers;

}  // namespace abh::train::corpus
