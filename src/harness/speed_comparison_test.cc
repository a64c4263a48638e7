#include "harness/speed_comparison.h"

#include <gtest/gtest.h>

namespace hone::harness {
namespace {

SpeedRound Round(double source_sps, double variant_sps, uint64_t source_p99 = 1000, uint64_t variant_p99 = 1000) {
  SpeedRound r;
  r.source_sps = source_sps;
  r.variant_sps = variant_sps;
  r.source_p50_ns = r.variant_p50_ns = 500;
  r.source_p99_ns = source_p99;
  r.variant_p99_ns = variant_p99;
  return r;
}

SpeedComparison Judge(std::vector<SpeedRound> rounds, SpeedComparisonSettings settings = {}) {
  SpeedComparison c;
  c.rounds = std::move(rounds);
  JudgeSpeed(settings, c);
  return c;
}

TEST(MedianTest, OddEvenAndEmpty) {
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median({}), 0);
}

TEST(JudgeSpeedTest, ClearlySlowerVariantIsSlower) {
  auto c = Judge({Round(1000, 390), Round(1010, 400), Round(990, 380)});
  EXPECT_EQ(c.verdict, SpeedVerdict::kSlower);
  EXPECT_NEAR(c.throughput_ratio, 0.39, 0.01);
  EXPECT_NE(c.verdict_detail.find("slower"), std::string::npos) << c.verdict_detail;
  EXPECT_NE(c.verdict_detail.find("3 rounds"), std::string::npos) << c.verdict_detail;
}

TEST(JudgeSpeedTest, WorseTailIsSlowerEvenAtEqualThroughput) {
  // FP16 on a CPU without FP16 kernels: the same mean, a far worse p99.
  auto c = Judge({Round(1000, 1000, 1000, 51000), Round(1000, 1000, 1000, 50000), Round(1000, 1000, 1000, 52000)});
  EXPECT_EQ(c.verdict, SpeedVerdict::kSlower);
  EXPECT_NEAR(c.p99_ratio, 51, 0.1);
  EXPECT_NE(c.verdict_detail.find("p99"), std::string::npos);
}

TEST(JudgeSpeedTest, FasterVariantIsFaster) {
  auto c = Judge({Round(1000, 1800), Round(1000, 1900), Round(1000, 1850)});
  EXPECT_EQ(c.verdict, SpeedVerdict::kFaster);
  EXPECT_NEAR(c.throughput_ratio, 1.85, 1e-9);
  EXPECT_EQ(c.throughput_ratio_min, 1.8);
  EXPECT_EQ(c.throughput_ratio_max, 1.9);
}

TEST(JudgeSpeedTest, NoiseCannotFakeASpeedUpOrASlowDown) {
  // The source swings by 30% against itself; a 10% difference either way is inside that.
  auto up = Judge({Round(800, 880), Round(1100, 1210), Round(1000, 1100)});
  EXPECT_EQ(up.verdict, SpeedVerdict::kNotDistinguishable) << up.verdict_detail;
  EXPECT_NEAR(up.source_throughput_spread, 0.3, 1e-9);
  auto down = Judge({Round(800, 720), Round(1100, 990), Round(1000, 900)});
  EXPECT_EQ(down.verdict, SpeedVerdict::kNotDistinguishable) << down.verdict_detail;
}

TEST(JudgeSpeedTest, MedianIgnoresOneLuckyRound) {
  // One round where the source was disturbed shows a 3x "speed-up"; the median does not.
  auto c = Judge({Round(1000, 1000), Round(330, 1000), Round(1000, 990)});
  EXPECT_NEAR(c.throughput_ratio, 1.0, 1e-9);
  EXPECT_NE(c.verdict, SpeedVerdict::kFaster);
}

TEST(JudgeSpeedTest, ErrorsOrNothingCompletedNeverPass) {
  SpeedComparison c;
  c.rounds = {Round(1000, 2000)};
  c.errors = 2;
  c.first_error = "boom";
  JudgeSpeed({}, c);
  EXPECT_EQ(c.verdict, SpeedVerdict::kSlower);
  EXPECT_NE(c.verdict_detail.find("boom"), std::string::npos);
  auto none = Judge({Round(1000, 0)});
  EXPECT_EQ(none.verdict, SpeedVerdict::kSlower);
  EXPECT_NE(none.verdict_detail.find("no request completed"), std::string::npos);
}

TEST(SpeedComparisonSettingsTest, RejectsBadValues) {
  SpeedComparisonSettings s;
  s.rounds = 0;
  EXPECT_FALSE(s.Validate().ok());
  s.rounds = 1;
  s.window_s = 0;
  EXPECT_FALSE(s.Validate().ok());
  s.window_s = 0.1;
  EXPECT_TRUE(s.Validate().ok());
}

}  // namespace
}  // namespace hone::harness
