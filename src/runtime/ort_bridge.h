// The one place where ONNX Runtime's vocabulary becomes hone's: errors and element types. Only runtime/*.cc
// include this (it pulls in ONNX Runtime's headers); the rest of hone never sees an Ort:: type.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <string_view>

#include "base/status.h"
#include "tensor/data_type.h"

namespace hone::runtime {

// ONNX Runtime error -> hone Status, prefixed with `context` (e.g. "model 'm.onnx'").
Status FromOrtError(OrtErrorCode code, std::string_view message, std::string_view context);
inline Status FromOrtException(const Ort::Exception& e, std::string_view context) {
  return FromOrtError(e.GetOrtErrorCode(), e.what(), context);
}

// kInvalid for element types hone has no name for.
DataType FromOrtElementType(ONNXTensorElementDataType type);
// ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED for kInvalid.
ONNXTensorElementDataType ToOrtElementType(DataType type);
// "float", "int64", "string"...: for messages about types hone does not handle.
std::string_view OrtElementTypeName(ONNXTensorElementDataType type);

// The process-wide ONNX Runtime environment (ONNX Runtime wants exactly one). Created on first use, never destroyed
// (sessions may outlive static destructors).
Ort::Env& Environment();

}  // namespace hone::runtime
