// The one contract every hone report file keeps (`--json FILE|-` of info, bench, compare, evaluate, quantize,
// convert, and tune): an envelope that says who wrote it, when, from which command line, on which machine and about
// which model, around the subcommand's own body. The same fact has the same shape in every report: a model's
// inputs are the objects `hone info` prints, the machine is one `system` object. JSON has no NaN or Inf, so a
// non-finite number is written as null with a sibling "<key>_non_finite" saying "nan", "inf" or "-inf".
// The schemas are in schemas/ (envelope.schema.json and one per report); tests validate every report against them.
//
//   {"tool": "hone", "schema_version": 1, "report": "bench", "started_at": "2026-12-03T17:32:31Z",
//    "finished_at": ..., "command": ["hone", "bench", ...], "system": {...}, "model": {...}, "bench": {...}}
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "report/system_info.h"

namespace hone::report {

inline constexpr int kReportSchemaVersion = 1;

// Who asked for a report, and when: set once by the command line.
struct ReportContext {
  std::vector<std::string> argv;
  std::chrono::system_clock::time_point started_at = std::chrono::system_clock::now();
};

// The `model` object (a model file, or a model on a server, with inputs and outputs as `hone info` gives them) is
// built by onnx/model_json.h: describing a model file reads its ONNX graph, and report sits below onnx so that
// bench, which may not use onnx, can carry the system facts.

// {cpu_model, logical_cores, cpu_features, memory_bytes, kernel, hostname, onnxruntime_version, hone_version,
// compiler}
nlohmann::json SystemJson(const SystemInfo& system);

// The envelope around `body`, stored under the key `report` ("bench"); the system read now; non-finite numbers
// anywhere in it replaced as described above.
nlohmann::json MakeReport(std::string_view report, const ReportContext& context, nlohmann::json model,
                          nlohmann::json body);

// Replaces every NaN and Inf in `j` by null and records which it was in a sibling "<key>_non_finite" (for an
// array, an array of the same length with null where the number was finite).
void NullNonFinite(nlohmann::json& j);


}  // namespace hone::report
