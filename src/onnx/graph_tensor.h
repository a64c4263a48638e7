// Reading and making ONNX TensorProtos (initializers) for the graph rewrites: float weights in, quantized or
// low-precision tensors out. Data is always written as raw_data (little-endian, as the format requires); it is read
// from raw_data or the typed repeated fields, whichever the producer used. External data must be inlined first
// (graph_io.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"

namespace onnx {
class TensorProto;
}  // namespace onnx

namespace hone::onnx {

// The number of elements the tensor's dims declare; InvalidArgument naming the tensor for a negative dim or overflow.
Result<int64_t> TensorElementCount(const ::onnx::TensorProto& tensor);

// The values of a FLOAT tensor. InvalidArgument naming the tensor when it is not FLOAT, keeps its data externally,
// or holds fewer or more values than its dims declare.
Result<std::vector<float>> ReadFloatTensor(const ::onnx::TensorProto& tensor);

// The values of an INT64 tensor (shapes, axes, indices), under the same rules as ReadFloatTensor.
Result<std::vector<int64_t>> ReadInt64Tensor(const ::onnx::TensorProto& tensor);

// A tensor of `onnx_type` (TensorProto::DataType's number) with these dims and raw little-endian bytes, which must
// match the dims (the caller's contract; checked by the ONNX checker).
::onnx::TensorProto MakeRawTensor(const std::string& name, int32_t onnx_type, const std::vector<int64_t>& dims,
                                  std::string raw);

::onnx::TensorProto MakeFloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                                    std::span<const float> values);
::onnx::TensorProto MakeInt32Tensor(const std::string& name, const std::vector<int64_t>& dims,
                                    std::span<const int32_t> values);
::onnx::TensorProto MakeInt64Tensor(const std::string& name, const std::vector<int64_t>& dims,
                                    std::span<const int64_t> values);
// INT8 (`is_signed`) or UINT8 from values already in range.
::onnx::TensorProto MakeByteTensor(const std::string& name, const std::vector<int64_t>& dims,
                                   std::span<const int32_t> values, bool is_signed);

// IEEE half precision and bfloat16, rounding to nearest even (NaN stays NaN; overflow becomes infinity).
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t bits);
uint16_t FloatToBfloat16(float value);
float Bfloat16ToFloat(uint16_t bits);

// A FLOAT16 (`bf16` false) or BFLOAT16 tensor from float values.
::onnx::TensorProto MakeLowPrecisionTensor(const std::string& name, const std::vector<int64_t>& dims,
                                           std::span<const float> values, bool bf16);

}  // namespace hone::onnx
