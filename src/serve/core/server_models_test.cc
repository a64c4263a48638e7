// The server over models that break the easy assumptions: a scalar input (reshape), models hone's first guess of
// a warm-up does not run, a model whose shapes say "batchable" but whose answers change in a batch, and a
// response bigger than a front end's limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <future>

#include "base/temp_dir_test_util.h"
#include "serve/core/scheduler_test_util.h"
#include "serve/core/server.h"

namespace hone::serve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ServerModelsTest : public ::testing::Test {
 protected:
  // <model>/1/model.onnx from test model `source`, and config.pbtxt when `config` is not empty.
  void Add(const std::string& model, const std::string& source, const std::string& config = "") {
    const fs::path to = dir_.MakeDir(model + "/1");
    fs::copy_file(test::ModelPath(source), to / "model.onnx", fs::copy_options::overwrite_existing);
    if (!config.empty()) dir_.Write(model + "/config.pbtxt", config);
  }

  // Starts the server over the repository; the log of the loads is in log_.
  void Start(bool default_warmup = true) {
    ServerOptions options;
    options.model_repository = dir_.str();
    options.cores = 1;
    options.default_warmup = default_warmup;
    ::testing::internal::CaptureStderr();
    auto server = Server::Create(options);
    log_ = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  Result<InferenceResponse> Infer(InferenceRequest request) {
    std::promise<Result<InferenceResponse>> promise;
    auto future = promise.get_future();
    server_->Infer(std::move(request), [&](Result<InferenceResponse> r) { promise.set_value(std::move(r)); });
    return future.get();
  }

  bool Ready(const std::string& model) {
    Result<bool> ready = server_->IsModelReady(model, 0);
    return ready.ok() && *ready;
  }

  testing_util::TempDir dir_;
  std::unique_ptr<Server> server_;
  std::string log_;
};

// stateful.onnx: input FP32 [1, N], state FP32 [2, 1, 128], sr INT64 [] -> output = input * sr.
InferenceRequest Stateful(Shape sr_shape, int64_t sr) {
  InferenceRequest r;
  r.model_name = "vad";
  r.inputs.push_back({"input", test::Make<float>({1, 3}, {1, 2, 3})});
  r.inputs.push_back({"state", *Tensor::Allocate(DataType::kFp32, {2, 1, 128})});
  r.inputs.push_back({"sr", test::Make<int64_t>(std::move(sr_shape), {sr})});
  return r;
}

TEST_F(ServerModelsTest, ScalarInputAsMetadataAdvertisesItOrAsTheModelsOwnShape) {
  Add("vad", "stateful");
  ASSERT_NO_FATAL_FAILURE(Start());
  auto meta = server_->ModelMetadata("vad", 0);
  ASSERT_TRUE(meta.ok());
  ASSERT_EQ(meta->inputs.size(), 3u);
  EXPECT_EQ(meta->inputs[2].name, "sr");
  EXPECT_EQ(meta->inputs[2].shape, Shape{1});  // dims [1], reshape to [] for the model (Triton's convention)
  for (const Shape& shape : {Shape{1}, Shape{}}) {
    auto r = Infer(Stateful(shape, 2));
    ASSERT_TRUE(r.ok()) << ShapeToString(shape) << ": " << r.status().ToString();
    EXPECT_EQ(r->outputs[0].tensor.values<float>()[2], 6.0f);
  }
  auto bad = Infer(Stateful({1, 1}, 2));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("input 'sr': expected shape [1]"));
}

TEST_F(ServerModelsTest, ScalarOutputPerRowGoesOutAsMetadataAdvertisesIt) {
  Add("two_inputs", "two_inputs");  // count: INT64 [batch], one scalar per row
  ASSERT_NO_FATAL_FAILURE(Start());
  auto meta = server_->ModelMetadata("two_inputs", 0);
  ASSERT_TRUE(meta.ok());
  ASSERT_EQ(meta->outputs.size(), 2u);
  EXPECT_EQ(meta->outputs[1].shape, (Shape{-1, 1}));
  auto r = Infer(test::TwoInputsRequest(3, 2, 0));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outputs[1].name, "count");
  EXPECT_EQ(r->outputs[1].tensor.shape(), (Shape{3, 1}));
  EXPECT_EQ(r->outputs[1].tensor.values<int64_t>()[2], 2);  // the mask's two ones
  EXPECT_EQ(r->outputs[0].tensor.shape(), (Shape{3, 2}));
}

TEST_F(ServerModelsTest, ScalarWarmupWithEmptyDimsLoads) {
  // Two samples: sr as the model's scalar (dims [ ]) and as the config's dims [ 1 ].
  const std::string others =
      R"pb(inputs { key: "input" value { data_type: TYPE_FP32 dims: [ 1, 4 ] zero_data: true } }
           inputs { key: "state" value { data_type: TYPE_FP32 dims: [ 2, 1, 128 ] zero_data: true } })pb";
  Add("vad", "stateful",
      "model_warmup [ { name: 's' batch_size: 1 " + others +
          " inputs { key: 'sr' value { data_type: TYPE_INT64 dims: [ ] random_data: true } } },"
          " { name: 't' batch_size: 1 " + others +
          " inputs { key: 'sr' value { data_type: TYPE_INT64 dims: [ 1 ] zero_data: true } } } ]");
  ASSERT_NO_FATAL_FAILURE(Start());
  EXPECT_TRUE(Ready("vad")) << log_;
}

TEST_F(ServerModelsTest, DefaultWarmupFindsInputsTheModelTakes) {
  Add("split", "split_in_two");  // needs an even length: dimension 1 fails
  Add("offset", "offset_gather");  // index 0 is out of range: zeros fail
  ASSERT_NO_FATAL_FAILURE(Start());
  EXPECT_TRUE(Ready("split")) << log_;
  EXPECT_TRUE(Ready("offset")) << log_;
  EXPECT_THAT(log_, HasSubstr("model 'split' version 1: default warm-up: default (dynamic dimensions 2, zeros) ran"));
  EXPECT_THAT(log_, HasSubstr("model 'offset' version 1: default warm-up: default (dynamic dimensions 1, ones) ran"));
}

TEST_F(ServerModelsTest, DefaultWarmupThatNothingRunsIsSkippedNotFatal) {
  Add("far", "far_gather");
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_TRUE(Ready("far")) << log_;
  EXPECT_THAT(log_, HasSubstr("model 'far' version 1: skipping hone's default warm-up"));
  // The log names what was tried and the input of the last try.
  EXPECT_THAT(log_, HasSubstr("tried dynamic dimensions 1, zeros; dynamic dimensions 1, ones;"));
  EXPECT_THAT(log_, HasSubstr("(inputs 'idx' INT64 [4])"));
  InferenceRequest r;
  r.model_name = "far";
  r.inputs.push_back({"idx", test::Make<int64_t>({2}, {-102, -101})});
  auto y = Infer(std::move(r));
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->outputs[0].tensor.values<float>()[1], 30.0f);
}

TEST_F(ServerModelsTest, DefaultWarmupCanBeTurnedOff) {
  Add("far", "far_gather");
  ASSERT_NO_FATAL_FAILURE(Start(/*default_warmup=*/false));
  EXPECT_TRUE(Ready("far"));
  EXPECT_THAT(log_, ::testing::Not(HasSubstr("skipping hone's default warm-up")));
}

TEST_F(ServerModelsTest, UserWarmupThatFailsStillFailsTheLoadNamingSampleAndInput) {
  Add("far", "far_gather",
      "model_warmup [ { name: 'zeros' batch_size: 1"
      " inputs { key: 'idx' value { data_type: TYPE_INT64 dims: [ 2 ] zero_data: true } } } ]");
  ASSERT_NO_FATAL_FAILURE(Start());
  EXPECT_FALSE(Ready("far"));
  auto index = server_->RepositoryIndex(false);
  ASSERT_EQ(index.size(), 1u);
  EXPECT_THAT(index[0].reason, HasSubstr("warm-up sample 'zeros' (inputs 'idx' INT64 [2])"));
  EXPECT_THAT(log_, HasSubstr("model 'far'"));
}

TEST_F(ServerModelsTest, BatchingIsClaimedOnlyWhenABatchGivesTheSoloAnswers) {
  Add("norm", "whole_norm");  // divides by the max of the whole tensor, batch included
  Add("affine", "affine");    // row by row
  ASSERT_NO_FATAL_FAILURE(Start());
  auto norm = server_->ModelConfig("norm", 0);
  ASSERT_TRUE(norm.ok());
  EXPECT_EQ(norm->max_batch_size(), 0);
  EXPECT_FALSE(norm->has_dynamic_batching());
  ASSERT_EQ(norm->input_size(), 1);
  EXPECT_EQ(norm->input(0).dims_size(), 2);  // [-1, 4]: the first dimension is the model's own again
  EXPECT_THAT(log_, HasSubstr("model 'norm' version 1: not batching (max_batch_size 0): two random samples"));
  EXPECT_THAT(log_, HasSubstr("output 'y' of sample"));
  auto affine = server_->ModelConfig("affine", 0);
  ASSERT_TRUE(affine.ok());
  EXPECT_EQ(affine->max_batch_size(), 4);
  EXPECT_TRUE(affine->has_dynamic_batching());

  // Unbatched, a request still runs with any number of rows, and its answer is its own.
  InferenceRequest r;
  r.model_name = "norm";
  r.inputs.push_back({"x", test::Make<float>({1, 4}, {1, 2, 3, 4})});
  auto y = Infer(std::move(r));
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->outputs[0].tensor.values<float>()[3], 1.0f);
}

TEST_F(ServerModelsTest, ExplicitMaxBatchSizeIsTheUsersChoice) {
  Add("norm", "whole_norm", "max_batch_size: 8\n");
  ASSERT_NO_FATAL_FAILURE(Start());
  auto norm = server_->ModelConfig("norm", 0);
  ASSERT_TRUE(norm.ok());
  EXPECT_EQ(norm->max_batch_size(), 8);
  EXPECT_THAT(log_, ::testing::Not(HasSubstr("not batching")));
}

TEST_F(ServerModelsTest, ResponseOverTheFrontEndsLimitFailsAndCounts) {
  Add("affine", "affine");
  ASSERT_NO_FATAL_FAILURE(Start());
  InferenceRequest r = test::AffineRequest(2, 1);
  r.max_response_bytes = 16;  // two rows of 4 floats are 32 bytes
  ::testing::internal::CaptureStderr();
  auto y = Infer(std::move(r));
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(y.status().message(), HasSubstr("32 bytes"));
  EXPECT_THAT(log, HasSubstr("model 'affine' version 1"));
  auto stats = server_->Statistics("affine", 0);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ((*stats)[0].success.count, 0u);
  EXPECT_EQ((*stats)[0].fail.count, 1u);

  // What a front end reports it could not send counts as a failure too.
  r = test::AffineRequest(1, 1);
  ASSERT_TRUE(Infer(std::move(r)).ok());
  server_->RecordUndelivered("affine", 1);
  server_->RecordUndelivered("nonexistent", 1);  // ignored
  stats = server_->Statistics("affine", 0);
  EXPECT_EQ((*stats)[0].success.count, 1u);
  EXPECT_EQ((*stats)[0].fail.count, 2u);
}

}  // namespace
}  // namespace hone::serve
