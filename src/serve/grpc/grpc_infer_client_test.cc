// The client against a real gRPC front end over the Server test double.
#include "client/grpc_infer_client.h"

#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/grpc/fake_server_test_util.h"
#include "serve/grpc/grpc_server.h"

namespace hone::serve {
namespace {

using client::GrpcClientOptions;
using client::GrpcInferClient;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

NamedTensor X(std::vector<float> values) {
  Tensor t = *Tensor::Allocate(DataType::kFp32, {static_cast<int64_t>(values.size() / 4), 4});
  std::copy(values.begin(), values.end(), t.mutable_values<float>().begin());
  return {"x", t};
}

std::vector<float> Values(const Tensor& t) { return {t.values<float>().begin(), t.values<float>().end()}; }

class GrpcInferClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GrpcServerOptions options;
    options.port = 0;
    auto started = GrpcServer::Start(fake_, options);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    grpc_ = std::move(started).value();
    auto client = GrpcInferClient::Connect("127.0.0.1", grpc_->port());
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }

  fake::FakeServer fake_;
  std::unique_ptr<GrpcServer> grpc_;
  std::unique_ptr<GrpcInferClient> client_;
};

TEST_F(GrpcInferClientTest, Health) {
  EXPECT_EQ(client_->address(), grpc_->address());
  EXPECT_TRUE(*client_->IsServerLive());
  EXPECT_TRUE(*client_->IsServerReady());
  fake_.ready = false;
  EXPECT_FALSE(*client_->IsServerReady());
  EXPECT_TRUE(*client_->IsModelReady("echo"));
  EXPECT_FALSE(*client_->IsModelReady("echo", 5));
}

TEST_F(GrpcInferClientTest, InferKnownAnswerAndReuse) {
  for (int round = 0; round < 3; ++round) {
    std::vector<NamedTensor> inputs = {X({1, 2, 3, 4, 10, 20, 30, static_cast<float>(round)})};
    auto outputs = client_->Infer("echo", 0, inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
    ASSERT_EQ(outputs->size(), 2u);
    EXPECT_EQ((*outputs)[0].name, "y");
    EXPECT_EQ((*outputs)[0].tensor.shape(), (Shape{2, 4}));
    EXPECT_THAT(Values((*outputs)[0].tensor), ElementsAre(2, 3, 4, 5, 11, 21, 31, round + 1));
    EXPECT_EQ((*outputs)[1].tensor.values<int64_t>()[0], 8);
  }
  std::vector<std::string> only_n = {"n"};
  std::vector<NamedTensor> inputs = {X({1, 2, 3, 4})};
  auto outputs = client_->Infer("echo", 1, inputs, only_n);
  ASSERT_TRUE(outputs.ok());
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_EQ((*outputs)[0].name, "n");
  EXPECT_EQ(fake_.last_request().model_version, 1);
}

TEST_F(GrpcInferClientTest, ErrorsCarryTheServersCodeAndMessage) {
  std::vector<NamedTensor> inputs = {X({1, 2, 3, 4})};
  auto unknown = client_->Infer("nope", 0, inputs);
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), "ModelInfer to " + grpc_->address() + ": model 'nope': unknown");

  Tensor ints = *Tensor::Allocate(DataType::kInt32, {1, 4});
  std::vector<NamedTensor> wrong = {{"x", ints}};
  auto type = client_->Infer("echo", 0, wrong);
  EXPECT_EQ(type.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(type.status().message(), HasSubstr("input 'x': expected FP32, got INT32"));

  fake_.SetQueueFull(true);
  EXPECT_EQ(client_->Infer("echo", 0, inputs).status().code(), StatusCode::kUnavailable);
  fake_.SetQueueFull(false);
  EXPECT_TRUE(client_->Infer("echo", 0, inputs).ok());
}

TEST_F(GrpcInferClientTest, Statistics) {
  auto stats = client_->Statistics("echo");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->name, "echo");
  EXPECT_EQ(stats->version, 1);
  EXPECT_EQ(stats->inference_count, 3u);
  EXPECT_EQ(stats->execution_count, 2u);
  EXPECT_EQ(stats->success.ns, 3000u);
  EXPECT_EQ(stats->queue.count, 3u);
  ASSERT_EQ(stats->batch_stats.size(), 2u);
  EXPECT_EQ(stats->batch_stats[1].compute_infer.ns, 50u);
  EXPECT_EQ(client_->Statistics("nope").status().code(), StatusCode::kNotFound);
}

// Clones share the channel and run side by side, each with its own messages.
TEST_F(GrpcInferClientTest, ClonesRunConcurrently) {
  constexpr int kThreads = 4, kCalls = 25;
  std::vector<std::thread> threads;
  std::atomic<int> correct{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t, clone = client_->Clone()] {
      for (int i = 0; i < kCalls; ++i) {
        float v = static_cast<float>(t * 1000 + i);
        std::vector<NamedTensor> inputs = {X({v, v, v, v})};
        auto outputs = clone->Infer("echo", 0, inputs);
        if (outputs.ok() && Values((*outputs)[0].tensor) == std::vector<float>(4, v + 1)) ++correct;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(correct.load(), kThreads * kCalls);
}

TEST(GrpcInferClientConnectTest, NoServerIsUnavailable) {
  // Bind an ephemeral port and close it again, so that nothing listens there.
  fake::FakeServer fake;
  GrpcServerOptions options;
  options.port = 0;
  int port = 0;
  {
    auto server = GrpcServer::Start(fake, options);
    ASSERT_TRUE(server.ok());
    port = (*server)->port();
  }
  GrpcClientOptions client_options;
  client_options.connect_timeout = std::chrono::milliseconds(200);
  auto client = GrpcInferClient::Connect("127.0.0.1", port, client_options);
  EXPECT_EQ(client.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(client.status().message(),
            "gRPC: cannot connect to 127.0.0.1:" + std::to_string(port) + " within 200 ms");
  EXPECT_EQ(GrpcInferClient::Connect("127.0.0.1", 0).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hone::serve
