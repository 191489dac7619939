// The weights file: a trained model in a few tens of kilobytes, everything little-endian.
//
//   bytes 0..3    magic "ABHW"
//   words 1..19   uint32: version (1), task (index in Task::names()), vocabulary size, vocabulary
//                 checksum (Vocabulary::checksum), layers, heads, d_model, max positions, flags
//                 (1 layer norm, 2 MLP, 4 scale), mask (0 task, 1 none, 2 causal), optimizer
//                 (0 AdamW, 1 SGD), learning rate, weight decay, momentum, clip (float32 bits),
//                 batch, seed, steps trained, held-out accuracy (float32 bits)
//   word 20       parameter count N (must equal the configuration's ParameterLayout count)
//   then          N float32 parameters in ParameterLayout order
//   last word     FNV-1a 32 of every byte before it
//
// decode_weights refuses a wrong magic, version, size, checksum, vocabulary, configuration or a
// non-finite parameter, each with its own message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../tensor.h"
#include "reader.h"
#include "trainer.h"

namespace abh::train {

constexpr std::uint32_t kWeightsVersion = 1;
constexpr std::size_t kWeightsHeaderWords = 21;  // magic + 20 words
constexpr std::size_t kMaxWeightsBytes = 1 << 20;

struct WeightsFile {
  TrainConfig config;
  int steps = 0;
  float heldout_accuracy = 0;
  std::vector<float> parameters;
};

std::vector<std::uint8_t> encode_weights(const WeightsFile& file);
Expected<WeightsFile> decode_weights(const std::uint8_t* bytes, std::size_t size);

// The reader model's file (reader.h), quantized: every matrix as int8 with one float32 scale per row
// (the row's largest magnitude / 127), every vector (LayerNorm gains and biases) as float32.
//
//   bytes 0..3    magic "ABHR"
//   words 1..11   uint32: version (1), task (TaskKind::kReader), flags (1 causal, 2 MLP), layers, heads,
//                 d_model, positions, vocabulary size V, steps trained, seed, vocabulary bytes S
//   then          S bytes: the words joined by '\n' ("<pad>" and "<unk>" first), zero-padded to 4
//   then          ceil(V/8) bytes: bit i set when word i is a noun the model was trained to point at,
//                 zero-padded to 4
//   then          per tensor in ParameterLayout order: a matrix (rows > 1) as rows float32 scales and
//                 rows*cols int8 values (zero-padded to 4); a vector as cols float32 values
//   last word     FNV-1a 32 of every byte before it
constexpr std::uint32_t kReaderWeightsVersion = 1;
constexpr std::size_t kMaxReaderWeightsBytes = 8 << 20;

std::vector<std::uint8_t> encode_reader_weights(const ReaderModel& model);
// Refuses a wrong magic, version, size, checksum or configuration, each with its own message.
Expected<ReaderModel> decode_reader_weights(const std::uint8_t* bytes, std::size_t size);

}  // namespace abh::train
