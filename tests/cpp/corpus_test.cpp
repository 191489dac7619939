// The reader model's corpus generator (cpp/train/corpus/, issue 38), read from Debian's WordNet 3.0
// (wordnet-base): every frame writes sentences, a deciding word describes only its antecedent's
// class, the antecedent is a candidate that agrees with the pronoun (and the only one that does when
// agreement decides), a training sentence comes with its twin whose one changed word flips the answer, held-out
// frames and combinations never reach the training split, the same seed
// gives the same sentences, the vocabulary holds every word written, and a missing WordNet is a
// message rather than a crash.
#include "train/corpus/corpus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "train/corpus/curated.h"
#include "train/corpus/frames.h"
#include "train/corpus/lexicon.h"

namespace {

using namespace abh::train::corpus;

constexpr const char* kWordnet = "/usr/share/wordnet";
constexpr Split kSplits[] = {Split::kTrain, Split::kHeldOutWords, Split::kHeldOutFrames};

// One generator for the whole suite (loading WordNet takes a fraction of a second), with twins: every check of the
// training split holds for them too.
Generator& shared_generator() {
  static Generator generator = [] {
    auto made = Generator::make(kWordnet, 20260605, Twins::kOn);
    if (!made.ok()) {
      ADD_FAILURE() << made.error();
      std::abort();
    }
    return std::move(made.value());
  }();
  return generator;
}

std::string joined(const std::vector<std::string>& words, std::size_t from = 0, std::size_t to = std::string::npos) {
  std::string text;
  for (std::size_t i = from; i < std::min(to, words.size()); ++i) text += (i > from ? " " : "") + words[i];
  return text;
}

// How a pronoun constrains its antecedent: number, and for he/she the gendered classes allowed.
struct PronounRule {
  bool plural;
  std::vector<NounClass> classes;  // empty: any class but a person's
};
PronounRule rule_of(const std::string& pronoun) {
  using C = NounClass;
  if (pronoun == "it" || pronoun == "its" || pronoun == "it's") return {false, {}};
  if (pronoun == "they" || pronoun == "their" || pronoun == "they're" || pronoun == "them") return {true, {}};
  if (pronoun == "he" || pronoun == "his" || pronoun == "he's" || pronoun == "him")
    return {false, {C::kMale, C::kPerson}};
  if (pronoun == "she" || pronoun == "her" || pronoun == "she's") return {false, {C::kFemale, C::kPerson}};
  ADD_FAILURE() << "not a pronoun: " << pronoun;
  return {false, {}};
}

bool is_person(NounClass cls) {
  return cls == NounClass::kPerson || cls == NounClass::kMale || cls == NounClass::kFemale;
}

// Whether the noun written as `form` can be what `pronoun` refers to, by number and gender alone.
bool agrees(const Lexicon& lexicon, const std::string& form, const std::string& pronoun) {
  const int id = lexicon.find(form);
  if (id < 0) return false;
  const Noun& noun = lexicon.nouns()[std::size_t(id)];
  const PronounRule rule = rule_of(pronoun);
  const bool plural = form == noun.plural;
  if (plural != rule.plural) return false;
  if (rule.classes.empty()) return rule.plural || !is_person(noun.cls);  // "they" may be people, "it" may not
  return std::find(rule.classes.begin(), rule.classes.end(), noun.cls) != rule.classes.end();
}

const Family* family_named(const std::string& name) {
  for (const auto* table : {&kFamilies, &kSelections})
    for (const Family& family : *table)
      if (family.name == name) return &family;
  return nullptr;
}

TEST(Corpus, MissingWordnetIsAMessageNotACrash) {
  auto missing = Generator::make("/nonexistent/wordnet", 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("/nonexistent/wordnet/"), std::string::npos) << missing.error();
  EXPECT_NE(missing.error().find("wordnet-base"), std::string::npos) << missing.error();

  // A directory with the files present but not WordNet's: refused with the file named.
  const auto dir = std::filesystem::temp_directory_path() / "abh_corpus_bad_wordnet";
  std::filesystem::create_directories(dir);
  for (const char* name : {"data.noun", "index.noun", "noun.exc", "cntlist.rev"})
    std::ofstream(dir / name) << "00001740 zz n not-hex entity\n";
  auto garbled = Generator::make(dir.string(), 1);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(garbled.ok());
  EXPECT_NE(garbled.error().find("cannot parse"), std::string::npos) << garbled.error();
}

TEST(Corpus, VocabularyHasThreeThousandSortedUniqueWords) {
  const auto& vocabulary = shared_generator().vocabulary();
  EXPECT_GE(vocabulary.size(), 3000u);
  EXPECT_TRUE(std::is_sorted(vocabulary.begin(), vocabulary.end()));
  EXPECT_EQ(std::adjacent_find(vocabulary.begin(), vocabulary.end()), vocabulary.end());
  for (const char* word : {"dog", "dogs", "road", "trophy", "suitcase", "king", "queen", "tired", "it", "they"})
    EXPECT_TRUE(std::binary_search(vocabulary.begin(), vocabulary.end(), word)) << word;
}

TEST(Corpus, LexiconClassesComeFromWordnetAndTheCuratedTable) {
  const Lexicon& lexicon = shared_generator().lexicon();
  auto class_of = [&](const std::string& word) {
    const int id = lexicon.find(word);
    EXPECT_GE(id, 0) << word;
    return id < 0 ? NounClass::kCount : lexicon.nouns()[std::size_t(id)].cls;
  };
  // From WordNet's hypernyms (not in the curated lists) ...
  EXPECT_EQ(class_of("elephant"), NounClass::kAnimal);
  EXPECT_EQ(class_of("doctor"), NounClass::kPerson);
  EXPECT_EQ(class_of("sedan"), NounClass::kVehicle);
  // ... and from the curated table, whatever WordNet's most frequent sense says ("queen" is a bee there).
  EXPECT_EQ(class_of("queen"), NounClass::kFemale);
  EXPECT_EQ(class_of("king"), NounClass::kMale);
  // Plurals: noun.exc, the -man rule, the regular rules.
  EXPECT_EQ(lexicon.nouns()[std::size_t(lexicon.find("mouse"))].plural, "mice");
  EXPECT_EQ(lexicon.nouns()[std::size_t(lexicon.find("knife"))].plural, "knives");
  EXPECT_EQ(lexicon.nouns()[std::size_t(lexicon.find("woman"))].plural, "women");
  EXPECT_EQ(lexicon.nouns()[std::size_t(lexicon.find("box"))].plural, "boxes");
  EXPECT_EQ(lexicon.nouns()[std::size_t(lexicon.find("lady"))].plural, "ladies");
  // Left out: blocked words, invariant plurals, proper nouns, multi-word lemmas.
  for (const char* word : {"slave", "sheep", "mississippi", "plato", "domestic_dog"})
    EXPECT_EQ(lexicon.find(word), -1) << word;
  // Every noun has exactly one class, and every class the frames draw from is populated.
  std::set<std::string> forms;
  for (const Noun& noun : lexicon.nouns()) {
    EXPECT_TRUE(forms.insert(noun.singular).second) << noun.singular;
    EXPECT_TRUE(forms.insert(noun.plural).second) << noun.plural;
  }
  for (int c = 0; c < kNounClassCount; ++c)
    EXPECT_GE(lexicon.members(NounClass(c)).size(), 10u) << class_name(NounClass(c));
}

TEST(Corpus, HasTheFramesTheIssueAsksFor) {
  Generator& generator = shared_generator();
  EXPECT_GE(generator.frame_count(), 40);
  std::set<std::string> names;
  int heldout = 0;
  for (int f = 0; f < generator.frame_count(); ++f) {
    EXPECT_TRUE(names.insert(generator.frame_name(f)).second) << "two frames named " << generator.frame_name(f);
    heldout += generator.frame_is_heldout(f);
  }
  EXPECT_GE(heldout, 3);
  EXPECT_LE(heldout, generator.frame_count() / 4);
  // Each construction the issue lists, by the words the frames write (sampled, not read from the table).
  std::map<std::string, int> seen;
  const char* kWanted[] = {"because", "so",   "when", "after", "although", "not", "by",    "too", "fit", "through",
                           "that",    "near", "they", "he",    "she",      "its", "their", "his", "her"};
  for (Split split : kSplits)
    for (int n = 0; n < 20000; ++n)
      for (const std::string& word : generator.sample(split).words) ++seen[word];
  for (const char* word : kWanted) EXPECT_GT(seen[word], 0) << word;
}

TEST(Corpus, AFramesTwoWordListsShareNoWord) {
  // A word in both of a frame's lists ("too busy": a person or a road) would be trained towards either noun, and the
  // twin of such a sentence could not flip its answer. Read from the tables: nothing to generate.
  int checked = 0;
  for (const FrameSpec& frame : kFrames) {
    if (frame.decide == Decide::kSelect || frame.family_b.empty() || frame.family_b == frame.family_a) continue;
    const Family* a = family_named(std::string(frame.family_a));
    const Family* b = family_named(std::string(frame.family_b));
    ASSERT_NE(a, nullptr) << frame.name;
    ASSERT_NE(b, nullptr) << frame.name;
    ++checked;
    for (std::string_view word : a->words)
      EXPECT_EQ(std::find(b->words.begin(), b->words.end(), word), b->words.end())
          << "frame " << frame.name << ": \"" << word << "\" is in " << frame.family_a << " and " << frame.family_b;
  }
  EXPECT_GT(checked, 40);
}

TEST(Corpus, SelectionalPredicatesNameOneFamilyAndLeaveARival) {
  // A predicate listed twice in one place ("is:", "did:", "obj:") would carry two sets of classes and teach both; one
  // that fits every class "it" can mean would leave a kSelect frame no rival to draw. Read from the table.
  std::map<std::string, std::string> family_of;  // "is:stale" -> its family
  int phrases = 0;
  for (const Family& family : kSelections) {
    const std::string name(family.name);
    const std::string place = name.substr(0, name.find(':') + 1);
    EXPECT_TRUE(place == "is:" || place == "did:" || place == "obj:") << name;
    EXPECT_LT(family.classes.size(), 12u) << name << " fits every class: no rival can be drawn";
    for (std::string_view phrase : family.words) {
      ++phrases;
      const auto [at, inserted] = family_of.emplace(place + std::string(phrase), name);
      EXPECT_TRUE(inserted) << "\"" << phrase << "\" is in " << at->second << " and " << name;
    }
  }
  EXPECT_GT(phrases, 800);  // the deciding words readers type are many: several hundred per place
}

// The wording added around every frame (curated.h's kLeadIns ... kTails, modifiers before nouns) shows
// up at its rate, and the pronoun also stands as an object ("so we fed it").
TEST(Corpus, WordingAroundTheFramesVaries) {
  Generator& generator = shared_generator();
  const auto starts_with = [](const std::string& text, const WordList& phrases) {
    return std::any_of(phrases.begin(), phrases.end(),
                       [&](std::string_view p) { return text.rfind(std::string(p) + " ", 0) == 0; });
  };
  constexpr int kSentences = 20000;
  int lead_in = 0, copula = 0, object = 0, very = 0;
  for (int n = 0; n < kSentences; ++n) {
    const Sentence s = generator.sample(Split::kTrain);
    lead_in += starts_with(joined(s.words), kLeadIns);
    const std::string after = joined(s.words, std::size_t(s.pronoun) + 1);
    copula += starts_with(after + " ", kCopulas);
    very += s.words.size() > std::size_t(s.pronoun) + 2 && s.words[std::size_t(s.pronoun) + 2] == "very";
    const std::string& pronoun = s.words[std::size_t(s.pronoun)];
    object += pronoun == "them" || pronoun == "him" || (pronoun == "it" && s.pronoun + 1 == int(s.words.size()));
  }
  // lead-ins in 15 % of the sentences; a copula in a fifth of those whose deciding word is one adjective;
  // "very" right after some pronoun's "was"; object pronouns in 3 of the 71 training frames
  EXPECT_GT(lead_in, kSentences * 12 / 100);
  EXPECT_LT(lead_in, kSentences * 18 / 100);
  EXPECT_GT(copula, kSentences * 5 / 100);
  EXPECT_GT(very, 0);
  EXPECT_GT(object, kSentences * 2 / 100);
}

TEST(Corpus, EveryFrameWritesWellFormedSentences) {
  Generator& generator = shared_generator();
  const auto& vocabulary = generator.vocabulary();
  const Lexicon& lexicon = generator.lexicon();
  std::vector<int> per_frame(std::size_t(generator.frame_count()), 0);
  for (Split split : kSplits) {
    for (int n = 0; n < 30000; ++n) {
      const Sentence s = generator.sample(split);
      const std::string text = joined(s.words);
      ASSERT_GE(s.frame, 0);
      ASSERT_LT(s.frame, generator.frame_count());
      ++per_frame[std::size_t(s.frame)];
      EXPECT_EQ(generator.frame_is_heldout(s.frame), split == Split::kHeldOutFrames) << text;
      ASSERT_LE(s.words.size(), 40u) << text;
      for (const std::string& word : s.words) {
        ASSERT_TRUE(std::binary_search(vocabulary.begin(), vocabulary.end(), word)) << word << " in: " << text;
        // Lower-case letters, and the apostrophe of a contraction ("didn't") as the page keeps it.
        for (char c : word) ASSERT_TRUE((c >= 'a' && c <= 'z') || c == '\'') << word << " in: " << text;
      }
      ASSERT_GE(s.pronoun, 0) << text;
      ASSERT_LT(s.pronoun, int(s.words.size())) << text;
      ASSERT_GE(s.candidates.size(), 2u) << text;
      EXPECT_TRUE(std::is_sorted(s.candidates.begin(), s.candidates.end())) << text;
      EXPECT_NE(std::find(s.candidates.begin(), s.candidates.end(), s.antecedent), s.candidates.end()) << text;
      for (int c : s.candidates) {
        EXPECT_LT(c, s.pronoun) << text;
        EXPECT_GE(lexicon.find(s.words[std::size_t(c)]), 0) << s.words[std::size_t(c)] << " in: " << text;
      }
      // Every noun before the pronoun is a candidate: no verb, modifier or other frame word is also
      // one of the lexicon's nouns (a reader's "watch" or "can" would be ambiguous).
      for (int w = 0; w < s.pronoun; ++w) {
        if (lexicon.find(s.words[std::size_t(w)]) >= 0) {
          EXPECT_NE(std::find(s.candidates.begin(), s.candidates.end(), w), s.candidates.end())
              << s.words[std::size_t(w)] << " in: " << text;
        }
      }
      // "a" before a consonant, "an" before a vowel.
      for (std::size_t w = 0; w + 1 < s.words.size(); ++w) {
        const bool vowel = std::string("aeiou").find(s.words[w + 1][0]) != std::string::npos;
        if (s.words[w] == "a" || s.words[w] == "an") {
          EXPECT_EQ(s.words[w] == "an", vowel) << text;
        }
      }
    }
  }
  for (int f = 0; f < generator.frame_count(); ++f)
    EXPECT_GT(per_frame[std::size_t(f)], 100) << generator.frame_name(f);
}

TEST(Corpus, TheAnswerIsDecidedByMeaningOrByAgreementAlone) {
  Generator& generator = shared_generator();
  const Lexicon& lexicon = generator.lexicon();
  for (Split split : kSplits) {
    for (int n = 0; n < 30000; ++n) {
      Trace trace;
      const Sentence s = generator.sample(split, &trace);
      const std::string text = joined(s.words);
      const std::string& pronoun = s.words[std::size_t(s.pronoun)];
      ASSERT_EQ(trace.candidate_classes.size(), s.candidates.size()) << text;
      // The antecedent always agrees with the pronoun in number and gender.
      EXPECT_TRUE(agrees(lexicon, s.words[std::size_t(s.antecedent)], pronoun)) << text;
      // The decider is written after the pronoun (before it where the pronoun is an object: "so we fed
      // it"), and comes from its family's list.
      const Family* family = family_named(trace.family);
      ASSERT_NE(family, nullptr) << trace.family;
      EXPECT_NE(std::find(family->words.begin(), family->words.end(), trace.decider), family->words.end()) << text;
      const bool object = generator.frame_name(s.frame).rfind("object-", 0) == 0;
      EXPECT_NE((object ? text : joined(s.words, std::size_t(s.pronoun))).find(trace.decider), std::string::npos)
          << text;
      auto in_family = [&](const std::string& cls) {
        return std::any_of(family->classes.begin(), family->classes.end(),
                           [&](NounClass c) { return class_name(c) == cls; });
      };
      int agreeing = 0, described = 0;
      for (std::size_t i = 0; i < s.candidates.size(); ++i) {
        const bool is_answer = s.candidates[i] == s.antecedent;
        agreeing += agrees(lexicon, s.words[std::size_t(s.candidates[i])], pronoun);
        described += in_family(trace.candidate_classes[i]);
        // The family describes the antecedent's class: an animate word never lands on a path.
        if (is_answer) {
          EXPECT_TRUE(in_family(trace.candidate_classes[i])) << text << " (" << trace.family << ")";
        }
      }
      if (trace.agreement) {
        EXPECT_EQ(agreeing, 1) << "agreement must leave one candidate: " << text;
      } else {
        EXPECT_EQ(described, 1) << "\"" << trace.decider << "\" must fit one candidate only: " << text;
      }
    }
  }
}

TEST(Corpus, SelectFramesUseEveryPredicateWithManyPairsOfClasses) {
  // The selectional frames (named "select-" or "object-select-") teach which predicate fits which class: every
  // predicate family of kSelections is drawn, its answer's class is one it lists and the rival's one it does not
  // (the test above), and the pairs of classes set side by side vary rather than repeat a few.
  Generator& generator = shared_generator();
  std::set<std::string> families, pairs;
  int select = 0;
  for (int n = 0; n < 100000; ++n) {
    Trace trace;
    const Sentence s = generator.sample(Split::kTrain, &trace);
    if (generator.frame_name(s.frame).find("select-") == std::string::npos) continue;
    ++select;
    ASSERT_EQ(trace.candidate_classes.size(), 2u) << joined(s.words);
    families.insert(trace.family);
    const bool first = s.candidates.front() == s.antecedent;
    pairs.insert(trace.candidate_classes[first ? 0 : 1] + ">" + trace.candidate_classes[first ? 1 : 0]);
  }
  EXPECT_GT(select, 10000);
  for (const Family& family : kSelections) EXPECT_TRUE(families.count(std::string(family.name))) << family.name;
  EXPECT_GT(pairs.size(), 100u);
}

TEST(Corpus, AntecedentPositionIsBalancedInEveryFrame) {
  Generator& generator = shared_generator();
  std::vector<int> first(std::size_t(generator.frame_count()), 0), total(first.size(), 0);
  for (Split split : {Split::kTrain, Split::kHeldOutFrames}) {
    for (int n = 0; n < 60000; ++n) {
      Trace trace;
      const Sentence s = generator.sample(split, &trace);
      // The two nouns the frame contrasts: every candidate but the distractor.
      std::vector<int> contrasted;
      for (int c : s.candidates)
        if (c != trace.distractor) contrasted.push_back(c);
      ASSERT_EQ(contrasted.size(), 2u) << joined(s.words);
      ++total[std::size_t(s.frame)];
      first[std::size_t(s.frame)] += s.antecedent == contrasted.front();
    }
  }
  for (int f = 0; f < generator.frame_count(); ++f) {
    const double share = double(first[std::size_t(f)]) / total[std::size_t(f)];
    EXPECT_GT(share, 0.4) << generator.frame_name(f);
    EXPECT_LT(share, 0.6) << generator.frame_name(f);
  }
}

TEST(Corpus, HeldOutFramesAndCombinationsNeverReachTraining) {
  Generator& generator = shared_generator();
  const Lexicon& lexicon = generator.lexicon();
  auto antecedent_singular = [&](const Sentence& s) -> const std::string& {
    return lexicon.nouns()[std::size_t(lexicon.find(s.words[std::size_t(s.antecedent)]))].singular;
  };
  auto key = [&](const Sentence& s, const Trace& trace) {
    return std::to_string(s.frame) + "|" + antecedent_singular(s) + "|" + trace.decider;
  };
  std::set<std::string> trained;
  for (int n = 0; n < 200000; ++n) {
    Trace trace;
    const Sentence s = generator.sample(Split::kTrain, &trace);
    ASSERT_FALSE(generator.frame_is_heldout(s.frame)) << generator.frame_name(s.frame);
    ASSERT_FALSE(generator.heldout_combination(s.frame, antecedent_singular(s), trace.decider)) << key(s, trace);
    trained.insert(key(s, trace));
  }
  for (int n = 0; n < 20000; ++n) {
    Trace trace;
    const Sentence s = generator.sample(Split::kHeldOutWords, &trace);
    EXPECT_FALSE(generator.frame_is_heldout(s.frame)) << generator.frame_name(s.frame);
    EXPECT_TRUE(generator.heldout_combination(s.frame, antecedent_singular(s), trace.decider)) << key(s, trace);
    // Measured, not only promised: 200,000 training sentences never wrote this combination.
    EXPECT_EQ(trained.count(key(s, trace)), 0u) << "held-out combination in training: " << key(s, trace);
  }
}

TEST(Corpus, TrainingSentencesComeWithTwinsThatFlipTheAnswer) {
  // A training sentence is followed by its twin: the same words up to the last candidate noun, the other noun
  // the answer, and a different deciding word or pronoun. Every frame
  // has twins but the gender-neutral one, where the other gender's pronoun could mean either noun.
  Generator& generator = shared_generator();
  const auto same_nouns = [](const Sentence& a, const Sentence& b) {
    if (a.frame != b.frame || a.candidates != b.candidates || a.candidates.empty()) return false;
    const auto end = std::size_t(a.candidates.back()) + 1;
    return a.words.size() >= end && b.words.size() >= end &&
           std::equal(a.words.begin(), a.words.begin() + std::ptrdiff_t(end), b.words.begin());
  };
  std::vector<int> twins(std::size_t(generator.frame_count()), 0);
  int sentences = 0, paired = 0;
  bool have_previous = false;
  Sentence previous;
  Trace previous_trace;
  for (int n = 0; n < 40000; ++n) {
    Trace trace;
    const Sentence s = generator.sample(Split::kTrain, &trace);
    ++sentences;
    const bool twin = have_previous && same_nouns(s, previous);
    if (twin) {
      const std::string text = joined(previous.words) + " / " + joined(s.words);
      EXPECT_EQ(s.candidates, previous.candidates) << text;
      EXPECT_NE(s.antecedent, previous.antecedent) << text;
      // where agreement decides, the pronoun changes; elsewhere the deciding word does, or the pronoun when the
      // word fits both ("too busy": he, the neighbor, or it, the track)
      const bool pronoun_changed = s.words[std::size_t(s.pronoun)] != previous.words[std::size_t(previous.pronoun)];
      EXPECT_TRUE(trace.agreement ? pronoun_changed : pronoun_changed || trace.decider != previous_trace.decider)
          << text;
      ++twins[std::size_t(s.frame)];
      paired += 2;
    }
    have_previous = !twin;
    previous = s;
    previous_trace = trace;
  }
  EXPECT_GT(paired, sentences * 3 / 4);
  for (int f = 0; f < generator.frame_count(); ++f) {
    if (generator.frame_is_heldout(f)) continue;
    EXPECT_EQ(twins[std::size_t(f)] > 0, generator.frame_name(f) != "gender-neutral") << generator.frame_name(f);
  }
  // Without Twins::kOn, and in the held-out splits, sentences are drawn one by one: none is another's twin.
  auto single = Generator::make(kWordnet, 20260605);
  ASSERT_TRUE(single.ok());
  int single_twins = 0;
  Sentence before = single.value().sample(Split::kTrain);
  for (int n = 0; n < 4000; ++n) {
    const Sentence s = single.value().sample(Split::kTrain);
    single_twins += same_nouns(s, before);
    before = s;
  }
  EXPECT_LT(single_twins, 40);
  int heldout_twins = 0;
  Sentence last = generator.sample(Split::kHeldOutWords);
  for (int n = 0; n < 4000; ++n) {
    const Sentence s = generator.sample(Split::kHeldOutWords);
    heldout_twins += same_nouns(s, last);
    last = s;
  }
  EXPECT_LT(heldout_twins, 40);
}

TEST(Corpus, AgreementSetsPeopleAgainstThingsAndTheTwinChangesOnlyThePronoun) {
  // "she" is never a thing and "it" never a person: the corpus sets a gendered person beside an animal or a thing
  // (the animacy frames, where the pronoun means either noun about as often) and a thing between two people ("gave
  // the girl the book"), and the pronoun alone decides. Where the deciding word fits both nouns, the twin repeats every
  // word but the pronoun and the "was"/"were" that agrees with it.
  Generator& generator = shared_generator();
  const Lexicon& lexicon = generator.lexicon();
  const auto class_at = [&](const Sentence& s, int position) {
    return lexicon.nouns()[std::size_t(lexicon.find(s.words[std::size_t(position)]))].cls;
  };
  constexpr int kSentences = 30000;
  int person_answers = 0, thing_answers = 0, thing_between_people = 0, pronoun_only_twins = 0;
  Sentence previous;
  Trace previous_trace;
  for (int n = 0; n < kSentences; ++n) {
    Trace trace;
    const Sentence s = generator.sample(Split::kTrain, &trace);
    const std::string text = joined(s.words);
    bool person = false, other = false;
    for (int c : s.candidates) (is_person(class_at(s, c)) ? person : other) = true;
    if (trace.agreement && person && other) {
      const std::string& pronoun = s.words[std::size_t(s.pronoun)];
      const bool personal = pronoun == "he" || pronoun == "she" || pronoun == "his" || pronoun == "her";
      EXPECT_EQ(is_person(class_at(s, s.antecedent)), personal) << text;
      if (s.candidates.size() == 2) (is_person(class_at(s, s.antecedent)) ? person_answers : thing_answers) += 1;
      if (trace.distractor >= 0 && !is_person(class_at(s, trace.distractor)) && trace.distractor > s.candidates.front())
        ++thing_between_people;
    }
    // a twin of a frame whose one family fits both nouns: only the pronoun and its verb change
    if (previous.frame == s.frame && previous.candidates == s.candidates && previous.antecedent != s.antecedent &&
        trace.agreement && trace.decider == previous_trace.decider && previous.words.size() == s.words.size()) {
      int changed = 0;
      for (std::size_t w = 0; w < s.words.size(); ++w) {
        if (s.words[w] == previous.words[w]) continue;
        ++changed;
        EXPECT_TRUE(int(w) == s.pronoun || (int(w) == s.pronoun + 1 &&
                                            rule_of(s.words[w - 1]).plural != rule_of(previous.words[w - 1]).plural))
            << joined(previous.words) << " / " << text;
      }
      pronoun_only_twins += changed > 0;
    }
    previous = s;
    previous_trace = trace;
  }
  EXPECT_GT(person_answers, kSentences / 50);
  EXPECT_GT(thing_answers, kSentences / 50);
  EXPECT_LT(std::abs(person_answers - thing_answers), (person_answers + thing_answers) / 4);
  EXPECT_GT(thing_between_people, kSentences / 200);
  EXPECT_GT(pronoun_only_twins, kSentences / 50);
}

TEST(Corpus, SoResultsAndMotionFramesDecideAfterThePronoun) {
  // "so" with the result after the pronoun ("... so it fell over"), "so" before the deciding adjective, and the
  // mover against the still one ("going too fast" is the vehicle, "in the way" the tree, "parked" the car): the
  // deciding words stand after the pronoun and name the class their family lists (the test above checks the class).
  Generator& generator = shared_generator();
  const Lexicon& lexicon = generator.lexicon();
  std::map<std::string, int> drawn;
  for (int n = 0; n < 30000; ++n) {
    Trace trace;
    const Sentence s = generator.sample(Split::kTrain, &trace);
    const std::string& name = generator.frame_name(s.frame);
    const bool so = name.rfind("so-result-", 0) == 0,
               motion = name.rfind("vehicle-hit", 0) == 0 || name.find("ran-into-parked") != std::string::npos;
    if (!so && !motion) continue;
    ++drawn[name];
    const std::string text = joined(s.words);
    EXPECT_NE(joined(s.words, std::size_t(s.pronoun) + 1).find(trace.decider), std::string::npos) << text;
    if (so) {
      EXPECT_EQ(s.words[std::size_t(s.pronoun) - 1], "so") << text;
    }
    if (motion) {
      const bool vehicle =
          lexicon.nouns()[std::size_t(lexicon.find(s.words[std::size_t(s.antecedent)]))].cls == NounClass::kVehicle;
      EXPECT_EQ(vehicle, trace.family == "vehicle-moving" || trace.family == "vehicle-still") << text;
    }
  }
  for (const char* frame : {"so-result-knock", "so-result-drop", "so-result-ate", "so-result-hit", "vehicle-hit",
                            "vehicle-hit-building", "vehicle-hit-animal", "ran-into-parked", "person-ran-into-parked"})
    EXPECT_GT(drawn[frame], 50) << frame;
}

TEST(Corpus, SameSeedSameSentencesAndSplitsAreIndependent) {
  auto one = Generator::make(kWordnet, 7), two = Generator::make(kWordnet, 7);
  ASSERT_TRUE(one.ok() && two.ok());
  Generator& other = shared_generator();  // another seed
  // `two` draws a training sentence first: its held-out stream must not notice, its training stream
  // runs one sentence ahead of `one`'s.
  const Sentence two_first = two.value().sample(Split::kTrain);
  int differing = 0;
  for (int n = 0; n < 2000; ++n) {
    const Sentence a = one.value().sample(Split::kHeldOutWords), b = two.value().sample(Split::kHeldOutWords);
    ASSERT_EQ(a.words, b.words);
    ASSERT_EQ(a.pronoun, b.pronoun);
    ASSERT_EQ(a.antecedent, b.antecedent);
    ASSERT_EQ(a.candidates, b.candidates);
    ASSERT_EQ(a.frame, b.frame);
    differing += other.sample(Split::kHeldOutWords).words != a.words;
  }
  EXPECT_GT(differing, 1900);
  EXPECT_EQ(one.value().sample(Split::kTrain).words, two_first.words);
  for (int n = 0; n < 2000; ++n)
    ASSERT_EQ(one.value().sample(Split::kTrain).words, two.value().sample(Split::kTrain).words);
}

}  // namespace
