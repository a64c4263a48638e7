#include "serve/config/onnx_parameters.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <string>
#include <vector>

#include "serve/config/batch_timing.h"

namespace hone::serve {
namespace {

// Keys Triton's onnxruntime backend reads that hone has no equivalent for.
constexpr std::array<std::string_view, 9> kTritonOnlyKeys = {
    "enable_mem_pattern",
    "share_session_between_instances",
    "memory.enable_memory_arena_shrinkage",
    "session.use_device_allocator_for_initializers",
    "cudnn_conv_algo_search",
    "gpu_mem_limit",
    "arena_extend_strategy",
    "do_copy_in_default_stream",
    "cudnn_conv_use_max_workspace",
};

std::string Quote(std::string_view s) {
  std::string q = "'";  // appended, not concatenated: GCC 12 warns falsely (-Wrestrict) on "'" + std::string
  q.append(s);
  q += '\'';
  return q;
}

// A thread count: 0 (ONNX Runtime's default) up to kMaxThreads, which no CPU this runs on needs more of; the bound
// keeps a typo from starting a hundred thousand threads.
constexpr int kMaxThreads = 1024;

Result<int> ParseCount(std::string_view key, const std::string& value) {
  int n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n < 0 || n > kMaxThreads)
    return Status::InvalidArgument("parameter " + Quote(key) + ": expected an integer in [0, " +
                                   std::to_string(kMaxThreads) + "], got " + Quote(value));
  return n;
}

// Triton's boolean spellings.
Result<bool> ParseBool(std::string_view key, const std::string& value) {
  std::string v = value;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v == "1" || v == "true" || v == "on") return true;
  if (v == "0" || v == "false" || v == "off") return false;
  return Status::InvalidArgument("parameter " + Quote(key) + ": expected a boolean (1/0, true/false, on/off), got " +
                                 Quote(value));
}

}  // namespace

std::string_view SupportedParameterKeys() {
  return "intra_op_thread_count, inter_op_thread_count, execution_mode, enable_mem_arena, "
         "session.intra_op.allow_spinning, session.force_spinning_stop, hone.batch_timing";
}

std::optional<runtime::GraphOptimization> GraphOptimizationFromLevel(int32_t level) {
  switch (level) {
    case 0: return runtime::GraphOptimization::kAll;
    case -1: return runtime::GraphOptimization::kBasic;
    case 1: return runtime::GraphOptimization::kExtended;
    case 2: return runtime::GraphOptimization::kDisable;
    default: return std::nullopt;
  }
}

int32_t GraphLevelFromOptimization(runtime::GraphOptimization level) {
  switch (level) {
    case runtime::GraphOptimization::kAll: return 0;
    case runtime::GraphOptimization::kBasic: return -1;
    case runtime::GraphOptimization::kExtended: return 1;
    case runtime::GraphOptimization::kDisable: return 2;
  }
  return 0;
}

runtime::SessionOptions ServedSessionDefaults() {
  runtime::SessionOptions options;
  options.allow_spinning = false;
  return options;
}

Result<runtime::SessionOptions> SessionOptionsFromConfig(const inference::ModelConfig& config) {
  runtime::SessionOptions options = ServedSessionDefaults();
  if (config.has_optimization() && config.optimization().has_graph()) {
    int32_t level = config.optimization().graph().level();
    auto opt = GraphOptimizationFromLevel(level);
    if (!opt)
      return Status::InvalidArgument("optimization.graph.level: expected 0 (all), -1 (basic), 1 (extended) or "
                                     "2 (disabled), got " + std::to_string(level));
    options.graph_optimization = *opt;
  }
  // Sorted, so that with several bad keys the error is always about the same one.
  std::vector<std::string> keys;
  for (const auto& [key, value] : config.parameters()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (const std::string& key : keys) {
    const std::string& value = config.parameters().at(key).string_value();
    if (key == kIntraOpThreadCount) {
      HONE_ASSIGN_OR_RETURN(options.intra_op_threads, ParseCount(key, value));
    } else if (key == kInterOpThreadCount) {
      HONE_ASSIGN_OR_RETURN(options.inter_op_threads, ParseCount(key, value));
    } else if (key == kExecutionMode) {
      if (value == "0") {
        options.execution_mode = runtime::ExecutionMode::kSequential;
      } else if (value == "1") {
        options.execution_mode = runtime::ExecutionMode::kParallel;
      } else {
        return Status::InvalidArgument("parameter 'execution_mode': expected 0 (sequential) or 1 (parallel), got " +
                                       Quote(value));
      }
    } else if (key == kEnableMemArena) {
      HONE_ASSIGN_OR_RETURN(options.cpu_arena, ParseBool(key, value));
    } else if (key == kAllowSpinning) {
      HONE_ASSIGN_OR_RETURN(options.allow_spinning, ParseBool(key, value));
    } else if (key == kForceSpinningStop) {
      HONE_ASSIGN_OR_RETURN(options.stop_spinning_after_run, ParseBool(key, value));
    } else if (key == kBatchTiming) {
      continue;  // the scheduler's, validated by BatchTimingFromConfig
    } else if (std::find(kTritonOnlyKeys.begin(), kTritonOnlyKeys.end(), key) != kTritonOnlyKeys.end()) {
      return Status::Unimplemented("parameter " + Quote(key) +
                                   ": Triton's onnxruntime backend reads it, hone does not support it (supported: " +
                                   std::string(SupportedParameterKeys()) + ")");
    } else {
      return Status::InvalidArgument("parameter " + Quote(key) + ": unknown (supported: " +
                                     std::string(SupportedParameterKeys()) + ")");
    }
  }
  HONE_RETURN_IF_ERROR(options.Validate());
  return options;
}

}  // namespace hone::serve
