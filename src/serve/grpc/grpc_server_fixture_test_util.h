// The fixture of the gRPC front end's server tests: a real gRPC server on 127.0.0.1:0 over a test double of the
// Server facade (fake_server_test_util.h), a channel and the generated stub, plus small helpers.
#pragma once

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "client/grpc_service.grpc.pb.h"
#include "serve/grpc/fake_server_test_util.h"
#include "serve/grpc/grpc_server.h"

namespace hone::serve::fake {

// A deadline on every call, so that a bug shows as a failed call rather than a hung test (not a timing check).
inline std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return context;
}

// Polls `condition` for up to 30 s (the condition, not the time, is what the test checks).
template <typename F>
bool Eventually(F condition) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

inline inference::ModelInferRequest EchoRequest(std::vector<float> x = {1, 2, 3, 4}) {
  inference::ModelInferRequest m;
  m.set_model_name("echo");
  m.set_id("r1");
  auto* input = m.add_inputs();
  input->set_name("x");
  input->set_datatype("FP32");
  input->add_shape(static_cast<int64_t>(x.size() / 4)), input->add_shape(4);
  m.add_raw_input_contents(std::string(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(float)));
  return m;
}

inline std::vector<float> Floats(const std::string& raw) {
  std::vector<float> v(raw.size() / sizeof(float));
  std::memcpy(v.data(), raw.data(), raw.size());
  return v;
}

class GrpcServerTest : public ::testing::Test {
 protected:
  void Start(GrpcServerOptions options = {}) {
    options.port = 0;
    auto started = GrpcServer::Start(fake_, options);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    grpc_ = std::move(started).value();
    channel_ = grpc::CreateChannel(grpc_->address(), grpc::InsecureChannelCredentials());
    stub_ = inference::GRPCInferenceService::NewStub(channel_);
  }
  void SetUp() override { Start(); }

  grpc::Status Infer(const inference::ModelInferRequest& request, inference::ModelInferResponse* response) {
    return stub_->ModelInfer(Context().get(), request, response);
  }
  bool Live() {
    inference::ServerLiveResponse response;
    return stub_->ServerLive(Context().get(), {}, &response).ok() && response.live();
  }

  FakeServer fake_;  // outlives the front end
  std::unique_ptr<GrpcServer> grpc_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> stub_;
};

}  // namespace hone::serve::fake
