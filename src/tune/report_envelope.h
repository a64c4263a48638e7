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
#include "bench/system_info.h"
#include "runtime/model_metadata.h"

namespace hone::tune {

inline constexpr int kReportSchemaVersion = 1;

// Who asked for a report, and when: set once by the command line.
struct ReportContext {
  std::vector<std::string> argv;
  std::chrono::system_clock::time_point started_at = std::chrono::system_clock::now();
};

// A model file: {path, file_bytes, sha256, inputs, outputs}, the inputs and outputs read from the ONNX graph (as
// `hone info` gives them). A file that is not ONNX (saved outputs, .npz) gets {path, file_bytes, sha256} and
// "inputs"/"outputs" null. NotFound when the file cannot be read.
Result<nlohmann::json> ModelFileJson(const std::string& path);

// A model on a server: {name, url, protocol, inputs, outputs} from the server's metadata; path and sha256 null.
nlohmann::json ServedModelJson(const std::string& name, const std::string& url, const std::string& protocol,
                               const runtime::ModelMetadata& metadata);

// [{name, datatype, onnx_type, shape}], shape as in `hone info`: a number for a fixed dimension, the symbol for a
// named dynamic one, null for an unnamed dynamic one.
nlohmann::json IoSpecsJson(const std::vector<runtime::IoSpec>& specs);

// {cpu_model, logical_cores, cpu_features, memory_bytes, kernel, hostname, onnxruntime_version, hone_version,
// compiler}
nlohmann::json SystemJson(const bench::SystemInfo& system);

// The envelope around `body`, stored under the key `report` ("bench"); the system read now; non-finite numbers
// anywhere in it replaced as described above.
nlohmann::json MakeReport(std::string_view report, const ReportContext& context, nlohmann::json model,
                          nlohmann::json body);

// Replaces every NaN and Inf in `j` by null and records which it was in a sibling "<key>_non_finite" (for an
// array, an array of the same length with null where the number was finite).
void NullNonFinite(nlohmann::json& j);


}  // namespace hone::tune
