// Documented size limits. Checked before anything is allocated, so an oversized request is a
// message, never an out-of-memory abort of the wasm instance.
#pragma once

#include <cstdint>

namespace abh::limits {

// attention(): the naive kernel materialises the (n_q, n_k) weight matrix.
constexpr int kMaxSequence = 16384;
constexpr int kMaxDim = 4096;
constexpr std::int64_t kMaxScoreElements = std::int64_t(1) << 26;  // 64M floats = 256 MiB

// flash_attention(): the tiled kernel never holds more than one (block_q, block_k) tile of scores,
// so only the inputs bound the sequence length.
constexpr int kMaxFlashSequence = 65536;
constexpr int kMaxFlashBlock = 1024;
constexpr std::int64_t kMaxFlashMatrixElements = std::int64_t(1) << 26;  // per Q, K, V: 256 MiB each
// flash_attention_trace(): records every tile step for the step-through figure.
constexpr int kMaxTraceSequence = 64;
constexpr int kMaxTraceDim = 256;

// pipeline(): keeps every intermediate of the walkthrough: three (h, n, n) tensors, three (n, n).
constexpr int kMaxPipelineTokens = 512;
constexpr int kMaxDModel = 1024;
constexpr int kMaxHeads = 64;
constexpr std::int64_t kMaxPipelineHeadScoreElements = std::int64_t(1) << 21;  // h * n * n
// The generator's seed is a uint32.
constexpr std::int64_t kMaxSeed = 4294967295;

}  // namespace abh::limits
