// Starting a server: the repository check in Open, the start-up loads in Start (and what they report), and the
// intra-op thread split over every instance of every model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "base/temp_dir_test_util.h"
#include "serve/config/onnx_parameters.h"
#include "serve/core/scheduler_test_util.h"
#include "serve/core/server.h"

namespace hone::serve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ServerStartTest : public ::testing::Test {
 protected:
  void Add(const std::string& model, const std::string& config = "") {
    const fs::path to = dir_.MakeDir(model + "/1");
    fs::copy_file(test::ModelPath("affine"), to / "model.onnx", fs::copy_options::overwrite_existing);
    if (!config.empty()) dir_.Write(model + "/config.pbtxt", config);
  }
  ServerOptions Options(ModelControlMode mode = ModelControlMode::kNone, int cores = 1) const {
    ServerOptions options;
    options.model_repository = dir_.str();
    options.control_mode = mode;
    options.cores = cores;
    return options;
  }
  // The intra_op_thread_count the completed config of `model` ended up with.
  std::string Threads(Server& server, const std::string& model) {
    auto config = server.ModelConfig(model, 0);
    EXPECT_TRUE(config.ok()) << config.status().ToString();
    if (!config.ok()) return "";
    return config->parameters().at(std::string(kIntraOpThreadCount)).string_value();
  }

  testing_util::TempDir dir_;
};

TEST_F(ServerStartTest, EmptyRepositoryIsRefusedUnlessExplicit) {
  for (ModelControlMode mode : {ModelControlMode::kNone, ModelControlMode::kPoll}) {
    auto server = Server::Open(Options(mode));
    EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(server.status().message(), HasSubstr("holds no model: it is empty"));
    EXPECT_THAT(server.status().message(), HasSubstr("<repository>/<model>/<version>/model.onnx"));
  }
  EXPECT_TRUE(Server::Open(Options(ModelControlMode::kExplicit)).ok());
}

TEST_F(ServerStartTest, ModelFolderAsRepositoryPointsAtItsParent) {
  Add("m", "max_batch_size: 4");
  ServerOptions options = Options();
  options.model_repository = dir_.File("m");
  auto server = Server::Open(options);
  EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(server.status().message(), HasSubstr("did you mean its parent, '" + dir_.str() + "'?"));
}

TEST_F(ServerStartTest, OpenLoadsNothingAndStartReportsEachFailedModel) {
  Add("good");
  dir_.Write("broken/1/model.onnx", "not an onnx model");
  auto server = Server::Open(Options());
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_TRUE((*server)->IsLive());
  EXPECT_FALSE((*server)->IsReady());  // nothing has loaded yet
  Status started = (*server)->Start();
  EXPECT_EQ(started.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(started.message(), HasSubstr("model 'broken'"));
  EXPECT_THAT(started.message(), HasSubstr("not an ONNX model"));
  EXPECT_THAT(started.message(), ::testing::Not(HasSubstr("'good'")));
  EXPECT_TRUE(*(*server)->IsModelReady("good", 0));  // the others serve; exiting is the caller's choice
  EXPECT_FALSE((*server)->IsReady());
  EXPECT_EQ((*server)->Start().code(), StatusCode::kFailedPrecondition);  // once
}

TEST_F(ServerStartTest, ThreadsAreSplitOverEveryInstanceOfEveryModel) {
  Add("a");                                               // 1 instance
  Add("b", "instance_group [ { count: 2 } ]");            // 2 instances
  Add("c", "parameters { key: \"intra_op_thread_count\" value: { string_value: \"2\" } }");  // its own
  auto server = Server::Create(Options(ModelControlMode::kNone, 8));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  // (8 cores - 2 that c set) / 3 instances = 2 each: 1x2 + 2x2 + 2 = 8 threads, not 8 per model.
  EXPECT_EQ(Threads(**server, "a"), "2");
  EXPECT_EQ(Threads(**server, "b"), "2");
  EXPECT_EQ(Threads(**server, "c"), "2");
}

TEST_F(ServerStartTest, TwoModelsOnTwoCoresGetOneThreadEach) {
  Add("a");
  Add("b");
  auto server = Server::Create(Options(ModelControlMode::kNone, 2));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_EQ(Threads(**server, "a"), "1");
  EXPECT_EQ(Threads(**server, "b"), "1");
}

}  // namespace
}  // namespace hone::serve
