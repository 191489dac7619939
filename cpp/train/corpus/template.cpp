// The frames' template language: see template.h.
#include "template.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace abh::train::corpus {

Phrase split_words(std::string_view text) {
  Phrase words;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) words.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

Expected<std::vector<Token>> parse_template(std::string_view text) {
  static constexpr std::pair<std::string_view, Slot> kSlots[] = {
      {"A", Slot::kNounA},           {"B", Slot::kNounB},      {"C", Slot::kNounC},
      {"mA", Slot::kModifierA},      {"mB", Slot::kModifierB}, {"pro", Slot::kPronoun},
      {"pos", Slot::kPossessive},    {"be", Slot::kBe},        {"beA", Slot::kBeA},
      {"beB", Slot::kBeB},           {"is", Slot::kIs},        {"prois", Slot::kPronounIs},
      {"isA", Slot::kIsA},           {"isB", Slot::kIsB},      {"doesnotA", Slot::kDoesNotA},
      {"doesnotB", Slot::kDoesNotB}, {"adj", Slot::kDecider},  {"obj", Slot::kObject}};
  std::vector<Token> tokens;
  std::size_t at = 0;
  while (at < text.size()) {
    if (text[at] == ' ') {
      ++at;
      continue;
    }
    const char open = text[at];
    const char close = open == '<' ? '>' : open == '{' ? '}' : ' ';
    std::size_t end = text.find(close, at + 1);
    if (close != ' ' && end == std::string_view::npos)
      return Failure{"unclosed " + std::string(1, open) + " in frame: " + std::string(text)};
    if (end == std::string_view::npos) end = text.size();
    Token token;
    if (open == '<') {
      const std::string_view name = text.substr(at + 1, end - at - 1);
      auto slot = std::find_if(std::begin(kSlots), std::end(kSlots), [&](const auto& s) { return s.first == name; });
      if (slot == std::end(kSlots))
        return Failure{"unknown slot <" + std::string(name) + "> in frame: " + std::string(text)};
      token.slot = slot->second;
    } else if (open == '{') {
      const std::string_view body = text.substr(at + 1, end - at - 1);
      std::size_t start = 0;
      while (start <= body.size()) {
        std::size_t bar = body.find('|', start);
        if (bar == std::string_view::npos) bar = body.size();
        token.alternatives.push_back(split_words(body.substr(start, bar - start)));
        start = bar + 1;
      }
    } else {
      token.alternatives.push_back({std::string(text.substr(at, end - at))});
    }
    tokens.push_back(std::move(token));
    at = close == ' ' ? end : end + 1;
  }
  for (std::size_t t = 0; t + 1 < tokens.size(); ++t) {
    const Token& token = tokens[t];
    if (token.slot != Slot::kWords || token.alternatives.size() != 1 || token.alternatives[0] != Phrase{"the"})
      continue;
    switch (tokens[t + 1].slot) {
      case Slot::kNounA:
      case Slot::kModifierA:
        tokens[t].determines = 0;
        break;
      case Slot::kNounB:
      case Slot::kModifierB:
        tokens[t].determines = 1;
        break;
      case Slot::kNounC:
        tokens[t].determines = 2;
        break;
      default:
        break;
    }
  }
  return tokens;
}

}  // namespace abh::train::corpus
