// The meaning of a parsed config: values in range, fields consistent with each other, features this build serves.
// ValidateModelConfig runs on the config as written (before completion); ValidateBatching runs once
// max_batch_size is final (CompleteModelConfig calls it), because completion may still set max_batch_size.
//
// Every error starts with the source (the config file, or the model directory when there is none) and names the
// field: "models/m/config.pbtxt: input 'x': dims[1]: expected >= -1, got -2". InvalidArgument for a bad value,
// Unimplemented for a valid Triton setting this CPU build does not serve (KIND_GPU, another platform, a
// Triton-only parameter).
#pragma once

#include <string>

#include "base/status.h"
#include "client/model_config.pb.h"

namespace hone::serve {

struct ConfigSource {
  std::string where;       // prefix of every error: "models/m/config.pbtxt", or "models/m" without a config file
  std::string model_name;  // the directory name; a non-empty config `name` must equal it ("" skips the check)
};

// Checks, in order: name (equals model_name), platform/backend (ONNX Runtime), max_batch_size >= 0, inputs and
// outputs (non-empty unique names, known data types, at least one dim, dims and reshape >= -1, element counts of
// fixed dims and reshape equal, safe label file names), instance groups (count >= 0, 0 meaning 1; KIND_GPU and
// KIND_MODEL Unimplemented), dynamic batching values (preferred sizes > 0; priority levels fit uint32 and agree
// with default_priority_level and priority_queue_policy; known timeout actions), version policy
// (latest.num_versions >= 1, specific versions >= 1 and at least one), the ONNX Runtime parameters and graph
// level (see onnx_parameters.h), default_model_filename, and model_warmup (batch_size >= 1, at least one input,
// known data types, concrete dims >= 0, a data source chosen, safe data file names).
Status ValidateModelConfig(const inference::ModelConfig& config, const ConfigSource& source);

// Checks that need the final max_batch_size: dynamic_batching needs max_batch_size > 0; preferred sizes <=
// max_batch_size; warm-up batch_size <= max_batch_size (exactly 1 when max_batch_size is 0).
Status ValidateBatching(const inference::ModelConfig& config, const ConfigSource& source);

}  // namespace hone::serve
