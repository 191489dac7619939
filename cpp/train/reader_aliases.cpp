// The reader's alias table from WordNet 3.0 (reader_aliases.h). Reads index.{noun,verb,adj} (a lemma's
// senses, most frequent first), data.{noun,verb,adj} (each synset's words and its hypernym, hyponym,
// similar-to and antonym pointers), {noun,verb,adj}.exc (irregular forms) and cntlist.rev (SemCor tag
// counts: how common a word is in each part of speech).
#include "reader_aliases.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "reader.h"
#include "wordnet_files.h"

namespace abh::train {

namespace {

using wordnet::ends_with;
using wordnet::Fields;
using wordnet::for_each_line;
using wordnet::IndexLine;
using wordnet::parse_index_line;

enum Pos : int { kNoun, kVerb, kAdj, kPosCount };
constexpr const char* kPosFile[kPosCount] = {"noun", "verb", "adj"};
constexpr int kPersonFile = 18;
// A noun's alias is at most this many steps away in the hypernym tree (up, then down): a sibling, a
// grandparent or a grandchild; three steps reached words of another kind ("kitchen" -> "library").
constexpr int kMaxNounDistance = 2;  // noun.person: its cousins may differ in gender, so only hypernyms

enum class Inflection : std::uint8_t { kBase, kPlural, kThird, kPast, kIng, kComparative, kSuperlative };

enum Relation : std::uint8_t { kForm, kSynonym, kSimilar, kHypernym, kCousin };

struct Pointer {
  std::uint32_t target;
  char kind;  // '@' hypernym, '~' hyponym, '&' similar to, '!' antonym
};

struct Synset {
  int lexfile = 0;
  bool satellite = false;
  std::vector<std::string> words;  // lower-case single words only
  std::vector<Pointer> pointers;   // to synsets of the same part of speech
};

struct PartOfSpeech {
  std::unordered_map<std::uint32_t, Synset> synsets;
  std::unordered_map<std::string, std::vector<std::uint32_t>> senses;  // lemma -> synsets, most frequent first
  std::unordered_map<std::string, std::vector<std::string>> bases;     // exception list: form -> lemmas
  std::unordered_map<std::string, std::vector<std::string>> forms;     // the same reversed: lemma -> forms
};

// A single lower-case word as the reader tokenizes one ("well-known", "o'clock"); WordNet's
// multi-word lemmas (with '_') and names are left out.
bool is_single_word(std::string_view word) {
  if (word.size() < 2) return false;
  for (const char c : word)
    if (!((c >= 'a' && c <= 'z') || c == '-' || c == '\'')) return false;
  return word.front() >= 'a' && word.back() >= 'a';
}

bool is_consonant(char c) { return std::string_view("aeiou").find(c) == std::string_view::npos; }

Status read_part(const std::string& dir, Pos pos, PartOfSpeech& out) {
  const std::string name = kPosFile[pos];
  Status read = for_each_line(dir + "data." + name, [&](std::string_view line) -> Status {
    if (line.empty() || line[0] == ' ') return Ok{};  // the licence header
    Fields fields{line};
    const auto offset = fields.number<std::uint32_t>();
    Synset synset;
    synset.lexfile = fields.number<int>();
    synset.satellite = fields.word() == "s";
    const int word_count = fields.number<int>(16);
    for (int w = 0; w < word_count && fields.ok; ++w) {
      std::string_view word = fields.word();
      fields.word();                          // lex_id
      word = word.substr(0, word.find('('));  // an adjective's marker: "long(a)"
      if (is_single_word(word)) synset.words.emplace_back(word);
    }
    const int pointer_count = fields.number<int>();
    for (int p = 0; p < pointer_count && fields.ok; ++p) {
      const std::string_view symbol = fields.word();
      const auto target = fields.number<std::uint32_t>();
      const std::string_view target_pos = fields.word();
      fields.word();  // source/target
      const bool same_pos = target_pos == std::string_view(name.substr(0, 1)) || (pos == kAdj && target_pos == "s");
      if (!same_pos) continue;
      if (symbol == "@" || symbol == "~" || symbol == "&" || symbol == "!")
        synset.pointers.push_back({target, symbol[0]});
    }
    if (!fields.ok)
      return Failure{"cannot parse " + dir + "data." + name + " near: " + std::string(line.substr(0, 60))};
    out.synsets.emplace(offset, std::move(synset));
    return Ok{};
  });
  if (!read.ok()) return read;
  read = for_each_line(dir + "index." + name, [&](std::string_view line) -> Status {
    if (line.empty() || line[0] == ' ') return Ok{};
    IndexLine parsed = parse_index_line(line);
    if (!parsed.ok)
      return Failure{"cannot parse " + dir + "index." + name + " near: " + std::string(line.substr(0, 60))};
    const std::string lemma(parsed.lemma);
    std::vector<std::uint32_t> offsets = std::move(parsed.offsets);
    if (is_single_word(lemma)) out.senses.emplace(lemma, std::move(offsets));
    return Ok{};
  });
  if (!read.ok()) return read;
  return for_each_line(dir + name + ".exc", [&](std::string_view line) -> Status {
    Fields fields{line};
    const std::string form(fields.word());
    if (!is_single_word(form)) return Ok{};
    for (std::string_view base = fields.word(); fields.ok; base = fields.word())
      if (is_single_word(base) && base != form) {
        out.bases[form].emplace_back(base);
        out.forms[std::string(base)].push_back(form);
      }
    return Ok{};
  });
}

class AliasMaker {
 public:
  AliasMaker(const std::vector<std::string>& words, const std::vector<std::uint8_t>& nouns) {
    for (std::size_t i = 0; i < words.size(); ++i)
      if (!words[i].empty() && words[i][0] != '<') known_.emplace(words[i], i < nouns.size() && nouns[i]);
  }

  Status load(const std::string& wordnet_dir) {
    const std::string dir = wordnet_dir.empty() || wordnet_dir.back() == '/' ? wordnet_dir : wordnet_dir + "/";
    for (int pos = 0; pos < kPosCount; ++pos)
      if (Status s = read_part(dir, Pos(pos), parts_[pos]); !s.ok()) return s;
    // cntlist.rev: "lemma%ss_type:lexfile:lex_id:head:head_id sense_number tag_count"; ss_type 1 noun,
    // 2 verb, 3 adjective, 4 adverb, 5 adjective satellite.
    return for_each_line(dir + "cntlist.rev", [&](std::string_view line) -> Status {
      Fields fields{line};
      const std::string_view key = fields.word();
      fields.number<int>();  // sense_number
      const int count = fields.number<int>();
      if (!fields.ok) return Failure{"cannot parse " + dir + "cntlist.rev near: " + std::string(line.substr(0, 60))};
      const std::size_t percent = key.find('%');
      if (percent == std::string_view::npos || percent + 1 >= key.size()) return Ok{};
      const int type = key[percent + 1] - '0';
      const int pos = type == 1 ? 0 : type == 2 ? 1 : type == 3 || type == 5 ? 2 : type == 4 ? 3 : -1;
      if (pos < 0) return Ok{};
      const std::string lemma(key.substr(0, percent));
      auto& counts = counts_[lemma];
      counts[std::size_t(pos)] += count;
      return Ok{};
    });
  }

  // Whether WordNet reads the word mostly as a noun: a noun lemma, or a form of one, that SemCor tags as
  // a noun, either with no other reading ("apples": once) or at least twice and at least half as often
  // as the word's most tagged other reading ("train": 25 against 37 as a verb). Not "small" (1 against
  // 242), "holding" (read as "hold"), "does" (an untagged plural of "doe"), nor the function words
  // SemCor tags as nouns.
  bool used_as_noun(const std::string& word) const {
    for (const char* function_word : {"while", "will", "being", "us"})
      if (word == function_word) return false;
    constexpr int kAdverbCounts = 3;                   // counts_'s fourth column
    int noun = 0, other = count(word, kAdverbCounts);  // an adverb has no forms: its count is the word's own
    bool other_reading = other > 0;
    for (const Analysis& a : analyses(word)) {
      int& most = a.pos == kNoun ? noun : other;
      most = std::max(most, a.count);
      other_reading |= a.pos != kNoun;
    }
    return noun >= 1 && (!other_reading || (noun >= 2 && 2 * noun >= other));
  }

  std::vector<ReaderAliasEntry> make() {
    index_known_nouns();
    std::set<std::string> candidates;  // every lemma and inflected form, in order
    for (int pos = 0; pos < kPosCount; ++pos)
      for (const auto& [lemma, senses] : parts_[pos].senses) {
        candidates.insert(lemma);
        for (const Inflection inflection : inflections_of(Pos(pos)))
          for (const std::string& form : surface_forms(lemma, Pos(pos), inflection)) candidates.insert(form);
      }
    std::vector<ReaderAliasEntry> out;
    for (const std::string& word : candidates) {
      if (known_.count(word) || is_reader_pronoun(word)) continue;
      if (auto alias = best_alias(word)) out.push_back(std::move(*alias));
    }
    return out;
  }

 private:
  struct Analysis {
    Pos pos;
    std::string lemma;
    Inflection inflection;
    int count;  // the lemma's tag count in this part of speech
  };
  struct Found {
    std::string target;
    Relation relation;
    int distance;
    int target_count;
  };

  static std::vector<Inflection> inflections_of(Pos pos) {
    if (pos == kNoun) return {Inflection::kPlural};
    if (pos == kVerb) return {Inflection::kThird, Inflection::kPast, Inflection::kIng};
    return {Inflection::kComparative, Inflection::kSuperlative};
  }

  int count(const std::string& lemma, int pos) const {
    const auto it = counts_.find(lemma);
    return it == counts_.end() ? 0 : it->second[std::size_t(pos)];
  }
  // The part of speech a word is mostly used as (SemCor counts, adverbs included); -1 when untagged.
  int dominant_pos(const std::string& lemma) const {
    const auto it = counts_.find(lemma);
    if (it == counts_.end()) return -1;
    const auto& c = it->second;
    const auto top = std::max_element(c.begin(), c.end());
    return *top == 0 ? -1 : int(top - c.begin());
  }

  // The exception list's forms of a lemma that are of this inflection (a verb's "-ing" forms apart).
  std::vector<std::string> exception_forms(const std::string& lemma, Pos pos, Inflection inflection) const {
    std::vector<std::string> out;
    const auto it = parts_[pos].forms.find(lemma);
    if (it == parts_[pos].forms.end()) return out;
    for (const std::string& form : it->second) {
      // a verb's form is its "-ing", its third person ("has", "is": an "s" but not "was") or its past
      const bool ing = ends_with(form, "ing"), most = ends_with(form, "est");
      const bool third = !ing && ends_with(form, "s") && !ends_with(form, "ss") && form != "was";
      const Inflection verb_form = ing ? Inflection::kIng : third ? Inflection::kThird : Inflection::kPast;
      if (pos == kNoun || (pos == kVerb && inflection == verb_form) ||
          (pos == kAdj && (inflection == Inflection::kSuperlative) == most))
        out.push_back(form);
    }
    return out;
  }

  // The written forms of a lemma in one inflection: the exception list's, else the regular rule's.
  std::vector<std::string> surface_forms(const std::string& lemma, Pos pos, Inflection inflection) const {
    if (inflection == Inflection::kBase) return {lemma};
    std::vector<std::string> out = exception_forms(lemma, pos, inflection);
    if (!out.empty() || lemma.find_first_of("-'") != std::string::npos) return out;
    const char last = lemma.back();
    const char before = lemma.size() > 1 ? lemma[lemma.size() - 2] : 'a';
    const std::string stem = lemma.substr(0, lemma.size() - 1);
    const bool y_after_consonant = last == 'y' && is_consonant(before);
    switch (inflection) {
      case Inflection::kPlural:
      case Inflection::kThird:
        if (last == 's' || last == 'x' || last == 'z' || ends_with(lemma, "ch") || ends_with(lemma, "sh"))
          return {lemma + "es"};
        if (inflection == Inflection::kPlural && ends_with(lemma, "man") && lemma != "human")
          return {lemma.substr(0, lemma.size() - 3) + "men"};
        return {y_after_consonant ? stem + "ies" : lemma + "s"};
      case Inflection::kPast:
        return {last == 'e' ? lemma + "d" : y_after_consonant ? stem + "ied" : lemma + "ed"};
      case Inflection::kIng:
        if (ends_with(lemma, "ie")) return {lemma.substr(0, lemma.size() - 2) + "ying"};
        return {last == 'e' && !ends_with(lemma, "ee") ? stem + "ing" : lemma + "ing"};
      case Inflection::kComparative:
      case Inflection::kSuperlative: {
        // only short, common adjectives take -er / -est ("colder"; not "beautifuler")
        if (lemma.size() > 6 || count(lemma, kAdj) == 0) return {};
        const std::string tail = inflection == Inflection::kComparative ? "er" : "est";
        return {last == 'e' ? stem + tail : y_after_consonant ? stem + "i" + tail : lemma + tail};
      }
      case Inflection::kBase:
        break;
    }
    return out;
  }

  // The vocabulary's form of a lemma in an inflection, or "" when the vocabulary has none.
  std::string known_form(const std::string& lemma, Pos pos, Inflection inflection) const {
    for (const std::string& form : surface_forms(lemma, pos, inflection))
      if (known_.count(form) && known_.at(form) == (pos == kNoun)) return form;
    return "";
  }

  // Every reading of a written word: the lemma itself, an exception list's, or a regular suffix rule's
  // (WordNet's morphy), in each part of speech where that lemma exists.
  std::vector<Analysis> analyses(const std::string& word) const {
    std::vector<Analysis> out;
    for (int p = 0; p < kPosCount; ++p) {
      const Pos pos = Pos(p);
      const PartOfSpeech& part = parts_[pos];
      const auto add = [&](const std::string& lemma, Inflection inflection) {
        if (!part.senses.count(lemma)) return;
        for (const Analysis& a : out)
          if (a.pos == pos && a.lemma == lemma) return;
        out.push_back({pos, lemma, inflection, count(lemma, pos)});
      };
      add(word, Inflection::kBase);
      if (auto it = part.bases.find(word); it != part.bases.end())
        for (const std::string& lemma : it->second)
          for (const Inflection inflection : inflections_of(pos))
            for (const std::string& form : exception_forms(lemma, pos, inflection))
              if (form == word) add(lemma, inflection);
      for (const Inflection inflection : inflections_of(pos))
        for (const auto& [suffix, replacements] : suffix_rules(inflection))
          if (ends_with(word, suffix) && word.size() > suffix.size() + 1)
            for (const char* replacement : replacements) {
              const std::string lemma = word.substr(0, word.size() - suffix.size()) + replacement;
              const auto forms = surface_forms(lemma, pos, inflection);
              if (std::find(forms.begin(), forms.end(), word) != forms.end()) add(lemma, inflection);
            }
    }
    // the most common reading first; a word that is itself a lemma before a form; nouns, adjectives, verbs
    const auto order = [](Pos p) { return p == kNoun ? 0 : p == kAdj ? 1 : 2; };
    std::stable_sort(out.begin(), out.end(), [&](const Analysis& a, const Analysis& b) {
      return std::make_tuple(-a.count, a.inflection != Inflection::kBase, order(a.pos)) <
             std::make_tuple(-b.count, b.inflection != Inflection::kBase, order(b.pos));
    });
    return out;
  }

  static std::vector<std::pair<std::string, std::vector<const char*>>> suffix_rules(Inflection inflection) {
    switch (inflection) {
      case Inflection::kPlural:
        return {{"men", {"man"}}, {"ies", {"y"}}, {"es", {"", "e"}}, {"s", {""}}};
      case Inflection::kThird:
        return {{"ies", {"y"}}, {"es", {"", "e"}}, {"s", {""}}};
      case Inflection::kPast:
        return {{"ied", {"y"}}, {"ed", {"", "e"}}};
      case Inflection::kIng:
        return {{"ying", {"ie"}}, {"ing", {"", "e"}}};
      case Inflection::kComparative:
        return {{"ier", {"y"}}, {"er", {"", "e"}}};
      case Inflection::kSuperlative:
        return {{"iest", {"y"}}, {"est", {"", "e"}}};
      case Inflection::kBase:
        break;
    }
    return {};
  }

  // The words of a synset's antonyms and of their similar-to clusters: never a target.
  std::unordered_set<std::string> antonyms(Pos pos, std::uint32_t offset) const {
    std::unordered_set<std::string> out;
    std::vector<std::uint32_t> sources = {offset};
    const Synset& synset = parts_[pos].synsets.at(offset);
    for (const Pointer& p : synset.pointers)
      if (p.kind == '&') sources.push_back(p.target);
    for (const std::uint32_t source : sources) {
      const auto found = parts_[pos].synsets.find(source);
      if (found == parts_[pos].synsets.end()) continue;
      for (const Pointer& p : found->second.pointers) {
        if (p.kind != '!') continue;
        const auto opposite = parts_[pos].synsets.find(p.target);
        if (opposite == parts_[pos].synsets.end()) continue;
        out.insert(opposite->second.words.begin(), opposite->second.words.end());
        for (const Pointer& q : opposite->second.pointers)
          if (q.kind == '&')
            if (auto s = parts_[pos].synsets.find(q.target); s != parts_[pos].synsets.end())
              out.insert(s->second.words.begin(), s->second.words.end());
      }
    }
    return out;
  }

  // A lemma's rank of a sense (0: its most frequent), or -1 when it is not one of its senses.
  int sense_rank(const std::string& lemma, Pos pos, std::uint32_t offset) const {
    const auto it = parts_[pos].senses.find(lemma);
    if (it == parts_[pos].senses.end()) return -1;
    const auto at = std::find(it->second.begin(), it->second.end(), offset);
    return at == it->second.end() ? -1 : int(at - it->second.begin());
  }

  // A target lemma is taken in the sense found only if that is its most frequent sense (a synonym,
  // a hypernym) or one of its first two (an adjective's cluster), and it is mostly used as this part
  // of speech: "down" shares a synset with "devour" but is mostly an adverb.
  bool fits(const std::string& lemma, Pos pos, std::uint32_t offset, int max_rank) const {
    const int rank = sense_rank(lemma, pos, offset);
    const int dominant = dominant_pos(lemma);
    return rank >= 0 && rank <= max_rank && (dominant < 0 || dominant == pos);
  }

  // Offers every word of a synset as a target at this relation and distance.
  void offer(const Analysis& a, std::uint32_t offset, Relation relation, int distance, int max_rank,
             const std::unordered_set<std::string>& banned, std::vector<Found>& found) const {
    const auto synset = parts_[a.pos].synsets.find(offset);
    if (synset == parts_[a.pos].synsets.end()) return;
    for (const std::string& lemma : synset->second.words) {
      if (lemma == a.lemma || banned.count(lemma) || !fits(lemma, a.pos, offset, max_rank)) continue;
      std::string target = known_form(lemma, a.pos, a.inflection);
      // an adjective may lose its degree ("bigger" -> "big"); a noun keeps its number and a verb its
      // form: read as the bare verb, a progressive or third-person form cost the causal model
      // hand-written sentences it had right
      if (target.empty() && a.pos == kAdj) target = known_form(lemma, a.pos, Inflection::kBase);
      if (!target.empty()) found.push_back({target, relation, distance, count(lemma, a.pos)});
    }
  }

  std::vector<Found> aliases_of(const Analysis& a) const {
    std::vector<Found> found;
    const PartOfSpeech& part = parts_[a.pos];
    if (a.inflection != Inflection::kBase) {  // another form of a known lemma
      std::string target = known_form(a.lemma, a.pos, a.inflection);
      if (target.empty() && a.pos == kAdj) target = known_form(a.lemma, a.pos, Inflection::kBase);
      if (!target.empty()) return {{target, kForm, 0, 0}};
    }
    const std::uint32_t sense = part.senses.at(a.lemma).front();
    const auto synset_it = part.synsets.find(sense);
    if (synset_it == part.synsets.end()) return found;
    const Synset& synset = synset_it->second;
    const auto banned = antonyms(a.pos, sense);
    offer(a, sense, kSynonym, 0, 0, banned, found);
    if (!found.empty()) return found;
    if (a.pos == kAdj) {
      for (const Pointer& head : synset.pointers) {
        if (head.kind != '&') continue;
        offer(a, head.target, kSimilar, 1, 1, banned, found);
        // the other satellites of a satellite's head
        if (!synset.satellite) continue;
        if (auto h = part.synsets.find(head.target); h != part.synsets.end())
          for (const Pointer& other : h->second.pointers)
            if (other.kind == '&' && other.target != sense) offer(a, other.target, kSimilar, 2, 1, banned, found);
      }
      return found;
    }
    if (a.pos == kVerb) {
      // one level up, and never to a root of the verb hierarchy ("change", "move", "be"): too general to help
      for (const Pointer& p : synset.pointers)
        if (p.kind == '@')
          if (auto parent = part.synsets.find(p.target); parent != part.synsets.end())
            if (std::any_of(parent->second.pointers.begin(), parent->second.pointers.end(),
                            [](const Pointer& q) { return q.kind == '@'; }))
              offer(a, p.target, kHypernym, 1, 0, banned, found);
      return found;
    }
    // nouns: a known noun above (hypernym) or beside (cousin), closest first, in the same lexicographer file
    std::map<std::uint32_t, int> ancestors = {{sense, 0}};
    std::vector<std::uint32_t> level = {sense};
    for (int up = 1; up <= 2; ++up) {
      std::vector<std::uint32_t> next;
      for (const std::uint32_t s : level)
        if (auto it = part.synsets.find(s); it != part.synsets.end())
          for (const Pointer& p : it->second.pointers)
            if (p.kind == '@' && ancestors.emplace(p.target, up).second) next.push_back(p.target);
      level = std::move(next);
    }
    for (const auto& [ancestor, up] : ancestors) {
      const auto below = known_below_.find(ancestor);
      if (below == known_below_.end()) continue;
      for (const auto& [lemma, down] : below->second) {
        const int distance = up + down;
        if (lemma == a.lemma || banned.count(lemma) || distance == 0 || distance > kMaxNounDistance) continue;
        if (part.synsets.at(known_sense_.at(lemma)).lexfile != synset.lexfile) continue;
        if (down > 0 && synset.lexfile == kPersonFile) continue;
        const std::string target = known_form(lemma, kNoun, a.inflection);
        if (!target.empty()) found.push_back({target, down == 0 ? kHypernym : kCousin, distance, count(lemma, kNoun)});
      }
    }
    return found;
  }

  std::optional<ReaderAliasEntry> best_alias(const std::string& word) const {
    const std::vector<Analysis> readings = analyses(word);
    for (const Analysis& a : readings) {
      // fall back only to readings as common as the first (untagged words: every reading)
      if (a.count < readings.front().count) break;
      std::vector<Found> found = aliases_of(a);
      if (found.empty()) continue;
      const auto best = std::min_element(found.begin(), found.end(), [](const Found& x, const Found& y) {
        return std::make_tuple(x.relation, x.distance, -x.target_count, x.target) <
               std::make_tuple(y.relation, y.distance, -y.target_count, y.target);
      });
      return ReaderAliasEntry{word, best->target, best->relation};
    }
    return std::nullopt;
  }

  // A known noun that is the plural of another known noun: "flies" is a lemma of WordNet too (the
  // space above a stage), but the vocabulary has it as the plural of "fly".
  bool is_known_plural(const std::string& word) const {
    for (const Analysis& a : analyses(word))
      if (a.pos == kNoun && a.inflection == Inflection::kPlural && known_.count(a.lemma)) return true;
    return false;
  }

  // The known nouns' most frequent senses, and for each synset the known nouns up to two levels below it.
  void index_known_nouns() {
    const PartOfSpeech& nouns = parts_[kNoun];
    for (const auto& [word, is_noun] : known_) {
      const auto senses = nouns.senses.find(word);
      if (!is_noun || senses == nouns.senses.end() || is_known_plural(word)) continue;
      const std::uint32_t sense = senses->second.front();
      known_sense_.emplace(word, sense);
      std::vector<std::uint32_t> level = {sense};
      known_below_[sense].emplace(word, 0);
      for (int up = 1; up <= 2; ++up) {
        std::vector<std::uint32_t> next;
        for (const std::uint32_t s : level)
          if (auto it = nouns.synsets.find(s); it != nouns.synsets.end())
            for (const Pointer& p : it->second.pointers)
              if (p.kind == '@' && known_below_[p.target].emplace(word, up).second) next.push_back(p.target);
        level = std::move(next);
      }
    }
  }

  std::unordered_map<std::string, bool> known_;  // vocabulary word -> is a noun the model names
  PartOfSpeech parts_[kPosCount];
  std::unordered_map<std::string, std::array<int, 4>> counts_;  // lemma -> tag counts: noun, verb, adj, adverb
  std::unordered_map<std::string, std::uint32_t> known_sense_;
  std::unordered_map<std::uint32_t, std::map<std::string, int>> known_below_;  // synset -> known noun, levels down
};

}  // namespace

Expected<std::vector<ReaderAliasEntry>> make_reader_aliases(const std::string& wordnet_dir,
                                                            const std::vector<std::string>& words,
                                                            const std::vector<std::uint8_t>& nouns) {
  if (nouns.size() != words.size()) return Failure{"the noun flags must be one per vocabulary word"};
  AliasMaker maker(words, nouns);
  if (Status loaded = maker.load(wordnet_dir); !loaded.ok()) return Failure{loaded.error()};
  return maker.make();
}

Expected<std::vector<std::uint8_t>> reader_wordnet_nouns(const std::string& wordnet_dir,
                                                         const std::vector<std::string>& words) {
  AliasMaker maker(words, std::vector<std::uint8_t>(words.size(), 0));
  if (Status loaded = maker.load(wordnet_dir); !loaded.ok()) return Failure{loaded.error()};
  std::vector<std::uint8_t> out(words.size(), 0);
  for (std::size_t i = 0; i < words.size(); ++i) out[i] = is_single_word(words[i]) && maker.used_as_noun(words[i]);
  return out;
}

std::string format_reader_aliases(const std::vector<ReaderAliasEntry>& entries) {
  std::map<std::pair<std::string, int>, std::string> lines;  // (target, relation) -> " word word..."
  for (const ReaderAliasEntry& e : entries) lines[{e.target, e.relation}] += " " + e.word;
  std::string out;
  for (const auto& [key, words] : lines)
    out += key.first + " " + std::string(kReaderAliasRelations[key.second]) + words + "\n";
  return out;
}

}  // namespace abh::train
