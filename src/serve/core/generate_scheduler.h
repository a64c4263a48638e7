// The scheduler of a text-generation model: /infer requests (text_input -> text_output, see generator_load.h)
// become generation requests; the engine does the batching.
#pragma once

#include <memory>

#include "serve/core/generative_model.h"
#include "serve/core/model_stats.h"
#include "serve/core/scheduler.h"

namespace hone::serve {

// `stats` outlives the scheduler.
std::unique_ptr<Scheduler> CreateGenerateScheduler(std::shared_ptr<GenerativeModel> model, ModelStats* stats);

}  // namespace hone::serve
