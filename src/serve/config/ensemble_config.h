// Triton's ensembles (platform "ensemble", ensemble_scheduling): checking the pipeline a config describes and
// working out the order its steps can run in.
//
// A step reads ensemble tensors (the ensemble's inputs, or other steps' outputs) through its input_map and writes
// ensemble tensors through its output_map. The config is refused at load, naming the file and the field, when a
// step reads a tensor nobody writes, two steps (or a step and the ensemble's inputs) write the same tensor, an
// ensemble output is never written, an ensemble input is never read, or the steps depend on each other in a cycle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "serve/config/config_validate.h"

namespace hone::serve {

inline constexpr std::string_view kEnsemblePlatform = "ensemble";

bool IsEnsemble(const inference::ModelConfig& config);

struct EnsembleStep {
  std::string model_name;
  int64_t model_version = 0;  // 0: the highest ready version
  // (step model input, ensemble tensor) and (step model output, ensemble tensor), sorted by the first.
  std::vector<std::pair<std::string, std::string>> inputs;
  std::vector<std::pair<std::string, std::string>> outputs;
  std::vector<size_t> after;  // steps whose outputs this one reads
};

struct EnsemblePlan {
  std::vector<EnsembleStep> steps;  // in an order where each step comes after those it reads from
};

// Checks an ensemble's config (as written) and plans its steps; see the header comment. Also refuses what an
// ensemble cannot have: dynamic_batching (its steps batch), instance groups with a count, model_warmup, ONNX
// Runtime parameters, a step naming the ensemble itself or another namespace, and inputs or outputs without
// data_type and dims.
Result<EnsemblePlan> PlanEnsemble(const inference::ModelConfig& config, const ConfigSource& source);

}  // namespace hone::serve
