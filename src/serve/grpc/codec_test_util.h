// For the codec tests of this folder: every fixed-size data type, and a tensor's bytes as a string to compare.
#pragma once

#include <string>

#include "tensor/tensor.h"

namespace hone::serve::grpc_front::test {

inline constexpr DataType kFixedTypes[] = {DataType::kBool,  DataType::kUint8, DataType::kUint16, DataType::kUint32,
                                           DataType::kUint64, DataType::kInt8, DataType::kInt16,  DataType::kInt32,
                                           DataType::kInt64, DataType::kFp16,  DataType::kBf16,   DataType::kFp32,
                                           DataType::kFp64};

inline std::string Bytes(const Tensor& t) {
  return std::string(reinterpret_cast<const char*>(t.data()), t.byte_size());
}

}  // namespace hone::serve::grpc_front::test
