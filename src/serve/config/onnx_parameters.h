// The config's ONNX Runtime settings (`parameters` and `optimization.graph.level`) and the SessionOptions they
// make, with the keys and meanings of Triton's onnxruntime backend, so that a Triton config means the same here.
//
// Supported `parameters` keys (string_value):
//   intra_op_thread_count   integer in [0, 1024]; 0: ONNX Runtime's default (one thread per core)
//   inter_op_thread_count   integer in [0, 1024]; only used with execution_mode 1
//   execution_mode          0 sequential (default), 1 parallel
//   enable_mem_arena        boolean ("1"/"0", "true"/"false", "on"/"off"): ONNX Runtime's CPU memory arena
//   session.intra_op.allow_spinning   boolean; hone's extension, ONNX Runtime's own key: idle intra-op threads
//                                     spin before sleeping (hone serve's default: off, see ServedSessionDefaults;
//                                     ONNX Runtime's and hone bench's: on). Triton ignores it.
//   session.force_spinning_stop       boolean; hone's extension, ONNX Runtime's own key: with spinning on, the
//                                     threads stop spinning when a run returns, so they spin only between a run's
//                                     operators (default off). Triton ignores it.
// Keys Triton's onnxruntime backend reads that hone does not act on (enable_mem_pattern,
// share_session_between_instances, memory.enable_memory_arena_shrinkage,
// session.use_device_allocator_for_initializers, and the CUDA ones) are Unimplemented, naming the key; any other
// key is InvalidArgument, naming it and listing the supported ones.
//
// optimization.graph.level, as Triton's onnxruntime backend maps it: 0 (or absent) all, -1 basic, 1 extended
// (basic and extended), 2 disabled. Other values are InvalidArgument (Triton silently uses "all").
#pragma once

#include <optional>
#include <string_view>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "runtime/session_options.h"

namespace hone::serve {

inline constexpr std::string_view kIntraOpThreadCount = "intra_op_thread_count";
inline constexpr std::string_view kInterOpThreadCount = "inter_op_thread_count";
inline constexpr std::string_view kExecutionMode = "execution_mode";
inline constexpr std::string_view kEnableMemArena = "enable_mem_arena";
inline constexpr std::string_view kAllowSpinning = "session.intra_op.allow_spinning";
inline constexpr std::string_view kForceSpinningStop = "session.force_spinning_stop";

// What a served session starts from before the config's parameters: SessionOptions' defaults, but with spinning
// off. A server's front-end threads, its other instances and often the clients need the cores that spinning pool
// threads hold; measured side by side on the bundled model (docs/serve.md), spinning off served more requests at
// every concurrency from 1 to 32 over HTTP and gRPC, and cut the p99 at concurrency 1 from ~4 ms (a spinning
// thread holding the core the pool's other thread needed, until the kernel's next tick) to ~0.25 ms.
runtime::SessionOptions ServedSessionDefaults();

// The session options the config asks for, starting from ServedSessionDefaults(). Errors name the parameter
// and what was expected: "parameter 'execution_mode': expected 0 (sequential) or 1 (parallel), got '2'".
Result<runtime::SessionOptions> SessionOptionsFromConfig(const inference::ModelConfig& config);

// optimization.graph.level -> GraphOptimization; nullopt for a level Triton's backend does not define.
std::optional<runtime::GraphOptimization> GraphOptimizationFromLevel(int32_t level);
// The inverse: kAll -> 0, kBasic -> -1, kExtended -> 1, kDisable -> 2.
int32_t GraphLevelFromOptimization(runtime::GraphOptimization level);

// "intra_op_thread_count, inter_op_thread_count, ...": the supported keys, for messages.
std::string_view SupportedParameterKeys();

}  // namespace hone::serve
