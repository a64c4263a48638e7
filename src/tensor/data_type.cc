#include "tensor/data_type.h"

#include <array>
#include <utility>

namespace hone {
namespace {

struct TypeInfo {
  DataType type;
  std::string_view name;
  size_t size;
};

constexpr std::array<TypeInfo, 14> kTypes = {{
    {DataType::kBool, "BOOL", 1},   {DataType::kUint8, "UINT8", 1},   {DataType::kUint16, "UINT16", 2},
    {DataType::kUint32, "UINT32", 4}, {DataType::kUint64, "UINT64", 8}, {DataType::kInt8, "INT8", 1},
    {DataType::kInt16, "INT16", 2}, {DataType::kInt32, "INT32", 4},   {DataType::kInt64, "INT64", 8},
    {DataType::kFp16, "FP16", 2},   {DataType::kBf16, "BF16", 2},     {DataType::kFp32, "FP32", 4},
    {DataType::kFp64, "FP64", 8},   {DataType::kBytes, "BYTES", 0},
}};

const TypeInfo* Find(DataType type) {
  for (const auto& t : kTypes)
    if (t.type == type) return &t;
  return nullptr;
}

}  // namespace

std::string_view DataTypeName(DataType type) {
  const TypeInfo* t = Find(type);
  return t ? t->name : "INVALID";
}

std::optional<DataType> ParseDataType(std::string_view name) {
  for (const auto& t : kTypes)
    if (t.name == name) return t.type;
  return std::nullopt;
}

size_t ElementSize(DataType type) {
  const TypeInfo* t = Find(type);
  return t ? t->size : 0;
}

bool IsFloatingPoint(DataType type) {
  return type == DataType::kFp16 || type == DataType::kBf16 || type == DataType::kFp32 || type == DataType::kFp64;
}

bool IsInteger(DataType type) {
  switch (type) {
    case DataType::kUint8: case DataType::kUint16: case DataType::kUint32: case DataType::kUint64:
    case DataType::kInt8: case DataType::kInt16: case DataType::kInt32: case DataType::kInt64:
      return true;
    default:
      return false;
  }
}

}  // namespace hone
