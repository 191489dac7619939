// The corpus's common English (issue 38): the most frequent words of WordNet 3.0 of every part of speech, with
// their inflections, and a curated list of function words, written by the generator in training sentences only, in
// clauses that never decide the answer (adjuncts: "... because it was tired until the farmer poured the water").
//
// Why: the frames' vocabulary is built from noun classes and curated families, so very frequent words ("until",
// "never", "water", "threw") were missing altogether, and a word the model never met reads as <unk>. A word helps
// only if the corpus uses it, so every word chosen here is one the adjuncts can write.
//
// How common a word is: the sum of the SemCor tag counts of its senses (cntlist.rev) for that part of speech.
// Words are taken most frequent first until the vocabulary reaches kVocabularyTarget.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "../../random.h"
#include "../../tensor.h"  // Expected

namespace abh::train::corpus {

// The model's vocabulary size the frequent words fill up to: the embedding is most of the weights file, and both
// shipped models together must stay under 1.5 MB gzipped.
constexpr std::size_t kVocabularyTarget = 8000;

struct FrequentNoun {
  std::string singular, plural;  // plural empty for a mass noun (substance, feeling, state, ...)
  bool classified = false;       // one of the lexicon's nouns: a frame may write it as a candidate
  bool people = false;           // a person or a group ("team"): "they" may mean one even in the singular
};

struct FrequentVerb {
  std::string base, third, past, participle, ing;  // "throw", "throws", "threw", "thrown", "throwing"
  bool transitive = false;  // its most frequent sense takes an object (WordNet's verb frames 8-11)
};

struct FrequentWords {
  std::vector<FrequentNoun> nouns;
  std::vector<FrequentVerb> verbs;
  std::vector<std::string> adjectives, adverbs;

  // Every word the adjuncts can write: the function words and every form above.
  std::vector<std::string> words() const;
};

// Reads cntlist.rev, index.verb, data.verb and verb.exc from wordnet_dir; `known` is the vocabulary the frames
// already write, `plural_of` gives a noun's plural (the lexicon's, with its irregular forms). Words are added most
// frequent first, whole (a verb with all its forms), while the vocabulary stays within kVocabularyTarget.
Expected<FrequentWords> load_frequent_words(const std::string& wordnet_dir,
                                            const std::unordered_set<std::string>& known,
                                            const std::function<std::string(const std::string&)>& plural_of);

// Where an adjunct goes. kTail: at the end of the sentence, after the pronoun, so no noun of it can be the answer.
// kLeadSingular / kLeadPlural: before the frame, every noun singular (a plural pronoun follows) or plural (a singular
// one follows), none of the lexicon's nouns and no "someone" or "something": number alone rules each of its nouns out
// as the answer, as it rules out the rival in the agreement frames.
enum class AdjunctPlace : std::uint8_t { kTail, kLeadSingular, kLeadPlural };

// Writes one adjunct that never decides the answer: a prepositional phrase, or a clause with a conjunction, a subject,
// a verb in one of its forms and maybe an object ("until the farmer poured the water"). The positions of the nouns it
// wrote go to `nouns` (nouns the model must learn to read, never the answer).
void write_adjunct(const FrequentWords& words, AdjunctPlace place, SplitMix64& rng, std::vector<std::string>& out,
                   std::vector<int>& nouns);

}  // namespace abh::train::corpus
