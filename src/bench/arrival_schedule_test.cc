#include "bench/arrival_schedule.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

namespace hone::bench {
namespace {

using std::chrono::nanoseconds;

// Statistical checks use a fixed seed, so they are deterministic; the tolerances are still ~4-5 standard errors
// wide, so any seed would pass with overwhelming probability and the test does not hinge on a lucky one.
constexpr uint64_t kSeed = 20240607;

struct MeanVariance {
  double mean = 0;
  double variance = 0;
};

MeanVariance Moments(const std::vector<double>& xs) {
  double sum = 0;
  for (double x : xs) sum += x;
  MeanVariance m;
  m.mean = sum / static_cast<double>(xs.size());
  double squares = 0;
  for (double x : xs) squares += (x - m.mean) * (x - m.mean);
  m.variance = squares / static_cast<double>(xs.size() - 1);
  return m;
}

std::vector<nanoseconds> Take(ArrivalSchedule& schedule, int n) {
  std::vector<nanoseconds> times(n);
  for (auto& t : times) t = schedule.Next();
  return times;
}

TEST(ArrivalScheduleTest, PoissonGapsAreExponential) {
  // Exponential(rate): mean 1/rate, variance 1/rate^2. Standard errors over 200k gaps: 0.22% for the mean, 0.63%
  // for the variance (the exponential's kurtosis is 9).
  constexpr double kRate = 10.0;
  constexpr int kSamples = 200'000;
  ArrivalSchedule schedule(kRate, ArrivalProcess::kPoisson, kSeed);
  const std::vector<nanoseconds> times = Take(schedule, kSamples);
  std::vector<double> gaps_s;
  nanoseconds previous{0};
  for (nanoseconds t : times) {
    ASSERT_GE(t, previous);
    gaps_s.push_back(static_cast<double>((t - previous).count()) / 1e9);
    previous = t;
  }
  const MeanVariance m = Moments(gaps_s);
  EXPECT_NEAR(m.mean, 1 / kRate, 0.01 / kRate);
  EXPECT_NEAR(m.variance, 1 / (kRate * kRate), 0.03 / (kRate * kRate));
}

TEST(ArrivalScheduleTest, PoissonCountsPerSecondHaveEqualMeanAndVariance) {
  // A Poisson process has Poisson counts per interval: mean = variance = rate. Over ~20,000 one-second bins the
  // dispersion index (variance / mean) has a standard error of about 1%; 5% is a wide margin.
  constexpr double kRate = 10.0;
  ArrivalSchedule schedule(kRate, ArrivalProcess::kPoisson, kSeed + 1);
  const std::vector<nanoseconds> times = Take(schedule, 200'000);
  const auto full_bins = static_cast<size_t>(times.back().count() / 1'000'000'000);  // drop the partial last bin
  ASSERT_GT(full_bins, 19'000u);
  std::vector<double> counts(full_bins, 0);
  for (nanoseconds t : times) {
    const auto bin = static_cast<size_t>(t.count() / 1'000'000'000);
    if (bin < full_bins) counts[bin] += 1;
  }
  const MeanVariance m = Moments(counts);
  EXPECT_NEAR(m.mean, kRate, 0.01 * kRate);
  EXPECT_NEAR(m.variance, kRate, 0.05 * kRate);
  EXPECT_NEAR(m.variance / m.mean, 1.0, 0.05);
}

TEST(ArrivalScheduleTest, ConstantGapsAreExact) {
  ArrivalSchedule schedule(1000.0, ArrivalProcess::kConstant, kSeed);
  for (int64_t k = 1; k <= 1'000'000; ++k) ASSERT_EQ(schedule.Next(), nanoseconds(k * 1'000'000)) << "arrival " << k;
  EXPECT_EQ(schedule.arrivals(), 1'000'000u);
}

TEST(ArrivalScheduleTest, ConstantScheduleDoesNotDriftWhenPeriodIsNotWholeNanoseconds) {
  // 3/s: a period of 333,333,333.33 ns. The k-th arrival must be round(k * 1e9 / 3) ns, computed here in integers
  // as floor((2 * k * 1e9 + 3) / 6); summing rounded gaps would drift by 1/3 ns per arrival instead.
  ArrivalSchedule schedule(3.0, ArrivalProcess::kConstant, kSeed);
  nanoseconds previous{0};
  for (int64_t k = 1; k <= 1'000'000; ++k) {
    const nanoseconds t = schedule.Next();
    ASSERT_EQ(t.count(), (2 * k * 1'000'000'000 + 3) / 6) << "arrival " << k;
    const int64_t gap = (t - previous).count();
    ASSERT_TRUE(gap == 333'333'333 || gap == 333'333'334) << "gap " << gap;
    previous = t;
  }
  EXPECT_EQ(previous.count(), 333'333'333'333'333);
}

TEST(ArrivalScheduleTest, SameSeedSameSequenceDifferentSeedDifferentSequence) {
  ArrivalSchedule a(500.0, ArrivalProcess::kPoisson, 7);
  ArrivalSchedule b(500.0, ArrivalProcess::kPoisson, 7);
  ArrivalSchedule c(500.0, ArrivalProcess::kPoisson, 8);
  const std::vector<nanoseconds> ta = Take(a, 1000), tb = Take(b, 1000), tc = Take(c, 1000);
  EXPECT_EQ(ta, tb);
  EXPECT_NE(ta, tc);
  int equal = 0;
  for (size_t i = 0; i < ta.size(); ++i) equal += ta[i] == tc[i];
  EXPECT_LT(equal, 10);  // not merely one differing element
}

TEST(ArrivalScheduleTest, CopyContinuesTheSameSequence) {
  ArrivalSchedule a(100.0, ArrivalProcess::kPoisson, 9);
  Take(a, 10);
  ArrivalSchedule b = a;
  EXPECT_EQ(Take(a, 100), Take(b, 100));
}

TEST(ArrivalScheduleTest, CreateRejectsInvalidRates) {
  for (double rate : {0.0, -1.0, -0.0, std::nan(""), std::numeric_limits<double>::infinity(),
                      -std::numeric_limits<double>::infinity()}) {
    for (ArrivalProcess process : {ArrivalProcess::kPoisson, ArrivalProcess::kConstant}) {
      const Result<ArrivalSchedule> r = ArrivalSchedule::Create(rate, process, kSeed);
      ASSERT_FALSE(r.ok()) << "rate " << rate;
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(r.status().message().find("arrival rate"), std::string::npos) << r.status().message();
    }
  }
}

TEST(ArrivalScheduleTest, CreateAcceptsValidRate) {
  Result<ArrivalSchedule> r = ArrivalSchedule::Create(250.0, ArrivalProcess::kConstant, kSeed);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->Next(), nanoseconds(4'000'000));
  EXPECT_EQ(r->rate_per_second(), 250.0);
  EXPECT_EQ(r->process(), ArrivalProcess::kConstant);
}

TEST(ArrivalScheduleTest, TinyRateSaturatesInsteadOfOverflowing) {
  ArrivalSchedule schedule(1e-300, ArrivalProcess::kConstant, kSeed);
  EXPECT_EQ(schedule.Next(), nanoseconds::max());
  ArrivalSchedule poisson(1e-300, ArrivalProcess::kPoisson, kSeed);
  EXPECT_EQ(poisson.Next(), nanoseconds::max());
  EXPECT_EQ(poisson.Next(), nanoseconds::max());
}

}  // namespace
}  // namespace hone::bench
