// The trainer's weights file (cpp/train/weights_file.h): a model saved and loaded again is the same
// model bit for bit, and every kind of damage (short, truncated, foreign, another version, a flipped
// bit, a NaN, an impossible shape) is refused with a message that names it.
#include "train/weights_file.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "test_util.h"
#include "train/trainer.h"

namespace {

using namespace abh::train;
using namespace abh::test;  // test_util.h

TEST(TrainWeights, RoundTripsBitForBit) {
  auto created = Trainer::create(TrainConfig{});
  ASSERT_TRUE(created.value()->step(3).ok());
  const auto bytes = created.value()->export_weights();
  EXPECT_LE(bytes.size(), 64u * 1024);
  auto loaded = Trainer::import_weights(bytes.data(), bytes.size());
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const auto& p = created.value()->parameters();
  EXPECT_EQ(0, std::memcmp(p.data(), loaded.value()->parameters().data(), p.size() * sizeof(float)));
  EXPECT_EQ(loaded.value()->steps_done(), 3);
  EXPECT_EQ(loaded.value()->export_weights(), bytes);
}

std::uint32_t fnv(const std::vector<std::uint8_t>& b, std::size_t size) {
  std::uint32_t hash = 2166136261u;
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ b[i]) * 16777619u;
  return hash;
}
void reseal(std::vector<std::uint8_t>& b) {
  const std::uint32_t sum = fnv(b, b.size() - 4);
  for (int i = 0; i < 4; ++i) b[b.size() - 4 + i] = std::uint8_t(sum >> (8 * i));
}

TEST(TrainWeights, DamagedFilesAreRefusedWithReasons) {
  const auto good = Trainer::create(TrainConfig{}).value()->export_weights();
  auto error_of = [](const std::vector<std::uint8_t>& b) {
    auto r = Trainer::import_weights(b.data(), b.size());
    return r.ok() ? std::string("accepted") : r.error();
  };
  EXPECT_CONTAINS(error_of({}), "too short");
  auto truncated = good;
  truncated.resize(good.size() - 8);
  EXPECT_CONTAINS(error_of(truncated), "truncated");
  auto magic = good;
  magic[0] = 'X';
  EXPECT_CONTAINS(error_of(magic), "not a weights file");
  auto version = good;
  version[4] = 9;
  reseal(version);
  EXPECT_CONTAINS(error_of(version), "version 9");
  auto flipped = good;
  flipped[200] ^= 1;
  EXPECT_CONTAINS(error_of(flipped), "checksum");
  auto nan = good;
  const float q = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(&nan[4 * kWeightsHeaderWords + 40], &q, 4);
  reseal(nan);
  EXPECT_CONTAINS(error_of(nan), "not a finite number (parameter 10)");
  auto heads = good;
  heads[4 * 6] = 3;  // 3 heads do not divide d_model 32
  reseal(heads);
  EXPECT_CONTAINS(error_of(heads), "must divide d_model");
  EXPECT_EQ(error_of(good), "accepted");
}

}  // namespace
