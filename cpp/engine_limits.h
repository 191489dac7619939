// Documented size limits. Checked before anything is allocated, so an oversized request is a
// message, never an out-of-memory abort of the wasm instance.
#pragma once

#include <cstdint>

namespace abh::limits {

// attention(): the naive kernel materialises the (n_q, n_k) weight matrix.
constexpr int kMaxSequence = 16384;
constexpr int kMaxDim = 4096;
constexpr std::int64_t kMaxScoreElements = std::int64_t(1) << 26;  // 64M floats = 256 MiB

// pipeline(): keeps every intermediate of the walkthrough, several (h, n, n) tensors.
constexpr int kMaxPipelineTokens = 512;
constexpr int kMaxDModel = 1024;
constexpr int kMaxHeads = 64;
constexpr std::int64_t kMaxPipelineHeadScoreElements = std::int64_t(1) << 21;  // h * n * n

}  // namespace abh::limits
