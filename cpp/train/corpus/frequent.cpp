// The frequent words of WordNet 3.0 and the adjuncts that use them (frequent.h). Files read: cntlist.rev ("lemma%
// ss_type:lex_filenum:lex_id:head:head_id sense_number tag_count"), index.verb and data.verb (a verb's most frequent
// sense and its frames: does it take an object) and verb.exc (irregular forms).
#include "frequent.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include "../wordnet_files.h"

namespace abh::train::corpus {

namespace {

using wordnet::ends_with;
using wordnet::Fields;
using wordnet::for_each_line;

using Words = std::initializer_list<std::string_view>;

// The function words the adjuncts are written with: conjunctions, prepositions, auxiliaries and negations (with
// the contractions the page's tokenizer keeps as one word), adverbs of time and frequency, determiners and the
// pronouns the model does not resolve.
const Words kPrepositions = {"in",     "at",     "near",   "after",      "before",     "during",  "under",
                             "behind", "across", "beside", "above",      "below",      "without", "with",
                             "from",   "into",   "over",   "through",    "around",     "inside",  "outside",
                             "beyond", "among",  "along",  "against",    "toward",     "towards", "within",
                             "past",   "by",     "for",    "about",      "like",       "upon",    "despite",
                             "on",     "onto",   "off",    "throughout", "underneath", "between", "except"};
const Words kPastConjunctions = {"until",    "before",  "after",  "when",        "once",       "while",
                                 "as",       "since",   "though", "although",    "whenever",   "if",
                                 "unless",   "and",     "but",    "even though", "as soon as", "just as",
                                 "now that", "so that", "where",  "wherever",    "whereas",    "or"};
const Words kPresentConjunctions = {"whenever", "if", "unless", "when", "until", "once", "while", "before", "after"};
const Words kModals = {"could",   "would",    "should",   "might",     "must",     "can",      "will",     "may",
                       "did",     "couldn't", "wouldn't", "shouldn't", "can't",    "won't",    "didn't",   "cannot",
                       "mustn't", "used to",  "had to",   "wanted to", "tried to", "began to", "needed to"};
const Words kNegatable = {"could", "would", "should", "might", "must", "can", "will", "may", "did"};
const Words kPreVerb = {"never",   "always", "often",    "sometimes", "usually",  "finally", "soon",
                        "already", "just",   "still",    "also",      "even",     "only",    "rarely",
                        "seldom",  "really", "almost",   "suddenly",  "slowly",   "quickly", "nearly",
                        "barely",  "hardly", "probably", "certainly", "actually", "once",    "then"};
const Words kSingularDeterminers = {"the",   "the",  "the", "a",       "this", "that",
                                    "every", "each", "no",  "another", "one",  "any"};
const Words kPluralDeterminers = {"the",   "the", "some",    "many",  "all",  "both", "these", "those", "two",
                                  "three", "few", "several", "other", "more", "most", "such",  "no"};
// Subjects other than a noun phrase: never a pronoun the model resolves ("it", "he", ...).
const Words kSubjects = {"i", "you", "we", "someone", "everyone", "nobody", "somebody", "everybody", "anyone"};
const Words kObjects = {"me",      "us",       "you",      "someone", "something", "everything",
                        "nothing", "anything", "everyone", "this",    "that"};

// What verb.exc cannot say: verbs whose past is their base and that it lists no "-ing" form for, verbs whose
// participle is their base ("has come"), and the archaic forms it keeps beside the living ones ("wrought").
const Words kSamePast = {"hurt",     "spread", "burst", "cast", "read", "broadcast",
                         "forecast", "thrust", "shed",  "cost", "beat"};
const Words kParticipleIsBase = {"come", "become", "overcome", "run", "outrun"};
const Words kArchaicForms = {"wrought", "addrest", "curst", "slidden", "betted", "pled"};

// The pronouns the model resolves (reader.cpp's list): never a frequent word, so an adjunct never adds a second one.
const Words kResolved = {"it", "its", "they", "them", "their", "he", "him", "his", "she", "her"};

bool contains(Words table, std::string_view word) { return std::find(table.begin(), table.end(), word) != table.end(); }

bool plain_word(std::string_view word, std::size_t min_length) {
  if (word.size() < min_length) return false;
  for (char c : word)
    if (c < 'a' || c > 'z') return false;
  return true;
}

bool vowel(char c) { return std::string_view("aeiou").find(c) != std::string_view::npos; }

// The regular forms; verb.exc gives the irregular ones (and the doubled consonants: "stopped", "stopping").
std::string third_person(const std::string& base) {
  const char before = base.size() > 1 ? base[base.size() - 2] : 'a';
  if (ends_with(base, "s") || ends_with(base, "x") || ends_with(base, "z") || ends_with(base, "ch") ||
      ends_with(base, "sh") || ends_with(base, "o"))
    return base + "es";
  if (ends_with(base, "y") && !vowel(before)) return base.substr(0, base.size() - 1) + "ies";
  return base + "s";
}
std::string regular_past(const std::string& base) {
  const char before = base.size() > 1 ? base[base.size() - 2] : 'a';
  if (ends_with(base, "e")) return base + "d";
  if (ends_with(base, "y") && !vowel(before)) return base.substr(0, base.size() - 1) + "ied";
  return base + "ed";
}
std::string regular_ing(const std::string& base) {
  if (ends_with(base, "ie")) return base.substr(0, base.size() - 2) + "ying";
  if (ends_with(base, "e") && !ends_with(base, "ee") && !ends_with(base, "ye") && !ends_with(base, "oe") &&
      base.size() > 2)
    return base.substr(0, base.size() - 1) + "ing";
  return base + "ing";
}
// Of a verb's two irregular past forms, the participle: "thrown", "begun", "swum", "done", "sung".
bool looks_like_participle(std::string_view form) {
  for (std::string_view tail : {"en", "wn", "un", "um", "ung", "unk", "one", "ne", "ain"})
    if (ends_with(form, tail)) return true;
  return false;
}

// Nouns of these lexicographer files are mostly uncountable: no plural ("waters", "angers").
bool mass_lexfile(int lexfile) {
  constexpr int kMass[] = {7 /* attribute */, 9 /* cognition */, 12 /* feeling */,   19 /* phenomenon */,
                           22 /* process */,  26 /* state */,    27 /* substance */, 13 /* food */};
  return std::find(std::begin(kMass), std::end(kMass), lexfile) != std::end(kMass);
}

enum Pos { kNoun = 1, kVerb = 2, kAdjective = 3, kAdverb = 4, kSatellite = 5 };

}  // namespace

std::vector<std::string> FrequentWords::words() const {
  std::vector<std::string> out;
  for (const Words* table : {&kPrepositions, &kPastConjunctions, &kPresentConjunctions, &kModals, &kPreVerb,
                             &kSingularDeterminers, &kPluralDeterminers, &kSubjects, &kObjects})
    for (std::string_view phrase : *table)
      for (std::size_t at = 0; at < phrase.size();) {
        const std::size_t end = std::min(phrase.find(' ', at), phrase.size());
        out.emplace_back(phrase.substr(at, end - at));
        at = end + 1;
      }
  out.insert(out.end(),
             {"not", "was", "were", "wasn't", "weren't", "had", "hadn't", "has", "have", "hasn't", "haven't", "an"});
  for (const FrequentNoun& noun : nouns) {
    out.push_back(noun.singular);
    if (!noun.plural.empty()) out.push_back(noun.plural);
  }
  for (const FrequentVerb& verb : verbs)
    out.insert(out.end(), {verb.base, verb.third, verb.past, verb.participle, verb.ing});
  out.insert(out.end(), adjectives.begin(), adjectives.end());
  out.insert(out.end(), adverbs.begin(), adverbs.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Expected<FrequentWords> load_frequent_words(const std::string& wordnet_dir,
                                            const std::unordered_set<std::string>& known,
                                            const std::function<std::string(const std::string&)>& plural_of) {
  const std::string dir = wordnet_dir.empty() || wordnet_dir.back() == '/' ? wordnet_dir : wordnet_dir + "/";

  // How common each (lemma, part of speech) is, and a noun's lexicographer file (of its most frequent sense).
  struct Entry {
    int count = 0;
    int lexfile = -1, lexfile_sense = 1 << 30;
  };
  std::map<std::pair<std::string, int>, Entry> entries;  // ordered: the ranking below is deterministic
  {
    const Status read = for_each_line(dir + "cntlist.rev", [&](std::string_view line) -> Status {
      Fields fields{line};
      const std::string_view key = fields.word();
      const int sense = fields.number<int>();
      const int count = fields.number<int>();
      const std::size_t percent = key.find('%');
      if (!fields.ok || percent == std::string_view::npos || percent + 4 >= key.size())
        return Failure{"cannot parse " + dir + "cntlist.rev near: " + std::string(line.substr(0, 60))};
      int pos = key[percent + 1] - '0';
      if (pos == kSatellite) pos = kAdjective;
      const int lexfile = std::atoi(std::string(key.substr(percent + 3, 2)).c_str());
      Entry& entry = entries[{std::string(key.substr(0, percent)), pos}];
      entry.count += count;
      if (sense < entry.lexfile_sense) entry.lexfile = lexfile, entry.lexfile_sense = sense;
      return Ok{};
    });
    if (!read.ok()) return Failure{read.error()};
  }

  // A verb takes an object when its most frequent sense has frame 8-11 ("Somebody ----s something", ...).
  std::unordered_map<std::string, std::uint32_t> first_verb_sense;
  {
    const Status read = for_each_line(dir + "index.verb", [&](std::string_view line) -> Status {
      if (line.empty() || line[0] == ' ') return Ok{};
      const wordnet::IndexLine parsed = wordnet::parse_index_line(line);
      if (!parsed.ok || parsed.offsets.empty())
        return Failure{"cannot parse " + dir + "index.verb near: " + std::string(line.substr(0, 60))};
      first_verb_sense.emplace(std::string(parsed.lemma), parsed.offsets[0]);
      return Ok{};
    });
    if (!read.ok()) return Failure{read.error()};
  }
  std::unordered_map<std::uint32_t, bool> transitive_synset;
  {
    const Status read = for_each_line(dir + "data.verb", [&](std::string_view line) -> Status {
      if (line.empty() || line[0] == ' ') return Ok{};
      Fields fields{line};
      const auto offset = fields.number<std::uint32_t>();
      fields.word();  // lex_filenum
      fields.word();  // ss_type
      const int word_count = fields.number<int>(16);
      for (int w = 0; w < 2 * word_count && fields.ok; ++w) fields.word();
      const int pointer_count = fields.number<int>();
      for (int p = 0; p < 4 * pointer_count && fields.ok; ++p) fields.word();
      const int frame_count = fields.number<int>();
      bool transitive = false;
      for (int f = 0; f < frame_count && fields.ok; ++f) {
        fields.word();  // "+"
        const int frame = fields.number<int>();
        fields.word();  // w_num
        transitive = transitive || (frame >= 8 && frame <= 11);
      }
      if (!fields.ok) return Failure{"cannot parse " + dir + "data.verb near: " + std::string(line.substr(0, 60))};
      transitive_synset.emplace(offset, transitive);
      return Ok{};
    });
    if (!read.ok()) return Failure{read.error()};
  }
  // verb.exc: "inflected base..."
  std::unordered_map<std::string, std::vector<std::string>> irregular;
  {
    const Status read = for_each_line(dir + "verb.exc", [&](std::string_view line) -> Status {
      Fields fields{line};
      const std::string form(fields.word());
      for (std::string_view base = fields.word(); fields.ok; base = fields.word())
        irregular[std::string(base)].push_back(form);
      return Ok{};
    });
    if (!read.ok()) return Failure{read.error()};
  }

  std::vector<std::pair<const std::pair<std::string, int>*, const Entry*>> ranked;
  for (const auto& [key, entry] : entries) ranked.emplace_back(&key, &entry);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second->count > b.second->count; });

  FrequentWords out;
  std::unordered_set<std::string> vocabulary = known;
  for (const std::string& word : out.words()) vocabulary.insert(word);  // the function words come first
  for (const auto& [key, entry] : ranked) {
    if (vocabulary.size() >= kVocabularyTarget) break;
    const auto& [lemma, pos] = *key;
    if (entry->count < 2 || contains(kResolved, lemma) || lemma == "be") continue;
    if (!plain_word(lemma, pos == kNoun || pos == kAdjective ? 3 : 2)) continue;
    std::vector<std::string> forms;
    FrequentNoun noun;
    FrequentVerb verb;
    switch (pos) {
      case kNoun:
        noun.singular = lemma;
        noun.people = entry->lexfile == 14 /* group */ || entry->lexfile == 18 /* person */;
        if (!mass_lexfile(entry->lexfile)) noun.plural = plural_of(lemma);
        if (noun.plural == lemma || contains(kResolved, noun.plural)) noun.plural.clear();
        forms = {noun.singular};
        if (!noun.plural.empty()) forms.push_back(noun.plural);
        break;
      case kVerb: {
        verb.base = lemma;
        verb.third = third_person(lemma);
        verb.past = verb.participle = regular_past(lemma);
        verb.ing = regular_ing(lemma);
        std::vector<std::string> pasts;
        bool doubled = false;  // "putting": a short verb whose past verb.exc would list if it changed
        for (const std::string& form : irregular[lemma]) {
          if (form == lemma || contains(kArchaicForms, form)) continue;
          doubled = doubled || form == lemma + lemma.back() + "ing";
          if (ends_with(form, "ing"))
            verb.ing = form;
          else if (ends_with(form, "s") && !ends_with(lemma, "s"))
            verb.third = form;  // "has"
          else
            pasts.push_back(form);
        }
        // verb.exc lists "putting" but not "put" as its past
        if (pasts.empty() && (doubled || contains(kSamePast, lemma))) verb.past = verb.participle = lemma;
        if (pasts.size() == 1) verb.past = verb.participle = pasts[0];
        if (pasts.size() == 1 && looks_like_participle(pasts[0]))  // "shown", "beaten": the past is another form
          verb.past = contains(kSamePast, lemma) ? lemma : regular_past(lemma);
        if (pasts.size() >= 2) {
          const bool second_is_participle = looks_like_participle(pasts[1]) || !looks_like_participle(pasts[0]);
          verb.past = second_is_participle ? pasts[0] : pasts[1];
          verb.participle = second_is_participle ? pasts[1] : pasts[0];
        }
        if (contains(kParticipleIsBase, lemma)) verb.participle = lemma;
        const auto sense = first_verb_sense.find(lemma);
        verb.transitive = sense != first_verb_sense.end() && transitive_synset[sense->second];
        forms = {verb.base, verb.third, verb.past, verb.participle, verb.ing};
        break;
      }
      default:
        forms = {lemma};
    }
    std::size_t added = 0;
    for (const std::string& form : forms) added += !vocabulary.count(form);
    if (vocabulary.size() + added > kVocabularyTarget) continue;
    vocabulary.insert(forms.begin(), forms.end());
    if (pos == kNoun) out.nouns.push_back(std::move(noun));
    if (pos == kVerb) out.verbs.push_back(std::move(verb));
    if (pos == kAdjective) out.adjectives.push_back(lemma);
    if (pos == kAdverb) out.adverbs.push_back(lemma);
  }
  if (out.nouns.size() < 2 || out.verbs.empty() || out.adjectives.empty() || out.adverbs.empty())
    return Failure{"WordNet in " + dir + " gave too few frequent words: is it WordNet 3.0?"};
  return out;
}

void write_adjunct(const FrequentWords& words, AdjunctPlace place, SplitMix64& rng, std::vector<std::string>& out,
                   std::vector<int>& nouns) {
  const bool tail = place == AdjunctPlace::kTail;
  const auto below = [&](std::size_t n) { return std::size_t((static_cast<unsigned __int128>(rng.next()) * n) >> 64); };
  const auto chance = [&](std::uint32_t percent) { return rng.next() % 100 < percent; };
  const auto write = [&](std::string_view phrase) {
    for (std::size_t at = 0; at < phrase.size();) {
      const std::size_t end = std::min(phrase.find(' ', at), phrase.size());
      out.emplace_back(phrase.substr(at, end - at));
      at = end + 1;
    }
  };
  const auto any = [&](Words table) { write(table.begin()[below(table.size())]); };
  // A noun phrase: a determiner, maybe an adjective, a frequent noun; returns whether it is plural.
  const auto noun_phrase = [&]() {
    const FrequentNoun* noun = &words.nouns[below(words.nouns.size())];
    while (!tail && (noun->classified || noun->people || (place == AdjunctPlace::kLeadPlural && noun->plural.empty())))
      noun = &words.nouns[below(words.nouns.size())];
    const bool plural = place == AdjunctPlace::kLeadPlural || (tail && !noun->plural.empty() && chance(25));
    const std::size_t article = out.size();
    any(plural ? kPluralDeterminers : kSingularDeterminers);
    if (chance(30)) out.push_back(words.adjectives[below(words.adjectives.size())]);
    nouns.push_back(int(out.size()));
    out.push_back(plural ? noun->plural : noun->singular);
    if (out[article] == "a" && vowel(out[article + 1][0])) out[article] = "an";
    return plural;
  };
  // The clause's subject: a noun phrase or a pronoun the model does not resolve; whether it takes plural verbs.
  const auto subject = [&]() {
    if (tail && chance(20)) {
      const std::string_view who = kSubjects.begin()[below(kSubjects.size())];
      out.emplace_back(who);
      return who == "we" || who == "you" || who == "i";
    }
    return noun_phrase();
  };
  const auto object = [&](const FrequentVerb& verb) {
    if (!verb.transitive) return;
    if (tail && chance(15))
      any(kObjects);
    else
      noun_phrase();
  };
  const FrequentVerb& verb = words.verbs[below(words.verbs.size())];
  switch (below(6)) {
    case 0:  // "in the city"
      any(kPrepositions);
      noun_phrase();
      break;
    case 1:  // "until the farmer finally poured the water"
      any(kPastConjunctions);
      subject();
      if (chance(30)) any(kPreVerb);
      out.push_back(verb.past);
      object(verb);
      break;
    case 2: {  // "before the farmer could not pour the water"
      any(kPastConjunctions);
      subject();
      const std::size_t modal = out.size();
      any(kModals);
      if (out.size() == modal + 1 && contains(kNegatable, out.back()) && chance(25)) out.emplace_back("not");
      out.push_back(verb.base);
      object(verb);
      break;
    }
    case 3: {  // "while the farmers were pouring the water"
      any(kPastConjunctions);
      const bool plural = subject();
      out.emplace_back(chance(20) ? (plural ? "weren't" : "wasn't") : (plural ? "were" : "was"));
      out.push_back(verb.ing);
      object(verb);
      break;
    }
    case 4: {  // "after the farmer had never poured the water"
      any(kPastConjunctions);
      subject();
      out.emplace_back(chance(20) ? "hadn't" : "had");
      if (chance(30)) any(kPreVerb);
      out.push_back(verb.participle);
      object(verb);
      break;
    }
    default: {  // "whenever the farmer pours the water", "if the farmers have poured it"
      any(kPresentConjunctions);
      const bool plural = subject();
      if (chance(25)) {
        out.emplace_back(chance(20) ? (plural ? "haven't" : "hasn't") : (plural ? "have" : "has"));
        out.push_back(verb.participle);
      } else {
        out.push_back(plural ? verb.base : verb.third);
      }
      object(verb);
      break;
    }
  }
  if (chance(20)) out.push_back(words.adverbs[below(words.adverbs.size())]);
}

}  // namespace abh::train::corpus
