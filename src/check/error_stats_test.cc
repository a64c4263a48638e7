#include "check/error_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "check/classifier_agreement.h"
#include "check/numeric_values.h"

namespace hone::check {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ErrorStats, KnownAnswers) {
  std::vector<double> r = {1, 2, 0, 4}, c = {1.5, 2, 0, 3};
  ErrorStats s = ComputeErrorStats(r, c, 0.5);
  EXPECT_EQ(s.elements, 4);
  EXPECT_EQ(s.finite_pairs, 4);
  EXPECT_DOUBLE_EQ(s.max_abs, 1);
  EXPECT_DOUBLE_EQ(s.mean_abs, 0.375);
  EXPECT_DOUBLE_EQ(s.max_rel, 0.5);            // 0.5 / 1
  EXPECT_DOUBLE_EQ(s.mean_rel, (0.5 + 0.25) / 4);
  EXPECT_DOUBLE_EQ(s.quantile_abs, 0.25);       // errors 0, 0, 0.5, 1: median 0.25
  EXPECT_EQ(s.worst_index, 3);
  // cosine: dot 1.5 + 4 + 12 = 17.5; |r| = sqrt(21), |c| = sqrt(15.25)
  EXPECT_NEAR(s.cosine_similarity, 17.5 / std::sqrt(21 * 15.25), 1e-12);
}

TEST(ErrorStats, ZeroReferenceGivesInfiniteRelativeError) {
  ErrorStats s = ComputeErrorStats(std::vector<double>{0, 0}, std::vector<double>{0, 1e-9});
  EXPECT_EQ(s.max_rel, kInf);
  EXPECT_DOUBLE_EQ(s.max_abs, 1e-9);
}

TEST(ErrorStats, NonFiniteCountedAndLeftOut) {
  std::vector<double> r = {1, kNaN, kInf, 2}, c = {1, 1, kInf, -kInf};
  ErrorStats s = ComputeErrorStats(r, c);
  EXPECT_EQ(s.reference.nan, 1);
  EXPECT_EQ(s.reference.inf, 1);
  EXPECT_EQ(s.candidate.nan, 0);
  EXPECT_EQ(s.candidate.inf, 2);
  EXPECT_EQ(s.finite_pairs, 1);
  EXPECT_EQ(s.max_abs, 0);
}

TEST(Quantile, LinearInterpolationLikeNumpy) {
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_NEAR(Quantile({1, 2, 3, 4, 5}, 0.99), 4.96, 1e-12);
  EXPECT_DOUBLE_EQ(Quantile({3}, 0.7), 3);
  EXPECT_EQ(Quantile({}, 0.5), 0);
  EXPECT_EQ(Quantile({1, kInf}, 1), kInf);
}

TEST(ClassifierAgreement, ArgmaxAndTopK) {
  // Two rows of 3 classes. Row 0: same argmax (2), top-2 {2,1} vs {2,0}. Row 1: argmax 0 vs 1, top-2 the same set.
  std::vector<double> r = {0.1, 0.3, 0.6, 0.5, 0.4, 0.1}, c = {0.3, 0.1, 0.6, 0.4, 0.5, 0.1};
  auto a = CompareClassifierOutputs(r, c, {2, 3}, 2);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->rows, 2);
  EXPECT_EQ(a->argmax_agreements, 1);
  EXPECT_DOUBLE_EQ(a->argmax_agreement, 0.5);
  EXPECT_DOUBLE_EQ(a->topk_overlap, (0.5 + 1.0) / 2);
  EXPECT_FALSE(CompareClassifierOutputs(r, c, {6}, 2));      // rank 1: not classifier-like
  EXPECT_FALSE(CompareClassifierOutputs(r, c, {6, 1}, 2));   // one class
}

TEST(TopK, TiesGoToTheLowerIndexAndNaNRanksLast) {
  EXPECT_EQ(TopK(std::vector<double>{1, 3, 3, 0}, 2), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(TopK(std::vector<double>{kNaN, 0, 1}, 3), (std::vector<int64_t>{2, 1, 0}));
}

TEST(NumericValues, HalfAndBfloat16) {
  EXPECT_EQ(HalfToDouble(0x3c00), 1.0);
  EXPECT_EQ(HalfToDouble(0xc000), -2.0);
  EXPECT_EQ(HalfToDouble(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(HalfToDouble(0x7bff), 65504.0);
  EXPECT_EQ(HalfToDouble(0x7c00), kInf);
  EXPECT_TRUE(std::isnan(HalfToDouble(0x7e00)));
  EXPECT_EQ(Bf16ToDouble(0x3f80), 1.0);
  EXPECT_EQ(Bf16ToDouble(0xc040), -3.0);
}

}  // namespace
}  // namespace hone::check
