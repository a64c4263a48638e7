// A test double of the Server facade (serve/core/server.h) for the gRPC front end's tests: one model "echo"
// (version 1, FP32 input "x" [-1, 4] -> FP32 output "y" = x + 1 and INT64 output "n" = [element count]), canned
// metadata, config and statistics, and a gate that holds inference until a test opens it. Responses are delivered
// on a thread of the fake's own, as a real scheduler's are.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "serve/core/server.h"

namespace hone::serve::fake {

class FakeServer final : public Server {
 public:
  FakeServer() : worker_([this] { Loop(); }) {
    options_.repository_api = true;
    options_.control_mode = ModelControlMode::kExplicit;
  }
  ~FakeServer() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      gate_open_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }

  // While closed, accepted requests wait (queued) until Open(); health and metadata still answer.
  void CloseGate() {
    std::lock_guard lock(mu_);
    gate_open_ = false;
  }
  void OpenGate() {
    {
      std::lock_guard lock(mu_);
      gate_open_ = true;
    }
    wake_.notify_all();
  }
  int queued() const {
    std::lock_guard lock(mu_);
    return static_cast<int>(queue_.size());
  }
  // The last request Infer received, with its tensors copied (the originals borrow the call's bytes).
  InferenceRequest last_request() const {
    std::lock_guard lock(mu_);
    return last_request_;
  }
  // Whether the last request's first input tensor borrowed its bytes (no copy in the front end).
  bool last_input_borrowed() const { return last_input_borrowed_; }

  ServerOptions& mutable_options() { return options_; }
  std::atomic<bool> ready{true};
  std::atomic<int> loads{0};
  std::atomic<int> unloads{0};
  std::atomic<int> undelivered{0};  // RecordUndelivered calls

  Status Start() override { return Status::Ok(); }  // nothing to load
  const ServerOptions& options() const override { return options_; }
  bool IsLive() const override { return true; }
  bool IsReady() const override { return ready; }
  ServerMetadataInfo Metadata() const override { return {"hone", "0.1.0", {"model_repository", "statistics"}}; }

  Result<bool> IsModelReady(const std::string& name, int64_t version) const override {
    HONE_RETURN_IF_ERROR(Find(name, version));
    return true;
  }
  Result<client::ModelMetadataInfo> ModelMetadata(const std::string& name, int64_t version) const override {
    HONE_RETURN_IF_ERROR(Find(name, version));
    return client::ModelMetadataInfo{"echo", {"1"}, "onnxruntime_onnx",
                                     {{"x", DataType::kFp32, {-1, 4}}},
                                     {{"y", DataType::kFp32, {-1, 4}}, {"n", DataType::kInt64, {1}}}};
  }
  Result<inference::ModelConfig> ModelConfig(const std::string& name, int64_t version) const override {
    HONE_RETURN_IF_ERROR(Find(name, version));
    inference::ModelConfig config;
    config.set_name("echo");
    config.set_platform("onnxruntime_onnx");
    config.set_max_batch_size(8);
    return config;
  }
  Result<std::vector<client::ModelStatsSnapshot>> Statistics(const std::string& name, int64_t version) const override {
    if (!name.empty()) HONE_RETURN_IF_ERROR(Find(name, version));
    client::ModelStatsSnapshot s;
    s.name = "echo";
    s.version = 1;
    s.inference_count = 3;
    s.execution_count = 2;
    s.success = {3, 3000};
    s.queue = {3, 300};
    s.batch_stats = {{1, {1, 10}, {1, 20}, {1, 30}}, {2, {1, 40}, {1, 50}, {1, 60}}};
    return std::vector<client::ModelStatsSnapshot>{s};
  }
  std::vector<RepositoryEntry> RepositoryIndex(bool ready_only) const override {
    std::vector<RepositoryEntry> entries = {{"echo", "1", "READY", ""}};
    if (!ready_only) entries.push_back({"broken", "", "UNAVAILABLE", "model.onnx: not an ONNX model"});
    return entries;
  }
  Status LoadModel(const std::string& name) override {
    ++loads;
    if (name != "echo") return Status::NotFound("model '" + name + "': not in the repository");
    return Status::Ok();
  }
  Status UnloadModel(const std::string& name) override {
    ++unloads;
    if (name != "echo") return Status::NotFound("model '" + name + "': not loaded");
    return Status::Ok();
  }

  void RecordUndelivered(const std::string&, int64_t) override { ++undelivered; }

  void Infer(InferenceRequest request, ResponseCallback done) override {
    if (Status s = Validate(request); !s.ok()) return done(s);  // early errors inline, as a scheduler does
    bool full = false;
    {
      std::lock_guard lock(mu_);
      last_request_ = request;
      for (NamedTensor& input : last_request_.inputs) input.tensor = input.tensor.Clone();
      last_input_borrowed_ = !request.inputs.empty() && !request.inputs[0].tensor.owns_data();
      full = full_;
      if (!full) queue_.emplace_back(std::move(request), std::move(done));
    }
    if (full) return done(Status::Unavailable("model 'echo': queue full (1 request)"));
    wake_.notify_all();
  }
  void SetQueueFull(bool full) {
    std::lock_guard lock(mu_);
    full_ = full;
  }

  Result<std::shared_ptr<GenerativeModel>> Generative(const std::string& name, int64_t) const override {
    return Status::NotFound("unknown model '" + name + "'");
  }
  std::vector<std::shared_ptr<GenerativeModel>> GenerativeModels() const override { return {}; }
  std::string MetricsText() const override { return ""; }
  void BeginDrain() override { ready = false; }
  bool IsDraining() const override { return false; }
  uint64_t RequestsReceived() const override { return 0; }
  void Shutdown(std::chrono::steady_clock::time_point) override { ready = false; }

 private:
  static Status Find(const std::string& name, int64_t version) {
    if (name != "echo") return Status::NotFound("model '" + name + "': unknown");
    if (version != 0 && version != 1) return Status::NotFound("model 'echo': no version " + std::to_string(version));
    return Status::Ok();
  }
  static Status Validate(const InferenceRequest& r) {
    HONE_RETURN_IF_ERROR(Find(r.model_name, r.model_version));
    if (r.inputs.size() != 1 || r.inputs[0].name != "x")
      return Status::InvalidArgument("model 'echo': expected one input 'x'");
    if (r.inputs[0].tensor.type() != DataType::kFp32)
      return Status::InvalidArgument("input 'x': expected FP32, got " +
                                     std::string(DataTypeName(r.inputs[0].tensor.type())));
    for (const std::string& name : r.requested_outputs)
      if (name != "y" && name != "n") return Status::NotFound("model 'echo': no output '" + name + "'");
    return Status::Ok();
  }

  static InferenceResponse Run(const InferenceRequest& r) {
    const Tensor& x = r.inputs[0].tensor;
    Tensor y = *Tensor::Allocate(DataType::kFp32, x.shape());
    for (int64_t i = 0; i < x.element_count(); ++i) y.mutable_values<float>()[i] = x.values<float>()[i] + 1.0f;
    Tensor n = *Tensor::Allocate(DataType::kInt64, {1});
    n.mutable_values<int64_t>()[0] = x.element_count();
    InferenceResponse response{r.model_name, 1, r.id, {}};
    std::vector<std::string> names = r.requested_outputs;
    if (names.empty()) names = {"y", "n"};
    for (const std::string& name : names) response.outputs.push_back({name, name == "y" ? y : n});
    return response;
  }

  void Loop() {
    for (;;) {
      std::pair<InferenceRequest, ResponseCallback> item;
      {
        std::unique_lock lock(mu_);
        wake_.wait(lock, [this] { return stopping_ || (gate_open_ && !queue_.empty()); });
        if (queue_.empty()) return;
        item = std::move(queue_.front());
        queue_.pop_front();
      }
      InferenceResponse response = Run(item.first);
      item.first = {};  // release the request (and its keep_alive) before answering, as the real server may
      item.second(std::move(response));
    }
  }

  ServerOptions options_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::pair<InferenceRequest, ResponseCallback>> queue_;  // guarded by mu_
  InferenceRequest last_request_;                                    // guarded by mu_
  bool gate_open_ = true;                                            // guarded by mu_
  bool stopping_ = false;                                            // guarded by mu_
  bool full_ = false;                                                // guarded by mu_
  std::atomic<bool> last_input_borrowed_{false};
  std::thread worker_;
};

}  // namespace hone::serve::fake
