// The reader model (cpp/train/reader.h): the pointer head's gradient against central finite
// differences in double (the op alone and the whole model, bidirectional and causal), the examples a
// sentence becomes (targets, causal targets, word dropout), a short training that lowers the held-out
// loss, the answer's shapes for any sentence, and the quantized weights file (round trip within the
// int8 rounding, damaged files refused). The sentences come from a stand-in grammar of a few words so
// that these tests need neither WordNet nor the corpus generator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "model_test_util.h"
#include "random.h"
#include "test_util.h"
#include "train/model.h"
#include "train/ops.h"
#include "train/reader.h"
#include "train/weights_file.h"

namespace {

using namespace abh::train;
using namespace abh::test;  // test_util.h and model_test_util.h

// ---- the pointer op and the whole model with the pointer head, in double --------------------------

TEST(ReaderGradients, PointerOp) {
  abh::SplitMix64 rng(21);
  for (const bool causal : {false, true}) {
    const int B = 2, Tn = 5, C = 4;
    const std::vector<int> lengths = {5, 3}, start = {0, 3, 5}, pos = {1, 3, 4, 1, 2}, targets = {0, 1, 2, 0, 1};
    const PointerShape shape{B, Tn, C, causal, start.data(), pos.data(), lengths.data()};
    const int P = 5;
    auto u = random_vector(rng, P * C), hidden = random_vector(rng, B * Tn * C);
    std::vector<double> probs(P * Tn), losses(P), du(P * C, 0.0), dhidden(B * Tn * C, 0.0);
    auto loss = [&] {
      pointer_forward(probs.data(), losses.data(), u.data(), hidden.data(), targets.data(), shape);
      double s = 0;
      for (double l : losses) s += l;
      return s / P;
    };
    loss();
    // each row sums to 1 over what it sees, with nothing on itself, past the length or (causal) ahead
    for (int b = 0; b < B; ++b)
      for (int p = start[b]; p < start[b + 1]; ++p) {
        double sum = 0;
        for (int j = 0; j < Tn; ++j) {
          const double w = probs[std::size_t(p) * Tn + j];
          if (j == pos[p] || j >= lengths[b] || (causal && j > pos[p])) {
            EXPECT_EQ(w, 0.0) << p << " " << j;
          }
          sum += w;
        }
        EXPECT_NEAR(sum, 1.0, 1e-12);
      }
    pointer_backward(du.data(), dhidden.data(), probs.data(), u.data(), hidden.data(), targets.data(), shape, 1.0 / P);
    expect_gradient(causal ? "pointer u (causal)" : "pointer u", u, du, loss);
    expect_gradient(causal ? "pointer hidden (causal)" : "pointer hidden", hidden, dhidden, loss);
  }
}

TEST(ReaderGradients, WholeModelWithThePointerHead) {
  abh::SplitMix64 rng(22);
  for (const bool causal : {false, true}) {
    ModelConfig m;
    m.vocab = 9;
    m.positions = 7;
    m.layers = 2;
    m.heads = 2;
    m.d_model = 8;
    m.mlp = true;
    m.causal = causal;
    m.head = Head::kPointer;
    const ParameterLayout layout = ParameterLayout::of(m);
    EXPECT_EQ(layout.entries.back().name, "W_p");
    EXPECT_EQ(layout.entries[1].rows, 7);  // wpe: one row per position the model reads
    std::vector<float> init(layout.count);
    initialize_parameters(layout, 5, init.data());
    std::vector<double> params(init.begin(), init.end());
    for (double& p : params) p += 0.1 * double(rng.normal());
    Batch batch;
    batch.B = 2;
    batch.T = 7;
    batch.lengths = {7, 4};
    for (int i = 0; i < batch.B * batch.T; ++i) batch.tokens.push_back(int(rng.next() % m.vocab));
    // sequence 0: pronoun at 3 pointing at 1 (causal: also at 4..6); sequence 1: at 2 pointing at 0
    batch.targets = {-1, -1, -1, 1, causal ? 1 : -1, causal ? 1 : -1, causal ? 1 : -1, -1, -1, 0, causal ? 0 : -1,
                     -1, -1, -1};
    Activations<double> acts;
    ActivationGrads<double> dacts;
    std::vector<double> grads(layout.count, 0.0);
    auto loss = [&] { return model_forward(m, layout, params.data(), batch, acts, Rows::kTargets); };
    loss();
    model_backward(m, layout, params.data(), grads.data(), batch, acts, dacts);
    expect_gradient(causal ? "pointer model (causal)" : "pointer model", params, grads, loss, 1e-6, 2e-6);
    // the float model computes the same loss and gradient to float rounding
    expect_float_model_agrees(m, layout, params, grads, loss(), batch, causal ? "causal" : "bidirectional");
  }
}

// ---- a stand-in corpus: "the dog crossed the road because it was tired" and its passive -----------

const std::vector<std::string> kAnimals = {"dog", "cat", "horse", "cow", "fox", "goat"};
const std::vector<std::string> kPlaces = {"road", "river", "street", "bridge", "field"};
const std::vector<std::string> kAnimalWords = {"tired", "hungry", "scared", "sleepy"};
const std::vector<std::string> kPlaceWords = {"wide", "busy", "wet", "long"};

std::vector<std::string> stand_in_vocabulary() {
  std::vector<std::string> v = {"the", "crossed", "was", "by", "because", "it"};
  for (const auto* list : {&kAnimals, &kPlaces, &kAnimalWords, &kPlaceWords})
    v.insert(v.end(), list->begin(), list->end());
  return v;
}

// Held-out words: the (animal, place) pairs with (a + p) % 4 == 0; held-out frame: the passive.
struct StandIn {
  abh::SplitMix64 rng{99};
  corpus::Sentence operator()(corpus::Split split) {
    for (;;) {
      const int a = int(rng.next() % kAnimals.size()), p = int(rng.next() % kPlaces.size());
      const bool animal = rng.next() % 2, passive = split == corpus::Split::kHeldOutFrames;
      const bool heldout_words = (a + p) % 4 == 0;
      if (heldout_words != (split == corpus::Split::kHeldOutWords) && !passive) continue;
      const auto& adjectives = animal ? kAnimalWords : kPlaceWords;
      const std::string adjective = adjectives[rng.next() % adjectives.size()];
      corpus::Sentence s;
      s.frame = passive;
      if (passive) {
        s.words = {"the", kPlaces[p], "was", "crossed", "by", "the", kAnimals[a], "because", "it", "was", adjective};
        s.candidates = {1, 6};
        s.antecedent = animal ? 6 : 1;
        s.pronoun = 8;
      } else {
        s.words = {"the", kAnimals[a], "crossed", "the", kPlaces[p], "because", "it", "was", adjective};
        s.candidates = {1, 4};
        s.antecedent = animal ? 1 : 4;
        s.pronoun = 6;
      }
      return s;
    }
  }
};

std::vector<corpus::Sentence> sample(corpus::Split split, int count) {
  StandIn source;
  source.rng = abh::SplitMix64(1234 + int(split));
  std::vector<corpus::Sentence> out;
  for (int i = 0; i < count; ++i) out.push_back(source(split));
  return out;
}

ReaderConfig small_config(bool causal) {
  ReaderConfig c;
  c.causal = causal;
  c.layers = 2;
  c.heads = 2;
  c.d_model = 16;
  c.batch = 16;
  c.steps = 150;
  c.warmup = 10;
  c.learning_rate = 1e-2f;
  c.word_dropout = 0.05f;
  return c;
}

ReaderTrainer trainer_of(const ReaderConfig& config) {
  auto made = ReaderTrainer::create(config, stand_in_vocabulary(), StandIn{});
  EXPECT_TRUE(made.ok()) << (made.ok() ? "" : made.error());
  return std::move(made.value());
}

TEST(ReaderTask, ExamplesPointAtTheAntecedentFromThePronounOrFromEveryLaterWord) {
  const auto sentence = sample(corpus::Split::kTrain, 1)[0];
  const int n = int(sentence.words.size());
  for (const bool causal : {false, true}) {
    const ReaderModel model = trainer_of(small_config(causal)).model();
    const auto ex = model.example(sentence);
    ASSERT_TRUE(ex.ok());
    for (int t = 0; t < n; ++t) {
      const bool query = causal ? t >= sentence.pronoun : t == sentence.pronoun;
      EXPECT_EQ(ex.value().targets[t], query ? sentence.antecedent : -1) << t;
      EXPECT_EQ(model.vocabulary.words[ex.value().tokens[t]], sentence.words[t]);
    }
  }
  // a sentence longer than the model reads, or whose antecedent is the pronoun, is refused with a reason
  const ReaderModel model = trainer_of(small_config(false)).model();
  corpus::Sentence long_one = sentence;
  long_one.words.resize(kMaxReaderPositions + 1, "the");
  EXPECT_FALSE(model.example(long_one).ok());
  corpus::Sentence self = sentence;
  self.antecedent = self.pronoun;
  EXPECT_FALSE(model.example(self).ok());
}

TEST(ReaderTask, WordDropoutReadsWordsAsUnknownButNeverThePronoun) {
  const ReaderModel model = trainer_of(small_config(false)).model();
  abh::SplitMix64 rng(5);
  int dropped = 0, words = 0;
  for (const auto& s : sample(corpus::Split::kTrain, 400)) {
    const auto ex = model.example(s, 0.25f, rng);
    ASSERT_TRUE(ex.ok());
    EXPECT_NE(ex.value().tokens[s.pronoun], ReaderVocabulary::kUnk);
    for (std::size_t i = 0; i < s.words.size(); ++i)
      if (int(i) != s.pronoun) dropped += ex.value().tokens[i] == ReaderVocabulary::kUnk, ++words;
  }
  EXPECT_NEAR(double(dropped) / words, 0.25, 0.02);
}

TEST(ReaderTrainer, ShortTrainingLowersTheHeldOutLossBothWays) {
  const auto heldout = sample(corpus::Split::kHeldOutWords, 200);
  for (const bool causal : {false, true}) {
    ReaderTrainer trainer = trainer_of(small_config(causal));
    const ReaderScore before = trainer.model().evaluate(heldout);
    ASSERT_TRUE(trainer.step(150).ok());
    const ReaderScore after = trainer.model().evaluate(heldout);
    EXPECT_EQ(after.sentences, 200);
    EXPECT_EQ(after.refused, 0);
    EXPECT_LT(after.loss, 0.5 * before.loss) << (causal ? "causal" : "bidirectional");
    EXPECT_GT(after.accuracy(), before.accuracy());
    // the candidates it learned are the nouns it was trained to point at
    const auto& v = trainer.model().vocabulary;
    EXPECT_TRUE(v.nouns[std::size_t(v.id("dog"))]);
    EXPECT_FALSE(v.nouns[std::size_t(v.id("crossed"))]);
  }
}

TEST(ReaderTrainer, SameSeedGivesTheSameFileAndAnotherSeedDoesNot) {
  const auto file_after = [](std::uint32_t seed) {
    ReaderConfig config = small_config(true);
    config.seed = seed;
    ReaderTrainer trainer = trainer_of(config);
    EXPECT_TRUE(trainer.step(10).ok());
    return encode_reader_weights(trainer.model());
  };
  EXPECT_EQ(file_after(3), file_after(3));
  EXPECT_NE(file_after(3), file_after(4));
}

TEST(ReaderModel, AnswerGivesAPointerAtThePronounAndCausallyAtEveryLaterWord) {
  for (const bool causal : {false, true}) {
    ReaderTrainer trainer = trainer_of(small_config(causal));
    ASSERT_TRUE(trainer.step(20).ok());
    const auto answer =
        trainer.model().answer({"The", "zebra", "crossed", "the", "road", "because", "it", "was", "tired."});
    ASSERT_TRUE(answer.ok());
    const ReaderAnswer& a = answer.value();
    const int n = 9;
    EXPECT_EQ(a.pronoun, 6);
    EXPECT_EQ(a.words[8], "tired");
    EXPECT_EQ(a.unknown, (std::vector<std::uint8_t>{0, 1, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(a.candidates, (std::vector<std::uint8_t>{0, 1, 0, 0, 1, 0, 0, 0, 0}));
    EXPECT_EQ(a.queries, (causal ? std::vector<int>{6, 7, 8} : std::vector<int>{6}));
    ASSERT_EQ(a.pointer.size(), a.queries.size() * n);
    for (std::size_t q = 0; q < a.queries.size(); ++q) {
      double sum = 0;
      for (int j = 0; j < n; ++j) sum += a.pointer[q * n + j];
      EXPECT_NEAR(sum, 1.0, 1e-5);
      EXPECT_EQ(a.pointer[q * n + a.queries[q]], 0.0f);  // never itself
      for (int j = 0; j < n; ++j) {                      // only the candidates: the zebra and the road
        if (!a.candidates[std::size_t(j)]) {
          EXPECT_EQ(a.pointer[q * n + j], 0.0f) << j;
        }
      }
    }
    const float* last = a.pointer.data() + (a.queries.size() - 1) * n;
    EXPECT_EQ(a.probability, last[a.antecedent]);
    EXPECT_EQ(a.attention.size(), std::size_t(2 * 2 * n * n));
  }
  const ReaderModel model = trainer_of(small_config(false)).model();
  const auto none = model.answer({"the", "dog", "crossed", "the", "road"});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none.value().pronoun, -1);
  EXPECT_TRUE(none.value().queries.empty());
  EXPECT_EQ(none.value().antecedent, -1);
  const std::vector<std::string> two = {"the", "dog", "saw", "the", "cat", "and", "it", "said", "it", "was", "tired"};
  EXPECT_EQ(model.answer(two).value().pronoun, 6);
  EXPECT_EQ(model.answer(two, 8).value().pronoun, 8);
  EXPECT_EQ(model.answer(two, 8).value().queries, std::vector<int>{8});
  EXPECT_FALSE(model.answer(two, 7).ok());
  EXPECT_FALSE(model.answer(two, 11).ok());
  // a pronoun first: the bidirectional row reads every other word; causally, the first row that sees a word is 1
  const std::vector<std::string> first = {"it", "was", "tired", "so", "the", "dog", "slept"};
  EXPECT_EQ(model.answer(first).value().queries, std::vector<int>{0});
  ReaderTrainer causal = trainer_of(small_config(true));
  EXPECT_EQ(causal.model().answer(first).value().queries, (std::vector<int>{1, 2, 3, 4, 5, 6}));
  const auto alone = model.answer({"it"});
  ASSERT_TRUE(alone.ok());
  EXPECT_TRUE(alone.value().queries.empty());
  EXPECT_FALSE(model.answer({}).ok());
  EXPECT_FALSE(model.answer(std::vector<std::string>(kMaxReaderPositions + 1, "dog")).ok());
}

// Issue 40: attention restricted to a pattern at inference. Every key allowed, or for the causal model
// the causal band as wide as the sentence, is the model itself, to the bit; a narrow window keeps every
// weight inside it and moves the answer's probability.
TEST(ReaderModel, AnswerWithinAPatternIsTheModelWhenThePatternAllowsEveryKeyItUses) {
  const std::vector<std::string> words{"The", "zebra", "crossed", "the", "road", "because", "it", "was", "tired."};
  const std::size_t n = words.size();
  for (const bool causal : {false, true}) {
    ReaderTrainer trainer = trainer_of(small_config(causal));
    ASSERT_TRUE(trainer.step(20).ok());
    const ReaderModel& model = trainer.model();
    const ReaderAnswer plain = model.answer(words).value();
    std::vector<std::uint8_t> all(n * n, 1), band(n * n, 0), window(n * n, 0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        band[i * n + j] = j <= i;                                                     // causal, width n
        window[i * n + j] = (causal ? j <= i : true) && (i > j ? i - j : j - i) < 2;  // |i - j| < 2
      }
    for (const auto* pattern : causal ? std::vector<const std::vector<std::uint8_t>*>{&all, &band}
                                      : std::vector<const std::vector<std::uint8_t>*>{&all}) {
      const ReaderAnswer same = model.answer(words, *pattern).value();
      EXPECT_EQ(same.antecedent, plain.antecedent);
      EXPECT_EQ(same.probability, plain.probability);
      ASSERT_EQ(same.pointer.size(), plain.pointer.size());
      EXPECT_EQ(std::memcmp(same.pointer.data(), plain.pointer.data(), plain.pointer.size() * sizeof(float)), 0);
      ASSERT_EQ(same.attention.size(), plain.attention.size());
      EXPECT_EQ(std::memcmp(same.attention.data(), plain.attention.data(), plain.attention.size() * sizeof(float)), 0);
    }
    const ReaderAnswer narrow = model.answer(words, window).value();
    EXPECT_NE(narrow.probability, plain.probability);
    // Every attention row of every layer and head: zero outside the window, summing to 1 inside.
    for (std::size_t row = 0; row < narrow.attention.size() / n; ++row) {
      const std::size_t i = row % n;
      double sum = 0;
      for (std::size_t j = 0; j < n; ++j) {
        if (!window[i * n + j]) {
          EXPECT_EQ(narrow.attention[row * n + j], 0.0f) << "row " << row << " key " << j;
        }
        sum += narrow.attention[row * n + j];
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  }
}

TEST(ReaderModel, AnswerWithinAPatternRefusesBadPatterns) {
  const ReaderModel model = trainer_of(small_config(false)).model();
  const std::vector<std::string> words{"the", "dog", "saw", "it"};
  EXPECT_FALSE(model.answer(words, std::vector<std::uint8_t>(15, 1)).ok());
  std::vector<std::uint8_t> no_self(16, 1);
  no_self[5] = 0;
  const auto refused = model.answer(words, no_self);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("row 2"), std::string::npos);
  std::vector<std::uint8_t> two(16, 1);
  two[3] = 2;
  EXPECT_FALSE(model.answer(words, two).ok());
  EXPECT_TRUE(model.answer(words, std::vector<std::uint8_t>(16, 1)).ok());
}

TEST(ReaderSentences, MarkedLinesGiveWordsPronounAntecedentAndRival) {
  EXPECT_EQ(reader_token("(Tired.\""), "tired");
  EXPECT_EQ(reader_token("didn't,"), "didn't");
  EXPECT_EQ(reader_token("..."), "");
  const auto parsed = parse_marked_sentences(
      "# a comment\n\nThe [trophy] did not fit in the <suitcase> because {it} was too big.  # size-fit negation\n"
      "Before {it} slept, the [puppy] chased the <ball>.\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  ASSERT_EQ(parsed.value().size(), 2u);
  const MarkedSentence& first = parsed.value()[0];
  EXPECT_EQ(first.text, "The trophy did not fit in the suitcase because it was too big.");
  EXPECT_EQ(first.sentence.words[12], "big");
  EXPECT_EQ(first.sentence.pronoun, 9);
  EXPECT_EQ(first.sentence.antecedent, 1);
  EXPECT_EQ(first.sentence.candidates, (std::vector<int>{1, 7}));
  EXPECT_EQ(first.tags, (std::vector<std::string>{"size-fit", "negation"}));
  const MarkedSentence& second = parsed.value()[1];
  EXPECT_EQ(second.sentence.pronoun, 1);
  EXPECT_EQ(second.sentence.antecedent, 4);
  EXPECT_EQ(second.sentence.words[2], "slept");
  EXPECT_TRUE(second.tags.empty());
  const auto missing = parse_marked_sentences("ok [a] <b> {it}\nno marks here\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("line 2"), std::string::npos);
  EXPECT_FALSE(parse_marked_sentences("[a] [b] <c> {it}").ok());
}

// ---- the quantized weights file -------------------------------------------------------------------

TEST(ReaderWeights, RoundTripKeepsEveryWeightWithinHalfAStepOfItsRow) {
  ReaderTrainer trainer = trainer_of(small_config(true));
  ASSERT_TRUE(trainer.step(30).ok());
  const ReaderModel& model = trainer.model();
  const auto bytes = encode_reader_weights(model);
  const auto decoded = decode_reader_weights(bytes.data(), bytes.size());
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  const ReaderModel& back = decoded.value();
  EXPECT_EQ(back.vocabulary.words, model.vocabulary.words);
  EXPECT_EQ(back.vocabulary.nouns, model.vocabulary.nouns);
  EXPECT_TRUE(back.config.causal);
  EXPECT_EQ(back.steps, 30);
  EXPECT_EQ(back.layout.count, model.layout.count);
  for (const ParameterEntry& e : model.layout.entries)
    for (int r = 0; r < e.rows; ++r) {
      const float* x = model.parameters.data() + e.offset + std::size_t(r) * e.cols;
      const float* y = back.parameters.data() + e.offset + std::size_t(r) * e.cols;
      float largest = 0;
      for (int i = 0; i < e.cols; ++i) largest = std::max(largest, std::abs(x[i]));
      for (int i = 0; i < e.cols; ++i)
        if (e.rows == 1)
          ASSERT_EQ(x[i], y[i]) << e.name;
        else
          ASSERT_LE(std::abs(x[i] - y[i]), 0.5f * largest / 127.0f * 1.0001f) << e.name << " row " << r;
    }
  // encoding the decoded model again gives the same bytes (the file is a fixed point)
  EXPECT_EQ(encode_reader_weights(back), bytes);
}

TEST(ReaderWeights, DamagedFilesAreRefusedWithReasons) {
  ReaderTrainer trainer = trainer_of(small_config(false));
  const auto good = encode_reader_weights(trainer.model());
  const auto error_of = [](std::vector<std::uint8_t> b) {
    const auto r = decode_reader_weights(b.data(), b.size());
    return r.ok() ? std::string("accepted") : r.error();
  };
  const auto reseal = [](std::vector<std::uint8_t>& b) {
    std::uint32_t hash = 2166136261u;
    for (std::size_t i = 0; i + 4 < b.size(); ++i) hash = (hash ^ b[i]) * 16777619u;
    for (int i = 0; i < 4; ++i) b[b.size() - 4 + i] = std::uint8_t(hash >> (8 * i));
  };
  EXPECT_NE(error_of({}).find("too short"), std::string::npos);
  auto magic = good;
  magic[3] = 'W';
  EXPECT_NE(error_of(magic).find("not a reader weights file"), std::string::npos);
  auto flipped = good;
  flipped[good.size() / 2] ^= 1;
  EXPECT_NE(error_of(flipped).find("damaged"), std::string::npos);
  auto truncated = std::vector<std::uint8_t>(good.begin(), good.end() - 8);
  reseal(truncated);
  EXPECT_NE(error_of(truncated).find("truncated"), std::string::npos);
  auto heads = good;
  heads[4 * 5] = 3;  // 3 heads do not divide d_model 16
  reseal(heads);
  EXPECT_NE(error_of(heads).find("configuration is invalid"), std::string::npos);
  auto extra = good;
  extra.insert(extra.end() - 4, {0, 0, 0, 0});
  reseal(extra);
  EXPECT_NE(error_of(extra).find("too many"), std::string::npos);
  EXPECT_EQ(error_of(good), "accepted");
}

}  // namespace
