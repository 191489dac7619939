// The documented deterministic generator behind every generated number on the page.
//
// Why this design: the walkthrough promises that a seed is a link, so the native build (tests)
// and the wasm build (browser) must produce bit-identical matrices. Box-Muller would call log/cos,
// whose last bits differ between glibc and musl, so we use only integer arithmetic and one exact
// conversion:
//   1. SplitMix64 (Steele, Lea, Flood 2014) turns a 64-bit state into a stream of 64-bit words.
//   2. normal() sums the top 24 bits of 12 words (Irwin-Hall): mean 6 * (2^24 - 1), variance
//      2^48 - 1. Subtracting 6 * 2^24 and multiplying by 2^-24 gives mean -3.6e-7 and variance
//      1 - 2^-48: zero and one for every purpose of this page.
//      The integer sum is exact; its conversion to float rounds to nearest, the same everywhere.
//   3. fill_normals() draws the same Irwin-Hall sum of 12 uniforms, each a 16-bit half of a 32-bit
//      word, for the experiments that draw hundreds of thousands of normals (experiments.h; 12 SplitMix64
//      words a normal were ~110 ms of one task on a phone's CPU). It is counter-based: word w of normal i
//      of a block is lowbias32(block + (6 i + w) * 0x9E3779B9), a Weyl sequence through Wellons' 32-bit
//      finaliser (SplitMix64's design in 32 bits), so every normal can be computed alone and a compiler
//      draws four at once in 32-bit SIMD lanes. The sum, minus its mean 6 * (2^16 - 1), is below 2^19 and
//      exact in a float: mean exactly 0, variance 1 - 2^-32, steps of 2^-16. The weights and embeddings
//      keep normal(): their values are what a shared link shows.
#pragma once

#include <cstdint>
#include <string_view>

namespace abh {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Approximately standard normal (Irwin-Hall of 12 uniforms), in [-6, 6].
  float normal() {
    std::int64_t sum = 0;
    // Kept scalar: clang would vectorise the 12 terms with i64x2.mul, which wasm engines on x86
    // without AVX-512 emulate in several instructions per lane; scalar 64-bit multiplies are one each.
#if defined(__clang__)
#pragma clang loop vectorize(disable) unroll(disable)
#endif
    for (int term = 0; term < 12; ++term) sum += static_cast<std::int64_t>(next() >> 40);
    constexpr std::int64_t kMean = 6ll << 24;
    return static_cast<float>(sum - kMean) * (1.0f / 16777216.0f);
  }

 private:
  std::uint64_t state_;
};

// Wellons' lowbias32 (hash-prospector): a bijective 32-bit finaliser with two multiplies.
inline std::uint32_t lowbias32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x21F0AAADu;
  x ^= x >> 15;
  x *= 0x735A2D97u;
  x ^= x >> 15;
  return x;
}

// `count` approximately standard normals (Irwin-Hall of 12 uniforms of 16 bits, in [-6, 6]) of block
// `block`, the first `count` of its stream (item 3 above); out is (count). A block holds up to 2^32 / 6
// normals: callers give each batch its own block (block_of).
inline void fill_normals(std::uint32_t block, float* out, int count) {
  for (int i = 0; i < count; ++i) {
    std::uint32_t sum = 0;
    for (std::uint32_t word = 0; word < 6; ++word) {
      const std::uint32_t bits = lowbias32(block + (6u * static_cast<std::uint32_t>(i) + word) * 0x9E3779B9u);
      sum += (bits & 0xFFFFu) + (bits >> 16);
    }
    out[i] = static_cast<float>(static_cast<std::int32_t>(sum) - 6 * 65535) * (1.0f / 65536.0f);
  }
}

// The block of batch `index` of a stream whose key is `key` (fill_normals).
inline std::uint32_t block_of(std::uint32_t key, std::uint32_t index) { return lowbias32(key + lowbias32(index)); }

// Combines a seed with a stream tag, so each matrix (and each token's embedding) has its own
// independent stream: changing d_model does not reshuffle the numbers of an unrelated matrix.
inline std::uint64_t stream_seed(std::uint32_t seed, std::uint64_t tag) {
  SplitMix64 mixer((static_cast<std::uint64_t>(seed) << 32) ^ tag);
  return mixer.next();
}

// FNV-1a over the UTF-8 bytes: a token's identity. The same word gets the same embedding row
// wherever it stands in the sentence (callers lowercase it first, so "The" and "the" agree).
inline std::uint32_t token_id(std::string_view utf8) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char byte : utf8) {
    hash ^= byte;
    hash *= 16777619u;
  }
  return hash;
}

}  // namespace abh
