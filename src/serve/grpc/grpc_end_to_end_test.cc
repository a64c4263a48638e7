// The real server (Server::Create over a temporary repository holding the bundled Fashion-MNIST model), the gRPC
// front end and the client, end to end.
#include <cmath>
#include <filesystem>
#include <unistd.h>

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "base/version.h"
#include "client/grpc_infer_client.h"
#include "client/grpc_service.grpc.pb.h"
#include "serve/core/server.h"
#include "serve/grpc/grpc_server.h"
#include "tensor/npy.h"
#include "tensor/npz.h"

namespace hone::serve {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using client::GrpcInferClient;

constexpr int64_t kImages = 4;  // the completed config's default max_batch_size

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  return context;
}

class GrpcEndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repository_ = fs::temp_directory_path() / ("hone_grpc_e2e_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(repository_ / "fashion" / "1");
    fs::copy_file(fs::path(HONE_SOURCE_DIR) / "models/fashion_mnist/model.onnx",
                  repository_ / "fashion" / "1" / "model.onnx");
    ServerOptions options;
    options.model_repository = repository_.string();
    options.control_mode = ModelControlMode::kExplicit;
    options.startup_models = {"fashion"};
    options.cores = 2;
    auto server = Server::Create(options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();

    GrpcServerOptions grpc_options;
    grpc_options.port = 0;
    auto grpc_server = GrpcServer::Start(*server_, grpc_options);
    ASSERT_TRUE(grpc_server.ok()) << grpc_server.status().ToString();
    grpc_ = std::move(grpc_server).value();
    auto client = GrpcInferClient::Connect("127.0.0.1", grpc_->port());
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
    stub_ = inference::GRPCInferenceService::NewStub(
        grpc::CreateChannel(grpc_->address(), grpc::InsecureChannelCredentials()));
  }

  void TearDown() override {
    // As `hone serve` does: the server drains first (health still answers), then the front end stops.
    if (server_) server_->Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(30));
    if (grpc_) grpc_->Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(30));
    client_.reset();
    grpc_.reset();
    server_.reset();
    std::error_code ec;
    fs::remove_all(repository_, ec);
  }

  // The first kImages test images and PyTorch's logits for them.
  static std::pair<Tensor, Tensor> ImagesAndReference() {
    const fs::path dir = fs::path(HONE_SOURCE_DIR) / "models" / "fashion_mnist";
    auto npz = ReadNpz((dir / "test.npz").string());
    EXPECT_TRUE(npz.ok()) << npz.status().ToString();
    auto logits = ReadNpy((dir / "reference_logits.npy").string());
    EXPECT_TRUE(logits.ok()) << logits.status().ToString();
    Tensor images;
    for (const NamedTensor& t : *npz)
      if (t.name == "image") images = *t.tensor.SliceRows(0, kImages);
    return {images, *logits->SliceRows(0, kImages)};
  }

  fs::path repository_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<GrpcServer> grpc_;
  std::unique_ptr<GrpcInferClient> client_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> stub_;
};

TEST_F(GrpcEndToEndTest, ReadyAndMetadata) {
  EXPECT_TRUE(*client_->IsServerLive());
  EXPECT_TRUE(*client_->IsServerReady());
  EXPECT_TRUE(*client_->IsModelReady("fashion"));
  EXPECT_TRUE(*client_->IsModelReady("fashion", 1));
  EXPECT_FALSE(*client_->IsModelReady("fashion", 2));

  // The server's version is hone's one version (base/version.h), as over HTTP.
  inference::ServerMetadataResponse server_metadata;
  ASSERT_TRUE(stub_->ServerMetadata(Context().get(), {}, &server_metadata).ok());
  EXPECT_EQ(server_metadata.version(), std::string(HoneVersion()));

  inference::ModelMetadataRequest request;
  request.set_name("fashion");
  inference::ModelMetadataResponse metadata;
  grpc::Status status = stub_->ModelMetadata(Context().get(), request, &metadata);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(metadata.name(), "fashion");
  EXPECT_THAT(metadata.versions(), ElementsAre("1"));
  ASSERT_EQ(metadata.inputs_size(), 1);
  EXPECT_EQ(metadata.inputs(0).name(), "image");
  EXPECT_EQ(metadata.inputs(0).datatype(), "FP32");
  EXPECT_THAT(metadata.inputs(0).shape(), ElementsAre(-1, 1, 28, 28));
  ASSERT_EQ(metadata.outputs_size(), 1);
  EXPECT_EQ(metadata.outputs(0).name(), "logits");
  EXPECT_THAT(metadata.outputs(0).shape(), ElementsAre(-1, 10));

  inference::ModelConfigRequest config_request;
  config_request.set_name("fashion");
  inference::ModelConfigResponse config;
  status = stub_->ModelConfig(Context().get(), config_request, &config);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(config.config().name(), "fashion");
  EXPECT_GT(config.config().max_batch_size(), 0);  // completed from the model: its first dimension is dynamic
}

TEST_F(GrpcEndToEndTest, InferMatchesTheReferenceLogitsAndCountsInStatistics) {
  auto [images, reference] = ImagesAndReference();
  ASSERT_FALSE(images.empty());
  std::vector<NamedTensor> inputs = {{"image", images}};
  auto outputs = client_->Infer("fashion", 0, inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), 1u);
  const Tensor& logits = (*outputs)[0].tensor;
  EXPECT_EQ((*outputs)[0].name, "logits");
  ASSERT_EQ(logits.shape(), (Shape{kImages, 10}));
  for (int64_t i = 0; i < logits.element_count(); ++i)
    EXPECT_NEAR(logits.values<float>()[i], reference.values<float>()[i], 1e-4) << "element " << i;

  // One row at a time too, through the same client (its messages reused).
  for (int64_t row = 0; row < 3; ++row) {
    std::vector<NamedTensor> one = {{"image", *images.SliceRows(row, 1)}};
    auto single = client_->Infer("fashion", 1, one);
    ASSERT_TRUE(single.ok()) << single.status().ToString();
    for (int64_t k = 0; k < 10; ++k)
      EXPECT_NEAR((*single)[0].tensor.values<float>()[k], reference.values<float>()[row * 10 + k], 1e-4);
  }

  auto stats = client_->Statistics("fashion");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->version, 1);
  EXPECT_GE(stats->inference_count, static_cast<uint64_t>(kImages + 3));
  EXPECT_GE(stats->success.count, 4u);
  EXPECT_GT(stats->compute_infer.ns, 0u);
}

TEST_F(GrpcEndToEndTest, BadRequestsAreAnsweredAndTheServerStaysReady) {
  Tensor wrong_shape = *Tensor::Allocate(DataType::kFp32, {1, 28, 28});
  std::vector<NamedTensor> inputs = {{"image", wrong_shape}};
  auto shape = client_->Infer("fashion", 0, inputs);
  EXPECT_EQ(shape.status().code(), StatusCode::kInvalidArgument) << shape.status().ToString();

  Tensor ints = *Tensor::Allocate(DataType::kInt64, {1, 1, 28, 28});
  inputs = {{"image", ints}};
  auto type = client_->Infer("fashion", 0, inputs);
  EXPECT_EQ(type.status().code(), StatusCode::kInvalidArgument) << type.status().ToString();

  inputs = {{"pixels", *Tensor::Allocate(DataType::kFp32, {1, 1, 28, 28})}};
  auto name = client_->Infer("fashion", 0, inputs);
  EXPECT_FALSE(name.ok());

  auto model = client_->Infer("nope", 0, inputs);
  EXPECT_EQ(model.status().code(), StatusCode::kNotFound) << model.status().ToString();

  EXPECT_TRUE(*client_->IsServerReady());
  inputs = {{"image", *Tensor::Allocate(DataType::kFp32, {2, 1, 28, 28})}};
  EXPECT_TRUE(client_->Infer("fashion", 0, inputs).ok());
}

TEST_F(GrpcEndToEndTest, UnloadAndLoadThroughTheRepositoryApi) {
  inference::RepositoryModelUnloadRequest unload;
  unload.set_model_name("fashion");
  inference::RepositoryModelUnloadResponse unloaded;
  grpc::Status status = stub_->RepositoryModelUnload(Context().get(), unload, &unloaded);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(*client_->IsModelReady("fashion"));

  inference::RepositoryIndexResponse index;
  ASSERT_TRUE(stub_->RepositoryIndex(Context().get(), {}, &index).ok());
  ASSERT_EQ(index.models_size(), 1);
  EXPECT_EQ(index.models(0).name(), "fashion");
  EXPECT_NE(index.models(0).state(), "READY");

  inference::RepositoryModelLoadRequest load;
  load.set_model_name("fashion");
  inference::RepositoryModelLoadResponse loaded;
  status = stub_->RepositoryModelLoad(Context().get(), load, &loaded);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(*client_->IsModelReady("fashion"));

  load.set_model_name("missing");
  status = stub_->RepositoryModelLoad(Context().get(), load, &loaded);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(*client_->IsServerLive());
}

}  // namespace
}  // namespace hone::serve
