#include "runtime/ort_bridge.h"

#include <string>

namespace hone::runtime {

Status FromOrtError(OrtErrorCode code, std::string_view message, std::string_view context) {
  StatusCode hone_code;
  switch (code) {
    case ORT_OK: return Status::Ok();
    case ORT_INVALID_ARGUMENT:
    case ORT_INVALID_PROTOBUF:
    case ORT_INVALID_GRAPH: hone_code = StatusCode::kInvalidArgument; break;
    case ORT_NO_SUCHFILE:
    case ORT_NO_MODEL: hone_code = StatusCode::kNotFound; break;
    case ORT_NOT_IMPLEMENTED: hone_code = StatusCode::kUnimplemented; break;
    case ORT_MODEL_LOADED: hone_code = StatusCode::kFailedPrecondition; break;
    default: hone_code = StatusCode::kInternal; break;  // ORT_FAIL, ORT_ENGINE_ERROR, ORT_RUNTIME_EXCEPTION, EP
  }
  std::string m(context);
  if (!m.empty()) m += ": ";
  m += message;
  return {hone_code, std::move(m)};
}

DataType FromOrtElementType(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL: return DataType::kBool;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8: return DataType::kUint8;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16: return DataType::kUint16;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: return DataType::kUint32;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64: return DataType::kUint64;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8: return DataType::kInt8;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16: return DataType::kInt16;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return DataType::kInt32;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return DataType::kInt64;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: return DataType::kFp16;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return DataType::kBf16;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return DataType::kFp32;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: return DataType::kFp64;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING: return DataType::kBytes;
    default: return DataType::kInvalid;
  }
}

ONNXTensorElementDataType ToOrtElementType(DataType type) {
  switch (type) {
    case DataType::kBool: return ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL;
    case DataType::kUint8: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
    case DataType::kUint16: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16;
    case DataType::kUint32: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32;
    case DataType::kUint64: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64;
    case DataType::kInt8: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
    case DataType::kInt16: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16;
    case DataType::kInt32: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
    case DataType::kInt64: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
    case DataType::kFp16: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
    case DataType::kBf16: return ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16;
    case DataType::kFp32: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    case DataType::kFp64: return ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE;
    case DataType::kBytes: return ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING;
    default: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  }
}

std::string_view OrtElementTypeName(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return "float";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8: return "uint8";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8: return "int8";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16: return "uint16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16: return "int16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return "int32";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return "int64";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING: return "string";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL: return "bool";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: return "float16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: return "double";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: return "uint32";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64: return "uint64";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64: return "complex64";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128: return "complex128";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return "bfloat16";
    default: return "an element type hone does not know";
  }
}

Ort::Env& Environment() {
  // Leaked on purpose: ONNX Runtime's global state must outlive every session, including static ones.
  static Ort::Env* env = new Ort::Env(ORT_LOGGING_LEVEL_WARNING, "hone");
  return *env;
}

}  // namespace hone::runtime
