#include "runtime/session_options_json.h"

namespace hone::runtime {

nlohmann::json SessionOptionsToJson(const SessionOptions& o) {
  return {{"intra_op_threads", o.intra_op_threads},
          {"inter_op_threads", o.inter_op_threads},
          {"execution_mode", ExecutionModeName(o.execution_mode)},
          {"graph_optimization", GraphOptimizationName(o.graph_optimization)},
          {"allow_spinning", o.allow_spinning},
          {"cpu_arena", o.cpu_arena},
          {"optimized_model_path", o.optimized_model_path},
          {"summary", o.ToString()}};
}

}  // namespace hone::runtime
