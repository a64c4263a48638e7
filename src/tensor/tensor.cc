#include "tensor/tensor.h"

#include <cstring>
#include <string>

namespace hone {
namespace {

// Larger than any tensor a single host should hold; stops a corrupt header from asking for exabytes.
constexpr size_t kMaxTensorBytes = size_t{1} << 40;

Result<size_t> ByteSize(DataType type, const Shape& shape) {
  if (type == DataType::kBytes || type == DataType::kInvalid)
    return Status::InvalidArgument("tensor of " + std::string(DataTypeName(type)) + ": expected a fixed-size type");
  auto n = ElementCount(shape);
  if (!n) return Status::InvalidArgument("shape " + ShapeToString(shape) + ": expected non-negative dimensions");
  size_t elem = ElementSize(type);
  if (static_cast<size_t>(*n) > kMaxTensorBytes / elem)
    return Status::ResourceExhausted("shape " + ShapeToString(shape) + " of " + std::string(DataTypeName(type)) +
                                     ": larger than 1 TiB");
  return static_cast<size_t>(*n) * elem;
}

}  // namespace

Result<Tensor> Tensor::Allocate(DataType type, Shape shape) {
  HONE_ASSIGN_OR_RETURN(size_t bytes, ByteSize(type, shape));
  Tensor t;
  t.type_ = type;
  t.elements_ = *ElementCount(shape);
  t.shape_ = std::move(shape);
  t.bytes_ = bytes;
  t.owner_ = std::shared_ptr<std::byte[]>(new std::byte[bytes == 0 ? 1 : bytes]());
  t.data_ = t.owner_.get();
  return t;
}

Result<Tensor> Tensor::Borrow(DataType type, Shape shape, void* data, size_t byte_size) {
  HONE_ASSIGN_OR_RETURN(size_t bytes, ByteSize(type, shape));
  if (bytes != byte_size)
    return Status::InvalidArgument("shape " + ShapeToString(shape) + " of " + std::string(DataTypeName(type)) +
                                   ": expected " + std::to_string(bytes) + " bytes, got " +
                                   std::to_string(byte_size));
  Tensor t;
  t.type_ = type;
  t.elements_ = *ElementCount(shape);
  t.shape_ = std::move(shape);
  t.bytes_ = bytes;
  t.data_ = static_cast<std::byte*>(data);
  return t;
}

Result<Tensor> Tensor::Share(DataType type, Shape shape, std::shared_ptr<void> owner, void* data,
                             size_t byte_size) {
  if (!owner) return Status::InvalidArgument("shared tensor: expected an owner to keep the data alive");
  HONE_ASSIGN_OR_RETURN(Tensor t, Borrow(type, std::move(shape), data, byte_size));
  // Aliasing constructor: shares owner's control block, points at the data.
  t.owner_ = std::shared_ptr<std::byte[]>(std::move(owner), t.data_);
  return t;
}

Result<Tensor> Tensor::SliceRows(int64_t begin, int64_t count) const {
  if (shape_.empty()) return Status::InvalidArgument("cannot slice rows of a scalar");
  // Written so that nothing overflows: begin + count could, for hostile values.
  if (begin < 0 || count < 0 || count > shape_[0] || begin > shape_[0] - count)
    return Status::OutOfRange("rows from " + std::to_string(begin) + ", count " + std::to_string(count) +
                              ", of a tensor with " + std::to_string(shape_[0]) + " rows");
  Tensor t = *this;
  size_t row_bytes = shape_[0] == 0 ? 0 : bytes_ / static_cast<size_t>(shape_[0]);
  t.shape_[0] = count;
  t.elements_ = *ElementCount(t.shape_);
  t.bytes_ = row_bytes * static_cast<size_t>(count);
  t.data_ = data_ + row_bytes * static_cast<size_t>(begin);
  return t;
}

Tensor Tensor::Clone() const {
  if (empty()) return {};
  Tensor t = *Allocate(type_, shape_);
  if (bytes_) std::memcpy(t.data_, data_, bytes_);
  return t;
}

}  // namespace hone
