#include "tune/paired_ratio.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hone::tune {
namespace {

TEST(PairedRatio, GeometricMeanWithAStudentTInterval) {
  PairedRatio p = PairedRatioOf({1.1, 1.2, 1.3});
  const double mean = (std::log(1.1) + std::log(1.2) + std::log(1.3)) / 3;
  double ss = 0;
  for (double r : {1.1, 1.2, 1.3}) ss += (std::log(r) - mean) * (std::log(r) - mean);
  const double half = 4.303 * std::sqrt(ss / 2) / std::sqrt(3.0);
  EXPECT_EQ(p.rounds, 3);
  EXPECT_NEAR(p.ratio, std::exp(mean), 1e-12);
  EXPECT_NEAR(p.low, std::exp(mean - half), 1e-12);
  EXPECT_NEAR(p.high, std::exp(mean + half), 1e-12);
  EXPECT_FALSE(p.above_one());  // low is about 0.97: three rounds this far apart tell nothing
  EXPECT_TRUE(PairedRatioOf({1.18, 1.2, 1.22}).above_one());
  EXPECT_NEAR(p.noise(), std::exp(half) - 1, 1e-12);
}

TEST(PairedRatio, AnIntervalAcrossOneTellsNothingApart) {
  PairedRatio p = PairedRatioOf({0.95, 1.10, 1.02});
  EXPECT_FALSE(p.above_one());
  EXPECT_FALSE(p.below_one());
  EXPECT_FALSE(p.within(0.03));  // too wide to call them the same either
  EXPECT_TRUE(PairedRatioOf({0.999, 1.001, 1.0}).within(0.03));
  EXPECT_TRUE(PairedRatioOf({0.8, 0.82, 0.81}).below_one());
}

TEST(PairedRatio, OneRoundHasNoIntervalAndBadRatiosAreLeftOut) {
  PairedRatio one = PairedRatioOf({2.0, 0, -1, NAN});
  EXPECT_EQ(one.rounds, 1);
  EXPECT_DOUBLE_EQ(one.ratio, 2.0);
  EXPECT_FALSE(one.has_interval());
  EXPECT_FALSE(one.above_one());
  EXPECT_EQ(one.noise(), 0);
  EXPECT_FALSE(PairedRatioOf({}).measured());
}

TEST(PairedRatio, StudentTNarrowsWithRoundsToTheNormal) {
  EXPECT_NEAR(StudentT95(1), 12.706, 1e-9);
  EXPECT_NEAR(StudentT95(7), 2.365, 1e-9);
  EXPECT_NEAR(StudentT95(100), 1.96, 1e-9);
}

}  // namespace
}  // namespace hone::tune
