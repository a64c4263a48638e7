// Flags that mean the same in every subcommand that runs a model: where inputs come from (--data, --shape,
// --range, --seed) and how ONNX Runtime runs (--intra-op-threads ... --arena). Each runtime knob takes a
// comma-separated list, which bench sweeps; single-run commands use the first value.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "bench/settings.h"
#include "runtime/input_options.h"

namespace hone::cli {

struct InputFlags {
  std::vector<std::string> shapes;
  std::vector<std::string> ranges;
};

struct RuntimeFlags {
  std::vector<std::string> execution_modes;
  std::vector<std::string> graph_optimizations;
  std::vector<std::string> spin;
  std::vector<std::string> arena;
};

void AddInputFlags(CLI::App& app, runtime::InputOptions& options, InputFlags& raw);
// Turns the --shape/--range texts into options; InvalidArgument naming the flag.
Status ApplyInputFlags(const InputFlags& raw, runtime::InputOptions& options);

// bench sweeps lists of runtime settings; compare and evaluate run one configuration.
enum class RuntimeFlagUse { kSweep, kSingleRun };
void AddRuntimeFlags(CLI::App& app, bench::RuntimeSweep& sweep, RuntimeFlags& raw, RuntimeFlagUse use);
Status ApplyRuntimeFlags(const RuntimeFlags& raw, bench::RuntimeSweep& sweep);
// The one session configuration the runtime flags describe, validated, for a command that runs one (`command`
// names it in the error when the flags list several).
Result<runtime::SessionOptions> SingleSession(const bench::RuntimeSweep& sweep, std::string_view command);

}  // namespace hone::cli
