// The `model` object of a report envelope (report/report_envelope.h): what a report is about, in the same shape in
// every report, its inputs and outputs the objects `hone info` prints. It lives in onnx, not in report, because
// describing a model file reads its ONNX graph, and report sits below onnx (bench carries the system facts and may
// not use onnx).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "runtime/model_metadata.h"

namespace hone::onnx {

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

}  // namespace hone::onnx
