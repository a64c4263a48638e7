#include "bench/window_sizing.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hone::bench {
namespace {

RunLength Length(double window_s, double max_window_s, uint64_t min_requests = 100, int windows = 3) {
  RunLength run;
  run.window_s = window_s;
  run.max_window_s = max_window_s;
  run.stability.min_requests = min_requests;
  run.stability.windows = windows;
  return run;
}

TEST(WindowSizingTest, RequestsWantedSpreadsMinRequestsOverTheWindows) {
  EXPECT_EQ(RequestsWanted(Length(1, 60, 100, 3)), 34u);  // ceil(100 / 3)
  EXPECT_EQ(RequestsWanted(Length(1, 60, 10, 3)), kMinRequestsPerWindow);
  EXPECT_EQ(RequestsWanted(Length(1, 60, 0, 1)), kMinRequestsPerWindow);
}

TEST(WindowSizingTest, ExpectedRateFollowsTheLoad) {
  BenchPoint closed;
  closed.load.concurrency = 4;
  EXPECT_DOUBLE_EQ(ExpectedRate(closed, 64, 0.5), 8.0);
  BenchPoint open;
  open.load.mode = LoadMode::kOpenLoop;
  open.load.rate = 100;
  EXPECT_DOUBLE_EQ(ExpectedRate(open, 64, 0.001), 100.0);  // the schedule's pace
  EXPECT_DOUBLE_EQ(ExpectedRate(open, 2, 1.0), 2.0);       // the workers' pace, for a slow target
  EXPECT_EQ(ExpectedRate(closed, 64, 0), 0.0);             // nothing completed: unknown
  EXPECT_EQ(ExpectedRate(closed, 64, NAN), 0.0);
}

TEST(WindowSizingTest, FastTargetsKeepTheWindow) {
  EXPECT_DOUBLE_EQ(WindowSeconds(Length(1, 60), 5000), 1.0);
  EXPECT_DOUBLE_EQ(WindowSeconds(Length(0.1, 60, 10), 1000), 0.1);
}

TEST(WindowSizingTest, SlowTargetsGetLongerWindowsWithinTheBound) {
  // 300 ms a request, one outstanding: 3.3/s; 5 requests take 1.5 s.
  EXPECT_NEAR(WindowSeconds(Length(0.1, 60, 10), 1 / 0.3), 1.5, 1e-9);
  // 10 s a request: 34 requests would take 340 s; the bound holds it at 60 s.
  EXPECT_DOUBLE_EQ(WindowSeconds(Length(1, 60), 0.1), 60.0);
  // Nothing completed in warm-up: the longest window allowed.
  EXPECT_DOUBLE_EQ(WindowSeconds(Length(1, 60), 0), 60.0);
  // A --window-ms beyond the bound is the user's choice and wins.
  EXPECT_DOUBLE_EQ(WindowSeconds(Length(120, 60), 0.1), 120.0);
  EXPECT_DOUBLE_EQ(WindowSeconds(Length(0.1, 0.1), 0.1), 0.1);  // bound == window: never grows
}

TEST(WindowSizingTest, WarmupWaitsAtMostTheLongerOfItsTimeAndTheWindowBound) {
  RunLength run = Length(1, 60);
  run.warmup_s = 1;
  EXPECT_DOUBLE_EQ(WarmupLimitSeconds(run), 60.0);
  run.warmup_s = 90;
  EXPECT_DOUBLE_EQ(WarmupLimitSeconds(run), 90.0);
}

TEST(WindowSizingTest, MaxWindowIsValidated) {
  RunLength run = Length(1, 0);
  EXPECT_EQ(run.Validate().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(run.Validate().message().find("--max-window-ms"), std::string::npos);
  run.max_window_s = NAN;
  EXPECT_FALSE(run.Validate().ok());
  run.max_window_s = 60;
  EXPECT_TRUE(run.Validate().ok());
}

}  // namespace
}  // namespace hone::bench
