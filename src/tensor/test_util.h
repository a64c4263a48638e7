// Helpers shared by this folder's tests (header-only; not part of the library).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace hone::testing_util {

// Every dtype that .npy can hold.
inline const std::vector<DataType>& NpyTypes() {
  static const std::vector<DataType> types = {
      DataType::kBool,  DataType::kUint8, DataType::kUint16, DataType::kUint32, DataType::kUint64, DataType::kInt8,
      DataType::kInt16, DataType::kInt32, DataType::kInt64,  DataType::kFp16,   DataType::kFp32,   DataType::kFp64};
  return types;
}

// A tensor whose bytes differ from position to position (and are 0/1 for BOOL), so byte order and layout
// mistakes show up when comparing.
inline Tensor Patterned(DataType type, Shape shape) {
  Tensor t = *Tensor::Allocate(type, std::move(shape));
  std::byte* p = t.mutable_data();
  for (size_t i = 0; i < t.byte_size(); ++i)
    p[i] = type == DataType::kBool ? std::byte(i % 3 == 0) : std::byte((i * 37 + 11) & 0xFF);
  return t;
}

inline bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.type() == b.type() && a.shape() == b.shape() && a.byte_size() == b.byte_size() &&
         (a.byte_size() == 0 || std::memcmp(a.data(), b.data(), a.byte_size()) == 0);
}

inline std::span<const std::byte> AsBytes(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }

inline std::string Fixture(std::string_view name) {
  return std::string(HONE_SOURCE_DIR) + "/src/tensor/testdata/" + std::string(name);
}

inline std::string TempPath(std::string_view name) {
  return ::testing::TempDir() + "hone_tensor_" + std::to_string(::getpid()) + "_" + std::string(name);
}

}  // namespace hone::testing_util
