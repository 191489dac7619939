// Reading WordNet 3.0's database files (wndb(5WN)): one line at a time, fields split on spaces without
// copying. Shared by the corpus's lexicon (corpus/lexicon.cpp) and the reader's alias table
// (reader_aliases.cpp); native only, like both of them.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "../tensor.h"  // Status

namespace abh::train::wordnet {

inline bool ends_with(std::string_view word, std::string_view tail) {
  return word.size() >= tail.size() && word.compare(word.size() - tail.size(), tail.size(), tail) == 0;
}

// The space-separated fields of one line, read without copying (data.noun has 82,000 lines).
struct Fields {
  std::string_view rest;
  bool ok = true;

  std::string_view word() {
    const std::size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) {
      ok = false;
      return {};
    }
    rest.remove_prefix(start);
    const std::size_t end = std::min(rest.find(' '), rest.size());
    const std::string_view field = rest.substr(0, end);
    rest.remove_prefix(end);
    return field;
  }
  template <class T>
  T number(int base = 10) {
    const std::string_view field = word();
    T value{};
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value, base);
    if (error != std::errc() || end != field.data() + field.size()) ok = false;
    return value;
  }
};

// One line of an index file (index.noun, index.adj, ...): "lemma pos synset_cnt p_cnt [ptr_symbol...]
// sense_cnt tagsense_cnt synset_offset...", the offsets in order of frequency (the first is the most
// frequent sense). ok is false when the line does not parse.
struct IndexLine {
  std::string_view lemma;
  std::vector<std::uint32_t> offsets;
  bool ok = false;
};
inline IndexLine parse_index_line(std::string_view line) {
  Fields fields{line};
  IndexLine out;
  out.lemma = fields.word();
  fields.word();  // pos
  const int synset_count = fields.number<int>();
  const int pointer_count = fields.number<int>();
  for (int p = 0; p < pointer_count && fields.ok; ++p) fields.word();
  fields.word();  // sense_cnt
  fields.word();  // tagsense_cnt
  for (int o = 0; o < synset_count && fields.ok; ++o) out.offsets.push_back(fields.number<std::uint32_t>());
  out.ok = fields.ok;
  return out;
}

// Calls line(text) for each line of a file; fails when the file cannot be read.
template <class Line>
Status for_each_line(const std::string& path, Line line) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Failure{"cannot read " + path + ": the corpus needs WordNet 3.0 (Debian package wordnet-base)"};
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string_view rest(text);
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    if (Status status = line(rest.substr(0, end)); !status.ok()) return status;
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return Ok{};
}

}  // namespace abh::train::wordnet
