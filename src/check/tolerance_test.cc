#include "check/tolerance.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "check/error_stats.h"
#include "check/output_match.h"

namespace hone::check {
namespace {

using ::testing::HasSubstr;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(JudgeElement, FailsOnlyBeyondBothTolerances) {
  EXPECT_EQ(JudgeElement(1.0, 1.0005, 1e-3, 0), ElementVerdict::kMatch);     // within atol
  EXPECT_EQ(JudgeElement(1.0, 1.002, 1e-3, 0), ElementVerdict::kMismatch);   // beyond atol, rtol 0
  EXPECT_EQ(JudgeElement(100, 100.05, 1e-3, 1e-3), ElementVerdict::kMatch);  // beyond atol, within rtol (0.1)
  EXPECT_EQ(JudgeElement(100, 100.2, 1e-3, 1e-3), ElementVerdict::kMismatch);
  EXPECT_EQ(JudgeElement(0, 1e-6, 1e-5, 0), ElementVerdict::kMatch);
  EXPECT_EQ(JudgeElement(0, 1e-4, 1e-5, 0.5), ElementVerdict::kMismatch);    // rtol is relative to the reference: 0
  EXPECT_EQ(JudgeElement(-2, -2.5, 0.1, 0.25), ElementVerdict::kMatch);      // |r| = 2: rtol allows 0.5
}

TEST(JudgeElement, NaN) {
  EXPECT_EQ(JudgeElement(kNaN, kNaN, 0, 0), ElementVerdict::kMatch);
  EXPECT_EQ(JudgeElement(1.0, kNaN, 1e9, 1e9), ElementVerdict::kMismatch);  // NaN where the reference is not
  EXPECT_EQ(JudgeElement(kNaN, 1.0, 0, 0), ElementVerdict::kUnjudged);
}

TEST(JudgeElement, Infinity) {
  EXPECT_EQ(JudgeElement(kInf, kInf, 0, 0), ElementVerdict::kMatch);
  EXPECT_EQ(JudgeElement(-kInf, -kInf, 0, 0), ElementVerdict::kMatch);
  EXPECT_EQ(JudgeElement(kInf, -kInf, 1e9, 1e9), ElementVerdict::kMismatch);
  EXPECT_EQ(JudgeElement(kInf, 1e308, 1e9, 1e9), ElementVerdict::kMismatch);  // inf error is never within rtol*inf
  EXPECT_EQ(JudgeElement(1.0, kInf, 1e9, 1e9), ElementVerdict::kMismatch);
  EXPECT_EQ(JudgeElement(kInf, kNaN, 1e9, 1e9), ElementVerdict::kMismatch);
}

TEST(CheckStatistic, ParsesAndNames) {
  EXPECT_EQ(ParseCheckStatistic("elementwise")->kind, ErrorStatistic::kElementwise);
  EXPECT_EQ(ParseCheckStatistic("max")->kind, ErrorStatistic::kMax);
  EXPECT_EQ(ParseCheckStatistic("mean")->kind, ErrorStatistic::kMean);
  EXPECT_EQ(ParseCheckStatistic("quantile")->quantile, 0.99);
  EXPECT_EQ(ParseCheckStatistic("quantile:0.5")->quantile, 0.5);
  EXPECT_EQ(ParseCheckStatistic("quantile:0.5")->Name(), "quantile:0.5");
  EXPECT_FALSE(ParseCheckStatistic("quantile:0"));
  EXPECT_FALSE(ParseCheckStatistic("quantile:1.5"));
  EXPECT_FALSE(ParseCheckStatistic("median"));
}

TEST(Tolerances, DefaultsAndPerOutput) {
  Tolerances t;
  EXPECT_EQ(t.For("x").atol, 1e-5);
  EXPECT_EQ(t.For("x").rtol, 1e-5);
  ASSERT_TRUE(t.ParseAtol("1e-4").ok());
  ASSERT_TRUE(t.ParseAtol("logits:1e-3").ok());
  ASSERT_TRUE(t.ParseRtol("out:0:1").ok());  // output names may hold ':'; the number is after the last one
  ASSERT_TRUE(t.ParseStatistic("mean").ok());
  ASSERT_TRUE(t.ParseStatistic("logits:quantile:0.9").ok());
  EXPECT_EQ(t.For("other").atol, 1e-4);
  EXPECT_EQ(t.For("logits").atol, 1e-3);
  EXPECT_EQ(t.For("out:0").rtol, 1);
  EXPECT_EQ(t.For("other").statistic.kind, ErrorStatistic::kMean);
  EXPECT_EQ(t.For("logits").statistic, (CheckStatistic{ErrorStatistic::kQuantile, 0.9}));
  EXPECT_THAT(t.NamedOutputs(), ::testing::ElementsAre("logits", "out:0"));
}

TEST(Tolerances, BadValuesNameTheFlag) {
  Tolerances t;
  for (const char* bad : {"abc", "-1", "logits:", ":1e-3", "inf", "1e-3x"}) {
    Status s = t.ParseAtol(bad);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("--atol")) << bad;
  }
  EXPECT_THAT(t.ParseStatistic("median").message(), HasSubstr("--error-stat 'median'"));
}

MatchResult Match(std::vector<double> r, std::vector<double> c, double atol, double rtol, std::string stat) {
  Tolerance t{atol, rtol, *ParseCheckStatistic(stat)};
  return MatchElements(r, c, t, ComputeErrorStats(r, c, t.statistic.quantile));
}

TEST(MatchElements, ElementwiseCountsAndSmallestPassingTolerances) {
  MatchResult m = Match({1, 2, 3, 4}, {1, 2, 3, 4.5}, 0.1, 0, "elementwise");
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.mismatched, 1);
  EXPECT_DOUBLE_EQ(m.min_atol, 0.5);    // with rtol 0
  EXPECT_DOUBLE_EQ(m.min_rtol, 0.125);  // 0.5 / 4, with atol 0.1
  EXPECT_TRUE(Match({1, 2, 3, 4}, {1, 2, 3, 4.5}, 0.5, 0, "elementwise").passed);
  EXPECT_TRUE(Match({1, 2, 3, 4}, {1, 2, 3, 4.5}, 0, 0.125, "elementwise").passed);
}

TEST(MatchElements, Statistics) {
  // Absolute errors 0, 0, 0, 0.5: max 0.5, mean 0.125, median 0.
  EXPECT_FALSE(Match({1, 2, 3, 4}, {1, 2, 3, 4.5}, 0.1, 0, "max").passed);
  EXPECT_FALSE(Match({1, 2, 3, 4}, {1, 2, 3, 4.5}, 0.1, 0, "mean").passed);
  MatchResult mean = Match({1, 2, 3, 4}, {1, 2, 3, 4.5}, 0.2, 0, "mean");
  EXPECT_TRUE(mean.passed);
  EXPECT_DOUBLE_EQ(mean.statistic_abs, 0.125);
  EXPECT_EQ(mean.mismatched, 1);  // still counted, though the statistic passes
  EXPECT_TRUE(Match({1, 2, 3, 4}, {1, 2, 3, 4.5}, 0, 0, "quantile:0.5").passed);
  // Either tolerance is enough: the max relative error 0.125 is within rtol 0.2.
  EXPECT_TRUE(Match({1, 2, 3, 4}, {1, 2, 3, 4.5}, 0, 0.2, "max").passed);
}

TEST(MatchElements, NaNAndInfFailEveryStatistic) {
  for (const char* stat : {"elementwise", "max", "mean", "quantile:0.5"}) {
    MatchResult nan = Match({1, 2, 3}, {1, kNaN, 3}, 1e9, 1e9, stat);
    EXPECT_FALSE(nan.passed) << stat;
    EXPECT_EQ(nan.non_finite_mismatches, 1) << stat;
    EXPECT_EQ(nan.min_atol, kInf) << stat;
    EXPECT_FALSE(Match({1, kInf, 3}, {1, -kInf, 3}, 1e9, 1e9, stat).passed) << stat;
    EXPECT_TRUE(Match({1, kInf, kNaN}, {1, kInf, kNaN}, 0, 0, stat).passed) << stat;
  }
  MatchResult unjudged = Match({kNaN, 2}, {5, 2}, 0, 0, "elementwise");
  EXPECT_TRUE(unjudged.passed);
  EXPECT_EQ(unjudged.unjudged, 1);
}

}  // namespace
}  // namespace hone::check
