// Reads WordNet 3.0's database files (formats: wndb(5WN), cntlist(5WN)) into the corpus's noun
// classes. Only four files are read: index.noun (a lemma's senses, most frequent first), data.noun
// (each synset's words and hypernyms), noun.exc (irregular plurals) and cntlist.rev (how often each
// sense was tagged in the SemCor corpus: the "how common" of a word).
#include "lexicon.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <unordered_set>

#include "../wordnet_files.h"
#include "curated.h"

namespace abh::train::corpus {

namespace {

using wordnet::ends_with;
using wordnet::Fields;
using wordnet::for_each_line;
using wordnet::IndexLine;
using wordnet::parse_index_line;

struct Synset {
  std::vector<std::uint32_t> hypernyms;  // '@' and '@i' pointers
  bool instance = false;                 // a named individual ("Mississippi", "Plato")
  bool proper = false;                   // every word of it starts with a capital ("Jew", "American")
};

bool is_plain_lower_word(const std::string& word) {
  if (word.size() < 3) return false;
  for (char c : word)
    if (c < 'a' || c > 'z') return false;
  return true;
}

// The regular English plural; irregular ones come from noun.exc or kPluralOverrides.
std::string regular_plural(const std::string& singular) {
  const char last = singular.back();
  const char before = singular.size() > 1 ? singular[singular.size() - 2] : ' ';
  if (last == 's' || last == 'x' || last == 'z' || ends_with(singular, "ch") || ends_with(singular, "sh"))
    return singular + "es";
  if (ends_with(singular, "man") && singular != "human") return singular.substr(0, singular.size() - 3) + "men";
  if (last == 'y' && std::string_view("aeiou").find(before) == std::string_view::npos)
    return singular.substr(0, singular.size() - 1) + "ies";
  return singular + "s";
}

}  // namespace

std::string_view class_name(NounClass cls) {
  constexpr std::string_view kNames[] = {"animal",    "person",  "male",      "female",   "thing",
                                         "container", "vehicle", "furniture", "building", "path",
                                         "opening",   "water",   "food",      "tree",     "flower"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNounClassCount, "one name per class");
  return kNames[static_cast<int>(cls)];
}

int Lexicon::find(const std::string& form) const {
  auto it = by_form_.find(form);
  return it == by_form_.end() ? -1 : it->second;
}

Expected<Lexicon> Lexicon::load(const std::string& wordnet_dir) {
  const std::string dir = wordnet_dir.empty() || wordnet_dir.back() == '/' ? wordnet_dir : wordnet_dir + "/";

  // data.noun: "offset lex_filenum n w_cnt(hex) word lex_id ... p_cnt ptr_symbol offset pos st ... | gloss".
  std::unordered_map<std::uint32_t, Synset> synsets;
  {
    const Status read = for_each_line(dir + "data.noun", [&](std::string_view line) -> Status {
      if (line.empty() || line[0] == ' ') return Ok{};  // the licence header
      Fields fields{line};
      const auto offset = fields.number<std::uint32_t>();
      fields.word();  // lex_filenum
      fields.word();  // ss_type
      const int word_count = fields.number<int>(16);
      Synset synset;
      synset.proper = word_count > 0;
      for (int w = 0; w < word_count && fields.ok; ++w) {
        const std::string_view word = fields.word();
        fields.word();  // lex_id
        if (word.empty() || !(word[0] >= 'A' && word[0] <= 'Z')) synset.proper = false;
      }
      const int pointer_count = fields.number<int>();
      for (int p = 0; p < pointer_count && fields.ok; ++p) {
        const std::string_view symbol = fields.word();
        const auto target = fields.number<std::uint32_t>();
        fields.word();  // pos
        fields.word();  // source/target
        if (symbol == "@" || symbol == "@i") synset.hypernyms.push_back(target);
        if (symbol == "@i") synset.instance = true;
      }
      if (!fields.ok) return Failure{"cannot parse " + dir + "data.noun near: " + std::string(line.substr(0, 60))};
      synsets.emplace(offset, std::move(synset));
      return Ok{};
    });
    if (!read.ok()) return Failure{read.error()};
  }

  // index.noun: "lemma n synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...",
  // offsets in order of frequency: the first is the most frequent sense.
  std::vector<std::pair<std::string, std::vector<std::uint32_t>>> lemmas;
  std::unordered_map<std::string, std::size_t> lemma_index;
  {
    const Status read = for_each_line(dir + "index.noun", [&](std::string_view line) -> Status {
      if (line.empty() || line[0] == ' ') return Ok{};
      IndexLine parsed = parse_index_line(line);
      if (!parsed.ok || parsed.offsets.empty())
        return Failure{"cannot parse " + dir + "index.noun near: " + std::string(line.substr(0, 60))};
      const std::string lemma(parsed.lemma);
      std::vector<std::uint32_t> offsets = std::move(parsed.offsets);
      lemma_index.emplace(lemma, lemmas.size());
      lemmas.emplace_back(lemma, std::move(offsets));
      return Ok{};
    });
    if (!read.ok()) return Failure{read.error()};
  }

  // cntlist.rev: "lemma%1:lexfile:lex_id:: sense_number tag_count"; ss_type 1 is a noun.
  std::unordered_map<std::string, int> first_sense_count;
  {
    const Status read = for_each_line(dir + "cntlist.rev", [&](std::string_view line) -> Status {
      Fields fields{line};
      const std::string_view key = fields.word();
      const int sense = fields.number<int>();
      const int count = fields.number<int>();
      if (!fields.ok) return Failure{"cannot parse " + dir + "cntlist.rev near: " + std::string(line.substr(0, 60))};
      const std::size_t percent = key.find('%');
      if (percent != std::string_view::npos && percent + 1 < key.size() && key[percent + 1] == '1' && sense == 1)
        first_sense_count[std::string(key.substr(0, percent))] = count;
      return Ok{};
    });
    if (!read.ok()) return Failure{read.error()};
  }

  // noun.exc: "plural singular...".
  std::unordered_map<std::string, std::string> plural_of;
  {
    const Status read = for_each_line(dir + "noun.exc", [&](std::string_view line) -> Status {
      Fields fields{line};
      const std::string plural(fields.word());
      // noun.exc also keeps Latin and archaic plurals ("camerae", "beeves", "pease") beside the
      // regular ones it does not list; only the living irregular patterns are taken from it.
      const bool living = ends_with(plural, "ves") || ends_with(plural, "ren") || ends_with(plural, "ice") ||
                          ends_with(plural, "eet") || ends_with(plural, "eeth") || ends_with(plural, "eese") ||
                          ends_with(plural, "oes") || ends_with(plural, "men") || plural == "oxen";
      for (std::string_view singular = fields.word(); fields.ok; singular = fields.word())
        if (living) plural_of.emplace(std::string(singular), plural);
      return Ok{};
    });
    if (!read.ok()) return Failure{read.error()};
  }
  for (const auto& override_row : kPluralOverrides)
    plural_of[std::string(override_row.singular)] = std::string(override_row.plural);

  auto root_offset = [&](const ClassRoot& root) -> Expected<std::uint32_t> {
    auto it = lemma_index.find(std::string(root.lemma));
    if (it == lemma_index.end() || root.sense < 1 || std::size_t(root.sense) > lemmas[it->second].second.size())
      return Failure{"WordNet in " + dir + " has no noun sense " + std::to_string(root.sense) + " of \"" +
                     std::string(root.lemma) + "\": is it WordNet 3.0?"};
    return lemmas[it->second].second[std::size_t(root.sense - 1)];
  };
  // Which class root (index into kClassRoots) or exclusion each synset falls under, memoised.
  constexpr int kExcluded = -2, kNoClass = -1;
  std::unordered_map<std::uint32_t, int> root_rank;  // the roots themselves
  {
    int rank = 0;
    for (const auto& root : kClassRoots) {
      auto offset = root_offset(root);
      if (!offset.ok()) return Failure{offset.error()};
      root_rank.emplace(offset.value(), rank++);
    }
    for (const auto& root : kExcludedRoots) {
      auto offset = root_offset(root);
      if (!offset.ok()) return Failure{offset.error()};
      root_rank[offset.value()] = kExcluded;
    }
  }
  std::unordered_map<std::uint32_t, int> memo;
  // The best (lowest-ranked) class root above a synset; an exclusion anywhere above wins.
  std::function<int(std::uint32_t, int)> classify = [&](std::uint32_t offset, int depth) -> int {
    if (auto it = memo.find(offset); it != memo.end()) return it->second;
    int best = kNoClass;
    if (auto it = root_rank.find(offset); it != root_rank.end()) best = it->second;
    auto synset = synsets.find(offset);
    if (best != kExcluded && synset != synsets.end() && depth < 64) {
      for (std::uint32_t parent : synset->second.hypernyms) {
        const int above = classify(parent, depth + 1);
        if (above == kExcluded) {
          best = kExcluded;
          break;
        }
        if (above >= 0 && (best < 0 || above < best)) best = above;
      }
    }
    memo.emplace(offset, best);
    return best;
  };
  const std::vector<ClassRoot> roots(kClassRoots);

  std::unordered_map<std::string, NounClass> curated;
  for (const auto& row : kCuratedNouns)
    for (std::string_view word : row.words) curated.emplace(std::string(word), row.cls);
  std::unordered_set<std::string> blocked;
  for (std::string_view word : kBlockedNouns) blocked.emplace(word);

  Lexicon lexicon;
  lexicon.members_.resize(kNounClassCount);
  auto add = [&](const std::string& singular, NounClass cls) {
    Noun noun;
    noun.singular = singular;
    auto plural = plural_of.find(singular);
    noun.plural = plural != plural_of.end() ? plural->second : regular_plural(singular);
    if (noun.plural == noun.singular || lexicon.by_form_.count(noun.singular) || lexicon.by_form_.count(noun.plural))
      return;
    auto count = first_sense_count.find(singular);
    noun.tag_count = count == first_sense_count.end() ? 0 : count->second;
    noun.cls = cls;
    const int id = int(lexicon.nouns_.size());
    lexicon.by_form_.emplace(noun.singular, id);
    lexicon.by_form_.emplace(noun.plural, id);
    lexicon.members_[static_cast<int>(cls)].push_back(id);
    lexicon.nouns_.push_back(std::move(noun));
  };

  // Curated words first, in the table's order, so that their class wins over WordNet's.
  for (const auto& row : kCuratedNouns)
    for (std::string_view word : row.words)
      if (!blocked.count(std::string(word))) add(std::string(word), row.cls);
  for (const auto& [lemma, offsets] : lemmas) {
    if (!is_plain_lower_word(lemma) || blocked.count(lemma) || curated.count(lemma)) continue;
    auto count = first_sense_count.find(lemma);
    auto synset = synsets.find(offsets[0]);
    if (count == first_sense_count.end() || synset == synsets.end() || synset->second.instance || synset->second.proper)
      continue;
    const int rank = classify(offsets[0], 0);
    if (rank < 0 || count->second < roots[std::size_t(rank)].min_tag_count) continue;
    NounClass cls = roots[std::size_t(rank)].cls;
    // A person noun that names its gender in its last morpheme (policewoman, chairman).
    if (cls == NounClass::kPerson && ends_with(lemma, "woman")) cls = NounClass::kFemale;
    if (cls == NounClass::kPerson && ends_with(lemma, "man") && lemma != "human") cls = NounClass::kMale;
    add(lemma, cls);
  }
  return lexicon;
}

}  // namespace abh::train::corpus
