// Ensembles and processing stages served like any model: steps run through their models' schedulers (batched,
// counted), errors name the step, a pipeline whose step is missing fails its load and leaves the rest serving.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <future>
#include <thread>

#include "base/temp_dir_test_util.h"
#include "serve/core/scheduler_test_util.h"
#include "serve/core/server.h"

namespace hone::serve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// x -> first (affine) -> mid -> second (affine) -> out: out = 2 (2x + 1) + 1 = 4x + 3.
constexpr const char* kTwoAffines = R"pb(
  platform: "ensemble"
  max_batch_size: 8
  input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
  output [ { name: "out" data_type: TYPE_FP32 dims: [ 4 ] } ]
  ensemble_scheduling {
    step [
      { model_name: "second" input_map { key: "x" value: "mid" } output_map { key: "y" value: "out" } },
      { model_name: "first" input_map { key: "x" value: "x" } output_map { key: "y" value: "mid" } }
    ]
  }
)pb";

constexpr const char* kBatchedAffine = R"pb(
  max_batch_size: 8
  dynamic_batching { }
)pb";

class ServerEnsembleTest : public ::testing::Test {
 protected:
  void AddOnnx(const std::string& model, const std::string& source, const std::string& config = "") {
    const fs::path to = dir_.MakeDir(model + "/1");
    fs::copy_file(test::ModelPath(source), to / "model.onnx", fs::copy_options::overwrite_existing);
    if (!config.empty()) dir_.Write(model + "/config.pbtxt", config);
  }
  void AddConfigOnly(const std::string& model, const std::string& config) {
    dir_.MakeDir(model + "/1");
    dir_.Write(model + "/config.pbtxt", config);
  }

  void Start(ModelControlMode mode = ModelControlMode::kNone, std::vector<std::string> startup = {}) {
    ServerOptions options;
    options.model_repository = dir_.str();
    options.cores = 1;
    options.control_mode = mode;
    options.startup_models = std::move(startup);
    ::testing::internal::CaptureStderr();
    auto server = Server::Open(options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    start_status_ = server_->Start();
    log_ = ::testing::internal::GetCapturedStderr();
  }

  Result<InferenceResponse> Infer(InferenceRequest request) {
    std::promise<Result<InferenceResponse>> promise;
    auto future = promise.get_future();
    server_->Infer(std::move(request), [&](Result<InferenceResponse> r) { promise.set_value(std::move(r)); });
    return future.get();
  }

  client::ModelStatsSnapshot Stats(const std::string& model) {
    auto stats = server_->Statistics(model, 0);
    EXPECT_TRUE(stats.ok() && stats->size() == 1) << model;
    return stats.ok() && !stats->empty() ? stats->front() : client::ModelStatsSnapshot{};
  }

  testing_util::TempDir dir_;
  std::unique_ptr<Server> server_;
  Status start_status_;
  std::string log_;
};

InferenceRequest EnsembleRequest(int64_t rows, float start) {
  InferenceRequest r = test::AffineRequest(rows, start);
  r.model_name = "pipeline";
  return r;
}

TEST_F(ServerEnsembleTest, StepsRunInOrderThroughTheirModels) {
  AddOnnx("first", "affine", kBatchedAffine);
  AddOnnx("second", "affine", kBatchedAffine);
  AddConfigOnly("pipeline", kTwoAffines);
  Start();
  ASSERT_TRUE(start_status_.ok()) << start_status_.ToString() << log_;
  auto response = Infer(EnsembleRequest(3, 1.0f));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->model_name, "pipeline");
  ASSERT_EQ(response->outputs.size(), 1u);
  EXPECT_EQ(response->outputs[0].name, "out");
  EXPECT_EQ(response->outputs[0].tensor.shape(), (Shape{3, 4}));
  auto v = response->outputs[0].tensor.values<float>();
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], 4 * (1.0f + static_cast<float>(i)) + 3) << i;

  // Each stage counts its own share; the ensemble counts the whole.
  EXPECT_EQ(Stats("pipeline").success.count, 1u);
  EXPECT_EQ(Stats("first").success.count, 1u);
  EXPECT_EQ(Stats("second").success.count, 1u);
  auto metadata = server_->ModelMetadata("pipeline", 0);
  ASSERT_TRUE(metadata.ok());
  ASSERT_EQ(metadata->inputs.size(), 1u);
  EXPECT_EQ(metadata->inputs[0].shape, (Shape{-1, 4}));
}

TEST_F(ServerEnsembleTest, ConcurrentRequestsEachGetTheirOwnAnswer) {
  AddOnnx("first", "affine", kBatchedAffine);
  AddOnnx("second", "affine", kBatchedAffine);
  AddConfigOnly("pipeline", kTwoAffines);
  Start();
  ASSERT_TRUE(start_status_.ok()) << start_status_.ToString();
  constexpr int kRequests = 64;
  std::vector<std::promise<Result<InferenceResponse>>> promises(kRequests);
  for (int i = 0; i < kRequests; ++i)
    server_->Infer(EnsembleRequest(1 + i % 3, static_cast<float>(i * 100)),
                   [&, i](Result<InferenceResponse> r) { promises[static_cast<size_t>(i)].set_value(std::move(r)); });
  for (int i = 0; i < kRequests; ++i) {
    auto r = promises[static_cast<size_t>(i)].get_future().get();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto v = r->outputs[0].tensor.values<float>();
    ASSERT_EQ(v.size(), static_cast<size_t>((1 + i % 3) * 4));
    for (size_t k = 0; k < v.size(); ++k) ASSERT_EQ(v[k], 4 * (i * 100.0f + static_cast<float>(k)) + 3);
  }
}

TEST_F(ServerEnsembleTest, AStepsErrorNamesTheStep) {
  AddOnnx("first", "affine", kBatchedAffine);
  AddOnnx("second", "affine", kBatchedAffine);
  AddConfigOnly("pipeline", kTwoAffines);
  Start(ModelControlMode::kExplicit, {"*"});
  ASSERT_TRUE(start_status_.ok()) << start_status_.ToString();
  // Wrong inner dimension: the ensemble's own check catches it, naming the ensemble.
  InferenceRequest bad = EnsembleRequest(1, 0);
  bad.inputs[0].tensor = test::Make<float>({1, 3}, {1, 2, 3});
  auto response = Infer(std::move(bad));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(response.status().message(), HasSubstr("model 'pipeline'"));

  // A step model that went away: the step's error, naming the step.
  ASSERT_TRUE(server_->UnloadModel("second").ok());
  response = Infer(EnsembleRequest(1, 0));
  ASSERT_FALSE(response.ok());
  EXPECT_THAT(response.status().message(), HasSubstr("step 'second'"));
  EXPECT_EQ(Stats("pipeline").fail.count, 2u);
}

TEST_F(ServerEnsembleTest, AMissingStepModelFailsTheLoadAndTheRestServes) {
  AddOnnx("first", "affine", kBatchedAffine);
  AddConfigOnly("pipeline", kTwoAffines);
  Start();
  EXPECT_FALSE(start_status_.ok());
  EXPECT_THAT(start_status_.message(), HasSubstr("ensemble step 1 (model 'second')"));
  EXPECT_TRUE(Infer(test::AffineRequest(1, 0)).ok() == false);  // affine is served as "first", not "affine"
  InferenceRequest direct = test::AffineRequest(2, 5);
  direct.model_name = "first";
  auto r = Infer(std::move(direct));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto ready = server_->IsModelReady("pipeline", 0);
  EXPECT_FALSE(ready.ok() && *ready);
}

TEST_F(ServerEnsembleTest, MapsAreCheckedAgainstTheStepModels) {
  AddOnnx("first", "affine", kBatchedAffine);
  AddOnnx("second", "affine", kBatchedAffine);
  std::string config = kTwoAffines;
  config.replace(config.find("key: \"y\" value: \"out\""), 22, "key: \"z\" value: \"out\"");
  AddConfigOnly("pipeline", config);
  Start();
  EXPECT_THAT(start_status_.message(), HasSubstr("output_map 'z': the model has no output 'z' (its outputs: y)"));
}

TEST_F(ServerEnsembleTest, ExplicitLoadOfAnEnsembleLoadsItsSteps) {
  AddOnnx("first", "affine", kBatchedAffine);
  AddOnnx("second", "affine", kBatchedAffine);
  AddConfigOnly("pipeline", kTwoAffines);
  Start(ModelControlMode::kExplicit);
  ASSERT_TRUE(server_->LoadModel("pipeline").ok());
  auto response = Infer(EnsembleRequest(1, 2.0f));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->outputs[0].tensor.values<float>()[0], 11.0f);
}

// A processing stage served on its own: hone_pooling's masked mean, L2-normalised.
TEST_F(ServerEnsembleTest, AProcessingStageIsAModel) {
  AddConfigOnly("pool", R"pb(backend: "hone_pooling" max_batch_size: 4 dynamic_batching { })pb");
  Start();
  ASSERT_TRUE(start_status_.ok()) << start_status_.ToString() << log_;
  InferenceRequest r;
  r.model_name = "pool";
  // Two tokens of hidden size 2; the second is masked out.
  r.inputs.push_back({"token_embeddings", test::Make<float>({1, 2, 2}, {3, 4, 100, 100})});
  r.inputs.push_back({"attention_mask", test::Make<int64_t>({1, 2}, {1, 0})});
  auto response = Infer(std::move(r));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  auto v = response->outputs[0].tensor.values<float>();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_FLOAT_EQ(v[0], 0.6f);
  EXPECT_FLOAT_EQ(v[1], 0.8f);
  auto config = server_->ModelConfig("pool", 0);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->backend(), "hone_pooling");
  EXPECT_EQ(config->platform(), "");
  EXPECT_EQ(config->max_batch_size(), 4);
}

TEST_F(ServerEnsembleTest, AStagesBadParameterFailsItsLoadNamingIt) {
  AddConfigOnly("pool", R"pb(backend: "hone_pooling"
                             parameters { key: "mode" value { string_value: "median" } })pb");
  Start();
  EXPECT_THAT(start_status_.message(), HasSubstr("hone_pooling parameter 'mode': expected one of mean, cls, max, got "
                                                 "'median'"));
}

TEST_F(ServerEnsembleTest, AStagesMisspeltParameterFailsItsLoad) {
  AddConfigOnly("pool", R"pb(backend: "hone_pooling"
                             parameters { key: "normalise" value { string_value: "true" } })pb");
  Start();
  EXPECT_THAT(start_status_.message(),
              HasSubstr("hone_pooling parameter 'normalise': unknown (hone_pooling reads mode, normalize)"));
}

}  // namespace
}  // namespace hone::serve
