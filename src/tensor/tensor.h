// A tensor: element type, concrete shape and a contiguous row-major buffer that is either owned (shared, so copies
// are cheap and share the bytes) or borrowed (a view over memory someone else keeps alive, such as a received
// request body or a dataset). Reading one from several threads is safe; writing is not.
//
// BYTES tensors (strings, encoded images) keep their elements in the KServe binary layout: each element is a 4-byte
// little-endian length followed by that many bytes, back to back, in row-major order. That is what the binary
// tensor extension and gRPC's raw contents carry, so a received BYTES tensor is a view like any other, and a batch
// of them is the requests' buffers one after another. Borrow and Share check the layout against the shape.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tensor/data_type.h"
#include "tensor/shape.h"

namespace hone {

class Tensor {
 public:
  Tensor() = default;

  // A zero-filled tensor that owns its buffer. Errors on a negative dimension, BYTES or an absurd size.
  static Result<Tensor> Allocate(DataType type, Shape shape);
  // A BYTES tensor that owns a copy of `elements` (one per element of `shape`, row-major; checked).
  static Result<Tensor> FromStrings(Shape shape, std::span<const std::string_view> elements);
  // A view over `data`, which must stay alive and hold exactly the shape's bytes (checked; for BYTES: exactly the
  // shape's element count of length-prefixed elements).
  static Result<Tensor> Borrow(DataType type, Shape shape, void* data, size_t byte_size);
  // A view over `data` that keeps `owner` alive as long as any copy of the tensor lives (zero-copy adoption of
  // a buffer someone else allocated, such as an ONNX Runtime output).
  static Result<Tensor> Share(DataType type, Shape shape, std::shared_ptr<void> owner, void* data,
                              size_t byte_size);

  DataType type() const { return type_; }
  const Shape& shape() const { return shape_; }
  int64_t element_count() const { return elements_; }
  size_t byte_size() const { return bytes_; }
  bool owns_data() const { return owner_ != nullptr; }
  bool empty() const { return type_ == DataType::kInvalid; }

  const std::byte* data() const { return data_; }
  std::byte* mutable_data() { return data_; }

  // Typed views; the caller names the right C++ type (checked in debug builds).
  template <typename T> std::span<const T> values() const {
    return {reinterpret_cast<const T*>(data_), static_cast<size_t>(elements_)};
  }
  template <typename T> std::span<T> mutable_values() {
    return {reinterpret_cast<T*>(data_), static_cast<size_t>(elements_)};
  }

  // The elements of a BYTES tensor, row-major, as views into its buffer (empty for other types).
  std::vector<std::string_view> bytes_elements() const;

  // Rows [begin, begin + count) along the first axis, as a view sharing this tensor's buffer (and ownership).
  Result<Tensor> SliceRows(int64_t begin, int64_t count) const;
  // A deep copy that owns its buffer.
  Tensor Clone() const;

 private:
  DataType type_ = DataType::kInvalid;
  Shape shape_;
  int64_t elements_ = 0;
  size_t bytes_ = 0;
  std::shared_ptr<std::byte[]> owner_;  // null for a borrowed view
  std::byte* data_ = nullptr;
};

}  // namespace hone
