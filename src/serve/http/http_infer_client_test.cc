// The HTTP client (client/http_infer_client.h) against serve's real front end over the Server test double, and its
// codec against the server's (what one side encodes, the other decodes). The client's own tests are in client/.
#include "client/http_infer_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "client/body_buffer.h"
#include "client/http_client_codec.h"
#include "serve/http/http_server.h"
#include "serve/http/infer_request_codec.h"
#include "serve/http/infer_response_codec.h"
#include "serve/http/test_server.h"

namespace hone::serve::http {
namespace {

using ::testing::HasSubstr;
using client::BodyBuffer;
using client::ClientInferOptions;
using client::DecodeInferResponse;
using client::EncodeInferRequest;
using client::HttpInferClient;
using testing::TestServer;

template <typename T>
Tensor Make(DataType type, Shape shape, std::vector<T> values) {
  Tensor t = *Tensor::Allocate(type, std::move(shape));
  if (t.byte_size()) std::memcpy(t.mutable_data(), values.data(), t.byte_size());
  return t;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.type() == b.type() && a.shape() == b.shape() && a.byte_size() == b.byte_size() &&
         (a.byte_size() == 0 || std::memcmp(a.data(), b.data(), a.byte_size()) == 0);
}

std::vector<NamedTensor> SomeInputs() {
  return {{"f", Make<float>(DataType::kFp32, {2, 2}, {0.1f, -2.0f, 3e-7f, 4.0f})},
          {"b", Make<uint8_t>(DataType::kBool, {3}, {1, 0, 1})},
          {"h", Make<uint16_t>(DataType::kFp16, {1}, {0x3C00})},
          {"i", Make<int64_t>(DataType::kInt64, {2}, {-5, 1ll << 40})}};
}

// What the client encodes, the server's decoder reads back exactly, in both encodings.
TEST(ClientCodec, RequestsRoundTripThroughTheServerDecoder) {
  for (bool binary : {false, true}) {
    ClientInferOptions options;
    options.binary_inputs = binary;
    options.binary_outputs = !binary;
    options.outputs = {"f"};
    options.id = "r7";
    std::string json;
    std::vector<std::span<const std::byte>> sections;
    auto inputs = SomeInputs();
    ASSERT_TRUE(EncodeInferRequest(inputs, options, json, sections).ok());
    auto body = std::make_shared<BodyBuffer>();
    body->Reset(0, json.size());
    body->Append(json.data(), json.size());
    for (auto s : sections) body->Append(s.data(), s.size());
    InferBody in{body->bytes(), body->readable(), binary ? std::optional<uint64_t>(json.size()) : std::nullopt, body};
    auto decoded = DecodeInferRequest(in);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString() << "\n" << json;
    EXPECT_EQ(decoded->request.id, "r7");
    EXPECT_EQ(decoded->request.requested_outputs, (std::vector<std::string>{"f"}));
    EXPECT_EQ(decoded->format.BinaryFor("f"), !binary);
    ASSERT_EQ(decoded->request.inputs.size(), inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
      EXPECT_TRUE(SameBytes(decoded->request.inputs[i].tensor, inputs[i].tensor)) << inputs[i].name << " " << binary;
  }
}

TEST(ClientCodec, ResponsesRoundTripFromTheServerEncoder) {
  for (bool binary : {false, true}) {
    InferenceResponse r;
    r.model_name = "m";
    r.model_version = 4;
    r.id = "x";
    r.outputs = SomeInputs();
    ResponseFormat format;
    format.binary_default = binary;
    auto enc = EncodeInferResponse(r, format);
    ASSERT_TRUE(enc.ok());
    std::string body = enc->json;
    for (auto s : enc->binary) body.append(reinterpret_cast<const char*>(s.data()), s.size());
    auto decoded = DecodeInferResponse(std::as_bytes(std::span(body)), body.size(),
                                       enc->has_binary ? std::optional<uint64_t>(enc->json.size()) : std::nullopt);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(decoded->model_name, "m");
    EXPECT_EQ(decoded->model_version, 4);
    EXPECT_EQ(decoded->id, "x");
    for (size_t i = 0; i < r.outputs.size(); ++i)
      EXPECT_TRUE(SameBytes(decoded->outputs[i].tensor, r.outputs[i].tensor)) << r.outputs[i].name;
  }
}

class HttpInferClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpServerOptions options;
    options.port = 0;
    options.idle_timeout = std::chrono::seconds(1);
    auto started = HttpServer::Start(server_, options);
    ASSERT_TRUE(started.ok());
    http_ = std::move(started).value();
    auto client = HttpInferClient::Connect("127.0.0.1", http_->port());
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }

  TestServer server_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<HttpInferClient> client_;
};

TEST_F(HttpInferClientTest, InferInEveryEncoding) {
  auto inputs = SomeInputs();
  for (bool binary_in : {false, true}) {
    for (bool binary_out : {false, true}) {
      ClientInferOptions options;
      options.binary_inputs = binary_in;
      options.binary_outputs = binary_out;
      auto r = client_->Infer("echo", 0, inputs, options);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ(r->outputs.size(), inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i) EXPECT_TRUE(SameBytes(r->outputs[i].tensor, inputs[i].tensor));
    }
  }
  ClientInferOptions some;
  some.outputs = {"i", "f"};
  auto r = client_->Infer("echo", 1, inputs, some);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outputs[0].name, "i");
  EXPECT_EQ(r->outputs[1].name, "f");
}

TEST_F(HttpInferClientTest, ServerErrorsComeBackAsStatuses) {
  auto r = client_->Infer("nope", 0, SomeInputs());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("unknown model 'nope'"));
  server_.fail_status = Status::Unavailable("queue full");
  EXPECT_EQ(client_->Infer("fail", 0, SomeInputs()).status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(client_->Infer("echo", 0, SomeInputs()).ok()) << "the connection survives error replies";
}

TEST_F(HttpInferClientTest, HealthMetadataAndStatistics) {
  EXPECT_TRUE(*client_->IsServerLive());
  EXPECT_TRUE(*client_->IsServerReady());
  EXPECT_TRUE(*client_->IsModelReady("echo"));
  EXPECT_FALSE(*client_->IsModelReady("loading"));
  server_.ready = false;
  EXPECT_FALSE(*client_->IsServerReady());
  auto meta = client_->GetModelMetadata("echo");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->inputs[0].type, DataType::kFp32);
  EXPECT_EQ(meta->inputs[0].shape, (Shape{-1, 4}));
  auto stats = client_->GetStatistics("echo");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ((*stats)[0].execution_count, 3u);
  EXPECT_EQ((*stats)[0].batch_stats[0].compute_infer.ns, 3300u);
  EXPECT_TRUE(client_->GetStatistics("").ok());
  EXPECT_EQ(client_->GetStatistics("nope").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(HttpInferClientTest, ReconnectsAfterTheServerClosedAnIdleConnection) {
  ASSERT_TRUE(client_->Infer("echo", 0, SomeInputs()).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(1600));  // past the server's 1 s idle timeout
  auto r = client_->Infer("echo", 0, SomeInputs());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
}

TEST(HttpInferClientConnect, NothingListening) {
  TestServer server;
  HttpServerOptions options;
  options.port = 0;
  uint16_t port = 0;
  {
    auto http = HttpServer::Start(server, options);
    ASSERT_TRUE(http.ok());
    port = (*http)->port();
  }
  EXPECT_EQ(HttpInferClient::Connect("127.0.0.1", port).status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace hone::serve::http
