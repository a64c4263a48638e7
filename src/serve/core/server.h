// The server facade every front end (HTTP, gRPC) calls: health, metadata, config, statistics, the repository API,
// inference and metrics. It owns the model manager (repository, versions, instances, schedulers) and the metrics
// registry; front ends own only their sockets and wire formats.
//
//   auto server = Server::Create(options);    // loads the startup models and warms them up
//   // or, to listen before loading: Server::Open(options), start the front ends, then server->Start()
//   server->Infer(std::move(request), [](Result<InferenceResponse> r) { ... });   // callback exactly once
//   server->Shutdown(deadline);               // stop taking work, finish what is in flight
//
// Every method is thread-safe. Health, metadata, config, statistics and metrics never wait behind inference work.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "client/model_metadata.h"
#include "client/model_stats.h"
#include "serve/core/inference.h"

namespace hone::serve {

class GenerativeModel;  // generative_model.h

enum class ModelControlMode { kNone, kExplicit, kPoll };

struct ServerOptions {
  std::string model_repository;
  ModelControlMode control_mode = ModelControlMode::kNone;
  // Models to load at start-up in explicit mode ("*": all); ignored (everything loads) in none and poll mode.
  std::vector<std::string> startup_models;
  // ready means every model that should be loaded is loaded and warmed up; false: ready once the server is up.
  bool strict_readiness = true;
  std::chrono::seconds repository_poll_interval{15};
  // Whether RepositoryIndex/LoadModel/UnloadModel may be called by clients (front ends check this).
  bool repository_api = true;
  // Cores split among the instances of all models whose configs do not set thread counts (thread_split.h); 0: the
  // machine's.
  int cores = 0;
  // A model whose config has no model_warmup gets hone's own warm-up (inputs it generates; skipped with a warning
  // when the model takes none of them). false: such models load without any warm-up.
  bool default_warmup = true;
};

struct RepositoryEntry {
  std::string name;
  std::string version;  // "" when the model has no loaded version
  std::string state;    // "READY", "LOADING", "UNLOADING", "UNAVAILABLE"
  std::string reason;   // why it is unavailable (the load error), or ""
};

struct ServerMetadataInfo {
  std::string name = "hone";
  std::string version;
  std::vector<std::string> extensions;
};

class Server {
 public:
  // Checks the repository and builds the server without loading a model: live, not ready until Start. NotFound
  // when the repository is not a directory; in control mode none and poll, InvalidArgument when it holds no model
  // (repository_check.h: says what a repository looks like, and names the folder probably meant). Explicit mode
  // may start empty.
  static Result<std::unique_ptr<Server>> Open(const ServerOptions& options);
  // Open, then Start. A model that fails to load does not fail Create: it shows as UNAVAILABLE with its reason in
  // the index (and keeps the server not ready under strict readiness).
  static Result<std::unique_ptr<Server>> Create(const ServerOptions& options);
  virtual ~Server() = default;

  // Loads the startup models (control mode none and poll: every model in the repository; explicit:
  // startup_models), then starts polling in poll mode. Call once. Ok when every one of them loaded; otherwise
  // InvalidArgument naming each model that failed and why ("model 'a': ...; model 'b': ..."). The server keeps
  // running either way (a model that failed is UNAVAILABLE in the index): exiting is the caller's choice.
  virtual Status Start() = 0;

  virtual const ServerOptions& options() const = 0;
  virtual bool IsLive() const = 0;
  virtual bool IsReady() const = 0;
  virtual ServerMetadataInfo Metadata() const = 0;

  // version 0: the highest ready version. NotFound for an unknown model or version.
  virtual Result<bool> IsModelReady(const std::string& name, int64_t version) const = 0;
  virtual Result<client::ModelMetadataInfo> ModelMetadata(const std::string& name, int64_t version) const = 0;
  // The completed config (what the model runs with: fields filled from the model and the machine).
  virtual Result<inference::ModelConfig> ModelConfig(const std::string& name, int64_t version) const = 0;
  // name "": every loaded model; version 0: every ready version of `name`.
  virtual Result<std::vector<client::ModelStatsSnapshot>> Statistics(const std::string& name,
                                                                      int64_t version) const = 0;

  virtual std::vector<RepositoryEntry> RepositoryIndex(bool ready_only) const = 0;
  // Loads (or reloads) a model from the repository; blocks until it is ready or failed. A version that fails to
  // load leaves the previously loaded version serving. FailedPrecondition in control mode none.
  virtual Status LoadModel(const std::string& name) = 0;
  // Unloads every version; in-flight and queued requests finish first. Blocks until unloaded.
  virtual Status UnloadModel(const std::string& name) = 0;

  // Runs `request` on its model version; `done` runs exactly once. An input whose config has a reshape takes the
  // config's dims (what ModelMetadata advertises) or the model's own shape; an output with one comes back in its
  // dims (serve/config/reshape.h).
  virtual void Infer(InferenceRequest request, ResponseCallback done) = 0;
  // A response Infer delivered (and counted as a success) that the front end then could not send (it could not
  // be encoded, or the connection failed while writing it): counts it as a failure of that model version too (the
  // statistics' fail count and nv_inference_request_failure), so that monitoring sees what the client saw. An
  // unknown model or version is ignored (it may have been unloaded since).
  virtual void RecordUndelivered(const std::string& name, int64_t version) = 0;

  // A text-generation model (backend hone_llm) for the OpenAI endpoints and the generate extension. version 0:
  // the highest ready. NotFound for an unknown model or version; InvalidArgument for a model that does not
  // generate text.
  virtual Result<std::shared_ptr<GenerativeModel>> Generative(const std::string& name, int64_t version) const = 0;
  // Every ready text-generation model version (the highest version of each model), by name.
  virtual std::vector<std::shared_ptr<GenerativeModel>> GenerativeModels() const = 0;

  // Prometheus text exposition format (version 0.0.4).
  virtual std::string MetricsText() const = 0;

  // The first step of a graceful stop (hone serve on SIGTERM): ready turns false at once, so that balancers and
  // Kubernetes stop sending here, while every request that still arrives is served as before (their health
  // checks and endpoint updates lag behind the signal). The HTTP front end also asks clients to close keep-alive
  // connections. Shutdown follows. Idempotent.
  virtual void BeginDrain() = 0;
  virtual bool IsDraining() const = 0;
  // Inference and generation requests received since the server opened (not health, metadata or metrics): what a
  // drain watches to see the traffic stop.
  virtual uint64_t RequestsReceived() const = 0;

  // Stops taking inference requests (Unavailable), lets in-flight ones finish until `deadline`, fails the rest;
  // live stays true, ready turns false. Idempotent.
  virtual void Shutdown(std::chrono::steady_clock::time_point deadline) = 0;
};

}  // namespace hone::serve
