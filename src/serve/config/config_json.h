// A config as JSON, the way Triton's GET /v2/models/<m>/config returns it: protobuf's JSON mapping with the
// proto field names ("max_batch_size", not "maxBatchSize"), every primitive field printed even when it holds its
// default, enums by name, and 64-bit integers as JSON numbers (protobuf writes them as strings; Triton converts
// them back, and so does this). Map keys stay strings, as JSON requires.
#pragma once

#include <string>

#include "client/model_config.pb.h"

namespace hone::serve {

// Compact JSON (no whitespace). Never fails for a ModelConfig.
std::string ModelConfigToJson(const inference::ModelConfig& config);

}  // namespace hone::serve
