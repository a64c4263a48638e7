// The gRPC front end's RPCs other than inference, each over a real gRPC server (grpc_server_fixture_test_util.h).
#include <atomic>

#include <gmock/gmock.h>
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include "serve/grpc/grpc_server_fixture_test_util.h"

namespace hone::serve::fake {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST_F(GrpcServerTest, BindsAnEphemeralPortOnLoopback) {
  EXPECT_GT(grpc_->port(), 0);
  EXPECT_EQ(grpc_->address(), "127.0.0.1:" + std::to_string(grpc_->port()));
}

TEST_F(GrpcServerTest, APortInUseIsAnError) {
  GrpcServerOptions options;
  options.port = grpc_->port();
  auto second = GrpcServer::Start(fake_, options);
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("cannot listen on 127.0.0.1:" + std::to_string(grpc_->port())));
  // The operating system's reason, which gRPC itself does not give.
  EXPECT_THAT(second.status().message(), HasSubstr(": address already in use"));
}

TEST_F(GrpcServerTest, OptionsAreValidated) {
  GrpcServerOptions options;
  options.port = 70000;
  EXPECT_EQ(GrpcServer::Start(fake_, options).status().message(),
            "gRPC port 70000: expected 0..65535 (0: any free port)");
  options = {};
  options.max_message_bytes = 0;
  EXPECT_EQ(GrpcServer::Start(fake_, options).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(GrpcServerTest, Health) {
  EXPECT_TRUE(Live());
  inference::ServerReadyResponse ready;
  ASSERT_TRUE(stub_->ServerReady(Context().get(), {}, &ready).ok());
  EXPECT_TRUE(ready.ready());
  fake_.ready = false;
  ASSERT_TRUE(stub_->ServerReady(Context().get(), {}, &ready).ok());
  EXPECT_FALSE(ready.ready());
}

TEST_F(GrpcServerTest, ModelReady) {
  inference::ModelReadyRequest request;
  inference::ModelReadyResponse response;
  request.set_name("echo");
  ASSERT_TRUE(stub_->ModelReady(Context().get(), request, &response).ok());
  EXPECT_TRUE(response.ready());
  request.set_version("1");
  ASSERT_TRUE(stub_->ModelReady(Context().get(), request, &response).ok());
  EXPECT_TRUE(response.ready());
  // Unknown models and versions are not ready (as Triton answers), rather than errors.
  request.set_version("9");
  ASSERT_TRUE(stub_->ModelReady(Context().get(), request, &response).ok());
  EXPECT_FALSE(response.ready());
  request.set_name("nope");
  request.set_version("");
  ASSERT_TRUE(stub_->ModelReady(Context().get(), request, &response).ok());
  EXPECT_FALSE(response.ready());
  request.set_version("x");
  grpc::Status bad = stub_->ModelReady(Context().get(), request, &response);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(bad.error_message(), "model 'nope': version 'x': expected a positive integer or \"\"");
}

TEST_F(GrpcServerTest, Metadata) {
  inference::ServerMetadataResponse server;
  ASSERT_TRUE(stub_->ServerMetadata(Context().get(), {}, &server).ok());
  EXPECT_EQ(server.name(), "hone");
  EXPECT_THAT(server.extensions(), ElementsAre("model_repository", "statistics"));

  inference::ModelMetadataRequest request;
  request.set_name("echo");
  inference::ModelMetadataResponse model;
  ASSERT_TRUE(stub_->ModelMetadata(Context().get(), request, &model).ok());
  EXPECT_EQ(model.platform(), "onnxruntime_onnx");
  EXPECT_THAT(model.versions(), ElementsAre("1"));
  ASSERT_EQ(model.inputs_size(), 1);
  EXPECT_EQ(model.inputs(0).datatype(), "FP32");
  EXPECT_THAT(model.inputs(0).shape(), ElementsAre(-1, 4));
  EXPECT_EQ(model.outputs(1).name(), "n");

  request.set_name("nope");
  grpc::Status missing = stub_->ModelMetadata(Context().get(), request, &model);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(missing.error_message(), "model 'nope': unknown");
}

TEST_F(GrpcServerTest, ModelConfig) {
  inference::ModelConfigRequest request;
  request.set_name("echo");
  inference::ModelConfigResponse response;
  ASSERT_TRUE(stub_->ModelConfig(Context().get(), request, &response).ok());
  EXPECT_EQ(response.config().name(), "echo");
  EXPECT_EQ(response.config().max_batch_size(), 8);
  request.set_name("");
  EXPECT_EQ(stub_->ModelConfig(Context().get(), request, &response).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(GrpcServerTest, ModelStatistics) {
  inference::ModelStatisticsRequest request;  // all models
  inference::ModelStatisticsResponse response;
  ASSERT_TRUE(stub_->ModelStatistics(Context().get(), request, &response).ok());
  ASSERT_EQ(response.model_stats_size(), 1);
  const auto& stats = response.model_stats(0);
  EXPECT_EQ(stats.name(), "echo");
  EXPECT_EQ(stats.version(), "1");
  EXPECT_EQ(stats.inference_count(), 3u);
  EXPECT_EQ(stats.inference_stats().queue().ns(), 300u);
  ASSERT_EQ(stats.batch_stats_size(), 2);
  EXPECT_EQ(stats.batch_stats(1).batch_size(), 2u);
  request.set_name("nope");
  EXPECT_EQ(stub_->ModelStatistics(Context().get(), request, &response).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(GrpcServerTest, RepositoryApi) {
  inference::RepositoryIndexRequest index_request;
  inference::RepositoryIndexResponse index;
  ASSERT_TRUE(stub_->RepositoryIndex(Context().get(), index_request, &index).ok());
  ASSERT_EQ(index.models_size(), 2);
  EXPECT_EQ(index.models(1).state(), "UNAVAILABLE");
  EXPECT_EQ(index.models(1).reason(), "model.onnx: not an ONNX model");
  index_request.set_ready(true);
  ASSERT_TRUE(stub_->RepositoryIndex(Context().get(), index_request, &index).ok());
  EXPECT_EQ(index.models_size(), 1);

  inference::RepositoryModelLoadRequest load;
  load.set_model_name("echo");
  inference::RepositoryModelLoadResponse loaded;
  EXPECT_TRUE(stub_->RepositoryModelLoad(Context().get(), load, &loaded).ok());
  load.set_model_name("nope");
  grpc::Status missing = stub_->RepositoryModelLoad(Context().get(), load, &loaded);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(missing.error_message(), "model 'nope': not in the repository");
  load.set_model_name("echo");
  (*load.mutable_parameters())["config"].set_string_param("{}");
  EXPECT_EQ(stub_->RepositoryModelLoad(Context().get(), load, &loaded).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(fake_.loads.load(), 2);

  inference::RepositoryModelUnloadRequest unload;
  unload.set_model_name("echo");
  inference::RepositoryModelUnloadResponse unloaded;
  EXPECT_TRUE(stub_->RepositoryModelUnload(Context().get(), unload, &unloaded).ok());
  unload.set_model_name("");
  EXPECT_EQ(stub_->RepositoryModelUnload(Context().get(), unload, &unloaded).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(fake_.unloads.load(), 1);
}

TEST_F(GrpcServerTest, RepositoryApiSwitchedOffIsPermissionDenied) {
  for (bool front_end_off : {true, false}) {
    SCOPED_TRACE(front_end_off ? "off in GrpcServerOptions" : "off in ServerOptions");
    grpc_.reset();
    fake_.mutable_options().repository_api = front_end_off;
    GrpcServerOptions options;
    options.repository_api = !front_end_off;
    Start(options);
    inference::RepositoryIndexResponse index;
    grpc::Status s = stub_->RepositoryIndex(Context().get(), {}, &index);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(s.error_message(), "RepositoryIndex: the model repository API is disabled on this server");
    inference::RepositoryModelLoadRequest load;
    load.set_model_name("echo");
    inference::RepositoryModelLoadResponse loaded;
    EXPECT_EQ(stub_->RepositoryModelLoad(Context().get(), load, &loaded).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    inference::RepositoryModelUnloadRequest unload;
    unload.set_model_name("echo");
    inference::RepositoryModelUnloadResponse unloaded;
    EXPECT_EQ(stub_->RepositoryModelUnload(Context().get(), unload, &unloaded).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
  EXPECT_EQ(fake_.loads.load(), 0);
}

}  // namespace
}  // namespace hone::serve::fake
