#include "runtime/block_offsets.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace hone::runtime {
namespace {

TEST(BlockOffsetsTest, AddsTheBlockSumsTimesTheOffsetsLikeTheExpandedWeight) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  // k = 70 with blocks of 32: a last block of 6.
  const int64_t rows = 3, k = 70, n = 37, block = 32, blocks = 3;
  std::vector<float> x(rows * k), y(rows * n), offsets(blocks * n), out(rows * n, -9.0f);
  for (float& v : x) v = u(rng);
  for (float& v : y) v = u(rng);
  for (float& v : offsets) v = u(rng);
  AddBlockOffsets(y.data(), x.data(), offsets.data(), rows, k, n, block, out.data());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < n; ++c) {
      double want = y[r * n + c];  // + x . (the weight whose rows i are offsets[i / block])
      for (int64_t i = 0; i < k; ++i) want += double(x[r * k + i]) * offsets[(i / block) * n + c];
      EXPECT_NEAR(out[r * n + c], want, 1e-5) << r << "," << c;
    }
  // In place: out may be y.
  std::vector<float> in_place = y;
  AddBlockOffsets(in_place.data(), x.data(), offsets.data(), rows, k, n, block, in_place.data());
  EXPECT_EQ(in_place, out);
}

}  // namespace
}  // namespace hone::runtime
