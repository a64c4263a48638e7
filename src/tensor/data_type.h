// Element types, named as KServe v2 names them (BOOL, UINT8, ..., FP16, BF16, FP32, FP64, BYTES).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hone {

enum class DataType {
  kInvalid,
  kBool,
  kUint8,
  kUint16,
  kUint32,
  kUint64,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFp16,
  kBf16,
  kFp32,
  kFp64,
  kBytes,  // variable-length elements; no fixed size
};

// "FP32", "INT64", ...; "INVALID" for kInvalid.
std::string_view DataTypeName(DataType type);
// Inverse of DataTypeName, case-sensitive as the protocol is; nullopt for an unknown name.
std::optional<DataType> ParseDataType(std::string_view name);
// Bytes per element; 0 for kBytes and kInvalid.
size_t ElementSize(DataType type);
bool IsFloatingPoint(DataType type);
bool IsInteger(DataType type);

// The C++ element type for a DataType, for typed views. FP16/BF16 are raw 16-bit words.
template <typename T> constexpr DataType DataTypeOf();
template <> constexpr DataType DataTypeOf<bool>() { return DataType::kBool; }
template <> constexpr DataType DataTypeOf<uint8_t>() { return DataType::kUint8; }
template <> constexpr DataType DataTypeOf<uint16_t>() { return DataType::kUint16; }
template <> constexpr DataType DataTypeOf<uint32_t>() { return DataType::kUint32; }
template <> constexpr DataType DataTypeOf<uint64_t>() { return DataType::kUint64; }
template <> constexpr DataType DataTypeOf<int8_t>() { return DataType::kInt8; }
template <> constexpr DataType DataTypeOf<int16_t>() { return DataType::kInt16; }
template <> constexpr DataType DataTypeOf<int32_t>() { return DataType::kInt32; }
template <> constexpr DataType DataTypeOf<int64_t>() { return DataType::kInt64; }
template <> constexpr DataType DataTypeOf<float>() { return DataType::kFp32; }
template <> constexpr DataType DataTypeOf<double>() { return DataType::kFp64; }

}  // namespace hone
