#include "bench/load_generator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace hone::bench {
namespace {

// Short windows and a loose tolerance: these tests check behaviour, not how fast this machine is.
RunLength QuickRun() {
  RunLength run;
  run.warmup_requests = 5;
  run.warmup_s = 0.05;
  run.window_s = 0.1;
  run.stability.windows = 3;
  run.stability.tolerance = 0.9;
  run.stability.max_windows = 20;
  run.stability.min_duration_s = 0.2;
  run.stability.min_requests = 10;
  return run;
}

RequestSet OneRequest() { return RequestSet{std::vector<Tensor>{*Tensor::Allocate(DataType::kFp32, {1, 4})}}; }

// Sleeps a fixed time and tracks how many calls are in flight at once.
class SlowTarget : public Target {
 public:
  explicit SlowTarget(std::chrono::microseconds service) : service_(service) {}
  Status Infer(std::span<const Tensor>) override {
    int now = ++in_flight_;
    int seen = max_in_flight_.load();
    while (now > seen && !max_in_flight_.compare_exchange_weak(seen, now)) {}
    std::this_thread::sleep_for(service_);
    --in_flight_;
    ++calls_;
    return Status::Ok();
  }
  std::string Describe() const override { return "slow"; }
  std::atomic<int> in_flight_{0}, max_in_flight_{0};
  std::atomic<uint64_t> calls_{0};

 private:
  std::chrono::microseconds service_;
};

class FlakyTarget : public Target {
 public:
  Status Infer(std::span<const Tensor>) override {
    return (calls_++ % 2) ? Status::Unavailable("queue full") : Status::Ok();
  }
  std::string Describe() const override { return "flaky"; }
  std::atomic<uint64_t> calls_{0};
};

TEST(LoadGeneratorTest, ClosedLoopKeepsExactlyNOutstanding) {
  SlowTarget target(std::chrono::microseconds(500));
  BenchPoint point;
  point.concurrency = 3;
  auto r = MeasurePoint(target, OneRequest(), point, QuickRun(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(target.max_in_flight_.load(), 3);
  EXPECT_GT(r->requests, 0u);
  EXPECT_EQ(r->errors, 0u);
  EXPECT_EQ(r->latency.count(), r->requests);
  EXPECT_GE(r->latency.min(), 500'000u);  // never less than the service time
  EXPECT_GE(r->windows.size(), 3u);
  EXPECT_FALSE(r->verdicts.empty());
}

TEST(LoadGeneratorTest, ErrorsAreCountedNotTimed) {
  FlakyTarget target;
  BenchPoint point;
  auto r = MeasurePoint(target, OneRequest(), point, QuickRun(), {});
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->errors, 0u);
  EXPECT_NEAR(r->error_rate(), 0.5, 0.01);
  EXPECT_EQ(r->latency.count(), r->requests);
  EXPECT_NE(r->first_error.find("queue full"), std::string::npos);
  EXPECT_GT(r->errors_anywhere, r->errors);  // warm-up and earlier windows count too
}

// A target that fails only while warming up: the reported windows are clean, but the point still has errors.
TEST(LoadGeneratorTest, ErrorsDuringWarmupAreNotLost) {
  struct ColdTarget : Target {
    Status Infer(std::span<const Tensor>) override {
      return calls++ < 3 ? Status::Internal("not warm yet") : Status::Ok();
    }
    std::string Describe() const override { return "cold"; }
    std::atomic<int> calls{0};
  } target;
  auto r = MeasurePoint(target, OneRequest(), BenchPoint{}, QuickRun(), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->errors, 0u);
  EXPECT_EQ(r->errors_anywhere, 3u);
  EXPECT_NE(r->first_error_anywhere.find("not warm yet"), std::string::npos);
}

// Open loop with a target that can serve 100/s offered 200/s: the schedule does not wait for the target, so
// the achieved rate stays near what the target can do and latency, counted from the intended send times,
// grows with the queue (no coordinated omission).
TEST(LoadGeneratorTest, OpenLoopCountsQueueingFromIntendedTime) {
  SlowTarget target(std::chrono::milliseconds(10));
  BenchPoint point;
  point.mode = LoadMode::kOpenLoop;
  point.rate = 200;
  LoadOptions load;
  load.open_loop_workers = 1;
  load.arrival = ArrivalProcess::kConstant;
  RunLength run = QuickRun();
  run.stability.max_windows = 6;
  run.stability.tolerance = 0.2;
  auto r = MeasurePoint(target, OneRequest(), point, run, load);
  ASSERT_TRUE(r.ok());
  EXPECT_LT(r->achieved_rate(), 0.75 * point.rate);
  EXPECT_GT(r->latency.Percentile(99), 5 * 10'000'000u);  // far above the 10 ms service time
  // However steady its throughput, an overloaded point is not a valid measurement of the rate.
  EXPECT_EQ(r->decision, Decision::kUnstable);
  EXPECT_FALSE(r->verdicts.back().met);
  EXPECT_NE(r->verdicts.back().recommendation.find("--rate"), std::string::npos);
}

TEST(LoadGeneratorTest, OpenLoopAtAnEasyRateAchievesIt) {
  SlowTarget target(std::chrono::microseconds(100));
  BenchPoint point;
  point.mode = LoadMode::kOpenLoop;
  point.rate = 100;
  LoadOptions load;
  load.open_loop_workers = 4;
  load.arrival = ArrivalProcess::kConstant;
  RunLength run = QuickRun();
  run.window_s = 0.3;
  auto r = MeasurePoint(target, OneRequest(), point, run, load);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->achieved_rate(), 100, 20);
  EXPECT_NEAR(r->throughput_rps(), 100, 20);
}

TEST(LoadGeneratorTest, NullTargetMeasuresTheGeneratorAlone) {
  NullTarget target;
  BenchPoint point;
  point.concurrency = 2;
  auto r = MeasurePoint(target, OneRequest(), point, QuickRun(), {});
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->requests, 1000u);
  EXPECT_EQ(r->errors, 0u);
}

TEST(LoadGeneratorTest, UnstableWhenWindowsNeverAgree) {
  SlowTarget target(std::chrono::microseconds(200));
  BenchPoint point;
  RunLength run = QuickRun();
  run.stability.tolerance = 0.9;
  run.stability.min_requests = 1'000'000'000;  // cannot be met: the rule must give up, not loop forever
  run.stability.max_windows = 4;
  auto r = MeasurePoint(target, OneRequest(), point, run, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->decision, Decision::kUnstable);
  EXPECT_EQ(r->windows.size(), 4u);
  bool some_failed = false;
  for (const auto& v : r->verdicts) some_failed |= !v.met && !v.recommendation.empty();
  EXPECT_TRUE(some_failed);
}

TEST(LoadGeneratorTest, RejectsNoRequestsAndBadRunLength) {
  NullTarget target;
  EXPECT_FALSE(MeasurePoint(target, {}, BenchPoint{}, QuickRun(), {}).ok());
  RunLength bad = QuickRun();
  bad.window_s = 0;
  EXPECT_FALSE(MeasurePoint(target, OneRequest(), BenchPoint{}, bad, {}).ok());
  BenchPoint none;
  none.concurrency = 0;
  EXPECT_FALSE(MeasurePoint(target, OneRequest(), none, QuickRun(), {}).ok());
  BenchPoint no_rate;
  no_rate.mode = LoadMode::kOpenLoop;
  no_rate.rate = 0;
  EXPECT_FALSE(MeasurePoint(target, OneRequest(), no_rate, QuickRun(), {}).ok());
}

}  // namespace
}  // namespace hone::bench
