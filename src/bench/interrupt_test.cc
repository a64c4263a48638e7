// Ctrl-C in the middle of a sweep: the points that finished are reported, the rest are named as not run, and the
// cut-short point is dropped rather than reported half-measured.
#include "bench/interrupt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>

#include "bench/bench_runner.h"
#include "bench/load_generator.h"
#include "bench/report.h"

namespace hone::bench {
namespace {

using ::testing::HasSubstr;

const std::string kModel = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";
const std::string kData = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz";

RunLength QuickRun() {
  RunLength run;
  run.warmup_requests = 3;
  run.warmup_s = 0.02;
  run.window_s = 0.05;
  run.stability.windows = 2;
  run.stability.tolerance = 1.0;
  run.stability.max_windows = 2;
  run.stability.min_duration_s = 0.1;
  run.stability.min_requests = 1;
  return run;
}

TEST(InterruptTest, FirstSigintSetsTheFlagAndTheProcessGoesOn) {
  InterruptScope scope;
  ASSERT_FALSE(scope.flag()->load());
  ASSERT_EQ(std::raise(SIGINT), 0);  // the handler runs before raise returns
  EXPECT_TRUE(scope.flag()->load());
}

TEST(InterruptTest, SecondSigintExitsAtOnceWith130) {
  EXPECT_EXIT(
      {
        InterruptScope scope;
        std::raise(SIGINT);
        std::raise(SIGINT);
        std::exit(0);  // not reached
      },
      ::testing::ExitedWithCode(kExitInterrupted), "");
}

TEST(InterruptTest, StoppedPointIsCancelledNotReported) {
  NullTarget target;
  std::atomic<bool> stop{true};
  LoadOptions load;
  load.stop = &stop;
  RequestSet requests{std::vector<Tensor>{*Tensor::Allocate(DataType::kFp32, {1, 4})}};
  auto r = MeasurePoint(target, requests, BenchPoint{}, QuickRun(), load);
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled) << r.status().ToString();
}

// Stops the sweep in the second point's first window, as a SIGINT there would (the handler only sets the flag).
TEST(InterruptTest, SweepReportsFinishedPointsAndNamesTheRest) {
  BenchSettings s;
  s.model_path = kModel;
  s.inputs.data_path = kData;
  s.run = QuickRun();
  s.concurrency = {1, 2, 3};
  std::atomic<bool> stop{false};
  RunnerHooks hooks;
  hooks.stop = &stop;
  hooks.window_done = [&](const WindowProgress& w) {
    if (w.point->load.concurrency == 2) stop = true;
  };
  std::string lines;
  Progress progress("point", false, [&](std::string_view t) { lines += t; }, [] { return 0.0; });
  hooks.progress = &progress;
  auto report = RunBench(s, hooks);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->interrupted);
  ASSERT_EQ(report->points.size(), 1u);
  EXPECT_EQ(report->points[0].point.load.concurrency, 1);
  ASSERT_EQ(report->points_not_run.size(), 2u);
  EXPECT_EQ(report->points_not_run[0].load.concurrency, 2);  // cut short: not reported half-measured
  EXPECT_EQ(report->points_not_run[1].load.concurrency, 3);
  EXPECT_EQ(lines, "point 1 of 3: concurrency 1, batch 1 (0.0 s elapsed, about 0.0 s left)\n");

  const std::string text = ReportToText(*report);
  EXPECT_THAT(text, HasSubstr("INTERRUPTED (Ctrl-C): 1 of 3 points finished"));
  EXPECT_THAT(text, HasSubstr("  - concurrency 2, batch 1\n  - concurrency 3, batch 1\n"));
  const std::string csv = ReportToCsv(*report);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2);  // the header and the one finished point
}

// The client-side phases a target reports reach the point's result, averaged per request.
TEST(InterruptTest, ClientPhasesAreAveragedOverTheReportedRequests) {
  struct PhasedTarget : Target {
    Status Infer(std::span<const Tensor>) override { return Status::Ok(); }
    Status InferTimed(std::span<const Tensor>, RequestPhases& phases) override {
      phases.send = std::chrono::microseconds(30);
      phases.recv = std::chrono::microseconds(10);
      phases.timed = true;
      return Status::Ok();
    }
    std::string Describe() const override { return "phased"; }
  } target;
  RequestSet requests{std::vector<Tensor>{*Tensor::Allocate(DataType::kFp32, {1, 4})}};
  auto r = MeasurePoint(target, requests, BenchPoint{}, QuickRun(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->client.has_value());
  EXPECT_EQ(r->client->requests, r->requests);
  EXPECT_DOUBLE_EQ(r->client->send_us, 30);
  EXPECT_DOUBLE_EQ(r->client->recv_us, 10);
  NullTarget untimed;
  auto u = MeasurePoint(untimed, requests, BenchPoint{}, QuickRun(), {});
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(u->client.has_value());
}

}  // namespace
}  // namespace hone::bench
