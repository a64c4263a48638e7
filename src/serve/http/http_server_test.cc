// The real HttpServer on 127.0.0.1:0 in front of a test double of the Server facade, driven over real sockets.
#include "serve/http/http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <future>
#include <thread>

#include "serve/http/content_coding.h"
#include "serve/http/test_http.h"
#include "serve/http/test_server.h"

namespace hone::serve::http {
namespace {

using ::testing::HasSubstr;
using testing::Fetch;
using testing::RawConnection;
using testing::RawReply;
using testing::TestServer;

constexpr char kEchoJson[] =
    R"({"id":"q","inputs":[{"name":"x","shape":[2,2],"datatype":"FP32","data":[[1,2],[3,4.5]]}]})";

class HttpServerTest : public ::testing::Test {
 protected:
  void StartServer(HttpServerOptions options = {}) {
    options.port = 0;
    auto started = HttpServer::Start(server_, options);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    http_ = std::move(started).value();
    port_ = http_->port();
    ASSERT_NE(port_, 0);
  }
  void SetUp() override { StartServer(); }

  TestServer server_;
  std::unique_ptr<HttpServer> http_;
  uint16_t port_ = 0;
};

// 503 when not ready, as KServe's own model server answers and balancers read it ("send nothing here for now").
TEST_F(HttpServerTest, HealthIs200Or503WithAnEmptyBody) {
  RawReply r = Fetch(port_, "GET", "/v2/health/live");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(Fetch(port_, "GET", "/v2/health/ready").status, 200);
  server_.ready = false;
  r = Fetch(port_, "GET", "/v2/health/ready");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "");
  server_.live = false;
  EXPECT_EQ(Fetch(port_, "GET", "/v2/health/live").status, 503);
}

TEST_F(HttpServerTest, MetadataConfigAndStatistics) {
  RawReply r = Fetch(port_, "GET", "/v2");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["name"], "hone");
  EXPECT_EQ(j["extensions"][0], "binary_tensor_data");

  j = nlohmann::json::parse(Fetch(port_, "GET", "/v2/models/echo").body);
  EXPECT_EQ(j["name"], "echo");
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({-1, 4}));
  EXPECT_EQ(Fetch(port_, "GET", "/v2/models/echo/versions/1").status, 200);

  r = Fetch(port_, "GET", "/v2/models/echo/config");
  ASSERT_EQ(r.status, 200) << r.body;
  j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["name"], "echo");
  EXPECT_EQ(j["max_batch_size"], 8);

  j = nlohmann::json::parse(Fetch(port_, "GET", "/v2/models/echo/stats").body);
  EXPECT_EQ(j["model_stats"][0]["inference_count"], 12);
  EXPECT_EQ(j["model_stats"][0]["batch_stats"][0]["compute_infer"]["ns"], 3300);
  EXPECT_EQ(Fetch(port_, "GET", "/v2/models/stats").status, 200);
  EXPECT_EQ(Fetch(port_, "GET", "/v2/models/echo/versions/1/stats").status, 200);
}

TEST_F(HttpServerTest, ModelReadiness) {
  EXPECT_EQ(Fetch(port_, "GET", "/v2/models/echo/ready").status, 200);
  RawReply r = Fetch(port_, "GET", "/v2/models/loading/ready");
  EXPECT_EQ(r.status, 503);
  EXPECT_THAT(r.body, HasSubstr("model 'loading' is not ready"));
  r = Fetch(port_, "GET", "/v2/models/nope/ready");
  EXPECT_EQ(r.status, 400) << "unknown models are 400, as in Triton";
  EXPECT_THAT(nlohmann::json::parse(r.body)["error"].get<std::string>(), HasSubstr("unknown model 'nope'"));
  EXPECT_EQ(Fetch(port_, "GET", "/v2/models/echo/versions/7/ready").status, 400);
}

TEST_F(HttpServerTest, ErrorsForRoutesMethodsAndNames) {
  RawReply r = Fetch(port_, "GET", "/v3/whatever");
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(nlohmann::json::parse(r.body)["error"].get<std::string>(), HasSubstr("no endpoint at '/v3/whatever'"));
  r = Fetch(port_, "GET", "/v2/models/echo/infer");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow"), "POST");
  EXPECT_EQ(Fetch(port_, "DELETE", "/v2/health/live").status, 405);
  r = Fetch(port_, "GET", "/v2/models/%2e%2e/config");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("relative path component"));
  EXPECT_EQ(Fetch(port_, "GET", "/v2/models/echo/versions/abc").status, 400);
}

TEST_F(HttpServerTest, InferJson) {
  RawReply r = Fetch(port_, "POST", "/v2/models/echo/infer", kEchoJson, {"Content-Type: application/json"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.header("inference-header-content-length"), "");
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["id"], "q");
  EXPECT_EQ(j["model_name"], "echo");
  EXPECT_EQ(j["model_version"], "1");
  EXPECT_EQ(j["outputs"][0]["name"], "x");
  EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json({2, 2}));
  EXPECT_EQ(j["outputs"][0]["data"], nlohmann::json({1.0, 2.0, 3.0, 4.5}));
}

TEST_F(HttpServerTest, InferBinaryInAndOut) {
  const std::string json =
      R"({"inputs":[{"name":"x","shape":[3],"datatype":"INT32","parameters":{"binary_data_size":12}}],)"
      R"("outputs":[{"name":"x","parameters":{"binary_data":true}}]})";
  const int32_t values[3] = {7, -8, 9};
  std::string body = json + std::string(reinterpret_cast<const char*>(values), sizeof(values));
  RawReply r = Fetch(port_, "POST", "/v2/models/echo/infer", body,
                     {"Inference-Header-Content-Length: " + std::to_string(json.size())});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/octet-stream");
  const size_t header = std::stoul(r.header("inference-header-content-length"));
  ASSERT_EQ(r.body.size(), header + 12);
  auto j = nlohmann::json::parse(r.body.substr(0, header));
  EXPECT_EQ(j["outputs"][0]["parameters"]["binary_data_size"], 12);
  EXPECT_EQ(std::memcmp(r.body.data() + header, values, 12), 0);
  // The server decoded the binary input as INT32 [3] borrowed from the body.
  InferenceRequest seen = server_.last_request();
  ASSERT_EQ(seen.inputs.size(), 1u);
  EXPECT_EQ(seen.inputs[0].tensor.shape(), (Shape{3}));
  EXPECT_FALSE(seen.inputs[0].tensor.owns_data());
}

TEST_F(HttpServerTest, InferErrorsMapToStatuses) {
  RawReply r = Fetch(port_, "POST", "/v2/models/echo/infer", "{\"inputs\":[");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("malformed JSON"));
  r = Fetch(port_, "POST", "/v2/models/nope/infer", kEchoJson);
  EXPECT_EQ(r.status, 400);
  server_.fail_status = Status::Unavailable("queue full");
  r = Fetch(port_, "POST", "/v2/models/fail/infer", kEchoJson);
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"], "queue full");
  server_.fail_status = Status::Internal("onnxruntime failed");
  EXPECT_EQ(Fetch(port_, "POST", "/v2/models/fail/infer", kEchoJson).status, 500);
  r = Fetch(port_, "POST", "/v2/models/echo/infer", kEchoJson, {"Inference-Header-Content-Length: abc"});
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("is not a byte count"));
  r = Fetch(port_, "POST", "/v2/models/echo/infer", kEchoJson, {"Content-Encoding: br"});
  EXPECT_EQ(r.status, 415);
  EXPECT_EQ(r.header("accept-encoding"), "gzip, deflate");
}

TEST_F(HttpServerTest, AResponseThatCannotBeSentIsCountedAsAFailure) {
  EXPECT_EQ(Fetch(port_, "POST", "/v2/models/echo/infer", kEchoJson).status, 200);
  EXPECT_TRUE(server_.Undelivered().empty());
  RawReply r = Fetch(port_, "POST", "/v2/models/unsendable/infer", kEchoJson);
  EXPECT_EQ(r.status, 500);
  EXPECT_THAT(r.body, HasSubstr("output 'y': cannot serialize"));
  EXPECT_THAT(server_.Undelivered(), ::testing::ElementsAre("unsendable:1"));
}

TEST_F(HttpServerTest, KeepAliveServesManyRequestsOnOneConnection) {
  RawConnection c(port_);
  for (int i = 0; i < 5; ++i) {
    RawReply r = c.Roundtrip("POST", "/v2/models/echo/infer", kEchoJson);
    ASSERT_EQ(r.status, 200) << i;
    EXPECT_TRUE(r.keep_alive);
    EXPECT_EQ(c.Roundtrip("GET", "/v2/health/ready").status, 200);
    EXPECT_EQ(c.Roundtrip("GET", "/nothing").status, 404) << "an error reply keeps the connection";
  }
}

TEST_F(HttpServerTest, WhileDrainingRepliesServeAndCloseTheConnection) {
  RawConnection c(port_);
  ASSERT_TRUE(c.Roundtrip("GET", "/v2/health/ready").keep_alive);
  server_.BeginDrain();
  RawReply r = c.Roundtrip("POST", "/v2/models/echo/infer", kEchoJson);
  EXPECT_EQ(r.status, 200) << "a request that arrives during the drain is served";
  EXPECT_FALSE(r.keep_alive) << "and told to take its next request elsewhere";
  EXPECT_TRUE(c.ClosedByServer());
  RawConnection again(port_);
  EXPECT_EQ(again.Roundtrip("GET", "/v2/health/ready").status, 503);
  EXPECT_EQ(RawConnection(port_).Roundtrip("GET", "/v2/health/live").status, 200);
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  RawConnection c(port_);
  std::string pipelined;
  const std::string infer = std::string("POST /v2/models/echo/infer HTTP/1.1\r\nHost: x\r\nContent-Length: ") +
                            std::to_string(std::strlen(kEchoJson)) + "\r\n\r\n" + kEchoJson;
  pipelined += infer;
  pipelined += "GET /v2/models/echo HTTP/1.1\r\nHost: x\r\n\r\n";
  pipelined += infer;
  pipelined += "GET /v2/health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  c.Send(pipelined);
  RawReply a = c.Read(), b = c.Read(), d = c.Read(), e = c.Read();
  EXPECT_THAT(a.body, HasSubstr("\"outputs\""));
  EXPECT_THAT(b.body, HasSubstr("\"platform\""));
  EXPECT_THAT(d.body, HasSubstr("\"outputs\""));
  EXPECT_EQ(e.status, 200);
  EXPECT_FALSE(e.keep_alive);
  EXPECT_TRUE(c.ClosedByServer()) << "Connection: close is honoured";
}

TEST_F(HttpServerTest, MalformedRequestGets400AndTheServerKeepsServing) {
  RawConnection c(port_);
  c.Send("THIS IS NOT HTTP\r\n\r\n");
  RawReply r = c.Read();
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("malformed HTTP request"));
  EXPECT_TRUE(c.ClosedByServer());
  RawConnection bad_length(port_);
  bad_length.Send("POST /v2/models/echo/infer HTTP/1.1\r\nContent-Length: -5\r\n\r\n");
  EXPECT_EQ(bad_length.Read().status, 400);
  // A client that disconnects mid-body does no harm either.
  {
    RawConnection partial(port_);
    partial.Send("POST /v2/models/echo/infer HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"in");
  }
  EXPECT_EQ(Fetch(port_, "GET", "/v2/health/ready").status, 200);
  EXPECT_EQ(Fetch(port_, "POST", "/v2/models/echo/infer", kEchoJson).status, 200);
}

TEST_F(HttpServerTest, OversizedBodyIs413BeforeItIsRead) {
  http_.reset();
  HttpServerOptions options;
  options.max_body_bytes = 1024;
  StartServer(options);
  RawConnection c(port_);
  c.Send("POST /v2/models/echo/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
  RawReply r = c.Read();
  EXPECT_EQ(r.status, 413);
  EXPECT_THAT(r.body, HasSubstr("larger than the server's limit of 1024 bytes"));
  // Chunked bodies have no length up front: the limit applies as they arrive.
  RawConnection chunked(port_);
  chunked.Send("POST /v2/models/echo/infer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" +
               std::string(0x800, 'a') + "\r\n0\r\n\r\n");
  EXPECT_EQ(chunked.Read().status, 413);
  EXPECT_EQ(Fetch(port_, "POST", "/v2/models/echo/infer", kEchoJson).status, 200);
}

TEST_F(HttpServerTest, ExpectContinueIsAnswered) {
  RawConnection c(port_);
  c.Send(std::string("POST /v2/models/echo/infer HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ") +
         std::to_string(std::strlen(kEchoJson)) + "\r\n\r\n");
  RawReply interim = c.Read();
  EXPECT_EQ(interim.status, 100);
  c.Send(kEchoJson);
  EXPECT_EQ(c.Read().status, 200);
}

TEST_F(HttpServerTest, CompressedRequestAndResponse) {
  const std::string plain = kEchoJson;
  std::vector<std::span<const std::byte>> pieces = {std::as_bytes(std::span(plain))};
  const std::string gz = Compress(ContentCoding::kGzip, pieces);
  RawReply r = Fetch(port_, "POST", "/v2/models/echo/infer", gz,
                     {"Content-Encoding: gzip", "Accept-Encoding: deflate;q=0.5, gzip"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-encoding"), "gzip");
  client::BodyBuffer out;
  ASSERT_TRUE(Decompress(ContentCoding::kGzip, std::as_bytes(std::span(r.body)), 1 << 20, 0, out).ok());
  auto j = nlohmann::json::parse(std::string(reinterpret_cast<const char*>(out.data()), out.size()));
  EXPECT_EQ(j["outputs"][0]["data"][3], 4.5);
  EXPECT_EQ(Fetch(port_, "POST", "/v2/models/echo/infer", "garbage", {"Content-Encoding: deflate"}).status, 400);
}

TEST_F(HttpServerTest, HealthAndMetadataAnswerWhileInferenceIsBlocked) {
  http_.reset();
  HttpServerOptions options;
  options.threads = 1;  // one io thread: if it waited for the model, nothing else could be answered
  StartServer(options);
  std::vector<std::future<RawReply>> blocked;
  for (int i = 0; i < 3; ++i)
    blocked.push_back(std::async(std::launch::async,
                                 [&] { return Fetch(port_, "POST", "/v2/models/block/infer", kEchoJson); }));
  server_.WaitBlocked(3);
  EXPECT_EQ(Fetch(port_, "GET", "/v2/health/ready").status, 200);
  EXPECT_EQ(Fetch(port_, "GET", "/v2/models/echo/stats").status, 200);
  EXPECT_EQ(Fetch(port_, "GET", "/metrics").status, 200);
  EXPECT_EQ(Fetch(port_, "POST", "/v2/models/echo/infer", kEchoJson).status, 200);
  for (auto& f : blocked)
    EXPECT_EQ(f.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout) << "still waiting on the model";
  server_.Release();
  for (auto& f : blocked) EXPECT_EQ(f.get().status, 200);
}

TEST_F(HttpServerTest, MetricsText) {
  RawReply r = Fetch(port_, "GET", "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_THAT(r.body, HasSubstr("nv_inference_count 12"));
}

TEST_F(HttpServerTest, PortsCanServeOnlyMetricsOrOnlyTheApi) {
  HttpServerOptions metrics_only;
  metrics_only.port = 0;
  metrics_only.serve_api = false;
  auto m = HttpServer::Start(server_, metrics_only);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Fetch((*m)->port(), "GET", "/metrics").status, 200);
  EXPECT_EQ(Fetch((*m)->port(), "GET", "/v2/health/live").status, 404);
  http_.reset();
  HttpServerOptions api_only;
  api_only.serve_metrics = false;
  StartServer(api_only);
  EXPECT_EQ(Fetch(port_, "GET", "/metrics").status, 404);
}

TEST_F(HttpServerTest, RepositoryApi) {
  RawReply r = Fetch(port_, "POST", "/v2/repository/index");
  ASSERT_EQ(r.status, 200);
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j.size(), 2u);
  EXPECT_EQ(j[1]["state"], "UNAVAILABLE");
  j = nlohmann::json::parse(Fetch(port_, "POST", "/v2/repository/index", R"({"ready":true})").body);
  EXPECT_EQ(j.size(), 1u);
  EXPECT_EQ(Fetch(port_, "POST", "/v2/repository/index", R"({"ready":1})").status, 400);
  r = Fetch(port_, "POST", "/v2/repository/models/echo/load");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(Fetch(port_, "POST", "/v2/repository/models/echo/unload", R"({"parameters":{"unload_dependents":true}})")
                .status,
            200);
  EXPECT_EQ(Fetch(port_, "POST", "/v2/repository/models/missing/load").status, 400);
  r = Fetch(port_, "POST", "/v2/repository/models/echo/load", R"({"parameters":{"config":"{}"}})");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("not supported"));
  EXPECT_EQ(server_.calls(), (std::vector<std::string>{"load echo", "unload echo", "load missing"}));
}

TEST_F(HttpServerTest, RepositoryApiCanBeSwitchedOff) {
  server_.mutable_options().repository_api = false;
  RawReply r = Fetch(port_, "POST", "/v2/repository/models/echo/load");
  EXPECT_EQ(r.status, 403);
  EXPECT_THAT(r.body, HasSubstr("repository API is disabled"));
  EXPECT_EQ(Fetch(port_, "POST", "/v2/repository/index").status, 403);
  server_.mutable_options().repository_api = true;
  http_.reset();
  HttpServerOptions options;
  options.repository_api = false;
  StartServer(options);
  EXPECT_EQ(Fetch(port_, "POST", "/v2/repository/models/echo/unload").status, 403);
  EXPECT_TRUE(server_.calls().empty());
}

TEST_F(HttpServerTest, StopWaitsForInFlightInferenceAndAnswersIt) {
  auto pending = std::async(std::launch::async, [&] { return Fetch(port_, "POST", "/v2/models/block/infer", kEchoJson); });
  server_.WaitBlocked(1);
  auto stopped = std::async(std::launch::async, [&] { http_->Stop(); });
  EXPECT_EQ(stopped.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  server_.Release();
  stopped.get();
  EXPECT_EQ(pending.get().status, 200) << "the request in flight was answered before the server went away";
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket s(io);
  boost::system::error_code ec;
  s.connect({boost::asio::ip::make_address("127.0.0.1"), port_}, ec);
  EXPECT_TRUE(ec) << "nothing listens any more";
}

TEST(HttpServerOptionsTest, InvalidOptionsAndBusyPorts) {
  TestServer server;
  HttpServerOptions options;
  options.threads = 0;
  EXPECT_EQ(HttpServer::Start(server, options).status().code(), StatusCode::kInvalidArgument);
  options = {};
  options.port = 0;
  auto first = HttpServer::Start(server, options);
  ASSERT_TRUE(first.ok());
  options.port = (*first)->port();
  auto second = HttpServer::Start(server, options);
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("cannot listen on 127.0.0.1:"));
  EXPECT_THAT(second.status().message(), HasSubstr(": address already in use"));
  options.host = "no such host.invalid";
  EXPECT_EQ(HttpServer::Start(server, options).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hone::serve::http
