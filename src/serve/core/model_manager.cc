#include "serve/core/model_manager.h"

#include <charconv>
#include <filesystem>
#include <set>

#include "base/log.h"
#include "process/stage.h"
#include "serve/config/config_complete.h"
#include "serve/config/ensemble_config.h"
#include "serve/config/onnx_parameters.h"
#include "serve/config/fingerprint.h"
#include "serve/config/model_name.h"
#include "serve/config/repository.h"
#include "serve/config/version_policy.h"

namespace hone::serve {
namespace {

// How long an unload triggered by a reload or a poll waits for the replaced version's in-flight requests.
constexpr auto kReplaceGrace = std::chrono::seconds(30);

// What one load of a model reads from the repository before opening anything.
struct ModelToLoad {
  RepositoryModelConfig config;
  std::vector<int64_t> versions;  // selected by the version policy
  std::string fingerprint;        // of the files read
};

Result<std::string> FingerprintOf(const std::string& repository, const std::string& name) {
  HONE_ASSIGN_OR_RETURN(std::string dir, ModelDirectory(repository, name));
  HONE_ASSIGN_OR_RETURN(ModelFingerprint fingerprint, FingerprintModel(dir));
  return fingerprint.ToString();
}

Result<ModelToLoad> ReadModelToLoad(const std::string& repository, const std::string& name) {
  ModelToLoad model;
  // Fingerprint first: a file that changes while the load reads it makes the next poll load again.
  HONE_ASSIGN_OR_RETURN(model.fingerprint, FingerprintOf(repository, name));
  HONE_ASSIGN_OR_RETURN(model.config, ReadRepositoryModelConfig(repository, name));
  HONE_ASSIGN_OR_RETURN(std::string dir, ModelDirectory(repository, name));
  HONE_ASSIGN_OR_RETURN(std::vector<int64_t> available, ListVersions(dir));
  HONE_ASSIGN_OR_RETURN(model.versions,
                        SelectVersions(model.config.config.version_policy(), available, model.config.source.where));
  if (model.versions.empty()) {
    return Status(StatusCode::kNotFound,
                  fmt::format("{}: no version directory (expected {}/<version>/model.onnx)", dir, dir));
  }
  return model;
}

// What a model asks of the cores: its instances over every version it loads, and its own thread count if set.
ThreadDemand DemandOf(const std::string& name, const inference::ModelConfig& config, size_t versions) {
  ThreadDemand demand;
  demand.model = name;
  demand.instances = TotalInstanceCount(config) * static_cast<int>(std::max<size_t>(versions, 1));
  // Ensembles and hone's processing stages run no ONNX Runtime threads: the cores are the sessions'.
  if (serve::IsEnsemble(config) || process::IsStageKind(config.backend())) demand.instances = 0;
  auto it = config.parameters().find(std::string(kIntraOpThreadCount));
  if (it != config.parameters().end()) {
    const std::string& text = it->second.string_value();
    int threads = 1;  // a value that does not parse fails the load; count it as one thread meanwhile
    std::from_chars(text.data(), text.data() + text.size(), threads);
    demand.explicit_threads = threads;
  }
  return demand;
}

}  // namespace

struct ModelManager::Slot {
  std::string name;
  std::mutex load_mu;  // serializes Load and Unload of this model; never held by Find

  mutable std::mutex mu;  // guards everything below
  std::map<int64_t, std::shared_ptr<LoadedVersion>> versions;  // serving
  std::map<int64_t, std::string> failed;                        // version -> why its last load failed
  bool wanted = false;      // asked to serve (counts for strict readiness)
  bool loading = false;
  bool unloading = false;
  bool ever_loaded = false;
  std::string reason;       // why nothing serves, when nothing does
  std::string attempted_fingerprint;  // of the files the last load attempt read (poll mode reloads on change)
};

ModelManager::ModelManager(std::string repository, int cores, MetricsRegistry* metrics, bool default_warmup)
    : repository_(std::move(repository)), cores_(cores), metrics_(metrics), default_warmup_(default_warmup) {}

ModelManager::~ModelManager() { UnloadAll(std::chrono::steady_clock::now() + kReplaceGrace); }

Result<std::vector<std::string>> ModelManager::RepositoryModels() const {
  return ListModels(repository_);
}

void ModelManager::PlanThreads(const std::vector<std::string>& names) {
  std::lock_guard lock(demand_mu_);
  for (const std::string& name : names) {
    Result<RepositoryModelConfig> config = ReadRepositoryModelConfig(repository_, name);
    if (!config.ok()) continue;
    Result<std::string> dir = ModelDirectory(repository_, name);
    Result<std::vector<int64_t>> available = dir.ok() ? ListVersions(*dir) : dir.status();
    if (!available.ok()) continue;
    Result<std::vector<int64_t>> versions =
        SelectVersions(config->config.version_policy(), *available, config->source.where);
    if (!versions.ok()) continue;
    demands_[name] = DemandOf(name, config->config, versions->size());
    const ThreadDemand& d = demands_[name];
    LogVerbose(1, "model '{}': {} instance(s) over {} version(s) to share the cores{}", name, d.instances,
               versions->size(),
               d.explicit_threads ? fmt::format(" (its config sets intra_op_thread_count {})", *d.explicit_threads)
                                  : std::string());
  }
}

ThreadShare ModelManager::ShareFor(const ThreadDemand& demand) {
  std::lock_guard lock(demand_mu_);
  demands_[demand.model] = demand;
  std::vector<ThreadDemand> all;
  for (const auto& [name, d] : demands_) all.push_back(d);
  return SplitThreads(cores_, all).at(demand.model);
}

void ModelManager::ForgetDemand(const std::string& name) {
  std::lock_guard lock(demand_mu_);
  demands_.erase(name);
}

std::shared_ptr<ModelManager::Slot> ModelManager::SlotFor(const std::string& name) {
  std::unique_lock lock(mu_);
  auto& slot = slots_[name];
  if (!slot) {
    slot = std::make_shared<Slot>();
    slot->name = name;
  }
  return slot;
}

std::shared_ptr<ModelManager::Slot> ModelManager::FindSlot(const std::string& name) const {
  std::shared_lock lock(mu_);
  auto it = slots_.find(name);
  return it == slots_.end() ? nullptr : it->second;
}

namespace {

void StopAll(std::vector<std::shared_ptr<LoadedVersion>>& versions,
             std::chrono::steady_clock::time_point deadline) {
  for (auto& v : versions) v->scheduler->Stop(deadline);
  versions.clear();
}

}  // namespace

Status ModelManager::Load(const std::string& name) {
  HONE_RETURN_IF_ERROR(ValidateModelName(name));
  std::shared_ptr<Slot> slot = SlotFor(name);
  std::lock_guard load_lock(slot->load_mu);
  {
    std::lock_guard lock(slot->mu);
    slot->wanted = true;
    slot->loading = true;
  }
  auto finish_with_error = [&](const Status& status) {
    bool serving = false;
    {
      std::lock_guard lock(slot->mu);
      slot->loading = false;
      serving = !slot->versions.empty();
      if (!serving) slot->reason = status.message();
    }
    if (!serving) ForgetDemand(name);  // its instances never opened: the cores are the others'
    Log(LogLevel::kError, {{"model", name}}, "model '{}': load failed: {}", name, status.message());
    return status;
  };

  const std::string model_dir = (std::filesystem::path(repository_) / name).string();
  Result<ModelToLoad> model = ReadModelToLoad(repository_, name);
  if (!model.ok()) {
    std::lock_guard lock(slot->mu);
    if (Result<std::string> fingerprint = FingerprintOf(repository_, name); fingerprint.ok()) {
      slot->attempted_fingerprint = *fingerprint;
    }
  }
  if (!model.ok()) return finish_with_error(model.status());

  if (serve::IsEnsemble(model->config.config)) {
    // The steps' models first, those not serving yet; a failure shows when the ensemble checks its steps.
    // Depth-limited: ensembles of ensembles nest, but a loop of them must not recurse forever.
    static thread_local int depth = 0;
    if (depth < 8) {
      ++depth;
      for (const auto& step : model->config.config.ensemble_scheduling().step())
        if (step.model_name() != name && !Find(step.model_name(), 0).ok()) (void)Load(step.model_name());
      --depth;
    }
  }
  Log(LogLevel::kInfo, {{"model", name}}, "model '{}': loading version(s) {}", name, fmt::join(model->versions, ", "));
  const ThreadDemand demand = DemandOf(name, model->config.config, model->versions.size());
  const ThreadShare share = ShareFor(demand);
  const int instances_per_version = TotalInstanceCount(model->config.config);
  if (demand.instances > 0)
    Log(LogLevel::kInfo, {{"model", name}}, "model '{}': {} intra-op thread(s) per instance x {} instance(s){}: {}",
      name, share.threads_per_instance, instances_per_version,
      model->versions.size() > 1 ? fmt::format(" x {} versions", model->versions.size()) : std::string(),
      share.why);
  std::map<int64_t, std::shared_ptr<LoadedVersion>> loaded;
  std::map<int64_t, std::string> failed;
  for (int64_t version : model->versions) {
    LoadVersionRequest request;
    request.model_dir = model_dir;
    request.config = model->config.config;
    request.has_config_file = model->config.has_config_file;
    request.source = model->config.source;
    request.version = version;
    // What this model's instances share: LoadVersion gives each cores / instances when the config sets none.
    request.cores = share.threads_per_instance * instances_per_version;
    request.metrics = metrics_;
    request.default_warmup = default_warmup_;
    request.dispatch = [this](InferenceRequest r, ResponseCallback done) { Infer(std::move(r), std::move(done)); };
    request.step_metadata = [this](const std::string& step, int64_t v) -> Result<runtime::ModelMetadata> {
      HONE_ASSIGN_OR_RETURN(std::shared_ptr<LoadedVersion> found, Find(step, v));
      return found->metadata;
    };
    Result<std::shared_ptr<LoadedVersion>> version_loaded = LoadVersion(request);
    if (version_loaded.ok()) {
      loaded[version] = std::move(*version_loaded);
    } else {
      failed[version] = version_loaded.status().message();
      Log(LogLevel::kError, {{"model", name}, {"version", version}}, "model '{}' version {}: {}", name, version,
          version_loaded.status().message());
    }
  }

  std::vector<std::shared_ptr<LoadedVersion>> retired;
  Status result = Status::Ok();
  {
    std::lock_guard lock(slot->mu);
    std::map<int64_t, std::shared_ptr<LoadedVersion>> next = loaded;
    // A version that failed to load keeps its predecessor of the same number serving; if nothing new loaded at
    // all, everything that served before keeps serving.
    for (const auto& [version, why] : failed) {
      auto old = slot->versions.find(version);
      if (old != slot->versions.end()) next[version] = old->second;
    }
    if (next.empty()) next = slot->versions;
    for (auto& [version, old] : slot->versions) {
      auto kept = next.find(version);
      if (kept == next.end() || kept->second != old) retired.push_back(old);
    }
    slot->versions = std::move(next);
    slot->failed = failed;
    slot->loading = false;
    slot->ever_loaded = slot->ever_loaded || !loaded.empty();
    slot->attempted_fingerprint = model->fingerprint;
    if (!failed.empty()) {
      std::string why;
      for (const auto& [version, message] : failed) {
        why += fmt::format("{}version {}: {}", why.empty() ? "" : "; ", version, message);
      }
      if (slot->versions.empty()) slot->reason = why;
      result = Status(StatusCode::kInvalidArgument,
                      fmt::format("failed to load model '{}': {}{}", name, why,
                                  slot->versions.empty() ? "" : " (the versions already serving keep serving)"));
    } else {
      slot->reason.clear();
    }
  }
  StopAll(retired, std::chrono::steady_clock::now() + kReplaceGrace);
  if (Loaded(name).empty()) ForgetDemand(name);  // nothing serves: its instances hold no cores
  if (result.ok()) Log(LogLevel::kInfo, {{"model", name}}, "model '{}': ready", name);
  return result;
}

Status ModelManager::Unload(const std::string& name, std::chrono::steady_clock::time_point deadline) {
  HONE_RETURN_IF_ERROR(ValidateModelName(name));
  std::shared_ptr<Slot> slot = FindSlot(name);
  if (!slot) {
    // Unloading a model that was never loaded is a no-op in Triton too, as long as the name is valid.
    return Status::Ok();
  }
  std::lock_guard load_lock(slot->load_mu);
  std::vector<std::shared_ptr<LoadedVersion>> retired;
  {
    std::lock_guard lock(slot->mu);
    if (!slot->wanted && slot->versions.empty()) return Status::Ok();  // already unloaded
    slot->wanted = false;
    slot->unloading = true;
    for (auto& [version, loaded] : slot->versions) retired.push_back(loaded);
    slot->versions.clear();
  }
  if (!retired.empty())
    Log(LogLevel::kInfo, {{"model", name}}, "model '{}': unloading, letting in-flight requests finish", name);
  StopAll(retired, deadline);
  {
    std::lock_guard lock(slot->mu);
    slot->unloading = false;
    slot->reason = "unloaded";
    slot->attempted_fingerprint.clear();
  }
  ForgetDemand(name);
  Log(LogLevel::kInfo, {{"model", name}}, "model '{}': unloaded", name);
  return Status::Ok();
}

void ModelManager::UnloadAll(std::chrono::steady_clock::time_point deadline) {
  std::vector<std::string> names;
  {
    std::shared_lock lock(mu_);
    for (const auto& [name, slot] : slots_) names.push_back(name);
  }
  for (const auto& name : names) (void)Unload(name, deadline);
}

void ModelManager::Poll() {
  Result<std::vector<std::string>> present = RepositoryModels();
  if (!present.ok()) {
    LogError("repository poll: {}", present.status().message());
    return;
  }
  std::set<std::string> present_set(present->begin(), present->end());
  for (const auto& name : *present) {
    std::shared_ptr<Slot> slot = FindSlot(name);
    std::string attempted;
    if (slot) {
      std::lock_guard lock(slot->mu);
      attempted = slot->attempted_fingerprint;
    }
    // A model loads when it appears and reloads when its files change; one that failed is retried only then.
    Result<std::string> now = FingerprintOf(repository_, name);
    if (!now.ok() || *now == attempted) continue;
    (void)Load(name);
  }
  std::vector<std::string> gone;
  {
    std::shared_lock lock(mu_);
    for (const auto& [name, slot] : slots_) {
      std::lock_guard slot_lock(slot->mu);
      if (!present_set.count(name) && (slot->wanted || !slot->versions.empty())) gone.push_back(name);
    }
  }
  for (const auto& name : gone) (void)Unload(name, std::chrono::steady_clock::now() + kReplaceGrace);
}

void ModelManager::Infer(InferenceRequest request, ResponseCallback done) const {
  Result<std::shared_ptr<LoadedVersion>> loaded = Find(request.model_name, request.model_version);
  if (!loaded.ok()) return done(loaded.status());
  EnqueueOn(**loaded, std::move(request), std::move(done));
}

bool ModelManager::IsEnsemble(const std::string& name) const {
  Result<RepositoryModelConfig> config = ReadRepositoryModelConfig(repository_, name);
  return config.ok() && serve::IsEnsemble(config->config);
}

Result<std::shared_ptr<LoadedVersion>> ModelManager::Find(const std::string& name, int64_t version) const {
  std::shared_ptr<Slot> slot = FindSlot(name);
  if (!slot) return Status(StatusCode::kNotFound, fmt::format("unknown model '{}'", name));
  std::lock_guard lock(slot->mu);
  if (slot->versions.empty()) {
    if (slot->loading) return Status(StatusCode::kUnavailable, fmt::format("model '{}' is loading", name));
    return Status(StatusCode::kUnavailable,
                  fmt::format("model '{}' is not ready{}{}", name, slot->reason.empty() ? "" : ": ", slot->reason));
  }
  if (version == 0) return slot->versions.rbegin()->second;
  auto it = slot->versions.find(version);
  if (it == slot->versions.end()) {
    return Status(StatusCode::kNotFound, fmt::format("model '{}' has no version {} loaded", name, version));
  }
  return it->second;
}

std::vector<std::shared_ptr<LoadedVersion>> ModelManager::Loaded(const std::string& name) const {
  std::vector<std::shared_ptr<Slot>> slots;
  {
    std::shared_lock lock(mu_);
    for (const auto& [slot_name, slot] : slots_) {
      if (name.empty() || slot_name == name) slots.push_back(slot);
    }
  }
  std::vector<std::shared_ptr<LoadedVersion>> out;
  for (const auto& slot : slots) {
    std::lock_guard lock(slot->mu);
    for (const auto& [version, loaded] : slot->versions) out.push_back(loaded);
  }
  return out;
}

std::vector<RepositoryEntry> ModelManager::Index(bool ready_only) const {
  std::set<std::string> names;
  if (Result<std::vector<std::string>> present = RepositoryModels(); present.ok()) {
    names.insert(present->begin(), present->end());
  }
  {
    std::shared_lock lock(mu_);
    for (const auto& [name, slot] : slots_) names.insert(name);
  }
  std::vector<RepositoryEntry> entries;
  for (const auto& name : names) {
    std::shared_ptr<Slot> slot = FindSlot(name);
    if (!slot) {
      if (!ready_only) entries.push_back({name, "", "", ""});
      continue;
    }
    std::lock_guard lock(slot->mu);
    for (const auto& [version, loaded] : slot->versions) {
      entries.push_back({name, std::to_string(version), slot->unloading ? "UNLOADING" : "READY", ""});
    }
    if (ready_only) continue;
    for (const auto& [version, why] : slot->failed) {
      if (!slot->versions.count(version)) entries.push_back({name, std::to_string(version), "UNAVAILABLE", why});
    }
    if (slot->versions.empty() && slot->failed.empty()) {
      entries.push_back({name, "", slot->loading ? "LOADING" : (slot->unloading ? "UNLOADING" : "UNAVAILABLE"),
                         slot->loading ? "" : slot->reason});
    }
  }
  return entries;
}

bool ModelManager::AllWantedReady() const {
  std::shared_lock lock(mu_);
  for (const auto& [name, slot] : slots_) {
    std::lock_guard slot_lock(slot->mu);
    // A reload does not make a serving model unready: its old versions serve until the new ones replace them.
    if (slot->wanted && slot->versions.empty()) return false;
  }
  return true;
}

}  // namespace hone::serve
