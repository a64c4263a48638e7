// Responses bigger than gRPC's old 64 MiB default, through the real server, front end and client: they arrive with
// the default limits (Triton's: 2 GiB - 1), and one over a lowered limit fails with RESOURCE_EXHAUSTED, is
// logged, and counts as a failure, not a success.
#include <unistd.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/grpc_infer_client.h"
#include "serve/core/server.h"
#include "serve/grpc/grpc_server.h"

namespace hone::serve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using client::GrpcInferClient;

// big_output.onnx (src/serve/core/testdata): x FP32 [1] -> y FP32 [18350080], x repeated, 70 MiB.
constexpr int64_t kBigElements = 70 * 1024 * 1024 / 4;

class GrpcLargeResponseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repository_ = fs::temp_directory_path() / ("hone_grpc_big_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(repository_ / "big" / "1");
    fs::copy_file(fs::path(HONE_SOURCE_DIR) / "src/serve/core/testdata/big_output.onnx",
                  repository_ / "big" / "1" / "model.onnx");
    ServerOptions options;
    options.model_repository = repository_.string();
    options.cores = 1;
    options.default_warmup = false;  // a 70 MiB warm-up is time the test does not need
    auto server = Server::Create(options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  void StartFrontEnd(GrpcServerOptions options) {
    options.port = 0;
    auto grpc_server = GrpcServer::Start(*server_, options);
    ASSERT_TRUE(grpc_server.ok()) << grpc_server.status().ToString();
    grpc_ = std::move(grpc_server).value();
    auto client = GrpcInferClient::Connect("127.0.0.1", grpc_->port());
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }

  void TearDown() override {
    if (server_) server_->Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(30));
    if (grpc_) grpc_->Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(30));
    client_.reset();
    grpc_.reset();
    server_.reset();
    std::error_code ec;
    fs::remove_all(repository_, ec);
  }

  Result<std::vector<NamedTensor>> InferBig() {
    Tensor x = *Tensor::Allocate(DataType::kFp32, {1});
    x.mutable_values<float>()[0] = 2.5f;
    std::vector<NamedTensor> inputs = {{"x", x}};
    return client_->Infer("big", 0, inputs);
  }

  client::ModelStatsSnapshot Stats() {
    auto stats = server_->Statistics("big", 0);
    EXPECT_TRUE(stats.ok() && stats->size() == 1);
    return stats.ok() && !stats->empty() ? (*stats)[0] : client::ModelStatsSnapshot{};
  }

  fs::path repository_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<GrpcServer> grpc_;
  std::unique_ptr<GrpcInferClient> client_;
};

TEST_F(GrpcLargeResponseTest, SeventyMebibytesArriveWithTheDefaultLimits) {
  ASSERT_NO_FATAL_FAILURE(StartFrontEnd({}));
  auto outputs = InferBig();
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), 1u);
  const Tensor& y = (*outputs)[0].tensor;
  ASSERT_EQ(y.shape(), Shape{kBigElements});
  EXPECT_EQ(y.values<float>()[0], 2.5f);
  EXPECT_EQ(y.values<float>()[kBigElements - 1], 2.5f);
  EXPECT_EQ(Stats().success.count, 1u);
  EXPECT_EQ(Stats().fail.count, 0u);
}

TEST_F(GrpcLargeResponseTest, OverALoweredLimitFailsIsLoggedAndCountsAsAFailure) {
  GrpcServerOptions options;
  options.max_message_bytes = 64 << 20;  // the old default
  ASSERT_NO_FATAL_FAILURE(StartFrontEnd(options));
  ::testing::internal::CaptureStderr();
  auto outputs = InferBig();
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), StatusCode::kResourceExhausted) << outputs.status().ToString();
  EXPECT_THAT(outputs.status().message(), HasSubstr("73400320 bytes"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("--grpc-max-message-bytes"));
  EXPECT_THAT(log, HasSubstr("model 'big' version 1"));
  EXPECT_EQ(Stats().success.count, 0u);
  EXPECT_EQ(Stats().fail.count, 1u);
}

}  // namespace
}  // namespace hone::serve
