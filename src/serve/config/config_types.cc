#include "serve/config/config_types.h"

namespace hone::serve {

DataType FromConfigDataType(inference::DataType type) {
  switch (type) {
    case inference::TYPE_BOOL: return DataType::kBool;
    case inference::TYPE_UINT8: return DataType::kUint8;
    case inference::TYPE_UINT16: return DataType::kUint16;
    case inference::TYPE_UINT32: return DataType::kUint32;
    case inference::TYPE_UINT64: return DataType::kUint64;
    case inference::TYPE_INT8: return DataType::kInt8;
    case inference::TYPE_INT16: return DataType::kInt16;
    case inference::TYPE_INT32: return DataType::kInt32;
    case inference::TYPE_INT64: return DataType::kInt64;
    case inference::TYPE_FP16: return DataType::kFp16;
    case inference::TYPE_FP32: return DataType::kFp32;
    case inference::TYPE_FP64: return DataType::kFp64;
    case inference::TYPE_STRING: return DataType::kBytes;
    case inference::TYPE_BF16: return DataType::kBf16;
    default: return DataType::kInvalid;
  }
}

inference::DataType ToConfigDataType(DataType type) {
  switch (type) {
    case DataType::kInvalid: return inference::TYPE_INVALID;
    case DataType::kBool: return inference::TYPE_BOOL;
    case DataType::kUint8: return inference::TYPE_UINT8;
    case DataType::kUint16: return inference::TYPE_UINT16;
    case DataType::kUint32: return inference::TYPE_UINT32;
    case DataType::kUint64: return inference::TYPE_UINT64;
    case DataType::kInt8: return inference::TYPE_INT8;
    case DataType::kInt16: return inference::TYPE_INT16;
    case DataType::kInt32: return inference::TYPE_INT32;
    case DataType::kInt64: return inference::TYPE_INT64;
    case DataType::kFp16: return inference::TYPE_FP16;
    case DataType::kBf16: return inference::TYPE_BF16;
    case DataType::kFp32: return inference::TYPE_FP32;
    case DataType::kFp64: return inference::TYPE_FP64;
    case DataType::kBytes: return inference::TYPE_STRING;
  }
  return inference::TYPE_INVALID;
}

std::string ConfigDataTypeName(inference::DataType type) {
  if (inference::DataType_IsValid(type)) return inference::DataType_Name(type);
  return "TYPE_" + std::to_string(static_cast<int>(type));
}

std::string DimsToString(const Shape& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

Shape ModelSideShape(const inference::ModelInput& input) {
  return input.has_reshape() ? ToShape(input.reshape().shape()) : ToShape(input.dims());
}

Shape ModelSideShape(const inference::ModelOutput& output) {
  return output.has_reshape() ? ToShape(output.reshape().shape()) : ToShape(output.dims());
}

}  // namespace hone::serve
