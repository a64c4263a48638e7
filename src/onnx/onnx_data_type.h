// ONNX element types (TensorProto.DataType, by the number the protobuf stores) as hone sees them.
// Numbers, not the generated enum, because models from newer ONNX releases carry types (float8, int4, ...) that
// the libonnx 1.12 schema we compile against does not name; those must still be described, not rejected.
#pragma once

#include <cstdint>
#include <string>

#include "tensor/data_type.h"

namespace hone::onnx {

// The hone type for an ONNX element type; kInvalid for types hone has no name for (complex, float8, int4, ...).
DataType DataTypeFromOnnx(int32_t onnx_type);
// ONNX's own lowercase name: "float", "float16", "bfloat16", "float8e4m3fn", "int4", ...; "type_<n>" when unknown.
std::string OnnxTypeName(int32_t onnx_type);
// Bits per element (4 for int4/uint4/float4e2m1, 64 for complex64); 0 for string, undefined and unknown types.
int OnnxElementBits(int32_t onnx_type);

}  // namespace hone::onnx
