// Prints the seed-generated matrices of a few configurations as hexadecimal float bit patterns,
// one JSON object per line. tests/unit/generator-bits.test.ts runs this native binary and compares
// every bit with what the wasm engine generates for the same configuration.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pipeline.h"
#include "random.h"

namespace {

void print_bits(const char* name, const abh::Matrix& m) {
  std::printf("\"%s\":\"", name);
  for (int i = 0; i < m.size(); ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, m.data() + i, sizeof bits);
    std::printf("%08x", bits);
  }
  std::printf("\"");
}

}  // namespace

int main() {
  const std::vector<std::string> sentence = {"the",     "animal", "crossed", "the",   "road",
                                             "because", "it",     "was",     "tired."};
  std::vector<std::uint32_t> ids;
  for (const auto& word : sentence) ids.push_back(abh::token_id(word));
  const struct {
    int d_model;
    std::uint32_t seed;
  } cases[] = {{8, 1}, {16, 42}, {64, 4294967295u}, {3, 0}};
  for (const auto& c : cases) {
    std::printf("{\"dModel\":%d,\"seed\":%u,", c.d_model, c.seed);
    print_bits("X", abh::generate_embeddings(ids, c.d_model, c.seed));
    for (char name : {'q', 'k', 'v', 'o'}) {
      const std::string key = std::string("W_") + name;
      std::printf(",");
      print_bits(key.c_str(), abh::generate_projection(name, c.d_model, c.seed));
    }
    std::printf("}\n");
  }
  return 0;
}
