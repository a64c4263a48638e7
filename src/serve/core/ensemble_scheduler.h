// The scheduler of an ensemble (Triton's platform "ensemble"): runs a request through the steps of its plan
// (serve/config/ensemble_config.h), each step a request to another model of the server, so that every step goes
// through that model's own scheduler: its dynamic batcher stacks the steps of concurrent ensemble requests, and
// its statistics and metrics show each stage's share of the time.
//
// A step starts as soon as every tensor it reads exists; steps that do not depend on each other run side by side.
// The first step that fails ends the request with its error, naming the step; the response callback runs exactly
// once. The ensemble's own statistics count its requests end to end (queue time 0: its steps queue). A thread that
// finishes a step may run the next one itself when that step's model has an instance idle (no hand-off).
#pragma once

#include <functional>
#include <memory>

#include "base/result.h"
#include "runtime/model_metadata.h"
#include "serve/config/ensemble_config.h"
#include "serve/core/model_stats.h"
#include "serve/core/scheduler.h"

namespace hone::serve {

// Sends a request to a model of the server (what Server::Infer does after its own checks).
using StepDispatch = std::function<void(InferenceRequest, ResponseCallback)>;

struct EnsembleOptions {
  std::string model_name;
  int64_t model_version = 1;
  int64_t max_batch_size = 0;
  runtime::ModelMetadata metadata;  // the ensemble's inputs and outputs, from its config
  EnsemblePlan plan;
};

// `dispatch` and `stats` outlive the scheduler.
std::unique_ptr<Scheduler> CreateEnsembleScheduler(EnsembleOptions options, StepDispatch dispatch,
                                                   ModelStats* stats);

}  // namespace hone::serve
