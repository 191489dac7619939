// The corpus generator (issue 38): pronoun-resolution sentences over WordNet's nouns.
//
// Design. A sentence is a frame (frames.cpp) filled with nouns of the frame's classes (lexicon.cpp)
// and one deciding word. In a "meaning" frame the deciding word is drawn, with equal chance, from the
// family of words that fits only the first noun's class or only the second's (curated_words.cpp: "tired"
// fits animals, "busy" paths), so the same words in the same order answer either noun and position
// never gives the answer away. In an agreement frame the nouns differ in number, gender or animacy (a person
// against an animal or a thing) and the pronoun's form, drawn with equal chance, picks one. In a "select" frame the
// classes are drawn too: a predicate of the selectional table (curated.h's kSelections), a class it fits for the answer
// and one it cannot describe for the rival, beside verbs that fit any pair ("we saw the <A> near the <B> and it was
// stale"). Distractor nouns (<C>) come from a class no word of the frame's families can describe. Around every frame
// the generator adds wording that never decides the answer (a time before the sentence, adjectives before nouns, "very"
// or "seemed", words after the deciding one), so that the model meets the variety readers type, not 80 fixed word
// orders.
//
// Twins (Twins::kOn). Each training sentence is followed by its twin (kTrain only; the held-out splits are drawn
// one by one):
// the same nouns and wording, the other noun the answer, and only the deciding word (or the pronoun, where
// agreement decides) changed. A pair then sits in one batch, and only the changed word tells its two answers
// apart: a model that answers from the nouns or their order gets one of the two wrong every time.
//
// Candidates are the nouns of the frame's slots written before the pronoun, whatever their number
// or gender ("the dogs chased the cat because it ..." has two): agreement is for the model to learn,
// not for a candidate mask to give away. Nouns inside a deciding phrase ("its door was open") come
// after the pronoun and are not candidates.
//
// Held-out data. Whole frames marked `heldout` are drawn only for kHeldOutFrames. A combination
// (frame, antecedent noun, deciding word) is held out when a hash of the three falls in one eighth
// of its range: kTrain redraws such a sentence, kHeldOutWords redraws every other one. So every
// noun and every deciding word is trained on, but never in those combinations.
//
// Length. Over 500 lines because a sentence's draw, its twin and its write-out (one switch over the template's
// slots, with the added wording) read best as one function beside the tables they use.
//
// Determinism and speed. Each split draws from its own SplitMix64 stream of the seed; the tables
// are parsed once in make(), and a sentence costs a few table look-ups and string copies.
#include "corpus.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "../../random.h"
#include "curated.h"
#include "frames.h"
#include "lexicon.h"
#include "template.h"

namespace abh::train::corpus {

namespace {

struct FamilyData {
  std::string name;
  std::vector<NounClass> classes;
  std::vector<Phrase> phrases;
  std::vector<std::string> joined;  // each phrase as one string, for the trace and the held-out key
  std::vector<std::uint64_t> hashes;
};

struct Frame {
  std::string name;
  Decide decide;
  NounClass a, b, c;
  int family_a = -1, family_b = -1;
  std::vector<std::pair<int, int>> selections;  // kSelect: every (family, phrase) of the frame's predicates
  bool heldout = false;
  std::uint64_t hash = 0;
  std::vector<Token> tokens;
};

enum class Pronoun : std::uint8_t { kIt, kThey, kHe, kShe };

// One draw of a frame's free choices, before it is written out.
struct Draw {
  int noun[3] = {-1, -1, -1};  // A, B, C
  bool plural[3] = {false, false, false};
  int antecedent = 0;  // 0 = A, 1 = B
  int family = -1, phrase = -1;
  Pronoun pronoun = Pronoun::kIt;
};

std::uint64_t hash_text(std::string_view text) {
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a, 64-bit
  for (unsigned char byte : text) {
    hash ^= byte;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return SplitMix64(a * 0x9E3779B97F4A7C15ull ^ b).next(); }

enum class Case : std::uint8_t { kSubject, kPossessive, kObject };

std::string_view pronoun_word(Pronoun pronoun, Case form) {
  constexpr std::string_view kForms[3][4] = {
      {"it", "they", "he", "she"}, {"its", "their", "his", "her"}, {"it", "them", "him", "her"}};
  return kForms[static_cast<int>(form)][static_cast<int>(pronoun)];
}

std::string_view contracted_is(Pronoun pronoun) {
  constexpr std::string_view kContracted[] = {"it's", "they're", "he's", "she's"};
  return kContracted[static_cast<int>(pronoun)];
}

// Most nouns take "the"; some take another determiner, as readers write them ("my dog", "a box").
// Possessives like "his" are left out: they would be a second pronoun before the one to resolve.
std::string_view determiner(SplitMix64& rng, bool plural) {
  struct Weighted {
    std::string_view word;
    std::uint32_t percent;
  };
  constexpr Weighted kSingular[] = {{"the", 70}, {"a", 12},   {"my", 6},  {"this", 4},
                                    {"our", 3},  {"your", 3}, {"that", 2}};
  constexpr Weighted kPlural[] = {{"the", 75}, {"my", 8}, {"these", 5}, {"those", 4}, {"our", 4}, {"some", 4}};
  std::uint32_t draw = std::uint32_t(rng.next() % 100);
  auto pick = [&](const auto& table) {
    for (const Weighted& w : table) {
      if (draw < w.percent) return w.word;
      draw -= w.percent;
    }
    return std::string_view("the");
  };
  return plural ? pick(kPlural) : pick(kSingular);
}

// How often curated.h's wording (kLeadIns ... kTails) and a modifier before a noun are added, in percent:
// each is as likely beside either answer, so none can give the answer away.
constexpr std::uint32_t kLeadInPercent = 15, kModifierPercent = 20, kSecondModifierPercent = 25,
                        kIntensifierPercent = 25, kCopulaPercent = 20, kPresentPercent = 8, kTailPercent = 25;

bool percent(SplitMix64& rng, std::uint32_t chance) { return rng.next() % 100 < chance; }

bool age_or_size(const std::string& word) {
  constexpr std::string_view kWords[] = {"old", "young", "new", "little", "big", "tall"};
  return std::find(std::begin(kWords), std::end(kWords), word) != std::end(kWords);
}

// Words after which an adjective may take "very": the forms of "to be" and the copulas above.
bool before_adjective(const std::string& word) {
  constexpr std::string_view kLinks[] = {"was",   "were",   "is",     "are",  "it's", "they're", "he's",
                                         "she's", "seemed", "looked", "felt", "been", "became",  "got"};
  return std::find(std::begin(kLinks), std::end(kLinks), word) != std::end(kLinks);
}

// The classes kSelect frames set side by side: every class "it" or "they" can mean (people would be "he" or "she",
// and the pronoun would decide).
constexpr NounClass kSelectable[] = {NounClass::kAnimal,  NounClass::kThing,     NounClass::kContainer,
                                     NounClass::kVehicle, NounClass::kFurniture, NounClass::kBuilding,
                                     NounClass::kPath,    NounClass::kOpening,   NounClass::kWater,
                                     NounClass::kFood,    NounClass::kTree,      NounClass::kFlower};

// A person is "he" or "she" (either, for a noun of no grammatical gender), anything else "it"; plural is "they".
Pronoun meaning_pronoun(bool plural, NounClass answer, SplitMix64& rng) {
  const bool either = answer == NounClass::kPerson && (rng.next() >> 63) != 0;  // drawn for "they" too
  return plural                                                         ? Pronoun::kThey
         : answer == NounClass::kMale || either                         ? Pronoun::kHe
         : answer == NounClass::kFemale || answer == NounClass::kPerson ? Pronoun::kShe
                                                                        : Pronoun::kIt;
}

// Food nouns stay singular: many are mass nouns ("the rices" is not English).
bool may_be_plural(NounClass cls) { return cls != NounClass::kFood; }

}  // namespace

struct Generator::State {
  Lexicon lexicon;
  std::vector<FamilyData> families;
  std::vector<std::vector<std::string>> modifiers;  // per noun class
  std::vector<Frame> frames;
  std::vector<int> frames_of_split[3];
  std::vector<std::uint64_t> noun_hash;
  std::vector<std::string> vocabulary;
  SplitMix64 streams[3] = {SplitMix64(0), SplitMix64(0), SplitMix64(0)};
  Twins twins = Twins::kOff;
  // kTrain's next sentence when it is the twin of the last one: its frame, its draw, and the stream as the last
  // one's write-out began, so that the twin repeats every word that does not decide
  struct Twin {
    bool pending = false;
    int frame = -1;
    Draw draw;
    SplitMix64 writer{0};
  } twin;
};

Generator::Generator(State* state) : state_(state) {}
Generator::Generator(Generator&& other) noexcept : state_(other.state_) { other.state_ = nullptr; }
Generator& Generator::operator=(Generator&& other) noexcept {
  std::swap(state_, other.state_);
  return *this;
}
Generator::~Generator() { delete state_; }

Expected<Generator> Generator::make(const std::string& wordnet_dir, std::uint64_t seed, Twins twins) {
  auto lexicon = Lexicon::load(wordnet_dir);
  if (!lexicon.ok()) return Failure{lexicon.error()};
  auto state = std::make_unique<State>();
  state->lexicon = std::move(lexicon.value());
  state->twins = twins;
  const Lexicon& lex = state->lexicon;

  for (const auto* table : {&kFamilies, &kSelections})
    for (const Family& family : *table) {
      FamilyData data;
      data.name = std::string(family.name);
      data.classes.assign(family.classes.begin(), family.classes.end());
      for (std::string_view phrase : family.words) {
        data.phrases.push_back(split_words(phrase));
        data.joined.emplace_back(phrase);
        data.hashes.push_back(hash_text(phrase));
      }
      state->families.push_back(std::move(data));
    }
  state->modifiers.resize(kNounClassCount);
  for (const Modifiers& row : kModifiers)
    for (std::string_view word : row.words) state->modifiers[static_cast<int>(row.cls)].emplace_back(word);

  auto family_index = [&](std::string_view name) {
    for (std::size_t i = 0; i < state->families.size(); ++i)
      if (state->families[i].name == name) return int(i);
    return -1;
  };
  for (const FrameSpec& spec : kFrames) {
    Frame frame;
    frame.name = std::string(spec.name);
    frame.decide = spec.decide;
    frame.a = spec.a;
    frame.b = spec.b;
    frame.c = spec.c;
    frame.heldout = spec.heldout;
    frame.hash = hash_text(spec.name);
    if (spec.decide == Decide::kSelect) {
      const std::string prefix = std::string(spec.family_a) + ":";
      for (std::size_t f = 0; f < state->families.size(); ++f)
        if (state->families[f].name.rfind(prefix, 0) == 0)
          for (std::size_t p = 0; p < state->families[f].phrases.size(); ++p)
            frame.selections.emplace_back(int(f), int(p));
      if (frame.selections.empty()) return Failure{"frame " + frame.name + " names no predicates of kSelections"};
    } else {
      frame.family_a = family_index(spec.family_a);
      frame.family_b = spec.family_b.empty() ? frame.family_a : family_index(spec.family_b);
      if (frame.family_a < 0 || frame.family_b < 0) return Failure{"frame " + frame.name + " names an unknown family"};
    }
    auto tokens = parse_template(spec.text);
    if (!tokens.ok()) return Failure{tokens.error()};
    frame.tokens = std::move(tokens.value());
    // Every class a frame draws from must offer two different nouns.
    for (NounClass cls : {spec.a, spec.b, spec.c})
      if (cls != NounClass::kCount && lex.members(cls).size() < 2)
        return Failure{"WordNet in " + wordnet_dir + " gave fewer than two nouns of class " +
                       std::string(class_name(cls)) + " (frame " + frame.name + ")"};
    const int index = int(state->frames.size());
    state->frames_of_split[static_cast<int>(frame.heldout ? Split::kHeldOutFrames : Split::kTrain)].push_back(index);
    state->frames.push_back(std::move(frame));
  }
  state->frames_of_split[static_cast<int>(Split::kHeldOutWords)] =
      state->frames_of_split[static_cast<int>(Split::kTrain)];
  for (NounClass cls : {NounClass::kPerson, NounClass::kMale, NounClass::kFemale})
    if (lex.members(cls).size() < 2)
      return Failure{"WordNet in " + wordnet_dir + " gave fewer than two nouns of class " +
                     std::string(class_name(cls))};

  for (const Noun& noun : lex.nouns()) state->noun_hash.push_back(hash_text(noun.singular));

  // The vocabulary: every word any frame, family, modifier or noun can write.
  std::vector<std::string>& vocabulary = state->vocabulary;
  for (const Frame& frame : state->frames)
    for (const Token& token : frame.tokens)
      for (const Phrase& phrase : token.alternatives) vocabulary.insert(vocabulary.end(), phrase.begin(), phrase.end());
  for (const FamilyData& family : state->families)
    for (const Phrase& phrase : family.phrases) vocabulary.insert(vocabulary.end(), phrase.begin(), phrase.end());
  for (const auto& words : state->modifiers) vocabulary.insert(vocabulary.end(), words.begin(), words.end());
  for (const Noun& noun : lex.nouns()) {
    vocabulary.push_back(noun.singular);
    if (may_be_plural(noun.cls)) vocabulary.push_back(noun.plural);
  }
  for (Pronoun p : {Pronoun::kIt, Pronoun::kThey, Pronoun::kHe, Pronoun::kShe})
    for (Case form : {Case::kSubject, Case::kPossessive, Case::kObject}) vocabulary.emplace_back(pronoun_word(p, form));
  for (const WordList* table : {&kLeadIns, &kIntensifiers, &kBeforeToo, &kCopulas, &kTails})
    for (std::string_view phrase : *table)
      for (std::string& word : split_words(phrase)) vocabulary.push_back(std::move(word));
  vocabulary.insert(vocabulary.end(), {"was",   "were", "is",      "are",  "does",  "do",    "not", "doesn't",
                                       "don't", "it's", "they're", "he's", "she's", "a",     "an",  "my",
                                       "this",  "our",  "your",    "that", "these", "those", "some"});
  std::sort(vocabulary.begin(), vocabulary.end());
  vocabulary.erase(std::unique(vocabulary.begin(), vocabulary.end()), vocabulary.end());

  for (int split = 0; split < 3; ++split)
    state->streams[split] = SplitMix64(mix(seed, 0x636f72707573ull + std::uint64_t(split)));
  return Generator(state.release());
}

const Lexicon& Generator::lexicon() const { return state_->lexicon; }
const std::vector<std::string>& Generator::vocabulary() const { return state_->vocabulary; }
int Generator::frame_count() const { return int(state_->frames.size()); }
const std::string& Generator::frame_name(int frame) const { return state_->frames[std::size_t(frame)].name; }
bool Generator::frame_is_heldout(int frame) const { return state_->frames[std::size_t(frame)].heldout; }

namespace {

std::uint64_t combination_key(std::uint64_t frame_hash, std::uint64_t noun_hash, std::uint64_t decider_hash) {
  return mix(mix(frame_hash, noun_hash), decider_hash);
}
constexpr std::uint64_t kHeldOutOneIn = 8;

// A uniform index below n (Lemire's multiply-shift; n is small, the bias negligible).
std::size_t uniform(SplitMix64& rng, std::size_t n) {
  return std::size_t((static_cast<unsigned __int128>(rng.next()) * n) >> 64);
}
bool coin(SplitMix64& rng) { return (rng.next() >> 63) != 0; }

int pick_noun(SplitMix64& rng, const std::vector<int>& members, int avoid_a, int avoid_b) {
  for (;;) {
    const int noun = members[uniform(rng, members.size())];
    if (noun != avoid_a && noun != avoid_b) return noun;
  }
}

}  // namespace

bool Generator::heldout_combination(int frame, const std::string& antecedent, const std::string& decider) const {
  return combination_key(state_->frames[std::size_t(frame)].hash, hash_text(antecedent), hash_text(decider)) %
             kHeldOutOneIn ==
         0;
}

Sentence Generator::sample(Split split) { return sample(split, nullptr); }

Sentence Generator::sample(Split split, Trace* trace) {
  State& s = *state_;
  SplitMix64& rng = s.streams[static_cast<int>(split)];
  const std::vector<int>& pool = s.frames_of_split[static_cast<int>(split)];
  const bool is_twin = split == Split::kTrain && s.twin.pending;
  if (is_twin) s.twin.pending = false;
  const int frame_index = is_twin ? s.twin.frame : pool[uniform(rng, pool.size())];
  const Frame& frame = s.frames[std::size_t(frame_index)];
  const Lexicon& lex = s.lexicon;
  auto members = [&](NounClass cls) -> const std::vector<int>& { return lex.members(cls); };
  const auto heldout = [&](const Draw& d) {
    return combination_key(frame.hash, s.noun_hash[std::size_t(d.noun[d.antecedent])],
                           s.families[std::size_t(d.family)].hashes[std::size_t(d.phrase)]) %
               kHeldOutOneIn ==
           0;
  };

  Draw draw = is_twin ? s.twin.draw : Draw{};
  while (!is_twin) {
    draw = Draw{};
    draw.antecedent = coin(rng) ? 1 : 0;
    NounClass cls[2] = {frame.a, frame.b};
    switch (frame.decide) {
      case Decide::kMeaning: {
        const bool plural = may_be_plural(frame.a) && may_be_plural(frame.b) && coin(rng);
        draw.plural[0] = draw.plural[1] = plural;
        draw.pronoun = meaning_pronoun(plural, cls[draw.antecedent], rng);
        break;
      }
      case Decide::kNumber: {
        const bool plural = coin(rng);
        draw.plural[draw.antecedent] = plural;
        draw.plural[1 - draw.antecedent] = !plural;
        draw.pronoun = plural ? Pronoun::kThey : Pronoun::kIt;
        break;
      }
      case Decide::kGender: {
        const bool male = coin(rng);
        cls[draw.antecedent] = male ? NounClass::kMale : NounClass::kFemale;
        cls[1 - draw.antecedent] = male ? NounClass::kFemale : NounClass::kMale;
        draw.pronoun = male ? Pronoun::kHe : Pronoun::kShe;
        break;
      }
      case Decide::kGenderNeutral: {
        const bool other_male = coin(rng);
        cls[draw.antecedent] = NounClass::kPerson;
        cls[1 - draw.antecedent] = other_male ? NounClass::kMale : NounClass::kFemale;
        draw.pronoun = other_male ? Pronoun::kShe : Pronoun::kHe;
        break;
      }
      case Decide::kAnimacy: {
        // The person is male or female; the other noun may be plural ("they"), so number and animacy both teach.
        const int person = frame.a == NounClass::kPerson ? 0 : 1;
        const bool male = coin(rng);
        cls[person] = male ? NounClass::kMale : NounClass::kFemale;
        draw.plural[1 - person] = may_be_plural(cls[1 - person]) && coin(rng);
        draw.pronoun = draw.antecedent == person ? (male ? Pronoun::kHe : Pronoun::kShe)
                       : draw.plural[1 - person] ? Pronoun::kThey
                                                 : Pronoun::kIt;
        break;
      }
      case Decide::kSelect: {
        // A predicate, a class it fits for the answer and a class it does not fit for the rival.
        const auto [family, phrase] = frame.selections[uniform(rng, frame.selections.size())];
        const std::vector<NounClass>& fits = s.families[std::size_t(family)].classes;
        std::vector<NounClass> fitting, rivals;
        for (NounClass cls : kSelectable)
          (std::find(fits.begin(), fits.end(), cls) != fits.end() ? fitting : rivals).push_back(cls);
        cls[draw.antecedent] = fitting[uniform(rng, fitting.size())];
        cls[1 - draw.antecedent] = rivals[uniform(rng, rivals.size())];
        draw.plural[0] = draw.plural[1] = may_be_plural(cls[0]) && may_be_plural(cls[1]) && coin(rng);
        draw.pronoun = draw.plural[0] ? Pronoun::kThey : Pronoun::kIt;
        draw.family = family;
        draw.phrase = phrase;
        break;
      }
      case Decide::kNumberPerson: {
        // One slot holds people in the plural, the other one gendered person; the pronoun names either.
        const int plural_slot = coin(rng) ? 1 : 0;
        const bool male = coin(rng);
        cls[plural_slot] = NounClass::kPerson;
        cls[1 - plural_slot] = male ? NounClass::kMale : NounClass::kFemale;
        draw.plural[plural_slot] = true;
        draw.pronoun = draw.antecedent == plural_slot ? Pronoun::kThey : male ? Pronoun::kHe : Pronoun::kShe;
        break;
      }
    }
    draw.noun[0] = pick_noun(rng, members(cls[0]), -1, -1);
    draw.noun[1] = pick_noun(rng, members(cls[1]), draw.noun[0], -1);
    if (frame.c != NounClass::kCount) draw.noun[2] = pick_noun(rng, members(frame.c), draw.noun[0], draw.noun[1]);
    if (frame.decide != Decide::kSelect) {
      draw.family = draw.antecedent == 0 ? frame.family_a : frame.family_b;
      draw.phrase = int(uniform(rng, s.families[std::size_t(draw.family)].phrases.size()));
    }
    if (split == Split::kHeldOutFrames) break;
    if (heldout(draw) == (split == Split::kHeldOutWords)) break;
  }

  // A training sentence's twin comes next: the same nouns and wording, the other noun the answer, and the least
  // change that makes it so (a deciding word of the other noun's family or class, or the pronoun's form where
  // agreement decides). Side by side in a batch, the pair rewards only reading the word that changed; no prior
  // over nouns or positions can get both right. No twin when no such change exists ("he" can mean both nouns of
  // a kGenderNeutral frame) or when the twin's combination is held out.
  const auto twin_of = [&](const Draw& d) -> std::optional<Draw> {
    Draw twin = d;
    twin.antecedent = 1 - d.antecedent;
    const auto class_of = [&](int slot) { return lex.nouns()[std::size_t(d.noun[slot])].cls; };
    switch (frame.decide) {
      case Decide::kGenderNeutral:
        return std::nullopt;
      case Decide::kMeaning:
        twin.pronoun = meaning_pronoun(d.plural[0], class_of(twin.antecedent), rng);
        break;
      case Decide::kNumber:
        twin.pronoun = d.pronoun == Pronoun::kThey ? Pronoun::kIt : Pronoun::kThey;
        break;
      case Decide::kGender:
        twin.pronoun = d.pronoun == Pronoun::kHe ? Pronoun::kShe : Pronoun::kHe;
        break;
      case Decide::kAnimacy:
        twin.pronoun = class_of(twin.antecedent) == NounClass::kMale     ? Pronoun::kHe
                       : class_of(twin.antecedent) == NounClass::kFemale ? Pronoun::kShe
                       : d.plural[twin.antecedent]                       ? Pronoun::kThey
                                                                         : Pronoun::kIt;
        break;
      case Decide::kNumberPerson: {
        const int plural_slot = d.plural[0] ? 0 : 1;
        twin.pronoun = twin.antecedent == plural_slot                  ? Pronoun::kThey
                       : class_of(1 - plural_slot) == NounClass::kMale ? Pronoun::kHe
                                                                       : Pronoun::kShe;
        break;
      }
      case Decide::kSelect: {
        // a predicate that fits the new answer's class and not the old one's
        const NounClass answer = class_of(twin.antecedent), rival = class_of(d.antecedent);
        std::vector<std::pair<int, int>> fitting;
        for (const auto& [family, phrase] : frame.selections) {
          const std::vector<NounClass>& fits = s.families[std::size_t(family)].classes;
          if (std::find(fits.begin(), fits.end(), answer) != fits.end() &&
              std::find(fits.begin(), fits.end(), rival) == fits.end())
            fitting.emplace_back(family, phrase);
        }
        if (fitting.empty()) return std::nullopt;
        std::tie(twin.family, twin.phrase) = fitting[uniform(rng, fitting.size())];
        break;
      }
    }
    if (frame.decide != Decide::kSelect) {
      twin.family = twin.antecedent == 0 ? frame.family_a : frame.family_b;
      // a frame's two families share no word (corpus_test checks it), so any word of the other one flips the answer
      if (twin.family != d.family) twin.phrase = int(uniform(rng, s.families[std::size_t(twin.family)].phrases.size()));
    }
    if (heldout(twin)) return std::nullopt;
    return twin;
  };
  if (split == Split::kTrain && s.twins == Twins::kOn && !is_twin)
    if (const std::optional<Draw> twin = twin_of(draw)) s.twin = {true, frame_index, *twin, rng};
  SplitMix64& out = is_twin ? s.twin.writer : rng;

  // Write the frame out.
  Sentence sentence;
  sentence.frame = frame_index;
  sentence.words.reserve(24);
  int noun_position[3] = {-1, -1, -1};
  auto noun_form = [&](int slot) -> const std::string& {
    const Noun& noun = lex.nouns()[std::size_t(draw.noun[slot])];
    return draw.plural[slot] ? noun.plural : noun.singular;
  };
  auto modifier = [&](int slot) {
    const auto& words = s.modifiers[static_cast<int>(lex.nouns()[std::size_t(draw.noun[slot])].cls)];
    if (!words.empty()) sentence.words.push_back(words[uniform(out, words.size())]);
  };
  const bool pronoun_plural = draw.pronoun == Pronoun::kThey;
  const Phrase& decider = s.families[std::size_t(draw.family)].phrases[std::size_t(draw.phrase)];
  // one word, not "running": "it seemed very tired" reads well, "it seemed very running" does not
  const bool adjective =
      decider.size() == 1 && !(decider[0].size() > 3 && decider[0].compare(decider[0].size() - 3, 3, "ing") == 0);
  const auto write = [&](std::string_view phrase) {
    for (std::string& word : split_words(phrase)) sentence.words.push_back(std::move(word));
  };
  const auto any_of = [&](const WordList& table) { return table.begin()[uniform(out, table.size())]; };
  if (percent(out, kLeadInPercent)) write(any_of(kLeadIns));
  std::vector<int> articles;    // where "a" was written: "an" before a vowel
  bool after_modifier = false;  // the frame wrote <mA> or <mB> right before this token
  for (const Token& token : frame.tokens) {
    const bool modified = after_modifier;
    after_modifier = token.slot == Slot::kModifierA || token.slot == Slot::kModifierB;
    switch (token.slot) {
      case Slot::kWords: {
        if (token.determines >= 0) {
          sentence.words.emplace_back(determiner(out, draw.plural[token.determines]));
          if (sentence.words.back() == "a") articles.push_back(int(sentence.words.size()) - 1);
          break;
        }
        const Phrase& phrase = token.alternatives[uniform(out, token.alternatives.size())];
        sentence.words.insert(sentence.words.end(), phrase.begin(), phrase.end());
        break;
      }
      case Slot::kNounA:
      case Slot::kNounB:
      case Slot::kNounC: {
        const int slot = token.slot == Slot::kNounA ? 0 : token.slot == Slot::kNounB ? 1 : 2;
        if (!modified && percent(out, kModifierPercent)) {
          const std::size_t before = sentence.words.size();
          modifier(slot);
          if (percent(out, kSecondModifierPercent)) modifier(slot);
          // "the old old dog" and "the old young dog" are not English: two words of age or size are one
          const std::size_t n = sentence.words.size();
          if (n == before + 2 && (sentence.words[n - 1] == sentence.words[n - 2] ||
                                  (age_or_size(sentence.words[n - 1]) && age_or_size(sentence.words[n - 2]))))
            sentence.words.pop_back();
        }
        noun_position[slot] = int(sentence.words.size());
        sentence.words.push_back(noun_form(slot));
        break;
      }
      case Slot::kModifierA:
        modifier(0);
        break;
      case Slot::kModifierB:
        modifier(1);
        break;
      case Slot::kPronounIs:
        sentence.pronoun = int(sentence.words.size());
        if (coin(out)) {
          sentence.words.emplace_back(contracted_is(draw.pronoun));
        } else {
          sentence.words.emplace_back(pronoun_word(draw.pronoun, Case::kSubject));
          sentence.words.emplace_back(pronoun_plural ? "are" : "is");
        }
        break;
      case Slot::kPronoun:
      case Slot::kPossessive:
      case Slot::kObject:
        sentence.pronoun = int(sentence.words.size());
        sentence.words.emplace_back(pronoun_word(draw.pronoun, token.slot == Slot::kPossessive ? Case::kPossessive
                                                               : token.slot == Slot::kObject   ? Case::kObject
                                                                                               : Case::kSubject));
        break;
      case Slot::kBe:
        if (adjective && percent(out, kCopulaPercent))
          write(any_of(kCopulas));
        else if (percent(out, kPresentPercent))
          sentence.words.emplace_back(pronoun_plural ? "are" : "is");
        else
          sentence.words.emplace_back(pronoun_plural ? "were" : "was");
        break;
      case Slot::kBeA:
        sentence.words.emplace_back(draw.plural[0] ? "were" : "was");
        break;
      case Slot::kBeB:
        sentence.words.emplace_back(draw.plural[1] ? "were" : "was");
        break;
      case Slot::kIs:
        sentence.words.emplace_back(pronoun_plural ? "are" : "is");
        break;
      case Slot::kIsA:
        sentence.words.emplace_back(draw.plural[0] ? "are" : "is");
        break;
      case Slot::kIsB:
        sentence.words.emplace_back(draw.plural[1] ? "are" : "is");
        break;
      case Slot::kDoesNotA:
      case Slot::kDoesNotB: {
        const bool plural = draw.plural[token.slot == Slot::kDoesNotA ? 0 : 1];
        if (coin(out)) {
          sentence.words.emplace_back(plural ? "don't" : "doesn't");
        } else {
          sentence.words.emplace_back(plural ? "do" : "does");
          sentence.words.emplace_back("not");
        }
        break;
      }
      case Slot::kDecider: {
        if (adjective && !sentence.words.empty() && percent(out, kIntensifierPercent)) {
          if (sentence.words.back() == "too") {
            sentence.words.pop_back();
            write(any_of(kBeforeToo));
            sentence.words.emplace_back("too");
          } else if (before_adjective(sentence.words.back())) {
            write(any_of(kIntensifiers));
          }
        }
        sentence.words.insert(sentence.words.end(), decider.begin(), decider.end());
        break;
      }
    }
  }
  if (frame.tokens.back().slot == Slot::kDecider && percent(out, kTailPercent)) write(any_of(kTails));
  for (int at : articles) {
    const std::string& next = sentence.words[std::size_t(at) + 1];
    if (std::string_view("aeiou").find(next[0]) != std::string_view::npos) sentence.words[std::size_t(at)] = "an";
  }
  sentence.antecedent = noun_position[draw.antecedent];
  for (int slot = 0; slot < 3; ++slot)
    if (noun_position[slot] >= 0 && noun_position[slot] < sentence.pronoun)
      sentence.candidates.push_back(noun_position[slot]);
  std::sort(sentence.candidates.begin(), sentence.candidates.end());

  if (trace) {
    const FamilyData& family = s.families[std::size_t(draw.family)];
    trace->decider = family.joined[std::size_t(draw.phrase)];
    trace->family = family.name;
    trace->agreement = frame.decide != Decide::kMeaning && frame.decide != Decide::kSelect;
    trace->distractor = noun_position[2];
    trace->candidate_classes.clear();
    for (int position : sentence.candidates)
      for (int slot = 0; slot < 3; ++slot)
        if (noun_position[slot] == position)
          trace->candidate_classes.emplace_back(class_name(lex.nouns()[std::size_t(draw.noun[slot])].cls));
  }
  return sentence;
}

}  // namespace abh::train::corpus
