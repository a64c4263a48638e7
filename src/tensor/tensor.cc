#include "tensor/tensor.h"

#include <cstring>
#include <string>

#include "tensor/little_endian.h"

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

// Bytes of a BYTES element's length prefix.
constexpr size_t kLengthPrefix = 4;

// The offset just past `count` length-prefixed elements starting at `offset`, or an error when the data runs out.
Result<size_t> SkipBytesElements(std::span<const std::byte> data, size_t offset, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (data.size() - offset < kLengthPrefix)
      return Status::InvalidArgument("BYTES element " + std::to_string(i) + ": its 4-byte length is cut short at byte " +
                                     std::to_string(offset) + " of " + std::to_string(data.size()));
    uint32_t length = le::Load32(data.data() + offset);
    offset += kLengthPrefix;
    if (data.size() - offset < length)
      return Status::InvalidArgument("BYTES element " + std::to_string(i) + ": length " + std::to_string(length) +
                                     " runs past the end of the data (" + std::to_string(data.size() - offset) +
                                     " bytes left)");
    offset += length;
  }
  return offset;
}

Status CheckBytesLayout(const Shape& shape, const void* data, size_t byte_size) {
  auto n = ElementCount(shape);
  if (!n) return Status::InvalidArgument("shape " + ShapeToString(shape) + ": expected non-negative dimensions");
  std::span<const std::byte> bytes(static_cast<const std::byte*>(data), byte_size);
  HONE_ASSIGN_OR_RETURN(size_t end, SkipBytesElements(bytes, 0, *n));
  if (end != byte_size)
    return Status::InvalidArgument("BYTES tensor of shape " + ShapeToString(shape) + ": " +
                                   std::to_string(byte_size - end) + " bytes left over after its " +
                                   std::to_string(*n) + " elements");
  return Status::Ok();
}

}  // namespace

Result<Tensor> Tensor::FromStrings(Shape shape, std::span<const std::string_view> elements) {
  auto n = ElementCount(shape);
  if (!n) return Status::InvalidArgument("shape " + ShapeToString(shape) + ": expected non-negative dimensions");
  if (static_cast<size_t>(*n) != elements.size())
    return Status::InvalidArgument("BYTES tensor of shape " + ShapeToString(shape) + ": expected " +
                                   std::to_string(*n) + " elements, got " + std::to_string(elements.size()));
  size_t bytes = 0;
  for (std::string_view e : elements) {
    if (e.size() > UINT32_MAX)
      return Status::InvalidArgument("BYTES element of " + std::to_string(e.size()) + " bytes: over 4 GiB");
    bytes += kLengthPrefix + e.size();
  }
  if (bytes > kMaxTensorBytes) return Status::ResourceExhausted("BYTES tensor: larger than 1 TiB");
  Tensor t;
  t.type_ = DataType::kBytes;
  t.elements_ = *n;
  t.shape_ = std::move(shape);
  t.bytes_ = bytes;
  t.owner_ = std::shared_ptr<std::byte[]>(new std::byte[bytes == 0 ? 1 : bytes]);
  t.data_ = t.owner_.get();
  std::byte* out = t.data_;
  for (std::string_view e : elements) {
    le::Store32(out, static_cast<uint32_t>(e.size()));
    if (!e.empty()) std::memcpy(out + kLengthPrefix, e.data(), e.size());
    out += kLengthPrefix + e.size();
  }
  return t;
}

std::vector<std::string_view> Tensor::bytes_elements() const {
  std::vector<std::string_view> out;
  if (type_ != DataType::kBytes) return out;
  out.reserve(static_cast<size_t>(elements_));
  size_t offset = 0;
  // The layout was checked when the tensor was made.
  for (int64_t i = 0; i < elements_; ++i) {
    uint32_t length = le::Load32(data_ + offset);
    out.emplace_back(reinterpret_cast<const char*>(data_ + offset + kLengthPrefix), length);
    offset += kLengthPrefix + length;
  }
  return out;
}

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
  if (type == DataType::kBytes) {
    HONE_RETURN_IF_ERROR(CheckBytesLayout(shape, data, byte_size));
    Tensor t;
    t.type_ = type;
    t.elements_ = *ElementCount(shape);
    t.shape_ = std::move(shape);
    t.bytes_ = byte_size;
    t.data_ = static_cast<std::byte*>(data);
    return t;
  }
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
  t.shape_[0] = count;
  if (type_ == DataType::kBytes) {
    // Elements vary in length: walk the prefixes to the first row and past the last.
    const int64_t per_row = shape_[0] == 0 ? 0 : elements_ / shape_[0];
    std::span<const std::byte> all(data_, bytes_);
    size_t start = *SkipBytesElements(all, 0, begin * per_row);
    size_t end = *SkipBytesElements(all, start, count * per_row);
    t.elements_ = count * per_row;
    t.bytes_ = end - start;
    t.data_ = data_ + start;
    return t;
  }
  size_t row_bytes = shape_[0] == 0 ? 0 : bytes_ / static_cast<size_t>(shape_[0]);
  t.elements_ = *ElementCount(t.shape_);
  t.bytes_ = row_bytes * static_cast<size_t>(count);
  t.data_ = data_ + row_bytes * static_cast<size_t>(begin);
  return t;
}

Tensor Tensor::Clone() const {
  if (empty()) return {};
  if (type_ == DataType::kBytes) {
    Tensor t = *this;
    t.owner_ = std::shared_ptr<std::byte[]>(new std::byte[bytes_ == 0 ? 1 : bytes_]);
    t.data_ = t.owner_.get();
    if (bytes_) std::memcpy(t.data_, data_, bytes_);
    return t;
  }
  Tensor t = *Allocate(type_, shape_);
  if (bytes_) std::memcpy(t.data_, data_, bytes_);
  return t;
}

}  // namespace hone
