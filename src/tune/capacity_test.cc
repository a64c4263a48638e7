// The capacity search against planted servers whose latency is a known function of the load: it finds the load
// where the bound stops holding, says so in one sentence, and divides an expected load into replicas.
#include "tune/capacity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace hone::tune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Slo ParsedSlo(const char* text) {
  auto slo = ParseSlo(text);
  EXPECT_TRUE(slo.ok()) << slo.status().message();
  return *slo;
}

// A closed-loop server whose p99 grows by `per_request_ms` for each request in flight, completing 100 samples/s
// per request in flight.
CapacityProbeFn LinearServer(double per_request_ms, int* calls = nullptr) {
  return [=](const Load& load) -> Result<LoadFigures> {
    if (calls) ++*calls;
    LoadFigures f;
    f.load = load;
    f.throughput_sps = 100.0 * static_cast<double>(load.concurrency);
    f.p50_ns = f.p95_ns = f.p99_ns = static_cast<uint64_t>(per_request_ms * 1e6 * static_cast<double>(load.concurrency));
    f.requests = 1000;
    return f;
  };
}

TEST(Capacity, AClosedLoopBoundHoldsUpToTheLargestConcurrencyWithinIt) {
  // p99 = 2 ms x concurrency: <= 10 ms holds up to 5, fails at 6.
  const SloCapacity c = FindCapacity(ParsedSlo("p99<=10ms@concurrency=8"), {}, LinearServer(2));
  ASSERT_TRUE(c.holds_up_to);
  EXPECT_EQ(c.holds_up_to->concurrency, 5);
  ASSERT_TRUE(c.fails_at);
  EXPECT_EQ(c.fails_at->concurrency, 6);
  EXPECT_EQ(c.repeats, 3);
  EXPECT_DOUBLE_EQ(c.throughput_sps, 500);
  EXPECT_EQ(CapacitySentence(c, 2),
            "p99 <= 10 ms holds up to concurrency 5 on 2 cores (500 samples/s, p99 10 ms +-0% over 3 runs); at the "
            "SLO's concurrency 8 it needs 2 replicas");
}

TEST(Capacity, ABoundThatFailsAtOneRequestCannotBeMetByReplicas) {
  const SloCapacity c = FindCapacity(ParsedSlo("p99<=1ms@concurrency=4"), {}, LinearServer(2));
  EXPECT_FALSE(c.holds_up_to);
  ASSERT_TRUE(c.fails_at);
  EXPECT_EQ(c.fails_at->concurrency, 1);
  EXPECT_THAT(CapacitySentence(c, 2), HasSubstr("does not hold even at concurrency 1 on 2 cores: more replicas do not help"));
  auto plan = ReplicasFor({c}, Load::Closed(16));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->replicas, 0);
  EXPECT_THAT(plan->arithmetic, HasSubstr("no number of replicas holds it"));
}

TEST(Capacity, ALoadThatHeldOnceButNotInItsRepeatsIsNoiseNotAnUnreachableBound) {
  // Holds up to concurrency 4 the first time each load is measured; every repeat of a load measured before fails.
  std::map<int64_t, int> seen;
  CapacityProbeFn noisy = [&](const Load& load) -> Result<LoadFigures> {
    const bool again = seen[load.concurrency]++ > 0;
    LoadFigures f;
    f.load = load;
    f.throughput_sps = 100.0 * static_cast<double>(load.concurrency);
    f.p50_ns = f.p95_ns = f.p99_ns = (load.concurrency <= 4 && !again) ? 5'000'000 : 50'000'000;
    f.requests = 1000;
    return f;
  };
  const SloCapacity c = FindCapacity(ParsedSlo("p99<=10ms@concurrency=8"), {}, noisy);
  EXPECT_FALSE(c.holds_up_to);
  ASSERT_TRUE(c.fails_at);
  EXPECT_EQ(c.fails_at->concurrency, 4);
  const std::string sentence = CapacitySentence(c, 2);
  EXPECT_THAT(sentence, HasSubstr("held in one run at concurrency 4 on 2 cores but not in the median of"));
  EXPECT_THAT(sentence, Not(HasSubstr("more replicas do not help")));
  // Not measured, so no replica count is claimed for it.
  EXPECT_FALSE(ReplicasFor({c}, Load::Closed(16)).ok());
}

TEST(Capacity, TheSearchStopsAtItsCeilingAndSaysSo) {
  CapacitySearch search;
  search.max_concurrency = 16;
  const SloCapacity c = FindCapacity(ParsedSlo("p99<=1s@concurrency=4"), search, LinearServer(1));
  ASSERT_TRUE(c.holds_up_to);
  EXPECT_EQ(c.holds_up_to->concurrency, 16);
  EXPECT_TRUE(c.at_ceiling);
  EXPECT_FALSE(c.fails_at);
  EXPECT_THAT(CapacitySentence(c, 2), HasSubstr("holds up to concurrency 16, the most tried, on 2 cores"));
}

TEST(Capacity, AnOpenLoopBoundIsNarrowedToWithinFivePercentOfItsRate) {
  // p99 1 ms below 1,000 requests/s, 50 ms above: the SLO's 300/s holds, the search doubles to 2,400 and narrows.
  auto server = [](const Load& load) -> Result<LoadFigures> {
    LoadFigures f;
    f.load = load;
    f.achieved_rate = load.rate;
    f.throughput_sps = std::min(load.rate, 1000.0);
    f.p99_ns = load.rate <= 1000 ? 1000000 : 50000000;
    f.requests = 1000;
    return f;
  };
  const SloCapacity c = FindCapacity(ParsedSlo("p99<=5ms@rate=300"), {}, server);
  ASSERT_TRUE(c.holds_up_to);
  ASSERT_TRUE(c.fails_at);
  EXPECT_LE(c.holds_up_to->rate, 1000);
  EXPECT_GE(c.holds_up_to->rate, 950);
  EXPECT_LE(c.fails_at->rate - c.holds_up_to->rate, 0.05 * c.holds_up_to->rate);
  auto plan = ReplicasFor({c}, Load::Open(4000));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->replicas, 5) << plan->arithmetic;  // 4000 / ~960 per replica
}

TEST(Capacity, ReplicasDivideTheExpectedLoadAndShowTheArithmetic) {
  const SloCapacity c = FindCapacity(ParsedSlo("p99<=10ms@concurrency=8"), {}, LinearServer(2));
  auto plan = ReplicasFor({c}, Load::Closed(20));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->replicas, 4);
  EXPECT_EQ(plan->arithmetic, "p99<=10ms@concurrency=8: concurrency 20 / 5 per replica -> 4 replicas");
  // A rate against a closed-loop SLO: through what one replica completes at its capacity (500 samples/s).
  plan = ReplicasFor({c}, Load::Open(1200));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->replicas, 3) << plan->arithmetic;
  EXPECT_THAT(plan->arithmetic, HasSubstr("its throughput at concurrency 5"));
}

TEST(Capacity, TheProbeBudgetBoundsTheSearch) {
  int calls = 0;
  CapacitySearch search;
  search.max_probes = 3;
  search.repeats = 2;
  const SloCapacity c = FindCapacity(ParsedSlo("p99<=10ms@concurrency=8"), search, LinearServer(2, &calls));
  // 1, 2, 4 held; the budget ends the doubling: 4 is what is known to hold, measured once more.
  ASSERT_TRUE(c.holds_up_to);
  EXPECT_EQ(c.holds_up_to->concurrency, 4);
  EXPECT_EQ(calls, 4);
  EXPECT_THAT(CapacitySentence(c, 2), HasSubstr("holds up to concurrency 4, the most the budget let it try, on 2 cores"));
}

TEST(Capacity, ExpectedLoadsParseAndBadOnesAreNamed) {
  EXPECT_EQ(ParseExpectedLoad("concurrency=64")->concurrency, 64);
  EXPECT_DOUBLE_EQ(ParseExpectedLoad("rate=2000")->rate, 2000);
  for (const char* bad : {"concurrency=0", "rate=-1", "rate=abc", "qps=10", "64"}) {
    auto r = ParseExpectedLoad(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr(std::string("--expected-load '") + bad + "'"));
  }
}

}  // namespace
}  // namespace hone::tune
