// The models a server holds: which are in the repository, which versions are loaded, their states, and the
// load / unload / poll operations. A new version that fails to load leaves the versions already serving in place;
// unloading stops taking requests for the model and lets its queued and running requests finish first.
//
// Thread safety: every method may be called from any thread. Loads of one model are serialized; loads of
// different models may run side by side. Find never waits for a load.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "serve/core/loaded_version.h"
#include "serve/core/server.h"
#include "serve/core/thread_split.h"

namespace hone::serve {

class MetricsRegistry;

class ModelManager {
 public:
  // `cores`: what the instances of every model share when their configs set no thread counts. `default_warmup`:
  // whether a model without model_warmup gets hone's own warm-up (LoadVersionRequest::default_warmup).
  ModelManager(std::string repository, int cores, MetricsRegistry* metrics, bool default_warmup = true);
  ~ModelManager();  // unloads everything, waiting for in-flight requests

  // Models present in the repository now (directory names), sorted.
  Result<std::vector<std::string>> RepositoryModels() const;

  // Counts the instances of `names` before any of them loads, so that the first to load already shares the cores
  // with the others (thread_split.h). A model whose config cannot be read is left out (its load fails anyway).
  void PlanThreads(const std::vector<std::string>& names);

  // Loads or reloads `name` from the repository (the versions its version_policy selects). Versions that load
  // replace the ones serving; a version that fails keeps its predecessor serving. Ok when at least one version
  // serves afterwards; otherwise the first load error.
  // Loading an ensemble first loads each model its steps name that is not serving yet (as Triton does).
  Status Load(const std::string& name);
  // Stops serving `name`: new requests fail at once, queued and running ones finish (until `deadline`).
  Status Unload(const std::string& name, std::chrono::steady_clock::time_point deadline);
  void UnloadAll(std::chrono::steady_clock::time_point deadline);

  // Poll mode: loads new models, reloads changed ones, unloads removed ones.
  void Poll();

  // Finds the version `request` names and sends the request to it (EnqueueOn); `done` gets NotFound or
  // Unavailable when there is none to serve it. Ensembles' steps come this way too.
  void Infer(InferenceRequest request, ResponseCallback done) const;

  // Whether the repository's config for `name` says platform "ensemble" (false when it cannot be read).
  bool IsEnsemble(const std::string& name) const;

  // The loaded version to serve: `version` 0 picks the highest. NotFound names the model or version;
  // Unavailable while the model is loading for the first time.
  Result<std::shared_ptr<LoadedVersion>> Find(const std::string& name, int64_t version) const;
  // Every loaded version of every model (name "") or of one model.
  std::vector<std::shared_ptr<LoadedVersion>> Loaded(const std::string& name) const;

  std::vector<RepositoryEntry> Index(bool ready_only) const;
  // Whether every model that was asked to load is serving (strict readiness).
  bool AllWantedReady() const;

 private:
  struct Slot;
  std::shared_ptr<Slot> SlotFor(const std::string& name);
  std::shared_ptr<Slot> FindSlot(const std::string& name) const;
  // Records `demand` for its model and returns the intra-op threads each of its instances gets.
  ThreadShare ShareFor(const ThreadDemand& demand);
  void ForgetDemand(const std::string& name);

  const std::string repository_;
  const int cores_;
  MetricsRegistry* const metrics_;
  const bool default_warmup_;
  mutable std::shared_mutex mu_;  // guards slots_ (the map, not the slots' contents)
  std::map<std::string, std::shared_ptr<Slot>> slots_;
  std::mutex demand_mu_;  // guards demands_
  std::map<std::string, ThreadDemand> demands_;  // models loaded or about to load: what they ask of the cores
};

}  // namespace hone::serve
