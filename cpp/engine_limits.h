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
// long_context.h: the kernels that avoid the (n, n) matrix hold only the inputs, the output and
// O(n + d_k d_v) scratch, so like the tiled kernel only the inputs bound the sequence length.
constexpr int kMaxLongSequence = 65536;
constexpr std::int64_t kMaxLongMatrixElements = std::int64_t(1) << 26;  // per Q, K, V: 256 MiB each
// sparse_pattern_mask() and linear_attention_weights() return (n, n) matrices, for the figures.
constexpr int kMaxPatternMaskSequence = 1024;
// KVCache: keys and values of every (layer, kv head) for `capacity` tokens, allocated at creation.
constexpr int kMaxCacheLayers = 64;
constexpr int kMaxCacheTokens = 65536;
constexpr std::int64_t kMaxCacheElements = std::int64_t(1) << 25;  // keys, and again values: 128 MiB each
// kv_cache_bytes_per_token(): any public model's shape (layers, kv heads, d_k, bytes per value); the
// bound keeps 2 * product within int64.
constexpr int kMaxKVShape = 16384;
// The generator's seed is a uint32.
constexpr std::int64_t kMaxSeed = 4294967295;

}  // namespace abh::limits
