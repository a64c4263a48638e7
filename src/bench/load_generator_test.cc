#include "bench/load_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

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
  point.load.concurrency = 3;
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
  point.load.mode = LoadMode::kOpenLoop;
  point.load.rate = 200;
  LoadOptions load;
  load.open_loop_workers = 1;
  load.arrival = ArrivalProcess::kConstant;
  RunLength run = QuickRun();
  run.stability.max_windows = 6;
  run.stability.tolerance = 0.2;
  auto r = MeasurePoint(target, OneRequest(), point, run, load);
  ASSERT_TRUE(r.ok());
  EXPECT_LT(r->achieved_rate(), 0.75 * point.load.rate);
  EXPECT_GT(r->latency.Percentile(99), 5 * 10'000'000u);  // far above the 10 ms service time
  // However steady its throughput, an overloaded point is not a valid measurement of the rate.
  EXPECT_EQ(r->decision, Decision::kUnstable);
  EXPECT_FALSE(r->verdicts.back().met);
  EXPECT_NE(r->verdicts.back().recommendation.find("--rate"), std::string::npos);
}

// Records when each call came, and counts them.
class CountingTarget : public Target {
 public:
  Status Infer(std::span<const Tensor>) override {
    std::lock_guard lock(mu_);
    calls_.push_back(std::chrono::steady_clock::now());
    return Status::Ok();
  }
  std::string Describe() const override { return "counting"; }
  std::vector<std::chrono::steady_clock::time_point> Calls() {
    std::lock_guard lock(mu_);
    std::vector<std::chrono::steady_clock::time_point> calls = calls_;
    std::sort(calls.begin(), calls.end());
    return calls;
  }

 private:
  std::mutex mu_;
  std::vector<std::chrono::steady_clock::time_point> calls_;
};

// What the open loop does whatever the machine's speed (how close it comes to the rate depends on how busy the
// machine is, so that is not asserted): the k-th request goes no earlier than k / rate after the start, every one
// sent is answered and counted once, and the reported rate is what was sent.
TEST(LoadGeneratorTest, OpenLoopNeverSendsAheadOfItsScheduleAndCountsWhatItSent) {
  CountingTarget target;
  BenchPoint point;
  point.load.mode = LoadMode::kOpenLoop;
  point.load.rate = 100;
  LoadOptions load;
  load.open_loop_workers = 4;
  load.arrival = ArrivalProcess::kConstant;
  RunLength run = QuickRun();
  run.window_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();  // the schedule starts after this
  auto r = MeasurePoint(target, OneRequest(), point, run, load);
  ASSERT_TRUE(r.ok());
  const std::vector<std::chrono::steady_clock::time_point> calls = target.Calls();
  ASSERT_FALSE(calls.empty());
  for (size_t k = 1; k <= calls.size(); ++k) {
    const auto due = t0 + std::chrono::nanoseconds(static_cast<int64_t>(k) * 1'000'000'000 / 100) -
                     std::chrono::nanoseconds(1);  // the schedule rounds to the nanosecond
    ASSERT_GE(calls[k - 1], due) << "request " << k << " went " << (due - calls[k - 1]).count() << " ns early";
  }
  EXPECT_EQ(r->errors, 0u);
  EXPECT_EQ(r->errors_anywhere, 0u);
  EXPECT_GT(r->started, 0u);
  EXPECT_LE(r->started, calls.size());  // the windows' sends are among the target's calls
  // Sends and completions differ only by the requests in flight at the windows' two ends, at most one a worker.
  EXPECT_LE(r->requests, r->started + load.open_loop_workers);
  EXPECT_LE(r->started, r->requests + load.open_loop_workers);
  EXPECT_EQ(r->latency.count(), r->requests);
  EXPECT_DOUBLE_EQ(r->achieved_rate(), static_cast<double>(r->started) / r->duration_s);
}

// How many requests a null target sees is this machine's speed; that each is counted once is not.
TEST(LoadGeneratorTest, NullTargetMeasuresTheGeneratorAlone) {
  struct CountingNullTarget : NullTarget {
    Status Infer(std::span<const Tensor> inputs) override {
      ++calls;
      return NullTarget::Infer(inputs);
    }
    std::atomic<uint64_t> calls{0};
  } target;
  BenchPoint point;
  point.load.concurrency = 2;
  auto r = MeasurePoint(target, OneRequest(), point, QuickRun(), {});
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->requests, 0u);
  EXPECT_EQ(r->errors, 0u);
  EXPECT_EQ(r->latency.count(), r->requests);
  EXPECT_LE(r->requests, target.calls.load());
  // The reported windows are the last `stability.windows` measured, and their requests add up to the point's.
  ASSERT_GE(r->windows.size(), 3u);
  uint64_t in_windows = 0;
  for (size_t i = r->windows.size() - 3; i < r->windows.size(); ++i) in_windows += r->windows[i].requests;
  EXPECT_EQ(in_windows, r->requests);
  // Sends and completions differ only by the requests in flight at the windows' two ends, one a thread at most.
  EXPECT_LE(r->started, r->requests + 2);
  EXPECT_LE(r->requests, r->started + 2);
}

TEST(LoadGeneratorTest, UnstableWhenWindowsNeverAgree) {
  SlowTarget target(std::chrono::microseconds(200));
  BenchPoint point;
  RunLength run = QuickRun();
  run.stability.tolerance = 0.9;
  run.stability.min_requests = 1'000'000'000;  // cannot be met: the rule must give up, not loop forever
  run.stability.max_windows = 4;
  run.max_window_s = run.window_s;  // and windows must not grow to try to hold that many
  auto r = MeasurePoint(target, OneRequest(), point, run, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->decision, Decision::kUnstable);
  EXPECT_EQ(r->windows.size(), 4u);
  bool some_failed = false;
  for (const auto& v : r->verdicts) some_failed |= !v.met && !v.recommendation.empty();
  EXPECT_TRUE(some_failed);
}

// A target far slower than the window setting (300 ms a request, 100 ms windows): windows grow from the warm-up's
// latency so that each holds requests, and the latencies reported are the target's, never 0.
TEST(LoadGeneratorTest, SlowTargetGetsWindowsThatHoldRequests) {
  SlowTarget target(std::chrono::milliseconds(300));
  BenchPoint point;
  point.load.concurrency = 4;
  RunLength run = QuickRun();
  run.warmup_requests = 1;
  run.warmup_s = 0;
  run.stability.windows = 2;
  run.stability.max_windows = 2;
  run.stability.min_duration_s = 0;
  run.stability.min_requests = 1;
  auto r = MeasurePoint(target, OneRequest(), point, run, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GE(r->warmup_completed, 1u);
  EXPECT_GE(r->warmup_mean_latency_ns, 300e6);
  // 4 outstanding at about 300 ms each: 5 requests (kMinRequestsPerWindow) need 5 / (4 / latency) s, ~0.375 s.
  EXPECT_NEAR(r->window_s, 5 * (r->warmup_mean_latency_ns / 1e9) / 4, 1e-9);
  EXPECT_GT(r->window_s, run.window_s);
  ASSERT_EQ(r->windows.size(), 2u);
  for (const WindowSummary& w : r->windows) {
    EXPECT_GE(w.duration_s, r->window_s);
    EXPECT_GE(w.requests, 1u);  // a window of ~0.375 s holds at least one burst of 4 completions
    EXPECT_GE(w.p99_ns, 300'000'000u);
  }
  EXPECT_TRUE(r->completed_any());
  EXPECT_GE(r->latency.Percentile(50), 300'000'000u);
}

// A target slower than the longest window allowed: no window sees a completion, and the verdicts say so (not
// "0 req/s" or "0 ns"), pointing at --max-window-ms since requests were in flight.
TEST(LoadGeneratorTest, TargetSlowerThanEveryWindowReportsNothingCompleted) {
  SlowTarget target(std::chrono::milliseconds(800));  // the one window ends at about 0.2 s, well before
  BenchPoint point;
  RunLength run = QuickRun();
  run.warmup_requests = 1;
  run.warmup_s = 0;
  run.max_window_s = 0.1;  // warm-up gives up after 0.1 s too
  run.stability.windows = 1;
  run.stability.max_windows = 1;
  auto r = MeasurePoint(target, OneRequest(), point, run, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->warmup_completed, 0u);
  EXPECT_DOUBLE_EQ(r->window_s, 0.1);
  ASSERT_EQ(r->windows.size(), 1u);
  EXPECT_EQ(r->windows[0].requests, 0u);
  EXPECT_EQ(r->windows[0].in_flight, 1u);
  EXPECT_FALSE(r->completed_any());
  EXPECT_EQ(r->decision, Decision::kUnstable);
  ASSERT_GE(r->verdicts.size(), 2u);
  EXPECT_NE(r->verdicts[0].detail.find("no request completed"), std::string::npos) << r->verdicts[0].detail;
  EXPECT_EQ(r->verdicts[0].detail.find("0.0 req/s"), std::string::npos) << r->verdicts[0].detail;
  EXPECT_NE(r->verdicts[0].recommendation.find("--max-window-ms"), std::string::npos);
  EXPECT_NE(r->verdicts[1].detail.find("not measured"), std::string::npos) << r->verdicts[1].detail;
  EXPECT_EQ(r->verdicts[1].detail.find("0 ns"), std::string::npos) << r->verdicts[1].detail;
}

// A target that fails every request at once: windows keep their length (failures finish fast), and the verdicts
// say that every request failed.
TEST(LoadGeneratorTest, FailingTargetKeepsShortWindows) {
  struct FailingTarget : Target {
    Status Infer(std::span<const Tensor>) override { return Status::Unavailable("down"); }
    std::string Describe() const override { return "failing"; }
  } target;
  RunLength run = QuickRun();
  run.stability.max_windows = 3;
  auto r = MeasurePoint(target, OneRequest(), BenchPoint{}, run, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->warmup_completed, 0u);
  EXPECT_DOUBLE_EQ(r->window_s, run.window_s);
  EXPECT_EQ(r->decision, Decision::kUnstable);
  EXPECT_NE(r->verdicts[0].recommendation.find("failed"), std::string::npos) << r->verdicts[0].recommendation;
}

TEST(LoadGeneratorTest, RejectsNoRequestsAndBadRunLength) {
  NullTarget target;
  EXPECT_FALSE(MeasurePoint(target, {}, BenchPoint{}, QuickRun(), {}).ok());
  RunLength bad = QuickRun();
  bad.window_s = 0;
  EXPECT_FALSE(MeasurePoint(target, OneRequest(), BenchPoint{}, bad, {}).ok());
  BenchPoint none;
  none.load.concurrency = 0;
  EXPECT_FALSE(MeasurePoint(target, OneRequest(), none, QuickRun(), {}).ok());
  BenchPoint no_rate;
  no_rate.load.mode = LoadMode::kOpenLoop;
  no_rate.load.rate = 0;
  EXPECT_FALSE(MeasurePoint(target, OneRequest(), no_rate, QuickRun(), {}).ok());
}

}  // namespace
}  // namespace hone::bench
