#include "runtime/session_options_json.h"

namespace hone::runtime {

nlohmann::json SessionOptionsToJson(const SessionOptions& o) {
  nlohmann::json j = {{"intra_op_threads", o.intra_op_threads},
                        {"inter_op_threads", o.inter_op_threads},
                        {"execution_mode", ExecutionModeName(o.execution_mode)},
                        {"graph_optimization", GraphOptimizationName(o.graph_optimization)},
                        {"allow_spinning", o.allow_spinning},
                        {"stop_spinning_after_run", o.stop_spinning_after_run},
                        {"cpu_arena", o.cpu_arena},
                        {"optimized_model_path", o.optimized_model_path},
                        {"summary", o.ToString()}};
  // Like the summary, only when set: profiling is a measuring side effect, off in every report but the profile's.
  if (!o.profile_prefix.empty()) j["profile_prefix"] = o.profile_prefix;
  return j;
}

}  // namespace hone::runtime
