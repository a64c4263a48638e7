// One version of a model, loaded: its completed config, its statistics and its scheduler (which owns the
// instances). Built by LoadVersion, which refuses to hand back anything that has not been warmed up.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "runtime/model_metadata.h"
#include "serve/config/config_validate.h"
#include "serve/config/model_config.pb.h"
#include "serve/core/model_stats.h"
#include "serve/core/scheduler.h"

namespace hone::serve {

class MetricsRegistry;

struct LoadedVersion {
  std::string name;
  int64_t version = 0;
  inference::ModelConfig config;  // completed
  runtime::ModelMetadata metadata;
  // Declared before the scheduler so it outlives it: the scheduler records into it until it has stopped.
  std::unique_ptr<ModelStats> stats;
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
};

// Opens one ONNX Runtime session per instance, completes the config from the model's metadata, runs the
// model_warmup samples (or one default request) on every instance, then starts the scheduler. An error names the
// model, the version and what failed.
Result<std::shared_ptr<LoadedVersion>> LoadVersion(const LoadVersionRequest& request);

}  // namespace hone::serve
