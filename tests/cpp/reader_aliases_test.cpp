// The reader's alias table (cpp/train/reader_aliases.h): the generator on a tiny WordNet written here
// (each relation, the inflection kept, the antonym and part-of-speech guards), and the inference path
// (ReaderModel::use_aliases, token_id): an aliased word reads exactly its target's id, an unaliased
// unknown word stays <unk>, and a malformed table is refused with its line. The real WordNet table is
// checked by reader_shipped_test.cpp.
#include "train/reader_aliases.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "train/reader.h"

namespace {

using namespace abh::train;

// WordNet 3.0's file formats (wndb(5WN)) with a handful of synsets: "offset lexfile ss_type w_cnt(hex)
// word lex_id ... p_cnt pointer... | gloss", "lemma pos synset_cnt p_cnt sense_cnt tagsense_cnt offsets".
const std::map<std::string, std::string> kFixture = {
    {"data.noun",
     "  licence header\n"
     "00000100 05 n 01 animal 0 000 | a living thing\n"
     "00000200 05 n 01 musteline 0 001 @ 00000100 n 0000 | weasels and kin\n"
     "00000300 05 n 01 weasel 0 001 @ 00000200 n 0000 | a small carnivore\n"
     "00000400 05 n 01 ferret 0 001 @ 00000200 n 0000 | a domesticated polecat\n"
     "00000500 06 n 01 cage 0 001 @ 00000100 n 0000 | not an animal: another lexicographer file\n"
     "00000600 18 n 01 person 0 000 | a human\n"
     "00000700 18 n 01 father 0 001 @ 00000600 n 0000 | a male parent\n"
     "00000800 18 n 01 mother 0 001 @ 00000600 n 0000 | a female parent\n"
     "00000900 18 n 01 stepfather 0 001 @ 00000700 n 0000 | a mother's husband\n"
     "00001000 18 n 01 aunt 0 001 @ 00000600 n 0000 | a parent's sister\n"
     "00001100 06 n 01 coach 0 000 | a carriage: mostly a noun\n"
     "00001200 06 n 01 drill 0 000 | a tool: mostly a verb\n"},
    {"index.noun",
     "  licence header\n"
     "animal n 1 1 @ 1 0 00000100\nmusteline n 1 1 @ 1 0 00000200\nweasel n 1 1 @ 1 0 00000300\n"
     "ferret n 1 1 @ 1 0 00000400\ncage n 1 1 @ 1 0 00000500\nperson n 1 0 1 0 00000600\n"
     "father n 1 1 @ 1 0 00000700\nmother n 1 1 @ 1 0 00000800\nstepfather n 1 1 @ 1 0 00000900\n"
     "aunt n 1 1 @ 1 0 00001000\ncoach n 1 0 1 0 00001100\ndrill n 1 0 1 0 00001200\n"},
    {"noun.exc", ""},
    {"data.verb",
     "00002000 34 v 01 ingest 0 000 00 | a root of the tree\n"
     "00002100 34 v 01 eat 0 001 @ 00002000 v 0000 01 + 02 00 | take in food\n"
     "00002200 34 v 02 devour 0 down 0 001 @ 00002100 v 0000 01 + 02 00 | eat greedily\n"
     "00002300 34 v 01 gobble 0 001 @ 00002000 v 0000 01 + 02 00 | right under the root\n"
     "00002400 31 v 01 coach 0 000 01 + 02 00 | teach\n"
     "00002500 31 v 01 drill 0 000 01 + 02 00 | teach by repetition\n"},
    {"index.verb",
     "ingest v 1 0 1 0 00002000\neat v 1 1 @ 1 1 00002100\ndevour v 1 1 @ 1 0 00002200\n"
     "down v 1 1 @ 1 0 00002200\ngobble v 1 1 @ 1 0 00002300\ncoach v 1 0 1 0 00002400\n"
     "drill v 1 0 1 0 00002500\n"},
    {"verb.exc", "ate eat\neaten eat\n"},
    {"data.adj",
     "00003000 00 a 01 hungry 0 003 & 00003100 s 0000 & 00003300 s 0000 ! 00003200 a 0101 | feeling hunger\n"
     "00003100 00 s 01 famished 0 001 & 00003000 a 0000 | extremely hungry\n"
     "00003200 00 a 01 full 0 002 ! 00003000 a 0101 & 00003400 s 0000 | not hungry\n"
     "00003300 00 s 01 starved 0 001 & 00003000 a 0000 | hungry for long\n"
     "00003400 00 s 01 sated 0 001 & 00003200 a 0000 | full\n"
     "00003500 00 s 01 peckish 0 002 & 00003000 a 0000 & 00003200 a 0000 | a satellite of both heads\n"},
    {"index.adj",
     "hungry a 1 2 ! & 1 1 00003000\nfamished a 1 1 & 1 0 00003100\nfull a 1 2 ! & 1 0 00003200\n"
     "starved a 1 1 & 1 0 00003300\nsated a 1 1 & 1 0 00003400\npeckish a 1 1 & 1 0 00003500\n"},
    {"adj.exc", "hungrier hungry\n"},
    {"cntlist.rev",
     "eat%2:34:00:: 1 10\nhungry%3:00:00:: 1 5\nfather%1:18:00:: 1 8\ndown%4:02:00:: 1 50\n"
     "coach%1:06:00:: 1 6\ncoach%2:31:00:: 1 10\ndrill%1:06:00:: 1 3\ndrill%2:31:00:: 1 10\n"},
};

class ReaderAliasFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = (std::filesystem::temp_directory_path() / ("abh-wordnet-fixture-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir_);
    for (const auto& [name, text] : kFixture) std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  // word -> "target relation" for a vocabulary (nouns: the words the model names)
  static std::map<std::string, std::string> table(const std::vector<std::string>& words,
                                                  const std::vector<std::string>& nouns) {
    std::vector<std::uint8_t> flags;
    for (const auto& w : words) flags.push_back(std::find(nouns.begin(), nouns.end(), w) != nouns.end());
    const auto entries = make_reader_aliases(dir_, words, flags);
    EXPECT_TRUE(entries.ok()) << (entries.ok() ? "" : entries.error());
    std::map<std::string, std::string> out;
    if (!entries.ok()) return out;
    for (const auto& e : entries.value()) out[e.word] = e.target + " " + std::string(kReaderAliasRelations[e.relation]);
    return out;
  }

  static std::string dir_;
};
std::string ReaderAliasFixture::dir_;

TEST_F(ReaderAliasFixture, EachRelationLandsOnTheClosestKnownWordInTheSameForm) {
  const auto t = table({"weasel", "weasels", "father", "fathers", "mother", "ate", "down", "ingest", "hungry", "cage"},
                       {"weasel", "weasels", "father", "fathers", "mother", "cage"});
  const std::map<std::string, std::string> expected = {
      {"ferret", "weasel cousin"},        // a sibling under the same parent, in noun.animal
      {"ferrets", "weasels cousin"},      // and its plural to the plural
      {"musteline", "weasel cousin"},     // a known child
      {"animal", "weasel cousin"},        // a grandchild: "cage", a child, is in noun.artifact
      {"stepfather", "father hypernym"},  // a person: its parent, never a sibling
      {"stepfathers", "fathers hypernym"},
      {"devoured", "ate hypernym"},  // past to past through the exception list; not "down", mostly an adverb
      {"famished", "hungry similar"},
      {"starved", "hungry similar"},
      {"hungrier", "hungry form"},  // an adjective may lose its degree
  };
  for (const auto& [word, alias] : expected) {
    const auto found = t.find(word);
    ASSERT_NE(found, t.end()) << word;
    EXPECT_EQ(found->second, alias) << word;
  }
  for (const char* none : {"aunt",       // a person's sibling may differ in gender
                           "devour",     // the bare verb is not in the vocabulary: a verb keeps its form
                           "devouring",  // nor is "eating"
                           "gobble",     // its parent is a root of the verb tree
                           "weasel",     // known words get no alias
                           "peckish"})   // similar to two heads, each the other's antonym
    EXPECT_EQ(t.count(none), 0u) << none << " -> " << (t.count(none) ? t.at(none) : "");
}

TEST_F(ReaderAliasFixture, SameInputGivesTheSameTableAndBadInputIsRefused) {
  const std::vector<std::string> words = {"weasel", "father", "hungry"};
  const std::vector<std::uint8_t> nouns = {1, 1, 0};
  const auto one = make_reader_aliases(dir_, words, nouns), two = make_reader_aliases(dir_, words, nouns);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(format_reader_aliases(one.value()), format_reader_aliases(two.value()));
  EXPECT_FALSE(make_reader_aliases(dir_, words, {1}).ok());
  const auto missing = make_reader_aliases(dir_ + "/nowhere", words, nouns);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("wordnet-base"), std::string::npos) << missing.error();
}

// ---- inference ------------------------------------------------------------------------------------

ReaderModel small_model() {
  ReaderConfig c;
  c.layers = 1;
  c.heads = 2;
  c.d_model = 8;
  ReaderVocabulary v = ReaderVocabulary::of({"the", "dog", "cat", "chased", "because", "it", "was", "hungry"});
  v.nouns[std::size_t(v.id("dog"))] = v.nouns[std::size_t(v.id("cat"))] = 1;
  return ReaderModel::initialized(c, std::move(v));
}

TEST_F(ReaderAliasFixture, TheNounsAreTheWordsMostlyUsedAsNouns) {
  const std::vector<std::string> words = {"father", "fathers", "coach", "drill", "weasel", "down", "hungry", "while"};
  const auto nouns = reader_wordnet_nouns(dir_, words);
  ASSERT_TRUE(nouns.ok()) << nouns.error();
  // "coach": 6 noun tags against 10 as a verb; "drill": 3 against 10; "weasel": never tagged; "down" is no
  // noun here; "while" is a function word however WordNet reads it
  EXPECT_EQ(nouns.value(), (std::vector<std::uint8_t>{1, 1, 1, 0, 0, 0, 0, 0}));
  EXPECT_FALSE(reader_wordnet_nouns(dir_ + "/nowhere", words).ok());
}

TEST(ReaderAliases, AnAliasedWordReadsExactlyItsTargetAndAnUnaliasedOneStaysUnknown) {
  ReaderModel model = small_model();
  const auto kept = model.use_aliases(
      "dog cousin ferret\nhungry similar famished\ndog synonym cat\nlemming cousin lemur\n\ncat cousin kitten\n");
  ASSERT_TRUE(kept.ok()) << kept.error();
  EXPECT_EQ(kept.value(), 3);  // "cat" is known already and "lemming" is not: both skipped
  const auto aliased = model.answer({"the", "Ferret", "chased", "the", "cat", "because", "it", "was", "famished."});
  const auto plain = model.answer({"the", "dog", "chased", "the", "cat", "because", "it", "was", "hungry"});
  ASSERT_TRUE(aliased.ok() && plain.ok());
  const ReaderAnswer &a = aliased.value(), &p = plain.value();
  EXPECT_EQ(a.words[1], "ferret");
  EXPECT_EQ(a.pointer, p.pointer);  // the same ids: the same forward pass, to the bit
  EXPECT_EQ(a.attention, p.attention);
  EXPECT_EQ(a.unknown, std::vector<std::uint8_t>(9, 0));
  EXPECT_EQ(a.read_as,
            (std::vector<int>{-1, model.vocabulary.id("dog"), -1, -1, -1, -1, -1, -1, model.vocabulary.id("hungry")}));
  EXPECT_EQ(a.relation[1], 4);            // cousin
  EXPECT_EQ(a.relation[8], 2);            // similar
  EXPECT_EQ(a.candidates, p.candidates);  // read as "dog", the ferret is a noun the model can name
  const auto lemur = model.answer({"the", "lemur", "chased", "the", "cat", "because", "it", "was", "hungry"});
  ASSERT_TRUE(lemur.ok());
  EXPECT_EQ(lemur.value().unknown[1], 1);
  EXPECT_EQ(lemur.value().read_as[1], -1);
  EXPECT_EQ(model.token_id("lemur"), ReaderVocabulary::kUnk);
  EXPECT_EQ(model.token_id("kitten"), model.vocabulary.id("cat"));
  // the evaluation path (example, evaluate) reads the same ids
  corpus::Sentence s;
  s.words = {"the", "ferret", "chased", "the", "cat", "because", "it", "was", "famished"};
  s.pronoun = 6;
  s.antecedent = 1;
  const auto example = model.example(s);
  ASSERT_TRUE(example.ok());
  EXPECT_EQ(example.value().tokens[1], model.vocabulary.id("dog"));
  EXPECT_EQ(example.value().tokens[8], model.vocabulary.id("hungry"));
}

TEST(ReaderAliases, AMalformedTableIsRefusedWithItsLineAndTheOldTableStays) {
  ReaderModel model = small_model();
  ASSERT_TRUE(model.use_aliases("dog cousin ferret\n").ok());
  for (const char* bad : {"dog cousin\n", "dog cousin ferret Weasel\n", "dog friend ferret\n",
                          "cat cousin kitten\ndog cousin  ferret\n", "cat cousin kitten \n"}) {
    const auto refused = model.use_aliases(bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error().find("line "), std::string::npos) << refused.error();
    EXPECT_EQ(model.token_id("ferret"), model.vocabulary.id("dog")) << bad;
    EXPECT_EQ(model.token_id("kitten"), ReaderVocabulary::kUnk) << bad;
  }
  EXPECT_NE(model.use_aliases("dog friend ferret\n").error().find("\"friend\""), std::string::npos);
  ASSERT_TRUE(model.use_aliases("dog cousin ferret weasel\n").ok());  // the words of one target share a line
  EXPECT_EQ(model.token_id("weasel"), model.vocabulary.id("dog"));
  ASSERT_TRUE(model.use_aliases("").ok());  // an empty table: no aliases
  EXPECT_EQ(model.token_id("ferret"), ReaderVocabulary::kUnk);
}

}  // namespace
