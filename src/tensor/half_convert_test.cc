// Half-precision conversion: exact values stay exact, others round to nearest even, specials survive, and the
// vector path agrees with the element path (lengths around the vector width).
#include "tensor/half_convert.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace hone {
namespace {

TEST(HalfConvertTest, RoundTripsAndRoundsToNearestEven) {
  const std::vector<float> in = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 1e-7f, 70000.0f, 1.0f + 1.0f / 2048,
                                 1.0f + 3.0f / 2048, std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN()};
  std::vector<uint16_t> half(in.size());
  std::vector<float> back(in.size());
  FloatToHalf(in.data(), half.data(), in.size());
  HalfToFloat(half.data(), back.data(), in.size());
  EXPECT_EQ(half[0], 0x0000);
  EXPECT_EQ(half[1], 0x8000);
  EXPECT_EQ(back[2], 1.0f);
  EXPECT_EQ(back[3], -2.5f);
  EXPECT_EQ(back[4], 65504.0f);                 // the largest half
  EXPECT_NEAR(back[5], 1e-7f, 3e-8f);           // a subnormal half
  EXPECT_TRUE(std::isinf(back[6]));             // overflow
  EXPECT_EQ(back[7], 1.0f);                     // halfway between 1 and 1 + 2^-10: to even (1)
  EXPECT_EQ(back[8], 1.0f + 2.0f / 1024);       // halfway, rounds up to the even neighbour
  EXPECT_TRUE(std::isinf(back[9]));
  EXPECT_TRUE(std::isnan(back[10]));
}

TEST(HalfConvertTest, EveryLengthGivesTheSameAsOneAtATime) {
  for (size_t n : {1u, 7u, 8u, 9u, 16u, 23u}) {
    std::vector<float> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = 0.37f * static_cast<float>(i) - 2.1f;
    std::vector<uint16_t> bulk(n), single(n);
    FloatToHalf(in.data(), bulk.data(), n);
    for (size_t i = 0; i < n; ++i) FloatToHalf(&in[i], &single[i], 1);
    EXPECT_EQ(bulk, single) << n;
    std::vector<float> a(n), b(n);
    HalfToFloat(bulk.data(), a.data(), n);
    for (size_t i = 0; i < n; ++i) HalfToFloat(&bulk[i], &b[i], 1);
    EXPECT_EQ(a, b) << n;
  }
}

}  // namespace
}  // namespace hone
