// abh_corpus: prints the reader-model corpus for reading (issue 38).
//   abh_corpus [--wordnet DIR] [--seed N] [--split train|words|frames] [--count N]
//   abh_corpus --class animal      the nouns of one class, with their plurals and tag counts
//   abh_corpus --stats             vocabulary size, nouns per class, frames
// A sentence prints with the pronoun in *stars* and the answer in [brackets], then its frame.
#include <cstdlib>
#include <iostream>
#include <string>

#include "corpus.h"
#include "lexicon.h"

using namespace abh::train::corpus;

int main(int argc, char** argv) {
  std::string wordnet = "/usr/share/wordnet", split_name = "train", class_wanted;
  std::uint64_t seed = 1;
  long count = 50;
  bool stats = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--wordnet" && has_value)
      wordnet = argv[++i];
    else if (arg == "--seed" && has_value)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--split" && has_value)
      split_name = argv[++i];
    else if (arg == "--count" && has_value)
      count = std::strtol(argv[++i], nullptr, 10);
    else if (arg == "--class" && has_value)
      class_wanted = argv[++i];
    else if (arg == "--stats")
      stats = true;
    else {
      std::cerr << "usage: abh_corpus [--wordnet DIR] [--seed N] [--split train|words|frames] [--count N] "
                   "[--class NAME] [--stats]\n";
      return 2;
    }
  }
  const Split split = split_name == "words"    ? Split::kHeldOutWords
                      : split_name == "frames" ? Split::kHeldOutFrames
                                               : Split::kTrain;
  auto made = Generator::make(wordnet, seed);
  if (!made.ok()) {
    std::cerr << "abh_corpus: " << made.error() << "\n";
    return 1;
  }
  Generator& generator = made.value();
  const Lexicon& lexicon = generator.lexicon();

  if (!class_wanted.empty()) {
    for (int c = 0; c < kNounClassCount; ++c) {
      if (class_name(NounClass(c)) != class_wanted) continue;
      for (int id : lexicon.members(NounClass(c))) {
        const Noun& noun = lexicon.nouns()[std::size_t(id)];
        std::cout << noun.singular << "/" << noun.plural << " " << noun.tag_count << "\n";
      }
      return 0;
    }
    std::cerr << "abh_corpus: no class " << class_wanted << "\n";
    return 2;
  }
  if (stats) {
    std::cout << "vocabulary " << generator.vocabulary().size() << " words, " << lexicon.nouns().size() << " nouns\n";
    for (int c = 0; c < kNounClassCount; ++c)
      std::cout << "  " << class_name(NounClass(c)) << " " << lexicon.members(NounClass(c)).size() << "\n";
    std::cout << "frames " << generator.frame_count() << "\n";
    for (int f = 0; f < generator.frame_count(); ++f)
      std::cout << "  " << generator.frame_name(f) << (generator.frame_is_heldout(f) ? " (held out)" : "") << "\n";
    return 0;
  }
  for (long n = 0; n < count; ++n) {
    Trace trace;
    const Sentence sentence = generator.sample(split, &trace);
    for (std::size_t w = 0; w < sentence.words.size(); ++w) {
      const bool answer = int(w) == sentence.antecedent, pronoun = int(w) == sentence.pronoun;
      std::cout << (w ? " " : "")
                << (answer    ? "["
                    : pronoun ? "*"
                              : "")
                << sentence.words[w]
                << (answer    ? "]"
                    : pronoun ? "*"
                              : "");
    }
    std::cout << "   (" << generator.frame_name(sentence.frame) << ": " << trace.family << ")\n";
  }
  return 0;
}
