// How ONNX Runtime runs one model. Plain struct with documented defaults; Validate() checks cross-field rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace hone::runtime {

enum class ExecutionMode { kSequential, kParallel };
enum class GraphOptimization { kDisable, kBasic, kExtended, kAll };

struct SessionOptions {
  // --- affect performance, not results ---
  // Threads in the intra-op pool (parallelism inside one operator). 0: ONNX Runtime's default, one per physical core.
  // Each concurrent Run shares this pool, so N sessions side by side should split the cores between them.
  int intra_op_threads = 0;
  // Threads for running independent operators side by side; only used with ExecutionMode::kParallel. 0: default.
  int inter_op_threads = 0;
  // Sequential runs operators one after another (best for most CNNs and transformers on CPU); parallel runs
  // independent branches at once and only pays off for wide graphs.
  ExecutionMode execution_mode = ExecutionMode::kSequential;
  // Graph rewrites at load: constant folding and redundancy removal (basic), fusions (extended), layout (all).
  // Higher levels load more slowly and run faster.
  GraphOptimization graph_optimization = GraphOptimization::kAll;
  // Idle pool threads spin before sleeping: lower latency for back-to-back runs, but burns CPU that other work
  // (another instance, pre-processing) could use.
  bool allow_spinning = true;
  // With allow_spinning: the pool threads stop spinning as soon as the last concurrent Run returns (ONNX Runtime's
  // session.force_spinning_stop) instead of spinning on after it. They still spin between the operators of a run,
  // which is where spinning saves latency; between runs a server's I/O threads and other instances want the cores.
  bool stop_spinning_after_run = false;
  // ONNX Runtime's CPU memory arena: reuses allocations across runs; off lowers peak memory, costs speed.
  bool cpu_arena = true;

  // --- side effects ---
  // When set, ONNX Runtime writes the graph as optimized at load (at graph_optimization's level) to this file.
  std::string optimized_model_path;
  // When set, ONNX Runtime's profiler records every Run (each node's kernel time) and writes a Chrome trace JSON file
  // named "<prefix>_<timestamp>.json" when Session::EndProfiling is called (or the session closes). Costs speed.
  std::string profile_prefix;

  Status Validate() const;
  // "intra=2 inter=0 mode=sequential opt=all spin=on arena=on" (and " profile=on" when profiling); spin is on, off
  // or in-run (stop_spinning_after_run)
  std::string ToString() const;
};

std::string_view ExecutionModeName(ExecutionMode mode);
std::optional<ExecutionMode> ParseExecutionMode(std::string_view text);
std::string_view GraphOptimizationName(GraphOptimization level);
std::optional<GraphOptimization> ParseGraphOptimization(std::string_view text);

}  // namespace hone::runtime
