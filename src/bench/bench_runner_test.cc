#include "bench/bench_runner.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "bench/report.h"
#include "tensor/npz.h"

namespace hone::bench {
namespace {

const std::string kModel = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";
const std::string kData = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz";

BenchSettings QuickSettings() {
  BenchSettings s;
  s.model_path = kModel;
  s.inputs.data_path = kData;
  s.run.warmup_requests = 3;
  s.run.warmup_s = 0.02;
  s.run.window_s = 0.1;
  s.run.stability.tolerance = 0.9;
  s.run.stability.max_windows = 20;
  s.run.stability.min_duration_s = 0.2;
  s.run.stability.min_requests = 5;
  return s;
}

// A run on the bundled model reports every metric the report promises.
TEST(BenchRunnerTest, BundledModelProducesEveryMetric) {
  BenchSettings s = QuickSettings();
  s.mode = LoadMode::kOffline;
  s.batch_sizes = {1, 4};
  s.runtime.intra_op_threads = {1, 2};
  s.cost_per_hour = 1.0;
  std::vector<std::string> said;
  RunnerHooks hooks;
  hooks.status = [&](const std::string& m) { said.push_back(m); };
  auto report = RunBench(s, hooks);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const BenchReport& r = *report;

  EXPECT_EQ(r.input_source, "dataset '" + kData + "' (2000 samples)");
  EXPECT_EQ(r.model_inputs, std::vector<std::string>{"image: FP32 [batch, 1, 28, 28]"});
  EXPECT_FALSE(r.system.cpu_model.empty());
  EXPECT_GT(r.system.logical_cores, 0);
  EXPECT_FALSE(r.system.onnxruntime_version.empty());
  EXPECT_GT(r.cold_start.to_session_ready.count(), 0);
  EXPECT_GE(r.cold_start.to_first_result, r.cold_start.to_session_ready);
  ASSERT_EQ(r.sessions.size(), 2u);
  for (const auto& session : r.sessions) {
    EXPECT_GT(session.load_time.count(), 0);
    EXPECT_GT(session.first_run_time.count(), 0);
  }
  ASSERT_EQ(r.points.size(), 4u);  // 2 sessions x 2 batch sizes
  for (const auto& p : r.points) {
    EXPECT_GT(p.requests, 0u) << p.point.Label();
    EXPECT_EQ(p.errors, 0u) << p.first_error;
    EXPECT_GT(p.latency.Percentile(50), 0u);
    EXPECT_LE(p.latency.Percentile(50), p.latency.Percentile(99));
    EXPECT_LE(p.latency.Percentile(99.9), p.latency.max());
    EXPECT_DOUBLE_EQ(p.throughput_sps(), p.throughput_rps() * p.point.batch);
    EXPECT_GT(p.cpu_cores_used(), 0);
    EXPECT_GT(p.peak_rss_bytes, 0u);
    EXPECT_TRUE(p.CostPer1000(r.cost_per_hour).has_value());
  }
  EXPECT_EQ(r.points[1].point.batch, 4);
  EXPECT_EQ(r.points[2].point.session_index, 1u);
  EXPECT_FALSE(said.empty());

  nlohmann::json j = ReportToJson(r);
  for (const char* key : {"p50", "p90", "p95", "p99", "p99_9", "max", "mean"})
    EXPECT_TRUE(j["points"][0]["latency_us"].contains(key)) << key;
  EXPECT_TRUE(j["points"][0].contains("cost_per_1000_predictions"));
  EXPECT_TRUE(j["cold_start"].contains("process_to_first_result_ms"));
  std::string text = ReportToText(r);
  EXPECT_NE(text.find("offline batch 4"), std::string::npos);
  EXPECT_NE(text.find("cold start"), std::string::npos);
}

TEST(BenchRunnerTest, BadInputsAreErrorsBeforeMeasuring) {
  BenchSettings s = QuickSettings();
  s.model_path = "/nonexistent.onnx";
  EXPECT_EQ(RunBench(s).status().code(), StatusCode::kNotFound);
  s = QuickSettings();
  s.inputs.shapes["pixels"] = {1, 1, 28, 28};
  auto r = RunBench(s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no input named 'pixels'"), std::string::npos) << r.status().message();
}

const std::string kStateful = std::string(HONE_SOURCE_DIR) + "/src/runtime/testdata/stateful.onnx";

// input [1, N], state [2, 1, 128] and a scalar sr: no shared batch dimension, so requests are whole tensors.
TEST(BenchRunnerTest, ModelWithoutBatchDimensionBenchesWholeTensors) {
  BenchSettings s = QuickSettings();
  s.model_path = kStateful;
  s.inputs.data_path.clear();
  s.inputs.shapes["input"] = {1, 16};
  auto report = RunBench(s);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_FALSE(report->inputs_batched);
  EXPECT_NE(report->input_mode.find("no shared batch dimension"), std::string::npos) << report->input_mode;
  ASSERT_EQ(report->points.size(), 1u);
  EXPECT_EQ(report->points[0].point.batch, 1);
  EXPECT_GT(report->points[0].requests, 0u);
  EXPECT_EQ(report->points[0].errors_anywhere, 0u) << report->points[0].first_error_anywhere;
  EXPECT_NE(ReportToText(*report).find("batching   whole tensors"), std::string::npos);
  EXPECT_FALSE(ReportToJson(*report)["inputs"]["batched"].get<bool>());

  // A dataset with the scalar and the state given once, the input per sample.
  const std::string path = ::testing::TempDir() + "hone_bench_stateful.npz";
  Tensor sr = *Tensor::Allocate(DataType::kInt64, {});
  sr.mutable_values<int64_t>()[0] = 16000;
  ASSERT_TRUE(WriteNpz(path, {{"input", *Tensor::Allocate(DataType::kFp32, {3, 1, 8})},
                              {"state", *Tensor::Allocate(DataType::kFp32, {2, 1, 128})},
                              {"sr", sr}},
                       false)
                  .ok());
  s.inputs.shapes.clear();
  s.inputs.data_path = path;
  auto from_data = RunBench(s);
  std::remove(path.c_str());
  ASSERT_TRUE(from_data.ok()) << from_data.status().ToString();
  EXPECT_NE(from_data->input_source.find("fixed in every sample: state sr"), std::string::npos)
      << from_data->input_source;
  EXPECT_EQ(from_data->points[0].errors_anywhere, 0u) << from_data->points[0].first_error_anywhere;
}

TEST(BenchRunnerTest, BatchOnModelWithoutBatchDimensionIsAClearError) {
  BenchSettings s = QuickSettings();
  s.model_path = kStateful;
  s.inputs.data_path.clear();
  s.inputs.shapes["input"] = {1, 16};
  s.mode = LoadMode::kOffline;
  s.batch_sizes = {4};
  auto r = RunBench(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  for (const char* part : {"--batch 4", "no shared batch dimension", "input 'state' to 2", "drop --batch"})
    EXPECT_NE(r.status().message().find(part), std::string::npos) << part << ": " << r.status().message();
  s.batch_sizes = {1};  // one sample per request is what such a model takes
  auto one = RunBench(s);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
}

TEST(BenchRunnerTest, ReportSeparatesHoneInputsFromPeakRss) {
  BenchSettings s = QuickSettings();
  auto report = RunBench(s);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->inputs_batched);
  EXPECT_EQ(report->input_pool_bytes, 2000u * 28 * 28 * 4);
  ASSERT_EQ(report->points.size(), 1u);
  EXPECT_EQ(report->points[0].request_bytes, 64u * 28 * 28 * 4);  // 64 distinct requests of one sample
  EXPECT_EQ(ReportToJson(*report)["points"][0]["memory"]["hone_inputs_bytes"], (2000u + 64u) * 28 * 28 * 4);
}

TEST(BenchRunnerTest, MakeRequestsCyclesDistinctBatches) {
  auto session = runtime::Session::Open(kModel, {});
  ASSERT_TRUE(session.ok());
  runtime::InputOptions o;
  o.data_path = kData;
  auto pool = runtime::InputPool::Create((*session)->metadata(), o);
  ASSERT_TRUE(pool.ok());
  auto requests = MakeRequests(*pool, 64);
  ASSERT_TRUE(requests.ok());
  EXPECT_EQ(requests->size(), 32u);  // ceil(2000 / 64)
  EXPECT_EQ((*requests)[0][0].shape(), (Shape{64, 1, 28, 28}));
  EXPECT_EQ(MakeRequests(*pool, 1)->size(), 64u);  // capped
}

}  // namespace
}  // namespace hone::bench
