#include "client/tensor_contents.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace hone::client {
namespace {

using google::protobuf::RepeatedField;
using inference::InferTensorContents;

Status Invalid(std::string_view what, const std::string& message) {
  return Status::InvalidArgument(std::string(what) + ": " + message);
}

// How many values each typed field holds, by field name, for "which field did the client fill" checks.
std::array<std::pair<std::string_view, int>, 8> FieldSizes(const InferTensorContents& c) {
  return {{{"bool_contents", c.bool_contents_size()},
           {"int_contents", c.int_contents_size()},
           {"int64_contents", c.int64_contents_size()},
           {"uint_contents", c.uint_contents_size()},
           {"uint64_contents", c.uint64_contents_size()},
           {"fp32_contents", c.fp32_contents_size()},
           {"fp64_contents", c.fp64_contents_size()},
           {"bytes_contents", c.bytes_contents_size()}}};
}

// A view over a repeated field whose element representation is the tensor's (int32 for INT32, float for FP32...).
// Protobuf keeps a RepeatedField's elements contiguous, so no copy is needed.
template <typename T>
Result<Tensor> BorrowField(DataType type, Shape shape, const RepeatedField<T>& field) {
  // Borrow takes a mutable pointer because Tensor has one pointer for both; the front end only reads inputs.
  void* data = const_cast<T*>(field.data());
  return Tensor::Borrow(type, std::move(shape), data, static_cast<size_t>(field.size()) * sizeof(T));
}

// Narrows int32/uint32 values into INT8/INT16/UINT8/UINT16, refusing values the type cannot hold rather than
// wrapping them (a wrapped value is a silently wrong input).
template <typename To, typename From>
Result<Tensor> NarrowField(std::string_view what, DataType type, Shape shape, const RepeatedField<From>& field) {
  HONE_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(type, std::move(shape)));
  std::span<To> out = tensor.mutable_values<To>();
  for (int i = 0; i < field.size(); ++i) {
    From v = field.Get(i);
    if (!std::in_range<To>(v))
      return Invalid(what, "value " + std::to_string(v) + " at index " + std::to_string(i) + " is out of range for " +
                     std::string(DataTypeName(type)));
    out[static_cast<size_t>(i)] = static_cast<To>(v);
  }
  return tensor;
}

int FieldSizeFor(DataType type, const InferTensorContents& c) {
  switch (type) {
    case DataType::kBool: return c.bool_contents_size();
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32: return c.int_contents_size();
    case DataType::kInt64: return c.int64_contents_size();
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32: return c.uint_contents_size();
    case DataType::kUint64: return c.uint64_contents_size();
    case DataType::kFp32: return c.fp32_contents_size();
    case DataType::kFp64: return c.fp64_contents_size();
    case DataType::kBytes: return c.bytes_contents_size();
    default: return 0;
  }
}

template <typename T, typename Field>
void AppendAll(const Tensor& tensor, Field* field) {
  std::span<const T> values = tensor.values<T>();
  field->Reserve(static_cast<int>(values.size()));
  for (T v : values) field->Add(v);
}

Status OnlyField(std::string_view what, DataType type, std::string_view field, const InferTensorContents& contents) {
  for (const auto& [name, size] : FieldSizes(contents))
    if (size > 0 && name != field)
      return Invalid(what, std::string(DataTypeName(type)) + " data goes in " + std::string(field) + ", got " +
                     std::string(name));
  return Status::Ok();
}

// BYTES from bytes_contents: one string per element, copied into the tensor's length-prefixed layout.
Result<Tensor> BytesFromContents(std::string_view what, Shape shape, const InferTensorContents& contents) {
  HONE_RETURN_IF_ERROR(OnlyField(what, DataType::kBytes, "bytes_contents", contents));
  std::optional<int64_t> count = ElementCount(shape);
  if (!count) return Invalid(what, "shape " + ShapeToString(shape) + ": expected non-negative dimensions");
  if (*count != contents.bytes_contents_size())
    return Invalid(what, "expected " + std::to_string(*count) + " values in bytes_contents for shape " +
                   ShapeToString(shape) + ", got " + std::to_string(contents.bytes_contents_size()));
  std::vector<std::string_view> elements(contents.bytes_contents().begin(), contents.bytes_contents().end());
  Result<Tensor> t = Tensor::FromStrings(std::move(shape), elements);
  if (!t.ok()) return Invalid(what, t.status().message());
  return t;
}

}  // namespace

std::string_view ContentsFieldFor(DataType type) {
  switch (type) {
    case DataType::kBool: return "bool_contents";
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32: return "int_contents";
    case DataType::kInt64: return "int64_contents";
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32: return "uint_contents";
    case DataType::kUint64: return "uint64_contents";
    case DataType::kFp32: return "fp32_contents";
    case DataType::kFp64: return "fp64_contents";
    case DataType::kBytes: return "bytes_contents";
    default: return "";
  }
}

Result<size_t> ExpectedByteSize(std::string_view what, DataType type, const Shape& shape) {
  size_t element = ElementSize(type);
  if (element == 0)
    return Invalid(what, "datatype " + std::string(DataTypeName(type)) + " has no fixed element size");
  for (int64_t d : shape)
    if (d < 0)
      return Invalid(what, "shape " + ShapeToString(shape) + ": expected non-negative dimensions");
  std::optional<int64_t> count = ElementCount(shape);
  if (!count || static_cast<uint64_t>(*count) > std::numeric_limits<size_t>::max() / element)
    return Invalid(what, "shape " + ShapeToString(shape) + ": too many elements");
  return static_cast<size_t>(*count) * element;
}

Result<Tensor> TensorFromRaw(std::string_view what, DataType type, Shape shape, std::string_view raw) {
  if (type == DataType::kBytes) {
    // Raw BYTES are the length-prefixed layout the tensor keeps: a view, checked element by element.
    Result<Tensor> t = Tensor::Borrow(type, std::move(shape), const_cast<char*>(raw.data()), raw.size());
    if (!t.ok()) return Invalid(what, t.status().message() + " (raw contents)");
    return t;
  }
  HONE_ASSIGN_OR_RETURN(size_t bytes, ExpectedByteSize(what, type, shape));
  if (raw.size() != bytes)
    return Invalid(what, "expected " + std::to_string(bytes) + " bytes for " + std::string(DataTypeName(type)) +
                   " shape " + ShapeToString(shape) + " in its raw contents, got " + std::to_string(raw.size()));
  if (type == DataType::kBool) {
    // Any byte but 0 and 1 would be an invalid bool for whoever reads the tensor.
    for (size_t i = 0; i < raw.size(); ++i)
      if (static_cast<unsigned char>(raw[i]) > 1)
        return Invalid(what, "BOOL element " + std::to_string(i) + " is " +
                       std::to_string(static_cast<unsigned char>(raw[i])) + ", expected 0 or 1");
  }
  // Element sizes are powers of two and equal the element's alignment.
  if (reinterpret_cast<uintptr_t>(raw.data()) % ElementSize(type) != 0) {
    HONE_ASSIGN_OR_RETURN(Tensor copy, Tensor::Allocate(type, std::move(shape)));
    if (bytes) std::memcpy(copy.mutable_data(), raw.data(), bytes);
    return copy;
  }
  return Tensor::Borrow(type, std::move(shape), const_cast<char*>(raw.data()), raw.size());
}

Result<Tensor> TensorFromContents(std::string_view what, DataType type, Shape shape,
                                  const InferTensorContents& contents) {
  if (type == DataType::kBytes) return BytesFromContents(what, std::move(shape), contents);
  HONE_ASSIGN_OR_RETURN(size_t bytes, ExpectedByteSize(what, type, shape));
  std::string_view field = ContentsFieldFor(type);
  if (field.empty())
    return Invalid(what, std::string(DataTypeName(type)) +
                   " data must be sent as raw contents (raw_input_contents); no contents field carries it");
  HONE_RETURN_IF_ERROR(OnlyField(what, type, field, contents));
  size_t expected = bytes / ElementSize(type);
  int got = FieldSizeFor(type, contents);
  if (static_cast<size_t>(got) != expected)
    return Invalid(what, "expected " + std::to_string(expected) + " values in " + std::string(field) + " for shape " +
                   ShapeToString(shape) + ", got " + std::to_string(got));
  switch (type) {
    case DataType::kBool: return BorrowField(type, std::move(shape), contents.bool_contents());
    case DataType::kInt8: return NarrowField<int8_t>(what, type, std::move(shape), contents.int_contents());
    case DataType::kInt16: return NarrowField<int16_t>(what, type, std::move(shape), contents.int_contents());
    case DataType::kInt32: return BorrowField(type, std::move(shape), contents.int_contents());
    case DataType::kInt64: return BorrowField(type, std::move(shape), contents.int64_contents());
    case DataType::kUint8: return NarrowField<uint8_t>(what, type, std::move(shape), contents.uint_contents());
    case DataType::kUint16: return NarrowField<uint16_t>(what, type, std::move(shape), contents.uint_contents());
    case DataType::kUint32: return BorrowField(type, std::move(shape), contents.uint_contents());
    case DataType::kUint64: return BorrowField(type, std::move(shape), contents.uint64_contents());
    case DataType::kFp32: return BorrowField(type, std::move(shape), contents.fp32_contents());
    case DataType::kFp64: return BorrowField(type, std::move(shape), contents.fp64_contents());
    default:
      return Status::Internal(std::string(what) + ": no contents decoder for " + std::string(DataTypeName(type)));
  }
}

Status TensorToContents(std::string_view what, const Tensor& tensor, InferTensorContents* contents) {
  contents->Clear();
  switch (tensor.type()) {
    case DataType::kBool: AppendAll<bool>(tensor, contents->mutable_bool_contents()); break;
    case DataType::kInt8: AppendAll<int8_t>(tensor, contents->mutable_int_contents()); break;
    case DataType::kInt16: AppendAll<int16_t>(tensor, contents->mutable_int_contents()); break;
    case DataType::kInt32: AppendAll<int32_t>(tensor, contents->mutable_int_contents()); break;
    case DataType::kInt64: AppendAll<int64_t>(tensor, contents->mutable_int64_contents()); break;
    case DataType::kUint8: AppendAll<uint8_t>(tensor, contents->mutable_uint_contents()); break;
    case DataType::kUint16: AppendAll<uint16_t>(tensor, contents->mutable_uint_contents()); break;
    case DataType::kUint32: AppendAll<uint32_t>(tensor, contents->mutable_uint_contents()); break;
    case DataType::kUint64: AppendAll<uint64_t>(tensor, contents->mutable_uint64_contents()); break;
    case DataType::kFp32: AppendAll<float>(tensor, contents->mutable_fp32_contents()); break;
    case DataType::kFp64: AppendAll<double>(tensor, contents->mutable_fp64_contents()); break;
    case DataType::kBytes:
      for (std::string_view e : tensor.bytes_elements()) contents->add_bytes_contents(std::string(e));
      break;
    default:
      return Invalid(what, std::string(DataTypeName(tensor.type())) +
                     " has no contents field; send it as raw contents");
  }
  return Status::Ok();
}

}  // namespace hone::client
