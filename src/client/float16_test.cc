#include "client/float16.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace hone::client {
namespace {

TEST(Float16, KnownValuesAndRounding) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00) << "rounds to infinity";
  EXPECT_EQ(FloatToHalf(65519.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(5.9604645e-8f), 0x0001) << "smallest subnormal";
  EXPECT_EQ(FloatToHalf(2.9802322e-8f), 0x0000) << "half of it ties to even (zero)";
  EXPECT_EQ(FloatToHalf(1.0f + 1.0f / 2048), 0x3C00) << "tie to even";
  EXPECT_EQ(FloatToHalf(1.0f + 3.0f / 2048), 0x3C02);
  EXPECT_EQ(FloatToHalf(NAN) & 0x7E00, 0x7E00);
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) continue;  // NaNs
    EXPECT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(h))), h) << h;
  }
  EXPECT_EQ(FloatToBf16(1.5f), 0x3FC0);
  EXPECT_EQ(Bf16ToFloat(0x3FC0), 1.5f);
  EXPECT_EQ(FloatToBf16(1.0f + 1.0f / 256), 0x3F80) << "tie to even";
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(NAN))));
}

}  // namespace
}  // namespace hone::client
