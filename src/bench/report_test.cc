// The reports of points where nothing completed, windows that grew, and the memory split.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bench/report.h"

namespace hone::bench {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

BenchReport ReportWith(PointResult point) {
  BenchReport r;
  r.model_path = "slow.onnx";
  r.input_source = "generated (seed 1, 64 samples)";
  r.inputs_batched = false;
  r.input_mode = "whole tensors, one sample per request: the model has no shared batch dimension (input 'sr' is a "
                 "scalar)";
  r.input_pool_bytes = 3 << 20;
  r.run.window_s = 0.1;
  r.run.max_window_s = 2;
  r.points.push_back(std::move(point));
  return r;
}

PointResult NothingCompleted() {
  PointResult p;
  p.duration_s = 2;
  p.window_s = 2;
  p.decision = Decision::kUnstable;
  WindowSummary w;
  w.duration_s = 2;
  w.in_flight = 1;
  p.windows = {w};
  p.verdicts = CheckWindows(p.windows, StabilitySettings{});
  p.peak_rss_bytes = 100 << 20;
  p.request_bytes = 1 << 20;
  return p;
}

TEST(ReportTest, NothingCompletedIsSaidNotPrintedAsZeros) {
  BenchReport r = ReportWith(NothingCompleted());
  std::string text = ReportToText(r);
  EXPECT_THAT(text, AllOf(HasSubstr("no request completed in 2.00 s"), HasSubstr("--max-window-ms"),
                          HasSubstr("warm-up completed no request"), Not(HasSubstr("0 ns")),
                          Not(HasSubstr(" 0.0 "))));
  EXPECT_THAT(text, HasSubstr("batching   whole tensors, one sample per request"));

  nlohmann::json j = ReportToJson(r);
  const auto& p = j["points"][0];
  EXPECT_TRUE(p["latency_us"].is_null()) << p.dump();
  EXPECT_TRUE(p["throughput"].is_null());
  EXPECT_FALSE(p["completed_any"].get<bool>());
  EXPECT_TRUE(p["windows"][0]["p99_us"].is_null());
  EXPECT_EQ(p["windows"][0]["in_flight_at_end"], 1);
  EXPECT_FALSE(j["inputs"]["batched"].get<bool>());

  std::string csv = ReportToCsv(r);
  std::string row = csv.substr(csv.find('\n') + 1);
  // Concurrency, perf_analyzer's 15 measurement cells empty, then batch 1 and hone's columns: nothing measured.
  EXPECT_EQ(row.rfind("1" + std::string(15, ',') + ",1,,,,,0,0,", 0), 0u) << row;
}

TEST(ReportTest, MemorySplitsHoneInputsFromTheRest) {
  PointResult p = NothingCompleted();
  p.requests = 10;
  p.duration_s = 1;
  for (int i = 0; i < 10; ++i) p.latency.Record(300'000'000);
  p.warmup_completed = 4;
  p.warmup_mean_latency_ns = 300e6;
  p.windows[0].requests = 10;
  p.windows[0].throughput_per_s = 5;
  p.windows[0].p99_ns = 300'000'000;
  p.verdicts = CheckWindows(p.windows, StabilitySettings{});
  BenchReport r = ReportWith(p);
  nlohmann::json j = ReportToJson(r);
  const auto& memory = j["points"][0]["memory"];
  EXPECT_EQ(memory["peak_rss_bytes"], 100u << 20);
  EXPECT_EQ(memory["hone_inputs_bytes"], 4u << 20);  // the pool's 3 MiB and the requests' 1 MiB
  EXPECT_EQ(memory["peak_rss_without_hone_inputs_bytes"], 96u << 20);
  std::string text = ReportToText(r);
  EXPECT_THAT(text, AllOf(HasSubstr("4.0 MiB"), HasSubstr("the input pool 3.0 MiB"),
                          HasSubstr("warm-up requests took 300 ms on average"), HasSubstr("lasted 2.00 s")));
  EXPECT_THAT(text, Not(HasSubstr("no request completed")));
}

}  // namespace
}  // namespace hone::bench
