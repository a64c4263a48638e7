// A tensor: element type, concrete shape and a contiguous row-major buffer that is either owned (shared, so copies
// are cheap and share the bytes) or borrowed (a view over memory someone else keeps alive, such as a received
// request body or a dataset). Not for BYTES tensors. Reading one from several threads is safe; writing is not.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "base/result.h"
#include "tensor/data_type.h"
#include "tensor/shape.h"

namespace hone {

class Tensor {
 public:
  Tensor() = default;

  // A zero-filled tensor that owns its buffer. Errors on a negative dimension, BYTES or an absurd size.
  static Result<Tensor> Allocate(DataType type, Shape shape);
  // A view over `data`, which must stay alive and hold exactly the shape's bytes (checked).
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
