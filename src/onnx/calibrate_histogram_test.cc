#include "onnx/calibrate_histogram.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hone::onnx {
namespace {

using ::testing::ElementsAre;

TEST(CalibrateHistogramTest, MinMaxIgnoresNonFiniteValues) {
  MinMax mm;
  std::vector<float> a = {1.0f, -2.0f, NAN}, b = {INFINITY, 3.0f};
  mm.Add(a);
  mm.Add(b);
  EXPECT_EQ(mm.min, -2.0f);
  EXPECT_EQ(mm.max, 3.0f);
  EXPECT_EQ(mm.max_abs(), 3.0f);
}

TEST(CalibrateHistogramTest, HistogramCountsAbsoluteValues) {
  AbsHistogram h(4, 2.0f);  // bins of 0.5
  std::vector<float> v = {0.1f, -0.1f, 0.6f, -1.9f, 5.0f, NAN, 0.0f, -0.0f};
  h.Add(v);
  EXPECT_DOUBLE_EQ(h.bin_width(), 0.5);
  EXPECT_THAT(h.counts(), ElementsAre(2, 1, 0, 2));  // 5.0 lands in the last bin
  EXPECT_EQ(h.zeros(), 2);
  // One side only: positives (and zeros), or the magnitudes of the negatives.
  AbsHistogram pos(4, 2.0f, +1), neg(4, 2.0f, -1);
  pos.Add(v);
  neg.Add(v);
  EXPECT_THAT(pos.counts(), ElementsAre(1, 1, 0, 1));
  EXPECT_THAT(neg.counts(), ElementsAre(1, 0, 0, 1));
}

TEST(CalibrateHistogramTest, PercentileKnownAnswers) {
  // 100 values over 5 bins of width 0.5; cumulative 50, 80, 95, 99, 100.
  std::vector<double> counts = {50, 30, 15, 4, 1};
  EXPECT_DOUBLE_EQ(PercentileThreshold(counts, 0.5, 50), 0.5);
  EXPECT_DOUBLE_EQ(PercentileThreshold(counts, 0.5, 95), 1.5);
  EXPECT_DOUBLE_EQ(PercentileThreshold(counts, 0.5, 96), 2.0);
  EXPECT_DOUBLE_EQ(PercentileThreshold(counts, 0.5, 99.999), 2.5);
  EXPECT_DOUBLE_EQ(PercentileThreshold(counts, 0.5, 100), 2.5);
  EXPECT_DOUBLE_EQ(PercentileThreshold({0, 0}, 0.5, 99), 0);
  // Zeros count inside every range: with 100 zeros, 60% is reached within the first bin.
  EXPECT_DOUBLE_EQ(PercentileThreshold(counts, 0.5, 60, 100), 0.5);
  EXPECT_DOUBLE_EQ(PercentileThreshold({0, 0}, 0.5, 99, 10), 0.5);
}

TEST(CalibrateHistogramTest, EntropyDivergenceKnownAnswers) {
  // Counts [4, 2, 1, 1] and 2 levels, computed by hand:
  //   i=2: P = [4, 2+1+1] -> [.5, .5], Q = [4, 2] -> [2/3, 1/3]; KL = .5 ln(.75) + .5 ln(1.5) = 0.0588915
  //   i=3: P = [4, 2, 2] -> [.5, .25, .25], Q = [4, 1.5, 1.5] / 7; KL = .5 ln(.875) + .5 ln(7/6) = 0.0103100
  //   i=4: P = [.5, .25, .125, .125], Q = [3, 3, 1, 1] / 8; KL = .5 ln(4/3) + .25 ln(2/3) = 0.0424751
  std::vector<double> counts = {4, 2, 1, 1};
  EXPECT_NEAR(EntropyDivergence(counts, 2, 2), 0.5 * std::log(0.75) + 0.5 * std::log(1.5), 1e-12);
  EXPECT_NEAR(EntropyDivergence(counts, 3, 2), 0.5 * std::log(0.875) + 0.5 * std::log(7.0 / 6), 1e-12);
  EXPECT_NEAR(EntropyDivergence(counts, 4, 2), 0.5 * std::log(4.0 / 3) + 0.25 * std::log(2.0 / 3), 1e-12);
  // The smallest is i = 3: the threshold is 3 bins.
  EXPECT_DOUBLE_EQ(EntropyThreshold(counts, 0.25, 2), 0.75);
}

TEST(CalibrateHistogramTest, EntropyKeepsTheWholeRangeOfAUniformHistogram) {
  // Uniform data quantizes exactly at full range (KL 0); any clipping piles mass in the last bin (KL > 0).
  std::vector<double> counts(512, 10.0);
  EXPECT_DOUBLE_EQ(EntropyDivergence(counts, 512, 128), 0.0);
  EXPECT_DOUBLE_EQ(EntropyThreshold(counts, 1.0, 128), 512.0);
}

TEST(CalibrateHistogramTest, EntropyClipsALongTail) {
  // A decaying distribution over 1024 bins: most mass in the first 100 bins, a thin tail to the end. Clipping the
  // tail costs little; spreading 128 levels over all 1024 bins costs a lot, so the threshold is far below the max.
  std::vector<double> counts(1024);
  for (size_t i = 0; i < counts.size(); ++i) counts[i] = 1e6 * std::exp(-double(i) / 20.0) + 1.0;
  double t = EntropyThreshold(counts, 1.0, 128);
  EXPECT_GE(t, 128.0);
  EXPECT_LT(t, 512.0);
}

TEST(CalibrateHistogramTest, EmptyHistogramsGiveZero) {
  EXPECT_EQ(EntropyThreshold(std::vector<double>(256, 0.0), 1.0, 128), 0.0);
}

}  // namespace
}  // namespace hone::onnx
