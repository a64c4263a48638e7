#include "runtime/session_options.h"

namespace hone::runtime {

Status SessionOptions::Validate() const {
  if (intra_op_threads < 0)
    return Status::InvalidArgument("intra-op threads: expected >= 0, got " + std::to_string(intra_op_threads));
  if (inter_op_threads < 0)
    return Status::InvalidArgument("inter-op threads: expected >= 0, got " + std::to_string(inter_op_threads));
  return Status::Ok();
}

std::string SessionOptions::ToString() const {
  std::string s = "intra=" + std::to_string(intra_op_threads) + " inter=" + std::to_string(inter_op_threads);
  s += " mode=" + std::string(ExecutionModeName(execution_mode));
  s += " opt=" + std::string(GraphOptimizationName(graph_optimization));
  s += !allow_spinning ? " spin=off" : stop_spinning_after_run ? " spin=in-run" : " spin=on";
  s += cpu_arena ? " arena=on" : " arena=off";
  if (!profile_prefix.empty()) s += " profile=on";
  return s;
}

std::string_view ExecutionModeName(ExecutionMode mode) {
  return mode == ExecutionMode::kParallel ? "parallel" : "sequential";
}

std::optional<ExecutionMode> ParseExecutionMode(std::string_view text) {
  if (text == "sequential") return ExecutionMode::kSequential;
  if (text == "parallel") return ExecutionMode::kParallel;
  return std::nullopt;
}

std::string_view GraphOptimizationName(GraphOptimization level) {
  switch (level) {
    case GraphOptimization::kDisable: return "disable";
    case GraphOptimization::kBasic: return "basic";
    case GraphOptimization::kExtended: return "extended";
    case GraphOptimization::kAll: return "all";
  }
  return "all";
}

std::optional<GraphOptimization> ParseGraphOptimization(std::string_view text) {
  if (text == "disable") return GraphOptimization::kDisable;
  if (text == "basic") return GraphOptimization::kBasic;
  if (text == "extended") return GraphOptimization::kExtended;
  if (text == "all") return GraphOptimization::kAll;
  return std::nullopt;
}

}  // namespace hone::runtime
