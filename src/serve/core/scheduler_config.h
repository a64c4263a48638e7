// The scheduler's settings from a model's completed config (Triton's field meanings).
#pragma once

#include "client/model_config.pb.h"
#include "serve/core/scheduler.h"

namespace hone::serve {

SchedulerOptions SchedulerOptionsFromConfig(const inference::ModelConfig& config, int64_t version);

}  // namespace hone::serve
