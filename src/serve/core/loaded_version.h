// One version of a model, loaded: its completed config, its statistics and its scheduler (which owns the
// instances). Built by LoadVersion, which refuses to hand back anything that has not been warmed up.
#pragma once

#include <cstdint>
#include <map>
#include <vector>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "runtime/model_metadata.h"
#include "serve/config/config_validate.h"
#include "serve/core/io_reshape.h"
#include "serve/core/model_stats.h"
#include "serve/core/scheduler.h"

namespace hone::serve {

class GenerativeModel;
class MetricsRegistry;

struct LoadedVersion {
  std::string name;
  int64_t version = 0;
  inference::ModelConfig config;  // completed
  runtime::ModelMetadata metadata;
  // The config's reshapes, for requests and responses (shared by response callbacks; see io_reshape.h).
  std::shared_ptr<const IoReshape> reshape;
  // The label files of the config's outputs (label_filename), for the classification extension.
  std::shared_ptr<const std::map<std::string, std::vector<std::string>>> labels;
  // Declared before the scheduler so it outlives it: the scheduler records into it until it has stopped.
  std::unique_ptr<ModelStats> stats;
  // A text-generation model's engine (backend hone_llm); null for other models.
  std::shared_ptr<GenerativeModel> generative;
  std::unique_ptr<Scheduler> scheduler;

  LoadedVersion() = default;
  LoadedVersion(const LoadedVersion&) = delete;
  LoadedVersion& operator=(const LoadedVersion&) = delete;
  // Stops the scheduler with a short grace period if nobody stopped it before (unload stops it explicitly).
  ~LoadedVersion();
};

struct LoadVersionRequest {
  std::string model_dir;              // <repository>/<model>
  inference::ModelConfig config;      // as parsed from config.pbtxt (possibly empty), before completion
  bool has_config_file = false;
  ConfigSource source;                // where errors point: the config file, or the model directory
  int64_t version = 0;
  int cores = 1;                      // cores this model's instances share when the config sets no threads
  MetricsRegistry* metrics = nullptr; // may be null
  // Without model_warmup: whether hone tries warm-up inputs of its own (DefaultWarmupCandidates).
  bool default_warmup = true;
  // For an ensemble: how its steps reach the other models, and the metadata of the version a step names (0: the
  // highest ready), to check its input_map and output_map at load. Unused for other models.
  std::function<void(InferenceRequest, ResponseCallback)> dispatch;
  std::function<Result<runtime::ModelMetadata>(const std::string& name, int64_t version)> step_metadata;
};

// Opens one ONNX Runtime session per instance, completes the config from the model's metadata, checks batching
// that hone inferred (batch_check.h: a model that fails it gets max_batch_size 0, with a log line saying why; a
// max_batch_size the config sets is the user's and is not checked), runs the warm-up on every instance,
// then starts the scheduler. An error names the model, the version and what failed.
//
// Warm-up: the config's model_warmup samples must all run (an error names the sample and its inputs). Without
// them, hone's own samples are tried in order until one runs; if none does (or an input is TYPE_STRING), the
// warm-up is skipped with a warning: a warm-up hone invented never stops a valid model from loading.
//
// An ensemble (platform "ensemble") opens nothing: its plan is checked against its steps' models, which must be
// serving already, and its scheduler sends each step to them (ensemble_scheduler.h).
Result<std::shared_ptr<LoadedVersion>> LoadVersion(const LoadVersionRequest& request);

// Sends `request` to `version`'s scheduler, with the config's reshapes applied on the way in and out; what
// Server::Infer does once it has found the version.
void EnqueueOn(const LoadedVersion& version, InferenceRequest request, ResponseCallback done);

}  // namespace hone::serve
