#include "onnx/onnx_data_type.h"

#include <array>
#include <string_view>

namespace hone::onnx {
namespace {

struct OnnxType {
  int32_t number;
  std::string_view name;
  DataType type;
  int bits;
};

// From onnx.proto (TensorProto.DataType); 17 and up were added after ONNX 1.12.
constexpr std::array<OnnxType, 25> kOnnxTypes = {{
    {0, "undefined", DataType::kInvalid, 0},
    {1, "float", DataType::kFp32, 32},
    {2, "uint8", DataType::kUint8, 8},
    {3, "int8", DataType::kInt8, 8},
    {4, "uint16", DataType::kUint16, 16},
    {5, "int16", DataType::kInt16, 16},
    {6, "int32", DataType::kInt32, 32},
    {7, "int64", DataType::kInt64, 64},
    {8, "string", DataType::kBytes, 0},
    {9, "bool", DataType::kBool, 8},
    {10, "float16", DataType::kFp16, 16},
    {11, "double", DataType::kFp64, 64},
    {12, "uint32", DataType::kUint32, 32},
    {13, "uint64", DataType::kUint64, 64},
    {14, "complex64", DataType::kInvalid, 64},
    {15, "complex128", DataType::kInvalid, 128},
    {16, "bfloat16", DataType::kBf16, 16},
    {17, "float8e4m3fn", DataType::kInvalid, 8},
    {18, "float8e4m3fnuz", DataType::kInvalid, 8},
    {19, "float8e5m2", DataType::kInvalid, 8},
    {20, "float8e5m2fnuz", DataType::kInvalid, 8},
    {21, "uint4", DataType::kInvalid, 4},
    {22, "int4", DataType::kInvalid, 4},
    {23, "float4e2m1", DataType::kInvalid, 4},
    {24, "float8e8m0", DataType::kInvalid, 8},
}};

const OnnxType* Find(int32_t number) {
  // The table is indexed by number; the check keeps it honest if someone reorders it.
  if (number < 0 || number >= static_cast<int32_t>(kOnnxTypes.size())) return nullptr;
  const OnnxType& t = kOnnxTypes[number];
  return t.number == number ? &t : nullptr;
}

}  // namespace

DataType DataTypeFromOnnx(int32_t onnx_type) {
  const OnnxType* t = Find(onnx_type);
  return t ? t->type : DataType::kInvalid;
}

std::string OnnxTypeName(int32_t onnx_type) {
  const OnnxType* t = Find(onnx_type);
  return t ? std::string(t->name) : "type_" + std::to_string(onnx_type);
}

int OnnxElementBits(int32_t onnx_type) {
  const OnnxType* t = Find(onnx_type);
  return t ? t->bits : 0;
}

}  // namespace hone::onnx
