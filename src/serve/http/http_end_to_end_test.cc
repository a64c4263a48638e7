// End to end: the real Server (Server::Create over a temporary repository holding the bundled Fashion-MNIST model
// as <tmp>/fashion/1/model.onnx, no config.pbtxt) behind the real HttpServer, driven by HttpInferClient and raw
// requests. Outputs are compared with the logits the model produced when it was exported.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <thread>

#include <unistd.h>

#include "base/version.h"
#include "client/http_infer_client.h"
#include "serve/core/server.h"
#include "serve/http/http_server.h"
#include "serve/http/test_http.h"
#include "tensor/npy.h"
#include "tensor/npz.h"

namespace hone::serve::http {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using client::ClientInferOptions;
using client::HttpInferClient;
using testing::Fetch;

const std::string kModelDir = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist";

std::vector<NamedTensor> Image(const Tensor& t) { return {{"image", t}}; }

bool True(const Result<bool>& r) { return r.ok() && *r; }

class EndToEndTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    repo_ = new fs::path(fs::path(::testing::TempDir()) / ("hone_http_e2e_" + std::to_string(::getpid())));
    fs::create_directories(*repo_ / "fashion" / "1");
    fs::copy_file(kModelDir + "/model.onnx", *repo_ / "fashion" / "1" / "model.onnx",
                  fs::copy_options::overwrite_existing);
    ServerOptions options;
    options.model_repository = repo_->string();
    options.control_mode = ModelControlMode::kExplicit;
    options.startup_models = {"*"};
    options.cores = 2;
    auto server = Server::Create(options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value().release();
    HttpServerOptions http_options;
    http_options.port = 0;
    auto http = HttpServer::Start(*server_, http_options);
    ASSERT_TRUE(http.ok()) << http.status().ToString();
    http_ = std::move(http).value().release();
  }
  static void TearDownTestSuite() {
    delete http_;
    if (server_) server_->Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(10));
    delete server_;
    std::error_code ignored;
    fs::remove_all(*repo_, ignored);
    delete repo_;
  }
  void SetUp() override {
    ASSERT_NE(http_, nullptr);
    auto client = HttpInferClient::Connect("127.0.0.1", http_->port());
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
    // Ready means loaded and warmed up; give a slow machine a while.
    for (int i = 0; i < 600 && !True(client_->IsServerReady()); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_TRUE(True(client_->IsServerReady()));
  }

  // The first `n` test images and their reference logits.
  static std::pair<Tensor, Tensor> Images(int64_t n) {
    auto npz = ReadNpz(kModelDir + "/test.npz");
    auto logits = ReadNpy(kModelDir + "/reference_logits.npy");
    EXPECT_TRUE(npz.ok() && logits.ok());
    return {npz->at(0).tensor.SliceRows(0, n).value().Clone(), logits->SliceRows(0, n).value().Clone()};
  }

  static void ExpectClose(const Tensor& got, const Tensor& want) {
    ASSERT_EQ(got.shape(), want.shape());
    auto g = got.values<float>();
    auto w = want.values<float>();
    for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-3f + 1e-3f * std::fabs(w[i])) << i;
  }

  static fs::path* repo_;
  static Server* server_;
  static HttpServer* http_;
  std::unique_ptr<HttpInferClient> client_;
};

fs::path* EndToEndTest::repo_ = nullptr;
Server* EndToEndTest::server_ = nullptr;
HttpServer* EndToEndTest::http_ = nullptr;

TEST_F(EndToEndTest, MetadataConfigAndReadiness) {
  auto meta = client_->GetModelMetadata("fashion");
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  ASSERT_EQ(meta->inputs.size(), 1u);
  EXPECT_EQ(meta->inputs[0].name, "image");
  EXPECT_EQ(meta->inputs[0].type, DataType::kFp32);
  EXPECT_EQ(meta->outputs[0].name, "logits");
  EXPECT_TRUE(*client_->IsModelReady("fashion"));
  EXPECT_TRUE(*client_->IsModelReady("fashion", 1));
  EXPECT_FALSE(True(client_->IsModelReady("fashion", 2)));
  auto r = Fetch(http_->port(), "GET", "/v2/models/fashion/config");
  ASSERT_EQ(r.status, 200) << r.body;
  auto config = nlohmann::json::parse(r.body);
  EXPECT_EQ(config["name"], "fashion");
  EXPECT_EQ(config["input"][0]["name"], "image");
  EXPECT_EQ(Fetch(http_->port(), "GET", "/v2/models/nope/config").status, 400);
}

TEST_F(EndToEndTest, ServerMetadataVersionIsHonesOne) {
  auto r = Fetch(http_->port(), "GET", "/v2");
  ASSERT_EQ(r.status, 200) << r.body;
  auto doc = nlohmann::json::parse(r.body);
  EXPECT_EQ(doc["name"], "hone");
  // The one version (base/version.h), the same every report carries; it once said 0.0.0 here.
  EXPECT_EQ(doc["version"], std::string(HoneVersion()));
  EXPECT_NE(doc["version"], "0.0.0");
}

TEST_F(EndToEndTest, InferMatchesTheReferenceInEveryEncoding) {
  auto [images, logits] = Images(4);
  std::vector<NamedTensor> inputs = Image(images);
  for (bool binary_in : {true, false}) {
    for (bool binary_out : {true, false}) {
      ClientInferOptions options;
      options.binary_inputs = binary_in;
      options.binary_outputs = binary_out;
      auto reply = client_->Infer("fashion", 0, inputs, options);
      ASSERT_TRUE(reply.ok()) << reply.status().ToString();
      EXPECT_EQ(reply->model_name, "fashion");
      EXPECT_EQ(reply->model_version, 1);
      ASSERT_EQ(reply->outputs.size(), 1u);
      EXPECT_EQ(reply->outputs[0].name, "logits");
      ExpectClose(reply->outputs[0].tensor, logits);
    }
  }
}

TEST_F(EndToEndTest, BadRequestsAreAnsweredAndTheServerStaysReady) {
  auto [images, logits] = Images(1);
  std::vector<NamedTensor> wrong_name = {{"img", images}};
  EXPECT_EQ(client_->Infer("fashion", 0, wrong_name).status().code(), StatusCode::kInvalidArgument);
  std::vector<NamedTensor> wrong_type = {{"image", *Tensor::Allocate(DataType::kFp64, {1, 1, 28, 28})}};
  auto r = client_->Infer("fashion", 0, wrong_type);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("image"));
  std::vector<NamedTensor> wrong_shape = {{"image", *Tensor::Allocate(DataType::kFp32, {1, 1, 27, 28})}};
  EXPECT_EQ(client_->Infer("fashion", 0, wrong_shape).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client_->Infer("fashion", 9, Image(images)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client_->Infer("other", 0, Image(images)).status().code(), StatusCode::kInvalidArgument);
  auto raw = Fetch(http_->port(), "POST", "/v2/models/fashion/infer",
                   R"({"inputs":[{"name":"image","shape":[1,1,28,28],"datatype":"FP32","data":[1,2,3]}]})");
  EXPECT_EQ(raw.status, 400);
  EXPECT_THAT(raw.body, HasSubstr("input 'image': expected 784 elements"));
  EXPECT_TRUE(*client_->IsServerReady());
  EXPECT_TRUE(client_->Infer("fashion", 0, Image(images)).ok());
}

TEST_F(EndToEndTest, StatisticsCountWhatWasServed) {
  auto before = client_->GetStatistics("fashion");
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  auto [images, logits] = Images(3);
  ASSERT_TRUE(client_->Infer("fashion", 0, Image(images)).ok());
  auto after = client_->GetStatistics("fashion", 1);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].name, "fashion");
  EXPECT_EQ((*after)[0].version, 1);
  EXPECT_EQ((*after)[0].inference_count, (*before)[0].inference_count + 3) << "three rows";
  EXPECT_EQ((*after)[0].success.count, (*before)[0].success.count + 1);
  EXPECT_GT((*after)[0].compute_infer.ns, (*before)[0].compute_infer.ns);
  auto metrics = Fetch(http_->port(), "GET", "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_THAT(metrics.body, HasSubstr("nv_inference_count"));
}

TEST_F(EndToEndTest, ManyClientsEachGetTheirOwnAnswer) {
  auto [images, logits] = Images(16);
  std::vector<std::thread> threads;
  std::atomic<int> correct{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto client = HttpInferClient::Connect("127.0.0.1", http_->port());
      if (!client.ok()) return;
      for (int i = 0; i < 8; ++i) {
        const int64_t row = (t * 8 + i) % 16;
        Tensor one = images.SliceRows(row, 1)->Clone();
        auto reply = (*client)->Infer("fashion", 0, Image(one));
        if (!reply.ok()) continue;
        auto got = reply->outputs[0].tensor.values<float>();
        auto want = logits.SliceRows(row, 1)->values<float>();
        bool same = true;
        for (size_t k = 0; k < 10; ++k) same = same && std::fabs(got[k] - want[k]) < 1e-3f + 1e-3f * std::fabs(want[k]);
        if (same) ++correct;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(correct.load(), 32);
}

TEST_F(EndToEndTest, RepositoryIndexLoadAndUnload) {
  auto index = Fetch(http_->port(), "POST", "/v2/repository/index");
  ASSERT_EQ(index.status, 200);
  auto j = nlohmann::json::parse(index.body);
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j[0]["name"], "fashion");
  EXPECT_EQ(j[0]["state"], "READY");
  auto missing = Fetch(http_->port(), "POST", "/v2/repository/models/absent/load");
  EXPECT_GE(missing.status, 400);
  EXPECT_TRUE(*client_->IsModelReady("fashion")) << "a failed load leaves the others serving";
}

}  // namespace
}  // namespace hone::serve::http
