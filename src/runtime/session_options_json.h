// SessionOptions as every report writes them: bench's sessions, compare's and evaluate's runtime, tune's trials.
#pragma once

#include <nlohmann/json.hpp>

#include "runtime/session_options.h"

namespace hone::runtime {

// {intra_op_threads, inter_op_threads, execution_mode, graph_optimization, allow_spinning, cpu_arena,
// optimized_model_path, summary}, and profile_prefix when profiling
nlohmann::json SessionOptionsToJson(const SessionOptions& options);

}  // namespace hone::runtime
