#include "reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace abh::train {

namespace {

constexpr std::string_view kPronouns[] = {"it", "its", "they", "them", "their", "he", "him", "his", "she", "her"};
constexpr int kEvaluationBatch = 64;  // sentences per forward pass when scoring a set

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

ModelConfig model_config_of(const ReaderConfig& c, int vocab) {
  ModelConfig m;
  m.vocab = vocab;
  m.positions = kMaxReaderPositions;
  m.layers = c.layers;
  m.heads = c.heads;
  m.d_model = c.d_model;
  m.layer_norm = true;
  m.mlp = c.mlp;
  m.scale = true;
  m.causal = c.causal;
  m.head = Head::kPointer;
  return m;
}

// The positions whose pointer row is trained and read: the pronoun, or (causal) the pronoun and every
// later position that already sees the antecedent.
std::vector<int> query_positions(bool causal, int n, int pronoun, int antecedent) {
  std::vector<int> out;
  if (!causal) return {pronoun};
  for (int t = pronoun; t < n; ++t)
    if (antecedent < t) out.push_back(t);
  return out;
}

// An antecedent is a noun phrase's head, so the answer is read only over the words that can be one
// (ReaderModel::candidates_of): the pointer row's weights are renormalized over them, and a row that
// sees none is left whole.
void restrict_to_candidates(float* row, int n, const std::vector<std::uint8_t>& candidates) {
  double kept = 0;
  for (int j = 0; j < n; ++j) kept += candidates[std::size_t(j)] ? row[j] : 0.0f;
  if (!(kept > 0)) return;
  for (int j = 0; j < n; ++j) row[j] = candidates[std::size_t(j)] ? float(row[j] / kept) : 0.0f;
}

}  // namespace

bool is_reader_pronoun(std::string_view word) {
  return std::find(std::begin(kPronouns), std::end(kPronouns), word) != std::end(kPronouns);
}

std::string reader_token(std::string_view word) {
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  std::size_t first = 0, last = word.size();
  while (first < last && !alnum(word[first])) ++first;
  while (last > first && !alnum(word[last - 1])) --last;
  std::string out(word.substr(first, last - first));
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

Expected<std::vector<MarkedSentence>> parse_marked_sentences(std::string_view text) {
  using E = Expected<std::vector<MarkedSentence>>;
  std::vector<MarkedSentence> out;
  int line_number = 0;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    const std::size_t content = line.find_first_not_of(" \t\r");
    if (content == std::string_view::npos || line[content] == '#') continue;
    MarkedSentence m;
    const std::size_t hash = line.find('#');
    if (hash != std::string_view::npos) {
      std::string_view tags = line.substr(hash + 1);
      for (std::size_t t = 0; t < tags.size();) {
        const std::size_t stop = std::min(tags.find(' ', t), tags.size());
        if (stop > t) m.tags.emplace_back(tags.substr(t, stop - t));
        t = stop + 1;
      }
      line = line.substr(0, hash);
    }
    corpus::Sentence& s = m.sentence;
    int rival = -1;
    for (std::size_t w = 0; w < line.size();) {
      const std::size_t stop = std::min(line.find_first_of(" \t\r", w), line.size());
      std::string_view word = line.substr(w, stop - w);
      w = stop + 1;
      if (word.empty()) continue;
      std::string plain;
      int* mark = nullptr;
      for (const char c : word) {
        if (c == '{') mark = &s.pronoun;
        if (c == '[') mark = &s.antecedent;
        if (c == '<') mark = &rival;
        if (std::string_view("{}[]<>").find(c) == std::string_view::npos) plain += c;
      }
      if (mark && *mark >= 0) return E::failure("line " + std::to_string(line_number) + " repeats a mark");
      if (mark) *mark = int(s.words.size());
      m.text += (m.text.empty() ? "" : " ") + plain;
      s.words.push_back(reader_token(plain));
    }
    if (s.pronoun < 0 || s.antecedent < 0 || rival < 0)
      return E::failure("line " + std::to_string(line_number) + " lacks one of the marks {pronoun} [answer] <rival>");
    s.candidates = {std::min(s.antecedent, rival), std::max(s.antecedent, rival)};
    out.push_back(std::move(m));
  }
  return out;
}

ReaderVocabulary ReaderVocabulary::of(const std::vector<std::string>& corpus_words) {
  ReaderVocabulary v;
  v.words = {"<pad>", "<unk>"};
  v.index();
  for (const auto& w : corpus_words)
    if (!w.empty() && !v.ids_.count(w)) {
      v.ids_.emplace(w, int(v.words.size()));
      v.words.push_back(w);
    }
  v.nouns.assign(v.words.size(), 0);
  return v;
}

int ReaderVocabulary::id(std::string_view word) const {
  const auto found = ids_.find(std::string(word));
  return found == ids_.end() ? kUnk : found->second;
}

void ReaderVocabulary::index() {
  ids_.clear();
  for (std::size_t i = 0; i < words.size(); ++i) ids_.emplace(words[i], int(i));
}

Expected<int> ReaderModel::use_aliases(std::string_view table) {
  std::unordered_map<std::string, ReaderAlias> read;
  int line_number = 0;
  for (std::size_t start = 0; start < table.size();) {
    const std::size_t end = std::min(table.find('\n', start), table.size());
    std::string_view line = table.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.empty()) continue;
    const auto refuse = [&](const std::string& why) {
      return Expected<int>::failure("alias table line " + std::to_string(line_number) + ": " + why);
    };
    std::vector<std::string_view> fields;  // target, relation, then the words read as that target
    for (std::size_t at = 0; at <= line.size();) {
      const std::size_t space = std::min(line.find(' ', at), line.size());
      fields.push_back(line.substr(at, space - at));
      at = space + 1;
    }
    if (fields.size() < 3) return refuse("expected \"target relation word...\"");
    const auto* named = std::find(std::begin(kReaderAliasRelations), std::end(kReaderAliasRelations), fields[1]);
    if (named == std::end(kReaderAliasRelations)) return refuse("no relation \"" + std::string(fields[1]) + "\"");
    const ReaderAlias alias{vocabulary.id(fields[0]), std::uint8_t(named - std::begin(kReaderAliasRelations))};
    for (std::size_t w = 2; w < fields.size(); ++w) {
      const std::string word(fields[w]);
      if (word.empty() || reader_token(word) != word) return refuse("a word must be lower case, one space apart");
      // the vocabulary wins over the table; a target this vocabulary lacks reads nothing
      if (alias.id != ReaderVocabulary::kUnk && vocabulary.id(word) == ReaderVocabulary::kUnk)
        read.emplace(word, alias);
    }
  }
  aliases = std::move(read);
  return int(aliases.size());
}

int ReaderModel::token_id(std::string_view word, const ReaderAlias** alias) const {
  if (alias) *alias = nullptr;
  if (word.empty() || word[0] == '<') return ReaderVocabulary::kUnk;
  const int id = vocabulary.id(word);
  if (id != ReaderVocabulary::kUnk || aliases.empty()) return id;
  const auto found = aliases.find(std::string(word));
  if (found == aliases.end()) return ReaderVocabulary::kUnk;
  if (alias) *alias = &found->second;
  return found->second.id;
}

Status check_reader_config(const ReaderConfig& c) {
  if (c.layers < 1 || c.layers > kMaxLayers)
    return Failure{"layers must be 1 to " + std::to_string(kMaxLayers) + " (got " + std::to_string(c.layers) + ")"};
  if (c.heads < 1 || c.heads > kMaxHeads)
    return Failure{"heads must be 1 to " + std::to_string(kMaxHeads) + " (got " + std::to_string(c.heads) + ")"};
  if (c.d_model < kMinDModel || c.d_model > kMaxDModel || c.d_model % c.heads != 0)
    return Failure{"d_model must be " + std::to_string(kMinDModel) + " to " + std::to_string(kMaxDModel) +
                   " and a multiple of heads (got " + std::to_string(c.d_model) + ")"};
  if (!(c.learning_rate > 0.0f && c.learning_rate <= 1.0f))
    return Failure{"the learning rate must be above 0 and at most 1 (got " + number(c.learning_rate) + ")"};
  if (!(c.weight_decay >= 0.0f && c.weight_decay <= 1.0f))
    return Failure{"the weight decay must be 0 to 1 (got " + number(c.weight_decay) + ")"};
  if (!(c.clip >= 0.0f && c.clip <= 1e6f)) return Failure{"the gradient clip must be 0 to 1e6"};
  if (c.batch < 1 || c.batch > 256) return Failure{"the batch must be 1 to 256 (got " + std::to_string(c.batch) + ")"};
  if (c.steps < 1 || c.steps > 1000000)
    return Failure{"steps must be 1 to 1000000 (got " + std::to_string(c.steps) + ")"};
  if (c.warmup < 0 || c.warmup > c.steps) return Failure{"the warm-up must be 0 to steps"};
  if (!(c.word_dropout >= 0.0f && c.word_dropout < 1.0f))
    return Failure{"the word dropout must be at least 0 and below 1 (got " + number(c.word_dropout) + ")"};
  return Ok{};
}

// ---- the model ----------------------------------------------------------------------------------

ReaderModel ReaderModel::shaped(const ReaderConfig& c, ReaderVocabulary vocabulary) {
  ReaderModel m;
  vocabulary.index();
  m.config = model_config_of(c, int(vocabulary.words.size()));
  m.layout = ParameterLayout::of(m.config);
  m.parameters.assign(m.layout.count, 0.0f);
  m.vocabulary = std::move(vocabulary);
  m.seed = c.seed;
  return m;
}

ReaderModel ReaderModel::initialized(const ReaderConfig& c, ReaderVocabulary vocabulary) {
  ReaderModel m = shaped(c, std::move(vocabulary));
  initialize_parameters(m.layout, c.seed, m.parameters.data());
  return m;
}

Expected<ReaderExample> ReaderModel::example(const corpus::Sentence& s) const {
  SplitMix64 unused(0);
  return example(s, 0.0f, unused);
}

Expected<ReaderExample> ReaderModel::example(const corpus::Sentence& s, float dropout, SplitMix64& rng) const {
  using E = Expected<ReaderExample>;
  const int n = int(s.words.size());
  if (n < 2 || n > config.positions)
    return E::failure("the sentence has " + std::to_string(n) + " words; the model reads 2 to " +
                      std::to_string(config.positions));
  if (s.pronoun < 0 || s.pronoun >= n || s.antecedent < 0 || s.antecedent >= n || s.antecedent == s.pronoun)
    return E::failure("the sentence's pronoun or antecedent is not a word of it");
  ReaderExample ex;
  ex.pronoun = s.pronoun;
  ex.antecedent = s.antecedent;
  for (int i = 0; i < n; ++i) {
    int id = token_id(s.words[i]);
    // the draw happens for every word but the pronoun, so the stream does not depend on the words
    if (i != s.pronoun && dropout > 0.0f && float(rng.next() >> 40) * (1.0f / 16777216.0f) < dropout)
      id = ReaderVocabulary::kUnk;
    ex.tokens.push_back(id);
  }
  ex.targets.assign(n, -1);
  const auto queries = query_positions(config.causal, n, s.pronoun, s.antecedent);
  if (queries.empty()) return E::failure("the antecedent comes after the last word");
  for (const int t : queries) ex.targets[t] = s.antecedent;
  return ex;
}

void ReaderModel::pack(const std::vector<ReaderExample>& examples, std::size_t first, int count, Batch& out) {
  int Tn = 1;
  for (int b = 0; b < count; ++b) Tn = std::max(Tn, int(examples[first + b].tokens.size()));
  pack_batch(examples, first, count, Tn, ReaderVocabulary::kPad, out);
}

std::vector<std::uint8_t> ReaderModel::candidates_of(const std::vector<std::string>& words,
                                                     const std::vector<int>& ids) const {
  std::vector<std::uint8_t> out(words.size(), 0);
  for (std::size_t i = 0; i < words.size(); ++i)
    out[i] = !words[i].empty() && !is_reader_pronoun(words[i]) &&
             (ids[i] == ReaderVocabulary::kUnk || vocabulary.nouns[std::size_t(ids[i])]);
  return out;
}

Expected<ReaderAnswer> ReaderModel::answer(const std::vector<std::string>& words, int pronoun) const {
  return answer_with(words, pronoun, nullptr);
}

Expected<ReaderAnswer> ReaderModel::answer(const std::vector<std::string>& words,
                                           const std::vector<std::uint8_t>& allowed, int pronoun) const {
  using E = Expected<ReaderAnswer>;
  const std::size_t n = words.size();
  if (allowed.size() != n * n)
    return E::failure("the pattern must be (n, n) = " + std::to_string(n * n) + " entries for " + std::to_string(n) +
                      " words (got " + std::to_string(allowed.size()) + ")");
  for (std::size_t i = 0; i < n; ++i) {
    if (allowed[i * n + i] != 1)
      return E::failure("the pattern must let each word use itself (row " + std::to_string(i + 1) + ")");
    for (std::size_t j = 0; j < n; ++j)
      if (allowed[i * n + j] > 1) return E::failure("the pattern's entries must be 0 or 1");
  }
  return answer_with(words, pronoun, &allowed);
}

Expected<ReaderAnswer> ReaderModel::answer_with(const std::vector<std::string>& words, int pronoun,
                                                const std::vector<std::uint8_t>* allowed) const {
  using E = Expected<ReaderAnswer>;
  const int n = int(words.size());
  if (n == 0) return E::failure("the sentence is empty");
  if (n > config.positions)
    return E::failure("the model reads at most " + std::to_string(config.positions) + " words (got " +
                      std::to_string(n) + ")");
  ReaderAnswer out;
  std::vector<int> ids;
  for (const auto& w : words) {
    out.words.push_back(reader_token(w));
    const std::string& word = out.words.back();
    const ReaderAlias* alias = nullptr;
    const int id = token_id(word, &alias);
    ids.push_back(id);
    out.unknown.push_back(id == ReaderVocabulary::kUnk);
    out.read_as.push_back(alias ? alias->id : -1);
    out.relation.push_back(alias ? alias->relation : 0);
    if (out.pronoun < 0 && is_reader_pronoun(word)) out.pronoun = int(out.words.size()) - 1;
  }
  if (pronoun >= 0) {
    if (pronoun >= n || !is_reader_pronoun(out.words[std::size_t(pronoun)]))
      return E::failure("word " + std::to_string(pronoun + 1) + " is not a pronoun the model resolves");
    out.pronoun = pronoun;
  }
  out.candidates = candidates_of(out.words, ids);
  Batch batch;
  batch.B = 1;
  batch.T = n;
  batch.tokens = ids;
  batch.lengths = {n};
  batch.targets.assign(n, -1);
  if (allowed) batch.allowed = *allowed;
  if (out.pronoun >= 0)
    for (int t = out.pronoun; t < (config.causal ? n : out.pronoun + 1); ++t) {
      const int seen = t == 0 ? 1 : 0;  // a position row t sees, as its target: only the probabilities are read
      if (seen >= n || (config.causal && seen > t)) continue;
      batch.targets[t] = seen;
      out.queries.push_back(t);
    }
  Activations<float> acts;
  model_forward(config, layout, parameters.data(), batch, acts);
  out.layers = config.layers;
  out.heads = config.heads;
  for (int l = 0; l < config.layers; ++l)
    out.attention.insert(out.attention.end(), acts.layer[l].att.begin(), acts.layer[l].att.end());
  out.pointer.assign(acts.probs.begin(), acts.probs.begin() + std::ptrdiff_t(out.queries.size()) * n);
  for (std::size_t q = 0; q < out.queries.size(); ++q) restrict_to_candidates(&out.pointer[q * n], n, out.candidates);
  if (!out.queries.empty()) {
    const float* last = out.pointer.data() + (out.queries.size() - 1) * std::size_t(n);
    out.antecedent = int(std::max_element(last, last + n) - last);
    out.probability = last[out.antecedent];
  }
  return out;
}

template <typename Visit>
void ReaderModel::for_each_batch(const std::vector<corpus::Sentence>& sentences, Visit&& visit) const {
  std::vector<ReaderExample> examples;
  std::vector<std::size_t> index;  // sentence of each example
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    auto ex = example(sentences[i]);
    if (!ex.ok()) continue;
    examples.push_back(std::move(ex.value()));
    index.push_back(i);
  }
  Batch batch;
  Activations<float> acts;
  for (std::size_t first = 0; first < examples.size(); first += kEvaluationBatch) {
    const int count = int(std::min<std::size_t>(kEvaluationBatch, examples.size() - first));
    pack(examples, first, count, batch);
    model_forward(config, layout, parameters.data(), batch, acts);
    for (int b = 0; b < count; ++b) {
      // the answer row: the sequence's last query row (the pronoun, or causal the last word)
      const int p = acts.target_start[b + 1] - 1;
      const ReaderExample& ex = examples[first + b];
      const int n = int(ex.tokens.size());
      std::vector<float> row(acts.probs.begin() + std::ptrdiff_t(p) * batch.T,
                             acts.probs.begin() + std::ptrdiff_t(p) * batch.T + n);
      restrict_to_candidates(row.data(), n, candidates_of(sentences[index[first + b]].words, ex.tokens));
      const int best = int(std::max_element(row.begin(), row.end()) - row.begin());
      visit(index[first + b], best, -std::log(std::max(double(row[std::size_t(ex.antecedent)]), 1e-30)));
    }
  }
}

ReaderScore ReaderModel::evaluate(const std::vector<corpus::Sentence>& sentences) const {
  ReaderScore score;
  score.sentences = int(sentences.size());
  int answered = 0;
  for_each_batch(sentences, [&](std::size_t i, int best, double loss) {
    score.correct += best == sentences[i].antecedent;
    score.loss += loss;
    ++answered;
  });
  score.refused = score.sentences - answered;
  score.loss = answered ? score.loss / answered : 0.0;
  return score;
}

std::vector<int> ReaderModel::answers(const std::vector<corpus::Sentence>& sentences) const {
  std::vector<int> out(sentences.size(), -1);
  for_each_batch(sentences, [&](std::size_t i, int best, double) { out[i] = best; });
  return out;
}

// ---- training -----------------------------------------------------------------------------------

Expected<ReaderTrainer> ReaderTrainer::create(const ReaderConfig& config, const std::vector<std::string>& vocabulary,
                                              SentenceSource source) {
  if (const Status valid = check_reader_config(config); !valid.ok()) return Failure{valid.error()};
  if (!source) return Failure{"the reader trainer needs a sentence source"};
  ReaderTrainer t;
  t.config_ = config;
  t.model_ = ReaderModel::initialized(config, ReaderVocabulary::of(vocabulary));
  t.source_ = std::move(source);
  OptimizerConfig o;
  o.learning_rate = config.learning_rate;
  o.weight_decay = config.weight_decay;
  o.clip = config.clip;
  t.optimizer_ = Optimizer(o, t.model_.layout.count);
  t.dropout_rng_ = SplitMix64(stream_seed(config.seed, 0x64726f7000000000ull));  // "drop"
  t.grads_.assign(t.model_.layout.count, 0.0f);
  return t;
}

float ReaderTrainer::learning_rate_at(int step) const {
  const float peak = config_.learning_rate;
  if (step < config_.warmup) return peak * float(step + 1) / float(config_.warmup);
  const float progress = float(step - config_.warmup) / float(std::max(1, config_.steps - config_.warmup));
  const float cosine = 0.5f * (1.0f + std::cos(3.14159265f * std::min(progress, 1.0f)));
  return peak * (0.1f + 0.9f * cosine);
}

Expected<ReaderStep> ReaderTrainer::step(int steps) {
  using E = Expected<ReaderStep>;
  if (steps < 1) return E::failure("steps must be at least 1");
  ReaderStep report;
  double loss_sum = 0;
  for (int s = 0; s < steps; ++s) {
    examples_.clear();
    while (int(examples_.size()) < config_.batch) {
      const corpus::Sentence sentence = source_(corpus::Split::kTrain);
      auto ex = model_.example(sentence, config_.word_dropout, dropout_rng_);
      if (!ex.ok()) continue;  // the generator's rare sentence the model cannot read is skipped
      for (const int c : sentence.candidates) {
        const int id = model_.vocabulary.id(sentence.words[std::size_t(c)]);
        if (id != ReaderVocabulary::kUnk) model_.vocabulary.nouns[std::size_t(id)] = 1;
      }
      examples_.push_back(std::move(ex.value()));
    }
    ReaderModel::pack(examples_, 0, config_.batch, batch_);
    const float loss = model_forward(model_.config, model_.layout, model_.parameters.data(), batch_, acts_);
    std::fill(grads_.begin(), grads_.end(), 0.0f);
    model_backward(model_.config, model_.layout, model_.parameters.data(), grads_.data(), batch_, acts_, dacts_);
    const float norm = clip_gradients(grads_.data(), grads_.size(), config_.clip);
    if (!std::isfinite(loss) || !std::isfinite(norm))
      return E::failure("training diverged at step " + std::to_string(model_.steps + 1) + ": lower the learning rate");
    report.learning_rate = learning_rate_at(model_.steps);
    optimizer_.set_learning_rate(report.learning_rate);
    optimizer_.step(model_.parameters.data(), grads_.data());
    ++model_.steps;
    loss_sum += loss;
  }
  report.step = model_.steps;
  report.loss = float(loss_sum / steps);
  return report;
}

}  // namespace abh::train
