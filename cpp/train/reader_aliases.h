// The reader model's alias table (issue 38): for English words outside the model's vocabulary, the
// vocabulary word WordNet 3.0 says is closest, so that "famished" is read as "hungry", "devoured" as
// "ate" and "ferret" as a known animal without retraining (ReaderModel::use_aliases reads the table).
//
// Relations, most precise first (kReaderAliasRelations; each entry records the one it came from):
//   form      another form of a known word: WordNet's exception lists and regular suffix rules
//             ("mice" -> "mouse", "hungrier" -> "hungry")
//   synonym   a word of the same synset, in the word's most frequent sense, where that synset is also
//             the known word's most frequent sense ("automobile" -> "car")
//   similar   adjectives: the head of a satellite's "similar to" (&) cluster, or another satellite of
//             it ("famished" -> "hungry", "scorching" -> "hot"); never a word's antonym
//   hypernym  verbs: the known word one level up, unless it is a root of the verb tree ("devour" ->
//             "eat"); nouns: a known noun one or two levels up ("poodle" -> "dog")
//   cousin    nouns: a known noun two steps away (a sibling under the same parent, or a grandchild), in
//             the same lexicographer file ("ferret" -> "weasel": both noun.animal); not for people,
//             whose siblings may differ in gender
// The inflection is kept ("devoured" -> "ate", "ferrets" -> "weasels"): a noun keeps its number and a
// verb its form, or gets no alias; an adjective may lose its degree ("bigger" -> "big").
// Native only: the generator reads WordNet; the page reads the table it writes
// (web/src/model/reader-aliases.txt).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../tensor.h"  // Expected

namespace abh::train {

struct ReaderAliasEntry {
  std::string word, target;
  std::uint8_t relation = 0;  // index into kReaderAliasRelations
};

// The alias table for a vocabulary: every word (and inflected form) of WordNet outside `words` that
// has a close enough known word, sorted by word. nouns (words.size()): 1 where the word is a noun the
// model can name (ReaderVocabulary::nouns); a noun is aliased only to such a word, and a verb or an
// adjective only to a word that is not one. Deterministic: the same WordNet and vocabulary give the
// same table.
Expected<std::vector<ReaderAliasEntry>> make_reader_aliases(const std::string& wordnet_dir,
                                                            const std::vector<std::string>& words,
                                                            const std::vector<std::uint8_t>& nouns);

// 1 for each word WordNet 3.0 reads as a noun in use: a noun lemma or a form of one ("shelves") that
// SemCor tags as a noun at least once. With the words that were candidates in training, these are the
// words the reader model may name (ReaderVocabulary::nouns): a noun the generator writes only in fixed
// phrases ("on the shelf") can still be the antecedent of a reader's sentence.
Expected<std::vector<std::uint8_t>> reader_wordnet_nouns(const std::string& wordnet_dir,
                                                         const std::vector<std::string>& words);

// The format ReaderModel::use_aliases reads: one line per target and relation, "target relation word
// word...\n", sorted (the words of one target share a line: half the bytes of a line per word).
std::string format_reader_aliases(const std::vector<ReaderAliasEntry>& entries);

}  // namespace abh::train
