#include "bench/stability.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace hone::bench {
namespace {

// A 1-second window with 1000 requests: long and full enough for the default minimums.
WindowSummary Window(double throughput, uint64_t p99_ns, uint64_t requests = 1000, double duration_s = 1.0) {
  return WindowSummary{throughput, p99_ns, requests, duration_s};
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(StabilityTest, StableWindowsStop) {
  const std::vector<WindowSummary> windows = {Window(1000, 5'000'000), Window(1040, 5'100'000),
                                              Window(980, 4'900'000)};
  EXPECT_EQ(Decide(windows, StabilitySettings{}), Decision::kStable);
  for (const Verdict& v : CheckWindows(windows, StabilitySettings{})) {
    EXPECT_TRUE(v.met) << v.detail;
    EXPECT_TRUE(v.recommendation.empty()) << v.recommendation;
  }
}

TEST(StabilityTest, FewerWindowsThanRequiredContinue) {
  const std::vector<WindowSummary> windows = {Window(1000, 5'000'000), Window(1000, 5'000'000)};
  EXPECT_EQ(Decide(windows, StabilitySettings{}), Decision::kContinue);
  EXPECT_EQ(Decide({}, StabilitySettings{}), Decision::kContinue);
}

TEST(StabilityTest, OnlyTheLastWindowsCount) {
  // A noisy warm-up window before three steady ones does not hold the run back.
  const std::vector<WindowSummary> windows = {Window(300, 90'000'000), Window(1000, 5'000'000),
                                              Window(1000, 5'000'000), Window(1000, 5'000'000)};
  EXPECT_EQ(Decide(windows, StabilitySettings{}), Decision::kStable);
}

TEST(StabilityTest, AgreementIsMeasuredAgainstTheMean) {
  // Mean 1000: 900 and 1100 deviate by exactly 10% and pass; 889 / 1111 / 1000 (mean 1000) deviates by 11.1%.
  const std::vector<WindowSummary> edge = {Window(900, 1000), Window(1000, 1000), Window(1100, 1000)};
  EXPECT_TRUE(ThroughputStable(edge, 0.10).met) << ThroughputStable(edge, 0.10).detail;
  const std::vector<WindowSummary> past = {Window(889, 1000), Window(1000, 1000), Window(1111, 1000)};
  EXPECT_FALSE(ThroughputStable(past, 0.10).met) << ThroughputStable(past, 0.10).detail;
}

TEST(StabilityTest, OneWindowOffByElevenPercentContinues) {
  // Two windows at 1000 and one at x, placed 11% above the mean of the three: x = 1.11 * (2000 + x) / 3.
  const double x = 1.11 * 2000 / (3 - 1.11);  // about 1174.6; the mean is about 1058.2
  const std::vector<WindowSummary> windows = {Window(1000, 5'000'000), Window(1000, 5'000'000),
                                              Window(x, 5'000'000)};
  const Verdict v = ThroughputStable(windows, 0.10);
  EXPECT_FALSE(v.met);
  EXPECT_TRUE(Contains(v.detail, "±11.0%")) << v.detail;
  EXPECT_TRUE(Contains(v.detail, "tolerance ±10.0%")) << v.detail;
  EXPECT_TRUE(Contains(v.recommendation, "--window-ms")) << v.recommendation;
  EXPECT_TRUE(Contains(v.recommendation, "--max-windows")) << v.recommendation;
  EXPECT_TRUE(LatencyStable(windows, 0.10).met);
  EXPECT_EQ(Decide(windows, StabilitySettings{}), Decision::kContinue);
}

TEST(StabilityTest, NoisyUntilMaxWindowsIsUnstable) {
  StabilitySettings settings;
  settings.max_windows = 6;
  std::vector<WindowSummary> windows;
  for (int i = 0; i < 6; ++i) {
    windows.push_back(Window(i % 2 == 0 ? 700 : 1300, 5'000'000));
    const Decision d = Decide(windows, settings);
    if (i < 5) {
      EXPECT_EQ(d, Decision::kContinue) << "after window " << i + 1;
    } else {
      EXPECT_EQ(d, Decision::kUnstable);
    }
  }
  // And stable on the last allowed window still counts as stable.
  windows.back() = Window(1000, 5'000'000);
  windows[4] = Window(1000, 5'000'000);
  windows[3] = Window(1000, 5'000'000);
  EXPECT_EQ(Decide(windows, settings), Decision::kStable);
}

TEST(StabilityTest, UnstableP99WithStableThroughputContinues) {
  const std::vector<WindowSummary> windows = {Window(1000, 5'000'000), Window(1000, 5'000'000),
                                              Window(1000, 9'000'000)};
  EXPECT_TRUE(ThroughputStable(windows, 0.10).met);
  const Verdict v = LatencyStable(windows, 0.10);
  EXPECT_FALSE(v.met);
  // Mean 6.33 ms; the 9 ms window is 42.1% above it.
  EXPECT_TRUE(Contains(v.detail, "±42.1%")) << v.detail;
  EXPECT_TRUE(Contains(v.detail, "6.33 ms")) << v.detail;
  EXPECT_TRUE(Contains(v.detail, "max 9 ms")) << v.detail;
  EXPECT_FALSE(v.recommendation.empty());
  EXPECT_EQ(Decide(windows, StabilitySettings{}), Decision::kContinue);
}

TEST(StabilityTest, MinDurationNotMetContinues) {
  StabilitySettings settings;
  settings.min_duration_s = 5.0;
  const std::vector<WindowSummary> windows(3, Window(1000, 5'000'000, 1000, 1.0));
  const Verdict v = MinDurationMet(windows, settings.min_duration_s);
  EXPECT_FALSE(v.met);
  EXPECT_TRUE(Contains(v.detail, "3.00 s")) << v.detail;
  EXPECT_TRUE(Contains(v.detail, "5.00 s")) << v.detail;
  EXPECT_TRUE(Contains(v.recommendation, "--window-ms")) << v.recommendation;
  EXPECT_EQ(Decide(windows, settings), Decision::kContinue);
  EXPECT_TRUE(MinDurationMet(windows, 3.0).met);  // the three windows combined, not each one
}

TEST(StabilityTest, MinRequestsNotMetContinues) {
  StabilitySettings settings;
  settings.min_requests = 500;
  const std::vector<WindowSummary> windows(3, Window(100, 5'000'000, 100, 1.0));
  const Verdict v = MinRequestsMet(windows, settings.min_requests);
  EXPECT_FALSE(v.met);
  EXPECT_TRUE(Contains(v.detail, "300 requests")) << v.detail;
  EXPECT_TRUE(Contains(v.detail, "500")) << v.detail;
  EXPECT_FALSE(v.recommendation.empty());
  EXPECT_EQ(Decide(windows, settings), Decision::kContinue);
  settings.min_requests = 300;
  EXPECT_EQ(Decide(windows, settings), Decision::kStable);
}

// A window in which nothing completed measured nothing: it is never compared as 0 req/s or a p99 of 0 ns, and the
// recommendation says why nothing completed.
TEST(StabilityTest, WindowWithoutCompletionsIsNotMeasuredAsZero) {
  WindowSummary slow = Window(0, 0, 0, 1.0);
  slow.in_flight = 2;
  const std::vector<WindowSummary> windows = {Window(1000, 5'000'000), slow, Window(1000, 5'000'000)};
  const Verdict t = ThroughputStable(windows, 0.10);
  EXPECT_FALSE(t.met);
  EXPECT_TRUE(Contains(t.detail, "no request completed in 1 of the last 3 windows")) << t.detail;
  EXPECT_FALSE(Contains(t.detail, "0.0 req/s")) << t.detail;
  EXPECT_TRUE(Contains(t.recommendation, "2 were in flight")) << t.recommendation;
  EXPECT_TRUE(Contains(t.recommendation, "--max-window-ms")) << t.recommendation;
  const Verdict l = LatencyStable(windows, 0.10);
  EXPECT_FALSE(l.met);
  EXPECT_TRUE(Contains(l.detail, "not measured in 1 of the last 3 windows")) << l.detail;
  EXPECT_FALSE(Contains(l.detail, "0 ns")) << l.detail;
  // Every request failing is another story.
  WindowSummary failing = Window(0, 0, 0, 1.0);
  failing.errors = 7;
  const std::vector<WindowSummary> failed(3, failing);
  const Verdict f = ThroughputStable(failed, 0.10);
  EXPECT_TRUE(Contains(f.detail, "no request completed in the last 3 windows (3.00 s)")) << f.detail;
  EXPECT_TRUE(Contains(f.recommendation, "21 failed")) << f.recommendation;
  EXPECT_EQ(Decide(failed, StabilitySettings{}), Decision::kContinue);
}

TEST(StabilityTest, NothingCompletedIsNotStable) {
  const std::vector<WindowSummary> windows(3, Window(0, 0, 0, 1.0));
  const Verdict v = ThroughputStable(windows, 0.10);
  EXPECT_FALSE(v.met);
  EXPECT_TRUE(Contains(v.recommendation, "no requests completed")) << v.recommendation;
  EXPECT_FALSE(LatencyStable(windows, 0.10).met);
  EXPECT_FALSE(ThroughputStable({}, 0.10).met);
  const std::vector<WindowSummary> nan_window = {Window(NAN, 1000), Window(1000, 1000), Window(1000, 1000)};
  EXPECT_FALSE(ThroughputStable(nan_window, 0.10).met);
}

TEST(StabilityTest, DefaultsAreValid) { EXPECT_TRUE(StabilitySettings{}.Validate().ok()); }

TEST(StabilityTest, ValidateNamesTheBadField) {
  struct Case {
    StabilitySettings settings;
    std::string field;
  };
  std::vector<Case> cases;
  auto add = [&](auto change, const std::string& field) {
    StabilitySettings s;
    change(s);
    cases.push_back({s, field});
  };
  add([](StabilitySettings& s) { s.windows = 0; }, "windows");
  add([](StabilitySettings& s) { s.max_windows = 2; }, "max_windows");
  add([](StabilitySettings& s) { s.tolerance = 0; }, "tolerance");
  add([](StabilitySettings& s) { s.tolerance = 1.5; }, "tolerance");
  add([](StabilitySettings& s) { s.tolerance = NAN; }, "tolerance");
  add([](StabilitySettings& s) { s.min_duration_s = -1; }, "min_duration_s");
  add([](StabilitySettings& s) { s.min_duration_s = INFINITY; }, "min_duration_s");
  for (const Case& c : cases) {
    const Status status = c.settings.Validate();
    ASSERT_FALSE(status.ok()) << c.field;
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(status.message(), c.field)) << status.message();
  }
  StabilitySettings ok;
  ok.tolerance = 1.0;
  ok.windows = 5;
  ok.max_windows = 5;
  EXPECT_TRUE(ok.Validate().ok());
}

}  // namespace
}  // namespace hone::bench
