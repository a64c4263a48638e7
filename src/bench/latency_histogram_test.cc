#include "bench/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace hone::bench {
namespace {

constexpr double kQuantiles[] = {0, 1, 50, 90, 95, 99, 99.9, 100};

// The exact nearest-rank percentile of sorted values: the value of rank ceil(q / 100 * n), at least 1.
uint64_t ExactPercentile(const std::vector<uint64_t>& sorted, double q) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * n / 100.0)));
  return sorted[std::min<uint64_t>(rank, sorted.size()) - 1];
}

// Records values and checks every quantile against the exact one. The bound under test is the header's contract:
// for values up to kMaxTrackableNs, |estimate - exact| <= exact * kMaxRelativeError (2^-8, 0.39%); values below
// 128 ns have one bucket each and come out exact, which the same inequality demands (it allows an error < 0.5).
void ExpectPercentilesWithinBound(std::vector<uint64_t> values, const std::string& what) {
  LatencyHistogram h;
  for (uint64_t v : values) h.Record(v);
  std::sort(values.begin(), values.end());
  for (double q : kQuantiles) {
    const uint64_t exact = ExactPercentile(values, q);
    const uint64_t estimate = h.Percentile(q);
    const double error = std::abs(static_cast<double>(estimate) - static_cast<double>(exact));
    EXPECT_LE(error, static_cast<double>(exact) * LatencyHistogram::kMaxRelativeError)
        << what << ": p" << q << " estimate " << estimate << " exact " << exact;
  }
  EXPECT_EQ(h.min(), values.front()) << what;
  EXPECT_EQ(h.max(), values.back()) << what;
  EXPECT_EQ(h.Percentile(100), values.back()) << what;
}

TEST(LatencyHistogramTest, BoundIsTwoToTheMinusEight) { EXPECT_EQ(LatencyHistogram::kMaxRelativeError, 1.0 / 256); }

TEST(LatencyHistogramTest, TrackableRangeCoversAnHour) {
  EXPECT_GE(LatencyHistogram::kMaxTrackableNs, uint64_t{3600} * 1'000'000'000);
}

TEST(LatencyHistogramTest, UniformPercentilesWithinBound) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<uint64_t> dist(1'000, 50'000'000);  // 1 us .. 50 ms
  std::vector<uint64_t> values(100'000);
  for (auto& v : values) v = dist(rng);
  ExpectPercentilesWithinBound(values, "uniform");
}

TEST(LatencyHistogramTest, HeavyTailedLognormalPercentilesWithinBound) {
  // Median 100 us with sigma 3: spans single nanoseconds to tens of seconds.
  std::mt19937_64 rng(2);
  std::lognormal_distribution<double> dist(std::log(1e5), 3.0);
  std::vector<uint64_t> values(200'000);
  for (auto& v : values) v = static_cast<uint64_t>(std::min(dist(rng), 1e12));
  ExpectPercentilesWithinBound(values, "lognormal");
  EXPECT_LT(*std::min_element(values.begin(), values.end()), uint64_t{1'000});
  EXPECT_GT(*std::max_element(values.begin(), values.end()), uint64_t{1'000'000'000});
}

TEST(LatencyHistogramTest, ConstantPercentilesWithinBound) {
  ExpectPercentilesWithinBound(std::vector<uint64_t>(10'000, 1'234'567), "constant");
  LatencyHistogram h;
  h.RecordN(1'234'567, 10'000);
  for (double q : kQuantiles) EXPECT_EQ(h.Percentile(q), 1'234'567u) << "p" << q;  // clamped to [min, max]
}

TEST(LatencyHistogramTest, TinyValuesAreExact) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<uint64_t> dist(0, 127);
  std::vector<uint64_t> values(50'000);
  for (auto& v : values) v = dist(rng);
  ExpectPercentilesWithinBound(values, "tiny");
  LatencyHistogram h;
  for (uint64_t v : values) h.Record(v);
  std::sort(values.begin(), values.end());
  for (double q : kQuantiles) EXPECT_EQ(h.Percentile(q), ExactPercentile(values, q)) << "p" << q;
}

TEST(LatencyHistogramTest, EveryValueNearBucketEdgesWithinBound) {
  // One value at a time, so the estimate is that value's bucket midpoint (clamping disabled by a 0 and a huge
  // neighbour): checks the bound at each power of two and its neighbours up to the top of the range.
  for (int bit = 0; bit < LatencyHistogram::kMaxValueBits; ++bit) {
    for (int64_t delta : {-1, 0, 1}) {
      const int64_t v = (int64_t{1} << bit) + delta;
      if (v < 1) continue;
      LatencyHistogram h;
      h.Record(0);
      h.Record(static_cast<uint64_t>(v));
      h.Record(LatencyHistogram::kMaxTrackableNs);
      const double error = std::abs(static_cast<double>(h.Percentile(50)) - static_cast<double>(v));
      EXPECT_LE(error, static_cast<double>(v) * LatencyHistogram::kMaxRelativeError) << "value " << v;
    }
  }
  // And random values of every bit width in between.
  std::mt19937_64 rng(5);
  LatencyHistogram h;
  for (int i = 0; i < 20'000; ++i) {
    const int bits = 1 + static_cast<int>(rng() % LatencyHistogram::kMaxValueBits);
    const uint64_t v = (rng() >> (64 - bits)) | 1;
    h.Reset();
    h.Record(0);
    h.Record(v);
    h.Record(LatencyHistogram::kMaxTrackableNs);
    const double error = std::abs(static_cast<double>(h.Percentile(50)) - static_cast<double>(v));
    ASSERT_LE(error, static_cast<double>(v) * LatencyHistogram::kMaxRelativeError) << "value " << v;
  }
}

TEST(LatencyHistogramTest, EmptyHistogram) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.sum(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  for (double q : kQuantiles) EXPECT_EQ(h.Percentile(q), 0u);
  h.RecordN(500, 0);  // recording nothing leaves it empty
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
}

TEST(LatencyHistogramTest, MinMaxMeanSumAreExact) {
  LatencyHistogram h;
  const std::vector<uint64_t> values = {1'000'003, 7, 123'456'789, 42'424'242, 999};
  for (uint64_t v : values) h.Record(v);
  EXPECT_EQ(h.count(), 5u);
  EXPECT_EQ(h.min(), 7u);
  EXPECT_EQ(h.max(), 123'456'789u);
  const uint64_t sum = std::accumulate(values.begin(), values.end(), uint64_t{0});
  EXPECT_EQ(h.sum(), sum);
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(sum) / 5);
  EXPECT_EQ(h.Percentile(0), 7u);  // rank 1 is the exact min
}

TEST(LatencyHistogramTest, MergeEqualsRecordingIntoOne) {
  std::mt19937_64 rng(4);
  std::lognormal_distribution<double> dist(std::log(2e6), 1.5);
  LatencyHistogram a, b, all;
  for (int i = 0; i < 30'000; ++i) {
    const auto v = static_cast<uint64_t>(dist(rng));
    (i % 3 == 0 ? a : b).Record(v);
    all.Record(v);
  }
  a.Merge(b);
  a.Merge(LatencyHistogram());  // merging an empty one changes nothing
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_EQ(a.sum(), all.sum());
  for (double q = 0; q <= 100; q += 0.5) EXPECT_EQ(a.Percentile(q), all.Percentile(q)) << "p" << q;
  LatencyHistogram empty;
  empty.Merge(all);
  EXPECT_EQ(empty.min(), all.min());
  EXPECT_EQ(empty.Percentile(99), all.Percentile(99));
}

TEST(LatencyHistogramTest, ResetForgetsEverything) {
  LatencyHistogram h;
  h.RecordN(5'000, 10);
  h.Reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.Percentile(50), 0u);
  h.Record(9);
  EXPECT_EQ(h.min(), 9u);
  EXPECT_EQ(h.Percentile(50), 9u);
}

TEST(LatencyHistogramTest, HugeValuesKeepExactMinMaxSum) {
  LatencyHistogram h;
  const uint64_t huge = UINT64_MAX / 4;  // far past kMaxTrackableNs: lands in the last bucket
  h.Record(huge);
  h.Record(huge + 1);
  h.Record(1'000);
  EXPECT_EQ(h.count(), 3u);
  EXPECT_EQ(h.max(), huge + 1);
  EXPECT_EQ(h.min(), 1'000u);
  EXPECT_EQ(h.sum(), 2 * huge + 1 + 1'000);
  EXPECT_EQ(h.Percentile(100), huge + 1);
  // The middle rank falls in the clamped last bucket: reported at most at the top of the trackable range.
  EXPECT_LE(h.Percentile(50), LatencyHistogram::kMaxTrackableNs);
  EXPECT_GE(h.Percentile(50), 1'000u);
  LatencyHistogram one;
  one.Record(UINT64_MAX);
  EXPECT_EQ(one.Percentile(50), UINT64_MAX);
  EXPECT_EQ(one.max(), UINT64_MAX);
}

TEST(LatencyHistogramTest, OutOfRangeQuantilesAreClamped) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.Record(v);
  EXPECT_EQ(h.Percentile(-5), 1u);
  EXPECT_EQ(h.Percentile(250), 100u);
  EXPECT_EQ(h.Percentile(std::nan("")), 1u);
  EXPECT_EQ(h.Percentile(99), 99u);  // ceil(99 * 100 / 100) = 99, no floating-point off-by-one
  EXPECT_EQ(h.Percentile(50), 50u);
}

}  // namespace
}  // namespace hone::bench
