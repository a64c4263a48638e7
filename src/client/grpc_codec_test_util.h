// For the gRPC codec tests, the client's here and the server's in serve/grpc: every fixed-size data type, tensors
// whose bytes are valid in each of them, and a tensor's bytes as a string to compare.
#pragma once

#include <string>
#include <vector>

#include "tensor/npz.h"  // NamedTensor
#include "tensor/tensor.h"

namespace hone::client::test {

inline constexpr DataType kFixedTypes[] = {DataType::kBool,  DataType::kUint8, DataType::kUint16, DataType::kUint32,
                                           DataType::kUint64, DataType::kInt8, DataType::kInt16,  DataType::kInt32,
                                           DataType::kInt64, DataType::kFp16,  DataType::kBf16,   DataType::kFp32,
                                           DataType::kFp64};

inline std::string Bytes(const Tensor& t) {
  return std::string(reinterpret_cast<const char*>(t.data()), t.byte_size());
}

// A tensor of `type` whose elements are 0, 1, 0, 1... (valid for every type, BOOL included).
inline Tensor Alternating(DataType type, Shape shape) {
  Tensor t = *Tensor::Allocate(type, std::move(shape));
  for (size_t i = 0, k = 0; i < t.byte_size(); i += ElementSize(type), ++k)
    t.mutable_data()[i] = std::byte{static_cast<unsigned char>(k % 2)};
  return t;
}

// One 2x3 tensor of each fixed-size type, named after it ("t_FP32").
inline std::vector<NamedTensor> EveryType() {
  std::vector<NamedTensor> tensors;
  for (DataType type : kFixedTypes)
    tensors.push_back({"t_" + std::string(DataTypeName(type)), Alternating(type, {2, 3})});
  return tensors;
}

}  // namespace hone::client::test
