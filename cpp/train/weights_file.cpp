#include "weights_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>

namespace abh::train {

namespace {

constexpr char kMagic[4] = {'A', 'B', 'H', 'W'};
const char* const kMasks[] = {"task", "none", "causal"};
const char* const kOptimizers[] = {"adamw", "sgd"};

std::uint32_t fnv1a(const std::uint8_t* bytes, std::size_t size) {
  std::uint32_t hash = 2166136261u;
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 16777619u;
  }
  return hash;
}

void put(std::vector<std::uint8_t>& out, std::uint32_t word) {
  for (int i = 0; i < 4; ++i) out.push_back(std::uint8_t(word >> (8 * i)));
}
std::uint32_t bits_of(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}
float float_of(std::uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
std::uint32_t get(const std::uint8_t* bytes, std::size_t word) {
  const std::uint8_t* p = bytes + 4 * word;
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
template <std::size_t N>
std::uint32_t index_of(const char* const (&names)[N], const std::string& name) {
  for (std::size_t i = 0; i < N; ++i)
    if (name == names[i]) return std::uint32_t(i);
  return 0;
}

}  // namespace

std::vector<std::uint8_t> encode_weights(const WeightsFile& file) {
  const TrainConfig& c = file.config;
  const auto task = Task::make(c.task);
  std::vector<std::uint8_t> out(kMagic, kMagic + 4);
  std::uint32_t task_index = 0;
  while (task_index < Task::names().size() && Task::names()[task_index] != c.task) ++task_index;
  put(out, kWeightsVersion);
  put(out, task_index);
  put(out, std::uint32_t(task.value().vocabulary().words.size()));
  put(out, task.value().vocabulary().checksum());
  put(out, std::uint32_t(c.layers));
  put(out, std::uint32_t(c.heads));
  put(out, std::uint32_t(c.d_model));
  put(out, std::uint32_t(kMaxPositions));
  put(out, (c.layer_norm ? 1u : 0u) | (c.mlp ? 2u : 0u) | (c.scale ? 4u : 0u));
  put(out, index_of(kMasks, c.mask));
  put(out, index_of(kOptimizers, c.optimizer));
  put(out, bits_of(c.learning_rate));
  put(out, bits_of(c.weight_decay));
  put(out, bits_of(c.momentum));
  put(out, bits_of(c.clip));
  put(out, std::uint32_t(c.batch));
  put(out, c.seed);
  put(out, std::uint32_t(file.steps));
  put(out, bits_of(file.heldout_accuracy));
  put(out, std::uint32_t(file.parameters.size()));
  for (float p : file.parameters) put(out, bits_of(p));
  put(out, fnv1a(out.data(), out.size()));
  return out;
}

Expected<WeightsFile> decode_weights(const std::uint8_t* bytes, std::size_t size) {
  using E = Expected<WeightsFile>;
  const std::size_t minimum = 4 * (kWeightsHeaderWords + 1);
  if (bytes == nullptr || size < minimum)
    return E::failure("the weights file is too short (" + std::to_string(size) +
                      " bytes; a weights file has at least " + std::to_string(minimum) + ")");
  if (size > kMaxWeightsBytes)
    return E::failure("the weights file is too large (" + std::to_string(size) + " bytes, at most " +
                      std::to_string(kMaxWeightsBytes) + ")");
  if (std::memcmp(bytes, kMagic, 4) != 0)
    return E::failure("this is not a weights file (it does not start with \"ABHW\")");
  if (size % 4 != 0)
    return E::failure("the weights file's size (" + std::to_string(size) +
                      " bytes) is not a whole number of 4-byte words");
  const std::uint32_t version = get(bytes, 1);
  if (version != kWeightsVersion)
    return E::failure("the weights file has version " + std::to_string(version) + "; this engine reads version " +
                      std::to_string(kWeightsVersion));
  const std::uint32_t count = get(bytes, 20);
  const std::size_t expected_size = 4 * (kWeightsHeaderWords + std::size_t(count) + 1);
  if (size != expected_size)
    return E::failure("the weights file has " + std::to_string(size) + " bytes; its header announces " +
                      std::to_string(count) + " parameters, which take " + std::to_string(expected_size) +
                      " (truncated or damaged)");
  if (fnv1a(bytes, size - 4) != get(bytes, size / 4 - 1))
    return E::failure("the weights file is damaged (its checksum does not match)");

  WeightsFile file;
  TrainConfig& c = file.config;
  const std::uint32_t task_index = get(bytes, 2);
  if (task_index >= Task::names().size())
    return E::failure("the weights file is for an unknown task (" + std::to_string(task_index) + ")");
  c.task = Task::names()[task_index];
  const auto task = Task::make(c.task);
  if (get(bytes, 3) != task.value().vocabulary().words.size() || get(bytes, 4) != task.value().vocabulary().checksum())
    return E::failure("the weights file was trained on a different vocabulary of the task \"" + c.task +
                      "\" than this engine's");
  const auto small = [](std::uint32_t w) { return w > 1u << 20 ? -1 : int(w); };
  c.layers = small(get(bytes, 5));
  c.heads = small(get(bytes, 6));
  c.d_model = small(get(bytes, 7));
  if (get(bytes, 8) != std::uint32_t(kMaxPositions))
    return E::failure("the weights file has " + std::to_string(get(bytes, 8)) +
                      " position embeddings; this engine has " + std::to_string(kMaxPositions));
  const std::uint32_t flags = get(bytes, 9);
  if (flags > 7) return E::failure("the weights file has unknown flags (" + std::to_string(flags) + ")");
  c.layer_norm = flags & 1;
  c.mlp = flags & 2;
  c.scale = flags & 4;
  if (get(bytes, 10) >= std::size(kMasks) || get(bytes, 11) >= std::size(kOptimizers))
    return E::failure("the weights file has an unknown mask or optimizer");
  c.mask = kMasks[get(bytes, 10)];
  c.optimizer = kOptimizers[get(bytes, 11)];
  c.learning_rate = float_of(get(bytes, 12));
  c.weight_decay = float_of(get(bytes, 13));
  c.momentum = float_of(get(bytes, 14));
  c.clip = float_of(get(bytes, 15));
  c.batch = small(get(bytes, 16));
  c.seed = get(bytes, 17);
  file.steps = small(get(bytes, 18));
  file.heldout_accuracy = float_of(get(bytes, 19));
  if (const Status valid = check_train_config(c); !valid.ok())
    return E::failure("the weights file's configuration is invalid: " + valid.error());
  if (file.steps < 0 || file.steps > kMaxTotalSteps ||
      !(file.heldout_accuracy >= 0.0f && file.heldout_accuracy <= 1.0f))
    return E::failure("the weights file's training record is invalid");
  ModelConfig model;
  model.vocab = int(task.value().vocabulary().words.size());
  model.layers = c.layers;
  model.heads = c.heads;
  model.d_model = c.d_model;
  model.layer_norm = c.layer_norm;
  model.mlp = c.mlp;
  const std::size_t needed = ParameterLayout::of(model).count;
  if (count != needed)
    return E::failure("the weights file has " + std::to_string(count) + " parameters; its configuration needs " +
                      std::to_string(needed));
  file.parameters.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    file.parameters[i] = float_of(get(bytes, kWeightsHeaderWords + i));
    if (!std::isfinite(file.parameters[i]))
      return E::failure("the weights file has a value that is not a finite number (parameter " + std::to_string(i) +
                        ")");
  }
  return file;
}

// ---- the reader model's quantized file ---------------------------------------------------------

namespace {

constexpr char kReaderMagic[4] = {'A', 'B', 'H', 'R'};
constexpr std::size_t kReaderHeaderWords = 12;  // magic + 11 words

void pad4(std::vector<std::uint8_t>& out) {
  while (out.size() % 4) out.push_back(0);
}
std::size_t padded4(std::size_t n) { return (n + 3) / 4 * 4; }

// A byte cursor over a file whose total size was checked: every read says whether it fitted.
struct ByteCursor {
  const std::uint8_t* bytes;
  std::size_t size, at;
  bool take(std::size_t n) {
    if (n > size - at) return false;
    at += n;
    return true;
  }
};

}  // namespace

std::vector<std::uint8_t> encode_reader_weights(const ReaderModel& m) {
  const ModelConfig& c = m.config;
  std::vector<std::uint8_t> out(kReaderMagic, kReaderMagic + 4);
  std::string words;
  for (std::size_t i = 0; i < m.vocabulary.words.size(); ++i) words += (i ? "\n" : "") + m.vocabulary.words[i];
  for (const std::uint32_t word :
       {kReaderWeightsVersion, std::uint32_t(TaskKind::kReader), (c.causal ? 1u : 0u) | (c.mlp ? 2u : 0u),
        std::uint32_t(c.layers), std::uint32_t(c.heads), std::uint32_t(c.d_model), std::uint32_t(c.positions),
        std::uint32_t(c.vocab), std::uint32_t(m.steps), m.seed, std::uint32_t(words.size())})
    put(out, word);
  out.insert(out.end(), words.begin(), words.end());
  pad4(out);
  const std::size_t flags_at = out.size();
  out.resize(out.size() + (std::size_t(c.vocab) + 7) / 8, 0);
  for (std::size_t i = 0; i < m.vocabulary.nouns.size(); ++i)
    if (m.vocabulary.nouns[i]) out[flags_at + i / 8] |= std::uint8_t(1u << (i % 8));
  pad4(out);
  for (const ParameterEntry& e : m.layout.entries) {
    const float* x = m.parameters.data() + e.offset;
    if (e.rows == 1) {
      for (int i = 0; i < e.cols; ++i) put(out, bits_of(x[i]));
      continue;
    }
    std::vector<float> scales(e.rows);
    for (int r = 0; r < e.rows; ++r) {
      float largest = 0;
      for (int i = 0; i < e.cols; ++i) largest = std::max(largest, std::abs(x[std::size_t(r) * e.cols + i]));
      scales[r] = largest / 127.0f;
      put(out, bits_of(scales[r]));
    }
    for (int r = 0; r < e.rows; ++r)
      for (int i = 0; i < e.cols; ++i) {
        const float q = scales[r] > 0.0f ? std::nearbyint(x[std::size_t(r) * e.cols + i] / scales[r]) : 0.0f;
        out.push_back(std::uint8_t(std::int8_t(std::max(-127.0f, std::min(127.0f, q)))));
      }
    pad4(out);
  }
  put(out, fnv1a(out.data(), out.size()));
  return out;
}

Expected<ReaderModel> decode_reader_weights(const std::uint8_t* bytes, std::size_t size) {
  using E = Expected<ReaderModel>;
  const std::size_t minimum = 4 * (kReaderHeaderWords + 1);
  if (bytes == nullptr || size < minimum)
    return E::failure("the reader weights file is too short (" + std::to_string(size) + " bytes)");
  if (size > kMaxReaderWeightsBytes)
    return E::failure("the reader weights file is too large (" + std::to_string(size) + " bytes, at most " +
                      std::to_string(kMaxReaderWeightsBytes) + ")");
  if (std::memcmp(bytes, kReaderMagic, 4) != 0)
    return E::failure("this is not a reader weights file (it does not start with \"ABHR\")");
  if (size % 4 != 0) return E::failure("the reader weights file's size is not a whole number of 4-byte words");
  if (get(bytes, 1) != kReaderWeightsVersion)
    return E::failure("the reader weights file has version " + std::to_string(get(bytes, 1)) +
                      "; this engine reads version " + std::to_string(kReaderWeightsVersion));
  if (fnv1a(bytes, size - 4) != get(bytes, size / 4 - 1))
    return E::failure("the reader weights file is damaged (its checksum does not match)");
  if (get(bytes, 2) != std::uint32_t(TaskKind::kReader))
    return E::failure("the reader weights file is for another task");
  const std::uint32_t flags = get(bytes, 3);
  const auto small = [](std::uint32_t w) { return w > 1u << 20 ? -1 : int(w); };
  ReaderConfig rc;
  rc.causal = flags & 1;
  rc.mlp = flags & 2;
  rc.layers = small(get(bytes, 4));
  rc.heads = small(get(bytes, 5));
  rc.d_model = small(get(bytes, 6));
  const int positions = small(get(bytes, 7)), vocab = small(get(bytes, 8));
  if (flags > 3) return E::failure("the reader weights file has unknown flags (" + std::to_string(flags) + ")");
  if (const Status valid = check_reader_config(rc); !valid.ok())
    return E::failure("the reader weights file's configuration is invalid: " + valid.error());
  if (positions != kMaxReaderPositions)
    return E::failure("the reader weights file has " + std::to_string(get(bytes, 7)) +
                      " position embeddings; this engine has " + std::to_string(kMaxReaderPositions));
  if (vocab < 2) return E::failure("the reader weights file's vocabulary is invalid");
  ByteCursor in{bytes, size - 4, 4 * kReaderHeaderWords};
  const std::size_t words_at = in.at, word_bytes = get(bytes, 11);
  if (!in.take(padded4(word_bytes))) return E::failure("the reader weights file is truncated (vocabulary)");
  ReaderVocabulary vocabulary;
  std::string word;
  for (std::size_t i = 0; i <= word_bytes; ++i) {
    if (i == word_bytes || bytes[words_at + i] == '\n') {
      vocabulary.words.push_back(word);
      word.clear();
    } else {
      word += char(bytes[words_at + i]);
    }
  }
  if (int(vocabulary.words.size()) != vocab || vocabulary.words[0] != "<pad>" || vocabulary.words[1] != "<unk>")
    return E::failure("the reader weights file's vocabulary does not match its header");
  const std::size_t flags_at = in.at;
  if (!in.take(padded4((std::size_t(vocab) + 7) / 8)))
    return E::failure("the reader weights file is truncated (noun flags)");
  vocabulary.nouns.resize(vocab);
  for (int i = 0; i < vocab; ++i) vocabulary.nouns[i] = (bytes[flags_at + i / 8] >> (i % 8)) & 1;
  ReaderModel m = ReaderModel::shaped(rc, std::move(vocabulary));
  m.steps = small(get(bytes, 9));
  m.seed = get(bytes, 10);
  for (const ParameterEntry& e : m.layout.entries) {
    float* x = m.parameters.data() + e.offset;
    const std::size_t rows = std::size_t(e.rows), cols = std::size_t(e.cols), at = in.at;
    if (e.rows == 1) {
      if (!in.take(4 * cols)) return E::failure("the reader weights file is truncated (" + e.name + ")");
      for (std::size_t i = 0; i < cols; ++i) x[i] = float_of(get(bytes, at / 4 + i));
    } else {
      if (!in.take(4 * rows + padded4(rows * cols)))
        return E::failure("the reader weights file is truncated (" + e.name + ")");
      for (std::size_t r = 0; r < rows; ++r) {
        const float scale = float_of(get(bytes, at / 4 + r));
        for (std::size_t i = 0; i < cols; ++i)
          x[r * cols + i] = float(std::int8_t(bytes[at + 4 * rows + r * cols + i])) * scale;
      }
    }
    for (std::size_t i = 0; i < rows * cols; ++i)
      if (!std::isfinite(x[i]))
        return E::failure("the reader weights file has a value that is not finite (" + e.name + ")");
  }
  if (in.at != in.size)
    return E::failure("the reader weights file has " + std::to_string(in.size - in.at) + " bytes too many");
  return m;
}

}  // namespace abh::train
