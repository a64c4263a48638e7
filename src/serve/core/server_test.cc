// The server facade over a real repository on disk: control modes, versions, readiness, unload and shutdown.
#include "serve/core/server.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "base/temp_dir_test_util.h"
#include "serve/core/scheduler_test_util.h"

namespace hone::serve {
namespace {

namespace fs = std::filesystem;

// A model repository in a scratch directory.
class Repository {
 public:
  std::string path() const { return dir_.str(); }
  // Copies test model `source` ("affine", "fashion_mnist", ...) to <model>/<version>/model.onnx.
  void AddVersion(const std::string& model, int version, const std::string& source) const {
    const fs::path to = dir_.MakeDir(model + "/" + std::to_string(version));
    fs::copy_file(test::ModelPath(source), to / "model.onnx", fs::copy_options::overwrite_existing);
  }
  void AddBrokenVersion(const std::string& model, int version) const {
    dir_.Write(model + "/" + std::to_string(version) + "/model.onnx", "not an onnx model");
  }
  void WriteConfig(const std::string& model, const std::string& text) const {
    dir_.Write(model + "/config.pbtxt", text);
  }

 private:
  testing_util::TempDir dir_;
};

ServerOptions Options(const Repository& repo, ModelControlMode mode = ModelControlMode::kNone) {
  ServerOptions options;
  options.model_repository = repo.path();
  options.control_mode = mode;
  options.cores = 1;
  return options;
}

std::unique_ptr<Server> Start(const ServerOptions& options) {
  auto server = Server::Create(options);
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return server.ok() ? std::move(server).value() : nullptr;
}

Result<InferenceResponse> InferNow(Server& server, InferenceRequest request) {
  std::promise<Result<InferenceResponse>> promise;
  auto future = promise.get_future();
  server.Infer(std::move(request), [&](Result<InferenceResponse> r) { promise.set_value(std::move(r)); });
  return future.get();
}

InferenceRequest Affine(const std::string& model, int64_t version = 0, float start = 1) {
  InferenceRequest request = test::AffineRequest(1, start);
  request.model_name = model;
  request.model_version = version;
  return request;
}

float FirstOutput(const Result<InferenceResponse>& r) { return r->outputs.at(0).tensor.values<float>()[0]; }

TEST(ServerTest, NoneModeLoadsEveryModelCompletesConfigsAndServes) {
  Repository repo;
  repo.AddVersion("fashion", 1, "fashion_mnist");
  repo.AddVersion("affine", 1, "affine");
  repo.WriteConfig("affine", "max_batch_size: 8\ndynamic_batching { max_queue_delay_microseconds: 100 }\n");
  auto server = Start(Options(repo));
  ASSERT_TRUE(server);
  EXPECT_TRUE(server->IsLive());
  EXPECT_TRUE(server->IsReady());
  EXPECT_TRUE(*server->IsModelReady("fashion", 0));
  EXPECT_TRUE(*server->IsModelReady("affine", 1));

  auto meta = server->ModelMetadata("fashion", 0);
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(meta->platform, "onnxruntime_onnx");
  ASSERT_EQ(meta->inputs.size(), 1u);
  EXPECT_EQ(meta->inputs[0].name, "image");
  EXPECT_EQ(meta->inputs[0].type, DataType::kFp32);
  EXPECT_EQ(meta->inputs[0].shape, (Shape{-1, 1, 28, 28}));
  EXPECT_EQ(meta->versions, std::vector<std::string>{"1"});

  auto config = server->ModelConfig("affine", 0);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->max_batch_size(), 8);
  EXPECT_EQ(config->input(0).name(), "x");
  EXPECT_TRUE(config->parameters().count("intra_op_thread_count"));

  auto response = InferNow(*server, Affine("affine", 0, 3));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->model_version, 1);
  EXPECT_FLOAT_EQ(FirstOutput(response), 7.0f);  // 2x + 1

  auto stats = server->Statistics("affine", 0);
  ASSERT_TRUE(stats.ok());
  ASSERT_EQ(stats->size(), 1u);
  EXPECT_EQ((*stats)[0].inference_count, 1u);
  EXPECT_NE(server->MetricsText().find("nv_inference_request_success"), std::string::npos);
}

TEST(ServerTest, UnknownModelsAndBadNamesAreErrorsThatNameThem) {
  Repository repo;
  repo.AddVersion("affine", 1, "affine");
  auto server = Start(Options(repo));
  ASSERT_TRUE(server);
  auto unknown = InferNow(*server, Affine("nope"));
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("nope"), std::string::npos);
  EXPECT_EQ(server->IsModelReady("../affine", 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server->ModelConfig("affine", 7).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(*server->IsModelReady("affine", 7));
}

TEST(ServerTest, BrokenModelKeepsTheServerLiveButNotReadyUnderStrictReadiness) {
  Repository repo;
  repo.AddVersion("affine", 1, "affine");
  repo.AddBrokenVersion("broken", 1);
  auto strict = Start(Options(repo));
  ASSERT_TRUE(strict);
  EXPECT_TRUE(strict->IsLive());
  EXPECT_FALSE(strict->IsReady());
  EXPECT_TRUE(*strict->IsModelReady("affine", 0));
  EXPECT_FALSE(*strict->IsModelReady("broken", 0));
  bool found = false;
  for (const auto& entry : strict->RepositoryIndex(false)) {
    if (entry.name != "broken") continue;
    found = true;
    EXPECT_EQ(entry.state, "UNAVAILABLE");
    EXPECT_FALSE(entry.reason.empty());
  }
  EXPECT_TRUE(found);
  strict.reset();

  ServerOptions lenient = Options(repo);
  lenient.strict_readiness = false;
  auto server = Start(lenient);
  ASSERT_TRUE(server);
  EXPECT_TRUE(server->IsReady());
}

TEST(ServerTest, ExplicitModeLoadsOnlyWhatItIsAskedTo) {
  Repository repo;
  repo.AddVersion("affine", 1, "affine");
  repo.AddVersion("other", 1, "affine");
  ServerOptions options = Options(repo, ModelControlMode::kExplicit);
  options.startup_models = {"affine"};
  auto server = Start(options);
  ASSERT_TRUE(server);
  EXPECT_TRUE(server->IsReady());
  EXPECT_TRUE(*server->IsModelReady("affine", 0));
  EXPECT_EQ(InferNow(*server, Affine("other")).status().code(), StatusCode::kNotFound);

  ASSERT_TRUE(server->LoadModel("other").ok());
  EXPECT_TRUE(InferNow(*server, Affine("other")).ok());
  ASSERT_TRUE(server->UnloadModel("other").ok());
  EXPECT_EQ(InferNow(*server, Affine("other")).status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(*server->IsModelReady("other", 0));
  EXPECT_TRUE(server->IsReady());  // an unloaded model is not wanted any more

  EXPECT_EQ(server->LoadModel("missing").code(), StatusCode::kNotFound);
  EXPECT_EQ(server->LoadModel("../etc").code(), StatusCode::kInvalidArgument);
}

TEST(ServerTest, LoadAndUnloadAreRefusedOutsideExplicitMode) {
  Repository repo;
  repo.AddVersion("affine", 1, "affine");
  auto server = Start(Options(repo));
  ASSERT_TRUE(server);
  EXPECT_EQ(server->LoadModel("affine").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(server->UnloadModel("affine").code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(InferNow(*server, Affine("affine")).ok());
}

TEST(ServerTest, ANewVersionThatFailsToLoadLeavesTheOldOneServing) {
  Repository repo;
  repo.AddVersion("affine", 1, "affine");
  ServerOptions options = Options(repo, ModelControlMode::kExplicit);
  options.startup_models = {"*"};
  auto server = Start(options);
  ASSERT_TRUE(server);

  repo.AddBrokenVersion("affine", 2);
  Status reload = server->LoadModel("affine");
  EXPECT_FALSE(reload.ok());
  EXPECT_NE(reload.message().find("version 2"), std::string::npos) << reload.message();
  auto response = InferNow(*server, Affine("affine"));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->model_version, 1);
  EXPECT_TRUE(server->IsReady());

  repo.AddVersion("affine", 2, "affine");  // fixed: the latest version replaces version 1
  ASSERT_TRUE(server->LoadModel("affine").ok());
  response = InferNow(*server, Affine("affine"));
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->model_version, 2);
  EXPECT_EQ(InferNow(*server, Affine("affine", 1)).status().code(), StatusCode::kNotFound);
}

TEST(ServerTest, VersionPolicyAllServesEveryVersion) {
  Repository repo;
  repo.AddVersion("affine", 1, "affine");
  repo.AddVersion("affine", 3, "affine");
  repo.WriteConfig("affine", "version_policy { all { } }\n");
  auto server = Start(Options(repo));
  ASSERT_TRUE(server);
  EXPECT_EQ(InferNow(*server, Affine("affine", 1))->model_version, 1);
  EXPECT_EQ(InferNow(*server, Affine("affine", 3))->model_version, 3);
  EXPECT_EQ(InferNow(*server, Affine("affine", 0))->model_version, 3);
  EXPECT_EQ(server->ModelMetadata("affine", 0)->versions, (std::vector<std::string>{"1", "3"}));
}

TEST(ServerTest, UnloadLetsQueuedRequestsFinish) {
  Repository repo;
  repo.AddVersion("affine", 1, "affine");
  // A long queue delay and a preferred size never reached: requests wait in the queue until unload drains it.
  repo.WriteConfig("affine",
                   "max_batch_size: 64\n"
                   "dynamic_batching { preferred_batch_size: 64 max_queue_delay_microseconds: 30000000 }\n");
  ServerOptions options = Options(repo, ModelControlMode::kExplicit);
  options.startup_models = {"affine"};
  auto server = Start(options);
  ASSERT_TRUE(server);
  std::vector<std::future<Result<InferenceResponse>>> futures;
  std::vector<std::shared_ptr<std::promise<Result<InferenceResponse>>>> promises;
  for (int i = 0; i < 3; ++i) {
    auto promise = std::make_shared<std::promise<Result<InferenceResponse>>>();
    futures.push_back(promise->get_future());
    server->Infer(Affine("affine", 0, static_cast<float>(i)),
                  [promise](Result<InferenceResponse> r) { promise->set_value(std::move(r)); });
  }
  ASSERT_TRUE(server->UnloadModel("affine").ok());
  for (int i = 0; i < 3; ++i) {
    auto response = futures[static_cast<size_t>(i)].get();
    ASSERT_TRUE(response.ok()) << response.status().ToString();
    EXPECT_FLOAT_EQ(FirstOutput(response), 2.0f * static_cast<float>(i) + 1.0f);
  }
}

TEST(ServerTest, ShutdownRefusesNewWorkButStaysLive) {
  Repository repo;
  repo.AddVersion("affine", 1, "affine");
  auto server = Start(Options(repo));
  ASSERT_TRUE(server);
  server->Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(10));
  EXPECT_TRUE(server->IsLive());
  EXPECT_FALSE(server->IsReady());
  EXPECT_EQ(InferNow(*server, Affine("affine")).status().code(), StatusCode::kUnavailable);
  server->Shutdown(std::chrono::steady_clock::now());  // idempotent
}

TEST(ServerTest, PollModeLoadsModelsThatAppear) {
  Repository repo;
  repo.AddVersion("affine", 1, "affine");
  ServerOptions options = Options(repo, ModelControlMode::kPoll);
  options.repository_poll_interval = std::chrono::seconds(1);
  auto server = Start(options);
  ASSERT_TRUE(server);
  repo.AddVersion("late", 1, "affine");
  bool ready = false;
  for (int i = 0; i < 600 && !ready; ++i) {  // up to 60 s on a loaded machine; normally about 1 s
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto r = server->IsModelReady("late", 0);
    ready = r.ok() && *r;
  }
  EXPECT_TRUE(ready);
  EXPECT_TRUE(InferNow(*server, Affine("late")).ok());
}

TEST(ServerTest, MissingRepositoryIsNotFound) {
  ServerOptions options;
  options.model_repository = "/nonexistent/hone/repo";
  EXPECT_EQ(Server::Create(options).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace hone::serve
