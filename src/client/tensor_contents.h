// One tensor's data as the KServe v2 gRPC protocol carries it, either as raw bytes (raw_input_contents) or as a
// typed repeated field (InferTensorContents), turned into a hone Tensor and back. Errors are InvalidArgument and
// name the tensor: "input 'x': expected 16 bytes for FP32 shape 1x4, got 12".
//
// Which contents field carries which datatype (Triton's rule): BOOL bool_contents; INT8, INT16, INT32
// int_contents; INT64 int64_contents; UINT8, UINT16, UINT32 uint_contents; UINT64 uint64_contents; FP32
// fp32_contents; FP64 fp64_contents; BYTES bytes_contents. FP16 and BF16 travel only as raw bytes.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "client/grpc_service.pb.h"
#include "tensor/tensor.h"

namespace hone::client {

// "fp32_contents" for FP32 and so on; "" for FP16, BF16 and INVALID, which no contents field carries.
std::string_view ContentsFieldFor(DataType type);

// The bytes a tensor of `type` and `shape` holds; InvalidArgument naming `what` ("input 'x'") for a negative
// dimension, an element count that overflows, or BYTES / INVALID (no fixed element size).
Result<size_t> ExpectedByteSize(std::string_view what, DataType type, const Shape& shape);

// A tensor over `raw`, which must hold exactly the shape's bytes, without copying: the tensor borrows `raw`, so
// whoever calls this keeps `raw` alive as long as the tensor is used. (A buffer that is not aligned for the element
// type, which protobuf does not promise, is copied instead so that typed reads stay defined.) BOOL bytes must be 0
// or 1. BYTES raw contents are the length-prefixed layout (each element a 4-byte little-endian length, then its
// bytes), checked element by element against the shape and borrowed like the rest.
Result<Tensor> TensorFromRaw(std::string_view what, DataType type, Shape shape, std::string_view raw);

// A tensor from the typed field that carries `type`, which must hold exactly the shape's element count; every other
// field must be empty. INT32, INT64, UINT32, UINT64, FP32, FP64 and BOOL borrow the field's storage (keep
// `contents` alive as for TensorFromRaw); INT8, INT16, UINT8 and UINT16 are narrowed into an owned tensor, and a
// value out of the type's range is an error naming its index.
Result<Tensor> TensorFromContents(std::string_view what, DataType type, Shape shape,
                                  const inference::InferTensorContents& contents);

// The other way: `tensor`'s elements into the field that carries its type (cleared first). InvalidArgument for
// FP16 and BF16, which have no field.
Status TensorToContents(std::string_view what, const Tensor& tensor, inference::InferTensorContents* contents);

}  // namespace hone::client
