// A candidate written as a repository, served by hone serve on loopback and measured: the path every tune trial
// takes, on the bundled model.
#include "tune/trial.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "base/temp_dir_test_util.h"
#include "runtime/session.h"
#include "serve/config/config_text.h"

namespace hone::tune {
namespace {

using testing_util::TempDir;

std::string BundledModel() { return std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx"; }

runtime::ModelMetadata BundledMetadata() {
  auto session = runtime::Session::Open(BundledModel(), runtime::SessionOptions{});
  EXPECT_TRUE(session.ok());
  return (*session)->metadata();
}

TEST(CandidateConfig, ParsesBackWithEverySetting) {
  Candidate c;
  c.id = "batch16-delay200";
  c.model_path = BundledModel();
  c.max_batch_size = 16;
  c.dynamic_batching = true;
  c.max_queue_delay_us = 200;
  c.preferred_batch_sizes = {8, 16};
  c.instances = 2;
  c.threads_set = true;
  c.session.intra_op_threads = 1;
  c.spinning_set = true;
  c.session.allow_spinning = false;
  c.graph_level_set = true;
  c.session.graph_optimization = runtime::GraphOptimization::kExtended;
  auto config = serve::ParseModelConfig(CandidateConfigText(c, "fashion", BundledMetadata()), "config.pbtxt");
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->name(), "fashion");
  EXPECT_EQ(config->max_batch_size(), 16);
  EXPECT_EQ(config->dynamic_batching().max_queue_delay_microseconds(), 200u);
  ASSERT_EQ(config->dynamic_batching().preferred_batch_size_size(), 2);
  EXPECT_EQ(config->instance_group(0).count(), 2);
  EXPECT_EQ(config->parameters().at("intra_op_thread_count").string_value(), "1");
  EXPECT_EQ(config->parameters().at("session.intra_op.allow_spinning").string_value(), "0");
  EXPECT_EQ(config->optimization().graph().level(), 1);
  ASSERT_EQ(config->model_warmup_size(), 1);
  EXPECT_EQ(config->model_warmup(0).inputs().size(), 1u);
}

TEST(CandidateConfig, NaiveCandidateSetsNothingItDoesNotNeed) {
  Candidate c;
  c.model_path = BundledModel();
  auto config = serve::ParseModelConfig(CandidateConfigText(c, "m", BundledMetadata()), "config.pbtxt");
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->max_batch_size(), 0);
  EXPECT_FALSE(config->has_dynamic_batching());
  EXPECT_TRUE(config->parameters().empty());
  EXPECT_FALSE(config->has_optimization());
  // Inputs and outputs declared with their full shape: otherwise hone serve, as Triton, would complete the config
  // with max_batch_size 4 and a dynamic batcher, and the naive baseline would batch.
  ASSERT_EQ(config->input_size(), 1);
  ASSERT_EQ(config->input(0).dims_size(), 4);
  EXPECT_EQ(config->input(0).dims(0), -1);
  ASSERT_EQ(config->output_size(), 1);
  EXPECT_EQ(config->output(0).dims_size(), 2);
  ASSERT_EQ(config->model_warmup_size(), 1);
  EXPECT_EQ(config->model_warmup(0).inputs().at("image").dims_size(), 4);
}

TEST(WriteRepository, RefusesAnExistingFolder) {
  TempDir dir;
  Candidate c;
  c.model_path = BundledModel();
  Status s = WriteRepository(c, "m", BundledMetadata(), dir.str());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("exists already"), std::string::npos);
}

TEST(ModelNameFromPath, KeepsSafeCharacters) {
  EXPECT_EQ(ModelNameFromPath("a/b/model.int8.onnx"), "model_int8");
  EXPECT_EQ(ModelNameFromPath("x/ü.onnx"), "model");
  EXPECT_EQ(ModelNameFromPath("fashion-v2.onnx"), "fashion-v2");
}

TEST(MeasureServed, BundledModelOverHttpAndGrpc) {
  TempDir dir;
  for (auto protocol : {bench::RemoteProtocol::kHttp, bench::RemoteProtocol::kGrpc}) {
    TrialPlan plan;
    plan.loads = {Load::Closed(2)};
    plan.inputs.data_path = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz";
    plan.protocol = protocol;
    plan.window_s = 0.05;
    plan.work_dir = dir.str();
    plan.model_name = "fashion";
    plan.metadata = BundledMetadata();
    Candidate naive, batched;
    naive.id = "baseline";
    naive.model_path = batched.model_path = BundledModel();
    batched.id = "batch8";
    batched.max_batch_size = 8;
    batched.dynamic_batching = true;
    ASSERT_TRUE(MeasureServed(naive, plan).ok());
    auto trial = MeasureServed(batched, plan);
    ASSERT_TRUE(trial.ok()) << trial.status().message();
    ASSERT_EQ(trial->loads.size(), 1u);
    EXPECT_GT(trial->loads[0].throughput_sps, 0);
    EXPECT_EQ(trial->loads[0].errors, 0u) << trial->loads[0].first_error;
    EXPECT_GT(trial->loads[0].p99_ns, 0u);
    EXPECT_GT(trial->ready_s, 0);
    ASSERT_TRUE(trial->first_point.has_value());
    EXPECT_TRUE(trial->first_point->server.has_value());
  }
  // Each trial's repository is removed once measured.
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(MeasureServed, AModelThatDoesNotLoadSaysWhy) {
  TempDir dir;
  std::string broken = dir.Write("broken.onnx", "not an onnx model");
  TrialPlan plan;
  plan.loads = {Load::Closed(1)};
  plan.work_dir = dir.str();
  plan.model_name = "broken";
  Candidate c;
  c.id = "broken";
  c.model_path = broken;
  auto trial = MeasureServed(c, plan);
  ASSERT_FALSE(trial.ok());
  EXPECT_NE(trial.status().message().find("could not load 'broken'"), std::string::npos)
      << trial.status().message();
}

TEST(MergeRepeats, MediansAndSpread) {
  TrialResult a, b, c;
  for (auto [t, sps, p99] : {std::tuple{&a, 100.0, 10u}, {&b, 120.0, 12u}, {&c, 80.0, 30u}}) {
    LoadFigures f;
    f.load = Load::Closed(4);
    f.throughput_sps = sps;
    f.p99_ns = p99;
    t->loads = {f};
  }
  TrialResult m = MergeRepeats({a, b, c});
  ASSERT_EQ(m.loads.size(), 1u);
  EXPECT_DOUBLE_EQ(m.loads[0].throughput_sps, 100);
  EXPECT_EQ(m.loads[0].p99_ns, 12u);
  EXPECT_NEAR(m.loads[0].throughput_spread, 0.4, 1e-9);
  EXPECT_EQ(m.loads[0].repeats, 3);
}

TEST(MergeRepeats, LoadsAreMatchedByWhatTheyAreNotByPosition) {
  // The second repeat was interrupted before its closed-loop load: its open-loop figures must not be merged into
  // the closed-loop slot, and the achieved rate is the median of every repeat's.
  const Load closed = Load::Closed(4), open = Load::Open(200);
  auto figures = [](Load load, double sps, double rate) {
    LoadFigures f;
    f.load = load;
    f.throughput_sps = sps;
    f.achieved_rate = rate;
    return f;
  };
  TrialResult a, b, c;
  a.loads = {figures(closed, 1000, 0), figures(open, 200, 150)};
  b.loads = {figures(open, 190, 198)};
  c.loads = {figures(closed, 1100, 0), figures(open, 195, 199)};
  TrialResult m = MergeRepeats({a, b, c});
  ASSERT_EQ(m.loads.size(), 2u);
  EXPECT_EQ(m.loads[0].load, closed);
  EXPECT_EQ(m.loads[0].repeats, 2);
  EXPECT_DOUBLE_EQ(m.loads[0].throughput_sps, 1050);
  EXPECT_EQ(m.loads[1].load, open);
  EXPECT_EQ(m.loads[1].repeats, 3);
  EXPECT_DOUBLE_EQ(m.loads[1].achieved_rate, 198);
}

}  // namespace
}  // namespace hone::tune
