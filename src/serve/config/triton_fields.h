// Fields of Triton's model_config.proto that hone's (model_config.proto here) leaves out, so that a Triton config
// that uses one hears "hone does not support 'ensemble_scheduling' yet" rather than "unknown field", and a typo
// hears the nearest field it may have meant.
#pragma once

#include <string>
#include <string_view>

namespace hone::serve {

// What the Triton field `field` of message `type` ("ModelConfig", "ModelInput", "ModelWarmup.Input": the type
// without its "inference." package) is for ("Triton's ensembles"), or "" when Triton has no such field there or
// hone supports it.
std::string_view UnsupportedTritonField(std::string_view type, std::string_view field);

// The field of `type` (hone's or Triton's) nearest to the unknown `field`, or "" when none is close: "max_batch"
// -> "max_batch_size".
std::string NearestConfigField(std::string_view type, std::string_view field);

}  // namespace hone::serve
