#include "cli/common_flags.h"

#include <fmt/format.h>

#include <optional>
#include <string_view>

namespace hone::cli {

void AddInputFlags(CLI::App& app, runtime::InputOptions& options, InputFlags& raw) {
  app.add_option("--data", options.data_path,
                 "inputs from a dataset: .npz with an array per input name, or .npy for a one-input model; without "
                 "it, inputs are generated from the model's metadata. When dimension 0 of every input is one batch "
                 "dimension (all dynamic with one name, or all fixed to one size), arrays have the input's rank and "
                 "hold samples along their first axis. Otherwise (a scalar input, a state tensor) inputs are whole "
                 "tensors: an array of the input's rank + 1 is per-sample (sample i is its row i), one of the "
                 "input's own rank is fixed, given once for every sample");
  app.add_option("--shape", raw.shapes,
                 "NAME:DIMS, e.g. input_ids:1x128: fixes an input's dynamic dimensions (full shape, or without the "
                 "batch dimension when the inputs share one); repeatable");
  app.add_option("--range", raw.ranges,
                 "NAME:LOW:HIGH: generated values for an input, uniform in [LOW, HIGH) (integer ids: 0:N); "
                 "repeatable; default floats [0,1), integers [0,100)");
  app.add_option("--seed", options.seed, "seed for generated inputs")->capture_default_str();
}

Status ApplyInputFlags(const InputFlags& raw, runtime::InputOptions& options) {
  for (const auto& s : raw.shapes) HONE_RETURN_IF_ERROR(runtime::ParseShapeFlag(s, options));
  for (const auto& r : raw.ranges) HONE_RETURN_IF_ERROR(runtime::ParseRangeFlag(r, options));
  return Status::Ok();
}

void AddRuntimeFlags(CLI::App& app, bench::RuntimeSweep& sweep, RuntimeFlags& raw, RuntimeFlagUse use) {
  // Lists are parsed everywhere, so that a list given to a single-run command gets an error that says so; only
  // bench's help offers them.
  const bool sweeps = use == RuntimeFlagUse::kSweep;
  const std::string list = sweeps ? "list to sweep; " : "";
  app.add_option("--intra-op-threads", sweep.intra_op_threads,
                 "threads inside one operator (" + list + "0: ONNX Runtime's default, one per physical core)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--inter-op-threads", sweep.inter_op_threads,
                 "threads across operators, with --execution-mode parallel (" + list + "0: default)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--execution-mode", raw.execution_modes,
                 "sequential|parallel (" + list + "default sequential)")
      ->delimiter(',');
  app.add_option("--graph-opt", raw.graph_optimizations, "disable|basic|extended|all (" + list + "default all)")
      ->delimiter(',');
  app.add_option("--spin", raw.spin, "on|off: idle pool threads spin before sleeping (" + list + "default on)")
      ->delimiter(',');
  app.add_option("--arena", raw.arena, "on|off: ONNX Runtime's CPU memory arena (" + list + "default on)")
      ->delimiter(',');
  app.add_option("--save-optimized", sweep.save_optimized_path,
                 std::string("write ONNX Runtime's optimized graph ") + (sweeps ? "(of the first configuration) " : "") +
                     "to this .onnx file");
}

namespace {

std::optional<bool> ParseOnOff(std::string_view text) {
  if (text == "on" || text == "1" || text == "true") return true;
  if (text == "off" || text == "0" || text == "false") return false;
  return std::nullopt;
}

// Replaces `out` with the parsed `texts` when any were given; the error names the flag and the choices.
template <typename T, typename Parse>
Status ParseList(const std::vector<std::string>& texts, const char* flag, const char* choices, Parse parse,
                 std::vector<T>& out) {
  if (texts.empty()) return Status::Ok();
  out.clear();
  for (const auto& text : texts) {
    auto value = parse(text);
    if (!value) return Status::InvalidArgument(std::string(flag) + " '" + text + "': expected " + choices);
    out.push_back(*value);
  }
  return Status::Ok();
}

}  // namespace

Status ApplyRuntimeFlags(const RuntimeFlags& raw, bench::RuntimeSweep& sweep) {
  HONE_RETURN_IF_ERROR(ParseList(raw.execution_modes, "--execution-mode", "sequential or parallel",
                                 runtime::ParseExecutionMode, sweep.execution_modes));
  HONE_RETURN_IF_ERROR(ParseList(raw.graph_optimizations, "--graph-opt", "disable, basic, extended or all",
                                 runtime::ParseGraphOptimization, sweep.graph_optimizations));
  HONE_RETURN_IF_ERROR(ParseList(raw.spin, "--spin", "on or off", ParseOnOff, sweep.spinning));
  HONE_RETURN_IF_ERROR(ParseList(raw.arena, "--arena", "on or off", ParseOnOff, sweep.arena));
  return Status::Ok();
}

Result<runtime::SessionOptions> SingleSession(const bench::RuntimeSweep& sweep, std::string_view command) {
  std::vector<runtime::SessionOptions> all = sweep.Expand();
  if (all.size() != 1)
    return Status::InvalidArgument(fmt::format(
        "runtime flags describe {} configurations: {} runs one, so give one value per flag", all.size(), command));
  HONE_RETURN_IF_ERROR(all[0].Validate());
  return all[0];
}

}  // namespace hone::cli
