// ModelInfer over a real gRPC server (grpc_server_fixture_test_util.h): known answers, malformed requests, health
// while inference is held, and shutdown with inference in flight.
#include <atomic>
#include <thread>

#include <gmock/gmock.h>
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include "serve/grpc/grpc_server_fixture_test_util.h"

namespace hone::serve::fake {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST_F(GrpcServerTest, ModelInferRawKnownAnswer) {
  inference::ModelInferRequest request = EchoRequest({1, 2, 3, 4, 5, 6, 7, 8});
  (*request.mutable_parameters())["priority"].set_int64_param(1);
  inference::ModelInferResponse response;
  grpc::Status status = Infer(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.model_name(), "echo");
  EXPECT_EQ(response.model_version(), "1");
  EXPECT_EQ(response.id(), "r1");
  ASSERT_EQ(response.outputs_size(), 2);
  EXPECT_EQ(response.outputs(0).name(), "y");
  EXPECT_EQ(response.outputs(0).datatype(), "FP32");
  EXPECT_THAT(response.outputs(0).shape(), ElementsAre(2, 4));
  ASSERT_EQ(response.raw_output_contents_size(), 2);
  EXPECT_THAT(Floats(response.raw_output_contents(0)), ElementsAre(2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_EQ(response.outputs(1).datatype(), "INT64");
  int64_t n = 0;
  std::memcpy(&n, response.raw_output_contents(1).data(), sizeof(n));
  EXPECT_EQ(n, 8);
  EXPECT_EQ(fake_.last_request().priority, 1u);
  EXPECT_TRUE(fake_.last_input_borrowed());  // the front end handed the server a view, not a copy
}

TEST_F(GrpcServerTest, ModelInferTypedContentsAndRequestedOutputs) {
  inference::ModelInferRequest request = EchoRequest();
  request.clear_raw_input_contents();
  for (float v : {0.5f, 1.5f, 2.5f, 3.5f}) request.mutable_inputs(0)->mutable_contents()->add_fp32_contents(v);
  request.add_outputs()->set_name("y");
  inference::ModelInferResponse response;
  ASSERT_TRUE(Infer(request, &response).ok());
  ASSERT_EQ(response.outputs_size(), 1);
  EXPECT_THAT(Floats(response.raw_output_contents(0)), ElementsAre(1.5f, 2.5f, 3.5f, 4.5f));
}

TEST_F(GrpcServerTest, InferErrorsKeepTheirCodeAndTheServerKeepsServing) {
  inference::ModelInferResponse response;
  inference::ModelInferRequest wrong_size = EchoRequest();
  wrong_size.mutable_raw_input_contents(0)->resize(3);
  grpc::Status s = Infer(wrong_size, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "input 'x': expected 16 bytes for FP32 shape 1x4 in its raw contents, got 3");

  inference::ModelInferRequest wrong_type = EchoRequest();
  wrong_type.mutable_inputs(0)->set_datatype("INT32");
  s = Infer(wrong_type, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "input 'x': expected FP32, got INT32");

  inference::ModelInferRequest unknown = EchoRequest();
  unknown.set_model_name("nope");
  EXPECT_EQ(Infer(unknown, &response).error_code(), grpc::StatusCode::NOT_FOUND);

  fake_.SetQueueFull(true);
  s = Infer(EchoRequest(), &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(s.error_message(), HasSubstr("queue full"));
  fake_.SetQueueFull(false);

  EXPECT_TRUE(Live());
  EXPECT_TRUE(Infer(EchoRequest(), &response).ok());
}

TEST_F(GrpcServerTest, GarbageBytesLeaveTheServerServing) {
  grpc::GenericStub generic(channel_);
  const char garbage[] = "\xff\xff\xff\xff not a protobuf \x0a\xff";
  grpc::Slice slice(garbage, sizeof(garbage) - 1);
  grpc::ByteBuffer request(&slice, 1), response;
  std::atomic<bool> done{false};
  grpc::Status status;
  auto context = Context();
  generic.UnaryCall(context.get(), "/inference.GRPCInferenceService/ModelInfer", grpc::StubOptions(), &request,
                    &response, [&](grpc::Status s) {
                      status = s;
                      done = true;
                    });
  ASSERT_TRUE(Eventually([&] { return done.load(); }));
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(Live());
  inference::ModelInferResponse infer;
  EXPECT_TRUE(Infer(EchoRequest(), &infer).ok());
}

TEST_F(GrpcServerTest, RpcsLeftOutAreUnimplemented) {
  grpc::GenericStub generic(channel_);
  grpc::Slice empty;  // an empty message (a default ByteBuffer is no message at all)
  grpc::ByteBuffer request(&empty, 1), response;
  std::atomic<bool> done{false};
  grpc::Status status;
  auto context = Context();
  generic.UnaryCall(context.get(), "/inference.GRPCInferenceService/SystemSharedMemoryStatus", grpc::StubOptions(),
                    &request, &response, [&](grpc::Status s) {
                      status = s;
                      done = true;
                    });
  ASSERT_TRUE(Eventually([&] { return done.load(); }));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(GrpcServerTest, OversizedMessagesAreRefused) {
  grpc_.reset();
  GrpcServerOptions options;
  options.max_message_bytes = 1024;
  Start(options);
  inference::ModelInferResponse response;
  grpc::Status s = Infer(EchoRequest(std::vector<float>(1024, 1.0f)), &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(Live());
  EXPECT_TRUE(Infer(EchoRequest(), &response).ok());
}

// Every inference is held by the server; health, metadata and statistics still answer, and every held request
// gets its response once the server lets go.
TEST_F(GrpcServerTest, HealthAnswersWhileInferenceIsBlocked) {
  constexpr int kRequests = 32;
  fake_.CloseGate();
  inference::ModelInferRequest request = EchoRequest();
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<inference::ModelInferResponse> responses(kRequests);
  std::vector<grpc::Status> statuses(kRequests);
  std::atomic<int> done{0};
  for (int i = 0; i < kRequests; ++i) {
    contexts.push_back(Context());
    stub_->async()->ModelInfer(contexts.back().get(), &request, &responses[static_cast<size_t>(i)],
                               [&, i](grpc::Status s) {
                                 statuses[static_cast<size_t>(i)] = s;
                                 ++done;
                               });
  }
  ASSERT_TRUE(Eventually([&] { return fake_.queued() == kRequests; }));

  EXPECT_TRUE(Live());
  inference::ServerReadyResponse ready;
  EXPECT_TRUE(stub_->ServerReady(Context().get(), {}, &ready).ok());
  inference::ModelMetadataRequest metadata_request;
  metadata_request.set_name("echo");
  inference::ModelMetadataResponse metadata;
  EXPECT_TRUE(stub_->ModelMetadata(Context().get(), metadata_request, &metadata).ok());
  inference::ModelStatisticsResponse stats;
  EXPECT_TRUE(stub_->ModelStatistics(Context().get(), {}, &stats).ok());
  EXPECT_EQ(done.load(), 0);

  fake_.OpenGate();
  ASSERT_TRUE(Eventually([&] { return done.load() == kRequests; }));
  for (int i = 0; i < kRequests; ++i) {
    ASSERT_TRUE(statuses[static_cast<size_t>(i)].ok()) << statuses[static_cast<size_t>(i)].error_message();
    EXPECT_THAT(Floats(responses[static_cast<size_t>(i)].raw_output_contents(0)), ElementsAre(2, 3, 4, 5));
  }
}

TEST_F(GrpcServerTest, ShutdownWaitsForInferenceInFlight) {
  fake_.CloseGate();
  inference::ModelInferRequest request = EchoRequest();
  inference::ModelInferResponse response;
  std::atomic<bool> done{false};
  grpc::Status status;
  auto context = Context();
  stub_->async()->ModelInfer(context.get(), &request, &response, [&](grpc::Status s) {
    status = s;
    done = true;
  });
  ASSERT_TRUE(Eventually([&] { return fake_.queued() == 1; }));
  std::thread shutdown([&] { grpc_->Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(30)); });
  fake_.OpenGate();
  shutdown.join();
  ASSERT_TRUE(Eventually([&] { return done.load(); }));
  EXPECT_TRUE(status.ok()) << status.error_message();
  // After shutdown nothing answers.
  EXPECT_FALSE(Live());
}

}  // namespace
}  // namespace hone::serve::fake
