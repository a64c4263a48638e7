// Every route through curl (a client this code did not write), against the real HttpServer and a test double of
// the Server facade. Skipped when curl is not installed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "serve/http/http_server.h"
#include "serve/http/test_server.h"

namespace hone::serve::http {
namespace {

using ::testing::HasSubstr;

struct CurlResult {
  int status = 0;
  std::string body;
};

// Runs curl with `args` (already shell-quoted) and returns the HTTP status and body.
CurlResult Curl(const std::string& args) {
  const std::string cmd = "curl -s -S --max-time 30 -w '\\n%{http_code}' " + args + " 2>&1";
  CurlResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.body.append(buf, n);
  pclose(p);
  const size_t nl = r.body.rfind('\n');
  if (nl == std::string::npos) return r;
  r.status = std::atoi(r.body.c_str() + nl + 1);
  r.body.resize(nl);
  return r;
}

class CurlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("curl --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "curl is not installed";
    HttpServerOptions options;
    options.port = 0;
    auto started = HttpServer::Start(server_, options);
    ASSERT_TRUE(started.ok());
    http_ = std::move(started).value();
    base_ = "http://127.0.0.1:" + std::to_string(http_->port());
  }
  std::string Url(const std::string& path) const { return "'" + base_ + path + "'"; }

  testing::TestServer server_;
  std::unique_ptr<HttpServer> http_;
  std::string base_;
};

TEST_F(CurlTest, ReadOnlyRoutes) {
  EXPECT_EQ(Curl(Url("/v2/health/live")).status, 200);
  EXPECT_EQ(Curl(Url("/v2/health/ready")).status, 200);
  auto r = Curl(Url("/v2"));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body)["name"], "hone");
  r = Curl(Url("/v2/models/echo"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body)["platform"], "onnxruntime_onnx");
  EXPECT_EQ(Curl(Url("/v2/models/echo/versions/1")).status, 200);
  EXPECT_EQ(Curl(Url("/v2/models/echo/ready")).status, 200);
  EXPECT_EQ(Curl(Url("/v2/models/echo/versions/1/ready")).status, 200);
  r = Curl(Url("/v2/models/echo/config"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body)["name"], "echo");
  r = Curl(Url("/v2/models/echo/stats"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body)["model_stats"][0]["version"], "1");
  EXPECT_EQ(Curl(Url("/v2/models/stats")).status, 200);
  r = Curl(Url("/metrics"));
  EXPECT_EQ(r.status, 200);
  EXPECT_THAT(r.body, HasSubstr("nv_inference_count"));
}

TEST_F(CurlTest, InferJsonAndBinary) {
  auto r = Curl("-H 'Content-Type: application/json' -d '{\"inputs\":[{\"name\":\"x\",\"shape\":[1,2],"
                "\"datatype\":\"INT16\",\"data\":[[-1,2]]}]}' " + Url("/v2/models/echo/infer"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(nlohmann::json::parse(r.body)["outputs"][0]["data"], nlohmann::json({-1, 2}));

  // Binary input from a file, as the extension lays it out: JSON header, then 8 raw bytes.
  const std::string json =
      R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32","parameters":{"binary_data_size":8}}],)"
      R"("parameters":{"binary_data_output":true}})";
  const float values[2] = {1.5f, -3.0f};
  const std::string path = ::testing::TempDir() + "/curl_binary_body";
  {
    std::ofstream f(path, std::ios::binary);
    f << json;
    f.write(reinterpret_cast<const char*>(values), sizeof(values));
  }
  const std::string headers = "-D " + ::testing::TempDir() + "/curl_headers ";
  r = Curl(headers + "-H 'Inference-Header-Content-Length: " + std::to_string(json.size()) +
           "' -H 'Content-Type: application/octet-stream' --data-binary @" + path + " " +
           Url("/v2/models/echo/infer"));
  ASSERT_EQ(r.status, 200) << r.body;
  std::ifstream h(::testing::TempDir() + "/curl_headers");
  std::string all((std::istreambuf_iterator<char>(h)), {});
  const size_t at = all.find("Inference-Header-Content-Length: ");
  ASSERT_NE(at, std::string::npos) << all;
  const size_t header = std::stoul(all.substr(at + 33));
  ASSERT_EQ(r.body.size(), header + 8);
  EXPECT_EQ(std::memcmp(r.body.data() + header, values, 8), 0);
}

TEST_F(CurlTest, LargeBodyWithExpectContinue) {
  // curl sends "Expect: 100-continue" for large bodies and waits for the interim reply.
  std::string data;
  for (int i = 0; i < 100000; ++i) {
    if (i > 0) data += ',';
    data += std::to_string(i % 7);
  }
  const std::string path = ::testing::TempDir() + "/curl_large_body";
  {
    std::ofstream f(path);
    f << R"({"inputs":[{"name":"x","shape":[100000],"datatype":"INT8","data":[)" << data << "]}]}";
  }
  auto r = Curl("-H 'Expect: 100-continue' --expect100-timeout 20 --data-binary @" + path + " " +
                Url("/v2/models/echo/infer"));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body)["outputs"][0]["shape"], nlohmann::json({100000}));
}

TEST_F(CurlTest, RepositoryAndErrors) {
  EXPECT_EQ(Curl("-X POST " + Url("/v2/repository/index")).status, 200);
  EXPECT_EQ(Curl("-X POST -d '{\"ready\":true}' " + Url("/v2/repository/index")).status, 200);
  EXPECT_EQ(Curl("-X POST " + Url("/v2/repository/models/echo/load")).status, 200);
  EXPECT_EQ(Curl("-X POST " + Url("/v2/repository/models/echo/unload")).status, 200);
  auto r = Curl(Url("/v2/nothing"));
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(nlohmann::json::parse(r.body)["error"].get<std::string>(), HasSubstr("no endpoint"));
  EXPECT_EQ(Curl("-X PUT " + Url("/v2/health/live")).status, 405);
  EXPECT_EQ(Curl("--path-as-is " + Url("/v2/models/../config")).status, 400);
  EXPECT_EQ(Curl("-d 'nonsense' " + Url("/v2/models/echo/infer")).status, 400);
}

}  // namespace
}  // namespace hone::serve::http
