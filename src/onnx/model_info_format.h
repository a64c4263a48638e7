// ModelInfo for people (`hone info`) and for programs (`hone info --json`).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "onnx/model_info.h"

namespace hone::onnx {

// Keys: path, file_bytes, ir_version, producer_name, producer_version, domain, doc_string, model_version,
// opsets [{domain, version}], inputs and outputs [{name, datatype (KServe name, null when hone has none),
// onnx_type, shape (array of int for fixed, string for named, null for unnamed dynamic; null when unknown rank)}],
// node_count, operators [{op, count}] in ModelInfo order, parameter_count, parameter_bytes, initializer_count,
// uses_external_data, metadata {key: value}.
nlohmann::json ModelInfoToJson(const ModelInfo& info);

// The inputs or outputs part of it: [{name, datatype, onnx_type, shape}].
nlohmann::json TensorInfosToJson(const std::vector<TensorInfo>& tensors);

// A report: file and size, producer, IR version, opsets, parameters, nodes, an inputs and an outputs table (name,
// type, shape), the most frequent operators (top 15), and metadata. Every number has a unit. Ends with a newline.
std::string ModelInfoToText(const ModelInfo& info);


}  // namespace hone::onnx
