#include "base/units.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

TEST(UnitsTest, Bytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1024), "1.0 KiB");
  EXPECT_EQ(FormatBytes(1686568), "1.6 MiB");
  EXPECT_EQ(FormatBytes(3.0 * (1ull << 30)), "3.0 GiB");
  EXPECT_EQ(FormatBytes(-2048), "-2.0 KiB");
}

TEST(UnitsTest, Counts) {
  EXPECT_EQ(FormatCount(842), "842");
  EXPECT_EQ(FormatCount(421642), "421.6 K");
  EXPECT_EQ(FormatCount(7200000), "7.2 M");
  EXPECT_EQ(FormatCount(1300000000), "1.3 B");
}

TEST(UnitsTest, Durations) {
  EXPECT_EQ(FormatDuration(845), "845 ns");
  EXPECT_EQ(FormatDuration(88300), "88.3 us");
  EXPECT_EQ(FormatDuration(1.234e6), "1.23 ms");
  EXPECT_EQ(FormatDuration(2.5e9), "2.5 s");
}

}  // namespace
}  // namespace hone
