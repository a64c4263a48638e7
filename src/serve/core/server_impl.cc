// The Server facade over the model manager: control modes, readiness, the metadata views front ends serialize,
// and shutdown. Nothing here runs inference; it finds the version and hands the request to its scheduler.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <thread>

#include "base/log.h"
#include "base/version.h"
#include "serve/core/generative_model.h"
#include "serve/config/config_types.h"
#include "serve/config/model_name.h"
#include "serve/config/repository_check.h"
#include "serve/core/metrics.h"
#include "serve/core/model_manager.h"
#include "serve/core/server.h"


namespace hone::serve {
namespace {

// How long an unload asked for through the repository API waits for in-flight requests before failing them.
constexpr auto kUnloadGrace = std::chrono::seconds(60);

std::vector<client::TensorMetadata> TensorsFrom(const auto& tensors, bool batched) {
  std::vector<client::TensorMetadata> out;
  for (const auto& tensor : tensors) {
    client::TensorMetadata meta;
    meta.name = tensor.name();
    meta.type = FromConfigDataType(tensor.data_type());
    if (batched) meta.shape.push_back(-1);
    meta.shape.insert(meta.shape.end(), tensor.dims().begin(), tensor.dims().end());
    out.push_back(std::move(meta));
  }
  return out;
}

class ServerImpl final : public Server {
 public:
  explicit ServerImpl(const ServerOptions& options)
      : options_(options),
        metrics_(std::make_unique<MetricsRegistry>()),
        manager_(options.model_repository, Cores(options), metrics_.get(), options.default_warmup) {}

  ~ServerImpl() override { Shutdown(std::chrono::steady_clock::now() + kUnloadGrace); }

  Status Start() override {
    if (started_ || start_called_.exchange(true)) return Status(StatusCode::kFailedPrecondition, "already started");
    std::vector<std::string> to_load;
    if (options_.control_mode == ModelControlMode::kExplicit) {
      for (const auto& name : options_.startup_models) {
        if (name == "*") {
          HONE_ASSIGN_OR_RETURN(to_load, manager_.RepositoryModels());
          break;
        }
        to_load.push_back(name);
      }
    } else {
      HONE_ASSIGN_OR_RETURN(to_load, manager_.RepositoryModels());
      if (!options_.startup_models.empty()) {
        LogWarning("--load-model is ignored in model control mode {}: every model in the repository loads",
                   options_.control_mode == ModelControlMode::kPoll ? "poll" : "none");
      }
    }
    LogInfo("repository '{}': {} model(s) to load, {} core(s) to share", options_.model_repository,
            to_load.size(), Cores(options_));
    // An ensemble loads after the models its steps run, which it checks itself against.
    std::stable_partition(to_load.begin(), to_load.end(),
                          [&](const std::string& name) { return !manager_.IsEnsemble(name); });
    manager_.PlanThreads(to_load);
    std::string failures;
    for (const auto& name : to_load) {
      // Failures also show in the index and in readiness.
      if (Status s = manager_.Load(name); !s.ok()) {
        // Load's own message may name the model already ("failed to load model 'a': ...").
        const bool named = s.message().find("model '" + name + "'") != std::string::npos;
        failures += fmt::format("{}{}{}", failures.empty() ? "" : "; ",
                                named ? "" : fmt::format("model '{}': ", name), s.message());
      }
    }
    started_ = true;
    if (options_.control_mode == ModelControlMode::kPoll) {
      poller_ = std::thread([this] { PollLoop(); });
    }
    if (!failures.empty()) return Status::InvalidArgument(failures);
    return Status::Ok();
  }

  const ServerOptions& options() const override { return options_; }
  bool IsLive() const override { return true; }
  bool IsReady() const override {
    if (!started_ || draining_ || shutting_down_) return false;
    return !options_.strict_readiness || manager_.AllWantedReady();
  }

  ServerMetadataInfo Metadata() const override {
    ServerMetadataInfo info;
    info.version = std::string(HoneVersion());
    info.extensions = {"binary_tensor_data", "classification", "model_configuration", "model_repository",
                       "parameters", "schedule_policy", "statistics"};
    return info;
  }

  Result<bool> IsModelReady(const std::string& name, int64_t version) const override {
    HONE_RETURN_IF_ERROR(ValidateModelName(name));
    Result<std::shared_ptr<LoadedVersion>> found = manager_.Find(name, version);
    if (found.ok()) return !shutting_down_.load();
    if (found.status().code() == StatusCode::kUnavailable) return false;
    // A version that is not loaded is "not ready" for a model the server knows; an unknown model is NotFound.
    if (version != 0 && !manager_.Loaded(name).empty()) return false;
    return found.status();
  }

  Result<client::ModelMetadataInfo> ModelMetadata(const std::string& name, int64_t version) const override {
    HONE_RETURN_IF_ERROR(ValidateModelName(name));
    HONE_ASSIGN_OR_RETURN(std::shared_ptr<LoadedVersion> loaded, manager_.Find(name, version));
    client::ModelMetadataInfo info;
    info.name = name;
    for (const auto& v : manager_.Loaded(name)) info.versions.push_back(std::to_string(v->version));
    info.platform = loaded->config.platform().empty() ? "onnxruntime_onnx" : loaded->config.platform();
    bool batched = loaded->config.max_batch_size() > 0;
    info.inputs = TensorsFrom(loaded->config.input(), batched);
    info.outputs = TensorsFrom(loaded->config.output(), batched);
    return info;
  }

  Result<inference::ModelConfig> ModelConfig(const std::string& name, int64_t version) const override {
    HONE_RETURN_IF_ERROR(ValidateModelName(name));
    HONE_ASSIGN_OR_RETURN(std::shared_ptr<LoadedVersion> loaded, manager_.Find(name, version));
    return loaded->config;
  }

  Result<std::vector<client::ModelStatsSnapshot>> Statistics(const std::string& name, int64_t version) const override {
    if (!name.empty()) {
      HONE_RETURN_IF_ERROR(ValidateModelName(name));
      HONE_RETURN_IF_ERROR(manager_.Find(name, version).status());
    }
    std::vector<client::ModelStatsSnapshot> out;
    for (const auto& loaded : manager_.Loaded(name)) {
      if (version != 0 && loaded->version != version) continue;
      out.push_back(loaded->stats->Snapshot());
    }
    return out;
  }

  std::vector<RepositoryEntry> RepositoryIndex(bool ready_only) const override {
    return manager_.Index(ready_only);
  }

  Status LoadModel(const std::string& name) override {
    HONE_RETURN_IF_ERROR(CheckExplicitControl("load"));
    return manager_.Load(name);
  }

  Status UnloadModel(const std::string& name) override {
    HONE_RETURN_IF_ERROR(CheckExplicitControl("unload"));
    return manager_.Unload(name, std::chrono::steady_clock::now() + kUnloadGrace);
  }

  void Infer(InferenceRequest request, ResponseCallback done) override {
    requests_received_.fetch_add(1, std::memory_order_relaxed);
    if (shutting_down_) {
      done(Status(StatusCode::kUnavailable, "the server is shutting down"));
      return;
    }
    manager_.Infer(std::move(request), std::move(done));
  }

  void RecordUndelivered(const std::string& name, int64_t version) override {
    for (const auto& loaded : manager_.Loaded(name))
      if (loaded->version == version) loaded->stats->RecordFailure(0);
  }

  Result<std::shared_ptr<GenerativeModel>> Generative(const std::string& name, int64_t version) const override {
    requests_received_.fetch_add(1, std::memory_order_relaxed);  // the front ends ask once a generation request
    HONE_ASSIGN_OR_RETURN(std::shared_ptr<LoadedVersion> loaded, manager_.Find(name, version));
    if (!loaded->generative)
      return Status::InvalidArgument(fmt::format("model '{}' does not generate text (its backend is '{}'; text "
                                                 "generation needs backend 'hone_llm')",
                                                 name, loaded->config.backend()));
    return loaded->generative;
  }

  std::vector<std::shared_ptr<GenerativeModel>> GenerativeModels() const override {
    std::vector<std::shared_ptr<GenerativeModel>> out;
    for (const RepositoryEntry& entry : manager_.Index(/*ready_only=*/true)) {
      Result<std::shared_ptr<LoadedVersion>> loaded = manager_.Find(entry.name, 0);
      if (loaded.ok() && (*loaded)->generative) out.push_back((*loaded)->generative);
    }
    return out;
  }

  std::string MetricsText() const override {
    for (const auto& model : GenerativeModels()) model->RefreshGauges();
    return metrics_->Text();
  }

  void BeginDrain() override { draining_ = true; }
  bool IsDraining() const override { return draining_ || shutting_down_; }
  uint64_t RequestsReceived() const override { return requests_received_.load(std::memory_order_relaxed); }

  void Shutdown(std::chrono::steady_clock::time_point deadline) override {
    if (shutting_down_.exchange(true)) return;
    {
      std::lock_guard lock(poll_mu_);
      poll_stop_ = true;
    }
    poll_cv_.notify_all();
    if (poller_.joinable()) poller_.join();
    manager_.UnloadAll(deadline);
  }

 private:
  static int Cores(const ServerOptions& options) {
    if (options.cores > 0) return options.cores;
    return std::max(1u, std::thread::hardware_concurrency());
  }

  Status CheckExplicitControl(const char* what) const {
    if (options_.control_mode == ModelControlMode::kExplicit) return Status::Ok();
    return Status(StatusCode::kFailedPrecondition,
                  fmt::format("explicit model {} is not allowed in model control mode '{}' (start the server with "
                              "--model-control-mode=explicit)",
                              what, options_.control_mode == ModelControlMode::kPoll ? "poll" : "none"));
  }

  void PollLoop() {
    std::unique_lock lock(poll_mu_);
    while (!poll_stop_) {
      poll_cv_.wait_for(lock, options_.repository_poll_interval, [this] { return poll_stop_; });
      if (poll_stop_) break;
      lock.unlock();
      manager_.Poll();
      lock.lock();
    }
  }

  const ServerOptions options_;
  std::unique_ptr<MetricsRegistry> metrics_;  // declared before the manager: model stats feed it until unloaded
  ModelManager manager_;
  std::atomic<bool> started_{false};
  std::atomic<bool> start_called_{false};
  std::atomic<bool> draining_{false};
  std::atomic<bool> shutting_down_{false};
  mutable std::atomic<uint64_t> requests_received_{0};
  std::mutex poll_mu_;
  std::condition_variable poll_cv_;
  bool poll_stop_ = false;
  std::thread poller_;
};

}  // namespace

Result<std::unique_ptr<Server>> Server::Open(const ServerOptions& options) {
  Status models = ExpectModels(options.model_repository);
  // An empty repository is how explicit mode starts when every model is loaded through the API later.
  const bool may_be_empty =
      options.control_mode == ModelControlMode::kExplicit && models.code() == StatusCode::kInvalidArgument;
  if (!models.ok() && !may_be_empty) {
    if (models.code() == StatusCode::kNotFound) return models;
    return Status(models.code(), models.message() + "; --model-control-mode explicit may start with none");
  }
  return std::unique_ptr<Server>(std::make_unique<ServerImpl>(options));
}

Result<std::unique_ptr<Server>> Server::Create(const ServerOptions& options) {
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Open(options));
  (void)server->Start();  // a model that fails is UNAVAILABLE in the index
  return server;
}

}  // namespace hone::serve
