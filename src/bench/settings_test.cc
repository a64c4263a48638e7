#include "bench/settings.h"

#include <gtest/gtest.h>

#include "bench/results.h"

namespace hone::bench {
namespace {

TEST(SettingsTest, SweepExpandsEveryCombinationInOrder) {
  RuntimeSweep sweep;
  sweep.intra_op_threads = {1, 2};
  sweep.graph_optimizations = {runtime::GraphOptimization::kBasic, runtime::GraphOptimization::kAll};
  sweep.spinning = {true, false};
  sweep.save_optimized_path = "opt.onnx";
  auto configs = sweep.Expand();
  ASSERT_EQ(configs.size(), 8u);
  EXPECT_EQ(configs[0].intra_op_threads, 1);
  EXPECT_EQ(configs[7].intra_op_threads, 2);
  EXPECT_FALSE(configs[7].allow_spinning);
  EXPECT_EQ(configs[0].optimized_model_path, "opt.onnx");  // only the first writes the optimized graph
  EXPECT_EQ(configs[1].optimized_model_path, "");
}

TEST(SettingsTest, PointsAreSessionsThenBatchesThenLoads) {
  BenchSettings s;
  s.model_path = "m.onnx";
  s.concurrency = {1, 4};
  auto points = ExpandPoints(s, 2, {1, 8});
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].session_index, 0u);
  EXPECT_EQ(points[1].load.concurrency, 4);
  EXPECT_EQ(points[2].batch, 8);
  EXPECT_EQ(points[4].session_index, 1u);
  EXPECT_EQ(points[1].Label(), "concurrency 4, batch 1");
  s.mode = LoadMode::kOpenLoop;
  s.rates = {100, 250.5};
  auto open = ExpandPoints(s, 1, {1});
  ASSERT_EQ(open.size(), 2u);
  EXPECT_EQ(open[1].Label(), "rate 250.5/s, batch 1");
  BenchPoint offline;
  offline.load.mode = LoadMode::kOffline;
  offline.batch = 64;
  EXPECT_EQ(offline.Label(), "offline batch 64");
}

TEST(SettingsTest, ValidateNamesTheFlag) {
  BenchSettings s;
  s.model_path = "m.onnx";
  EXPECT_TRUE(s.Validate().ok());
  s.concurrency = {0};
  EXPECT_NE(s.Validate().message().find("--concurrency"), std::string::npos);
  s.concurrency = {1};
  s.mode = LoadMode::kOpenLoop;
  EXPECT_NE(s.Validate().message().find("--rate"), std::string::npos);  // open loop without rates
  s.rates = {-5};
  EXPECT_NE(s.Validate().message().find("--rate"), std::string::npos);
  s.rates = {5};
  s.batch_sizes = {0};
  EXPECT_NE(s.Validate().message().find("--batch"), std::string::npos);
  s.batch_sizes = {};
  s.run.window_s = -1;
  EXPECT_NE(s.Validate().message().find("--window-ms"), std::string::npos);
  s.run.window_s = 1;
  s.runtime.intra_op_threads = {-1};
  EXPECT_FALSE(s.Validate().ok());
  BenchSettings no_model;
  EXPECT_FALSE(no_model.Validate().ok());
}

// Settings that could never give a stable report are refused up front, naming the flags and their numbers.
TEST(SettingsTest, RefusesARunThatCanNeverFinish) {
  RunLength run;  // the defaults: 3 windows of 1 s, at least 1 s measured
  EXPECT_TRUE(run.CheckCanFinish().ok());
  run.max_window_s = 0.5;
  Status s = run.CheckCanFinish();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--max-window-ms 500 is below --window-ms 1000"), std::string::npos) << s.message();
  EXPECT_TRUE(run.Validate().ok());  // each field alone is fine: only the combination is impossible

  run = RunLength{};
  run.window_s = 0.2;
  run.stability.min_duration_s = 1;
  s = run.CheckCanFinish();
  EXPECT_NE(s.message().find("--stability-windows 3 x --window-ms 200 cover 0.6 s, less than --min-duration-s 1"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("raise --window-ms to 334 or more, or --stability-windows to 5"), std::string::npos)
      << s.message();
  run.window_s = 0.1;
  run.stability.min_duration_s = 0.3;  // exactly covered (3 x 0.1 s) despite rounding
  EXPECT_TRUE(run.CheckCanFinish().ok());

  BenchSettings settings;  // the whole settings refuse it as well, before a runner loads anything
  settings.model_path = "m.onnx";
  settings.run.max_window_s = 0.1;
  EXPECT_NE(settings.Validate().message().find("--max-window-ms"), std::string::npos);
}

TEST(ResultsTest, DerivedFigures) {
  PointResult p;
  p.point.batch = 8;
  p.requests = 900;
  p.errors = 100;
  p.started = 1000;
  p.duration_s = 2.0;
  p.cpu_time = std::chrono::milliseconds(3000);
  EXPECT_DOUBLE_EQ(p.throughput_rps(), 450);
  EXPECT_DOUBLE_EQ(p.throughput_sps(), 3600);
  EXPECT_DOUBLE_EQ(p.achieved_rate(), 500);
  EXPECT_DOUBLE_EQ(p.error_rate(), 0.1);
  EXPECT_DOUBLE_EQ(p.cpu_cores_used(), 1.5);
  // $3.60/hour = $0.001/s; at 3600 samples/s a sample costs $0.001/3600, so 1,000 cost $0.000277...
  EXPECT_NEAR(*p.CostPer1000(3.60), 0.001 / 3600 * 1000, 1e-12);
  EXPECT_FALSE(p.CostPer1000(0).has_value());
}

}  // namespace
}  // namespace hone::bench
