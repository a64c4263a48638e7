// Where a subcommand's report files go. `--json FILE` (and bench's `--csv FILE`) is written atomically (a temporary
// file renamed into place) and must not be one of the command's inputs; `-` means standard output, and then the
// text report the command prints goes to standard error, so that `hone bench m.onnx --json - | jq` works.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "report/report_envelope.h"

namespace hone::cli {

// The command line and start time of this run, for every report's envelope (set by main).
report::ReportContext& Invocation();

// Checks the report paths before any work: at most one may be "-", none may name an input (the model, the data).
// When one is "-", std::cout is sent to standard error from here on. InvalidArgument naming the flag.
Status RouteReports(const std::vector<std::pair<std::string, std::string>>& flag_and_path,
                    const std::vector<std::string>& inputs);

// For every output a command writes besides its reports (--save-outputs, --save-optimized): none may be one of
// the inputs or another's file. InvalidArgument naming the flag.
Status RefuseOverwritingInputs(const std::vector<std::pair<std::string, std::string>>& flag_and_path,
                               const std::vector<std::string>& inputs);

// Writes `text` to `path`: standard output for "-", else atomically.
Status WriteReport(const std::string& path, const std::string& text);

// MakeReport and WriteReport in one: the JSON dumped with two-space indents (invalid UTF-8 replaced).
Status WriteJsonReport(const std::string& path, std::string_view report, nlohmann::json model, nlohmann::json body);

}  // namespace hone::cli
