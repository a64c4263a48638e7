// Test double of the Server facade (tests only): canned health, metadata, config and statistics, and a few
// models whose inference behaviour the tests control. Nothing on the wire is faked; the HTTP server under test
// is the real one.
//   "echo"   returns each input as an output of the same name (a copy), in requested_outputs order when given;
//   "block"  holds every request until Release() (to show that other endpoints do not wait behind it);
//   "fail"   fails every request with `fail_status`;
//   "unsendable" succeeds with an output no front end can encode (an empty tensor), as a server bug would.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "serve/core/server.h"

namespace hone::serve::http::testing {

class TestServer : public Server {
 public:
  TestServer() {
    options_.repository_api = true;
    options_.control_mode = ModelControlMode::kExplicit;
  }

  std::atomic<bool> live{true};
  std::atomic<bool> ready{true};
  std::atomic<bool> draining{false};  // BeginDrain: replies ask clients to close their connections
  std::atomic<uint64_t> received{0};  // Infer calls
  Status fail_status = Status::Internal("the model failed");

  Status Start() override { return Status::Ok(); }  // nothing to load
  const ServerOptions& options() const override { return options_; }
  ServerOptions& mutable_options() { return options_; }
  bool IsLive() const override { return live; }
  bool IsReady() const override { return ready; }

  ServerMetadataInfo Metadata() const override {
    ServerMetadataInfo info;
    info.version = "0.1.0";
    info.extensions = {"binary_tensor_data", "statistics"};
    return info;
  }

  Result<bool> IsModelReady(const std::string& name, int64_t version) const override {
    HONE_RETURN_IF_ERROR(Known(name, version));
    return name != "loading";
  }

  Result<client::ModelMetadataInfo> ModelMetadata(const std::string& name, int64_t version) const override {
    HONE_RETURN_IF_ERROR(Known(name, version));
    client::ModelMetadataInfo info;
    info.name = name;
    info.versions = {"1"};
    info.platform = "onnxruntime_onnx";
    info.inputs = {{"x", DataType::kFp32, {-1, 4}}};
    info.outputs = {{"x", DataType::kFp32, {-1, 4}}};
    return info;
  }

  Result<inference::ModelConfig> ModelConfig(const std::string& name, int64_t version) const override {
    HONE_RETURN_IF_ERROR(Known(name, version));
    inference::ModelConfig config;
    config.set_name(name);
    config.set_max_batch_size(8);
    return config;
  }

  Result<std::vector<client::ModelStatsSnapshot>> Statistics(const std::string& name, int64_t version) const override {
    if (!name.empty()) HONE_RETURN_IF_ERROR(Known(name, version));
    client::ModelStatsSnapshot s;
    s.name = name.empty() ? "echo" : name;
    s.version = 1;
    s.last_inference_ms = 1700000000123;
    s.inference_count = 12;
    s.execution_count = 3;
    s.success = {4, 4000};
    s.fail = {1, 100};
    s.queue = {4, 400};
    s.compute_input = {4, 40};
    s.compute_infer = {4, 4400};
    s.compute_output = {4, 44};
    client::BatchSizeStats b;
    b.batch_size = 4;
    b.compute_input = {3, 30};
    b.compute_infer = {3, 3300};
    b.compute_output = {3, 33};
    s.batch_stats = {b};
    return std::vector<client::ModelStatsSnapshot>{s};
  }

  std::vector<RepositoryEntry> RepositoryIndex(bool ready_only) const override {
    std::vector<RepositoryEntry> all = {{"echo", "1", "READY", ""}, {"broken", "", "UNAVAILABLE", "bad model"}};
    if (ready_only) all.pop_back();
    return all;
  }

  Status LoadModel(const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back("load " + name);
    return name == "missing" ? Status::NotFound("model 'missing' is not in the repository") : Status::Ok();
  }

  Status UnloadModel(const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back("unload " + name);
    return Status::Ok();
  }

  void Infer(InferenceRequest request, ResponseCallback done) override {
    ++received;
    if (Status s = Known(request.model_name, request.model_version); !s.ok()) return done(s);
    if (request.model_name == "fail") return done(fail_status);
    if (request.model_name == "unsendable") {
      InferenceResponse response;
      response.model_name = request.model_name;
      response.model_version = 1;
      response.outputs.push_back({"y", Tensor()});
      return done(std::move(response));
    }
    if (request.model_name == "block") {
      std::lock_guard<std::mutex> lock(mu_);
      blocked_.emplace_back(std::move(request), std::move(done));
      changed_.notify_all();
      return;
    }
    done(Echo(request));
  }

  void RecordUndelivered(const std::string& name, int64_t version) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::string entry = name;  // appended, not concatenated: GCC 12 warns falsely (-Wstringop-overflow) on + here
    entry.append(":").append(std::to_string(version));
    undelivered.push_back(std::move(entry));
  }
  std::vector<std::string> Undelivered() {
    std::lock_guard<std::mutex> lock(mu_);
    return undelivered;
  }

  Result<std::shared_ptr<GenerativeModel>> Generative(const std::string& name, int64_t) const override {
    return Status::NotFound("unknown model '" + name + "'");
  }
  std::vector<std::shared_ptr<GenerativeModel>> GenerativeModels() const override { return {}; }
  std::string MetricsText() const override { return "# TYPE nv_inference_count counter\nnv_inference_count 12\n"; }
  void BeginDrain() override {
    draining = true;
    ready = false;
  }
  bool IsDraining() const override { return draining; }
  uint64_t RequestsReceived() const override { return received; }
  void Shutdown(std::chrono::steady_clock::time_point) override {}

  // Waits until `n` requests are blocked on "block".
  void WaitBlocked(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return blocked_.size() >= n; });
  }
  // Completes every blocked request (as "echo" would).
  void Release() {
    std::vector<std::pair<InferenceRequest, ResponseCallback>> blocked;
    {
      std::lock_guard<std::mutex> lock(mu_);
      blocked.swap(blocked_);
    }
    for (auto& [request, done] : blocked) done(Echo(request));
  }
  std::vector<std::string> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  // The last request that reached Infer, as decoded.
  InferenceRequest last_request() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

 private:
  static Status Known(const std::string& name, int64_t version) {
    if (name != "echo" && name != "block" && name != "fail" && name != "loading" && name != "unsendable")
      return Status::NotFound("unknown model '" + name + "'");
    if (version > 1) return Status::NotFound("model '" + name + "' has no version " + std::to_string(version));
    return Status::Ok();
  }

  Result<InferenceResponse> Echo(const InferenceRequest& request) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_ = request;
    }
    InferenceResponse response;
    response.model_name = request.model_name;
    response.model_version = 1;
    response.id = request.id;
    if (request.requested_outputs.empty()) {
      for (const auto& in : request.inputs) response.outputs.push_back({in.name, in.tensor.Clone()});
      return response;
    }
    for (const auto& name : request.requested_outputs) {
      auto it = std::find_if(request.inputs.begin(), request.inputs.end(), [&](auto& in) { return in.name == name; });
      if (it == request.inputs.end()) return Status::NotFound("unknown output '" + name + "'");
      response.outputs.push_back({name, it->tensor.Clone()});
    }
    return response;
  }

  ServerOptions options_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::pair<InferenceRequest, ResponseCallback>> blocked_;
  std::vector<std::string> calls_;
  std::vector<std::string> undelivered;  // "name:version" per RecordUndelivered, guarded by mu_
  InferenceRequest last_;
};

}  // namespace hone::serve::http::testing
