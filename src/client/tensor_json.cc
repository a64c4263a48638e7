#include "client/tensor_json.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "client/float16.h"
#include "client/json_nonfinite.h"
#include "client/json_writer.h"

namespace hone::client {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

std::string_view JsonTypeName(element_type t) {
  switch (t) {
    case element_type::ARRAY: return "an array";
    case element_type::OBJECT: return "an object";
    case element_type::INT64:
    case element_type::UINT64: return "an integer";
    case element_type::DOUBLE: return "a number";
    case element_type::STRING: return "a string";
    case element_type::BOOL: return "a boolean";
    case element_type::NULL_VALUE: return "null";
  }
  return "a value";
}

// A string element's contents; empty for any other element.
std::string_view StringOf(const element& e) {
  std::string_view s;
  if (e.get_string().get(s) != simdjson::SUCCESS) return {};
  return s;
}

// Writes one element at a time into `out`, converting from JSON and checking the type's range.
class ElementSink {
 public:
  ElementSink(DataType type, int64_t count, std::byte* out, std::string_view name)
      : type_(type), count_(count), out_(out), name_(name) {}

  Status Put(const element& e) {
    if (index_ >= count_)
      return Status::InvalidArgument("input '" + std::string(name_) + "': expected " + std::to_string(count_) +
                                     " elements in 'data' (the shape's product), got more");
    Status s = Convert(e);
    if (!s.ok()) return s;
    ++index_;
    return Status::Ok();
  }

  int64_t written() const { return index_; }

 private:
  Status Fail(const element& e, std::string_view expected) const {
    std::string got(JsonTypeName(e.type()));
    if (e.is_number()) got = simdjson::minify(e);
    if (std::string_view literal = NonFiniteLiteral(StringOf(e)); !literal.empty()) got = literal;
    return Status::InvalidArgument("input '" + std::string(name_) + "': element " + std::to_string(index_) +
                                   " of 'data': expected " + std::string(expected) + " for " +
                                   std::string(DataTypeName(type_)) + ", got " + got);
  }

  template <typename T>
  void Store(T v) {
    std::memcpy(out_ + static_cast<size_t>(index_) * sizeof(T), &v, sizeof(T));
  }

  template <typename T>
  Status Integer(const element& e) {
    using L = std::numeric_limits<T>;
    const std::string range = "an integer in [" + std::to_string(L::min()) + ", " + std::to_string(L::max()) + "]";
    if (e.type() == element_type::INT64) {
      int64_t v = e.get_int64().value_unsafe();
      if constexpr (std::is_signed_v<T>) {
        if (v < static_cast<int64_t>(L::min()) || v > static_cast<int64_t>(L::max())) return Fail(e, range);
      } else {
        if (v < 0 || static_cast<uint64_t>(v) > static_cast<uint64_t>(L::max())) return Fail(e, range);
      }
      Store(static_cast<T>(v));
      return Status::Ok();
    }
    if (e.type() == element_type::UINT64) {  // simdjson uses UINT64 only above INT64_MAX
      uint64_t v = e.get_uint64().value_unsafe();
      if (std::is_signed_v<T> || v > static_cast<uint64_t>(L::max())) return Fail(e, range);
      Store(static_cast<T>(v));
      return Status::Ok();
    }
    return Fail(e, range);
  }

  Status Number(const element& e, double* v) {
    switch (e.type()) {
      case element_type::INT64: *v = static_cast<double>(e.get_int64().value_unsafe()); return Status::Ok();
      case element_type::UINT64: *v = static_cast<double>(e.get_uint64().value_unsafe()); return Status::Ok();
      case element_type::DOUBLE: *v = e.get_double().value_unsafe(); return Status::Ok();
      case element_type::STRING:
        if (std::optional<double> special = NonFiniteFromMarker(StringOf(e))) {
          *v = *special;
          return Status::Ok();
        }
        [[fallthrough]];
      default: return Fail(e, "a number");
    }
  }

  // A finite number that overflows the target type is an error rather than a silent infinity; NaN and the
  // infinities written as such (json_nonfinite.h) pass through.
  Status ToFloat(const element& e, float* f) {
    double d = 0;
    HONE_RETURN_IF_ERROR(Number(e, &d));
    *f = static_cast<float>(d);
    if (std::isinf(*f) && std::isfinite(d)) return Fail(e, "a number within the type's range");
    return Status::Ok();
  }

  Status Convert(const element& e) {
    double d = 0;
    float f = 0;
    switch (type_) {
      case DataType::kBool:
        if (e.type() != element_type::BOOL) return Fail(e, "true or false");
        Store(static_cast<uint8_t>(e.get_bool().value_unsafe() ? 1 : 0));
        return Status::Ok();
      case DataType::kUint8: return Integer<uint8_t>(e);
      case DataType::kUint16: return Integer<uint16_t>(e);
      case DataType::kUint32: return Integer<uint32_t>(e);
      case DataType::kUint64: return Integer<uint64_t>(e);
      case DataType::kInt8: return Integer<int8_t>(e);
      case DataType::kInt16: return Integer<int16_t>(e);
      case DataType::kInt32: return Integer<int32_t>(e);
      case DataType::kInt64: return Integer<int64_t>(e);
      case DataType::kFp64:
        HONE_RETURN_IF_ERROR(Number(e, &d));
        Store(d);
        return Status::Ok();
      case DataType::kFp32:
        HONE_RETURN_IF_ERROR(ToFloat(e, &f));
        Store(f);
        return Status::Ok();
      case DataType::kFp16: {
        HONE_RETURN_IF_ERROR(ToFloat(e, &f));
        const uint16_t h = FloatToHalf(f);
        if (std::isinf(HalfToFloat(h)) && std::isfinite(f)) return Fail(e, "a number within the type's range");
        Store(h);
        return Status::Ok();
      }
      case DataType::kBf16: {
        HONE_RETURN_IF_ERROR(ToFloat(e, &f));
        const uint16_t b = FloatToBf16(f);
        if (std::isinf(Bf16ToFloat(b)) && std::isfinite(f)) return Fail(e, "a number within the type's range");
        Store(b);
        return Status::Ok();
      }
      case DataType::kBytes:
      case DataType::kInvalid: break;
    }
    return Status::Internal("ReadJsonTensorData: no fixed-size element type");
  }

  DataType type_;
  int64_t count_;
  std::byte* out_;
  std::string_view name_;
  int64_t index_ = 0;
};

Status Walk(const element& e, ElementSink& sink) {
  simdjson::dom::array array;
  if (e.get_array().get(array)) return sink.Put(e);
  for (element child : array) HONE_RETURN_IF_ERROR(Walk(child, sink));
  return Status::Ok();
}

template <typename T, typename Emit>
void EachElement(const Tensor& t, Emit emit) {
  const std::byte* p = t.data();
  for (int64_t i = 0; i < t.element_count(); ++i, p += sizeof(T)) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    emit(v);
  }
}

// The common case without a Status per element: nested arrays of in-range numbers into float, double, int64 or
// int32. False at the first element it does not handle (a type to check, a value out of range, too many); the
// caller then walks again with ElementSink, which names the fault.
template <typename T>
bool FastWalk(const element& e, T* out, int64_t count, int64_t& index) {
  simdjson::dom::array array;
  if (e.get_array().get(array)) return false;
  for (element child : array) {
    switch (child.type()) {
      case element_type::ARRAY:
        if (!FastWalk(child, out, count, index)) return false;
        continue;
      case element_type::DOUBLE:
        if constexpr (std::is_floating_point_v<T>) {
          if (index >= count) return false;
          const T v = static_cast<T>(child.get_double().value_unsafe());
          if (std::isinf(v)) return false;
          out[index++] = v;
          continue;
        }
        return false;
      case element_type::INT64: {
        if (index >= count) return false;
        const int64_t v = child.get_int64().value_unsafe();
        if constexpr (std::is_same_v<T, int32_t>) {
          if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) return false;
        }
        if constexpr (std::is_floating_point_v<T>) {
          out[index++] = static_cast<T>(static_cast<double>(v));  // as ElementSink converts: through double
        } else {
          out[index++] = static_cast<T>(v);
        }
        continue;
      }
      case element_type::STRING:
        if constexpr (std::is_floating_point_v<T>) {
          std::optional<double> special = NonFiniteFromMarker(StringOf(child));
          if (!special || index >= count) return false;
          out[index++] = static_cast<T>(*special);
          continue;
        }
        return false;
      default: return false;
    }
  }
  return true;
}

template <typename T>
bool TryFast(const element& data, int64_t count, std::byte* out) {
  // Aligned scratch only when `out` is not: tensor buffers are, so this copy is the rare case.
  int64_t index = 0;
  if (reinterpret_cast<uintptr_t>(out) % alignof(T) == 0)
    return FastWalk(data, reinterpret_cast<T*>(out), count, index) && index == count;
  std::vector<T> scratch(static_cast<size_t>(count));
  if (!FastWalk(data, scratch.data(), count, index) || index != count) return false;
  std::memcpy(out, scratch.data(), scratch.size() * sizeof(T));
  return true;
}

}  // namespace

namespace {

Status CollectStrings(const element& e, std::vector<std::string_view>& out, int64_t count,
                      std::string_view input_name) {
  simdjson::dom::array array;
  if (e.get_array().get(array) == simdjson::SUCCESS) {
    for (element child : array) HONE_RETURN_IF_ERROR(CollectStrings(child, out, count, input_name));
    return Status::Ok();
  }
  if (e.type() != element_type::STRING)
    return Status::InvalidArgument("input '" + std::string(input_name) + "': element " + std::to_string(out.size()) +
                                   " of BYTES data is " + simdjson::minify(e) + "; expected a string");
  if (static_cast<int64_t>(out.size()) >= count)
    return Status::InvalidArgument("input '" + std::string(input_name) + "': more than the " + std::to_string(count) +
                                   " elements its shape holds");
  std::string_view text;
  if (e.get_string().get(text) != simdjson::SUCCESS)
    return Status::Internal("input '" + std::string(input_name) + "': a JSON string that does not read as one");
  out.push_back(text);
  return Status::Ok();
}

}  // namespace

Result<Tensor> ReadJsonBytesTensor(const element& data, const Shape& shape, int64_t count,
                                   std::string_view input_name) {
  std::vector<std::string_view> strings;
  strings.reserve(static_cast<size_t>(std::max<int64_t>(0, std::min<int64_t>(count, 1 << 20))));
  HONE_RETURN_IF_ERROR(CollectStrings(data, strings, count, input_name));
  if (static_cast<int64_t>(strings.size()) != count)
    return Status::InvalidArgument("input '" + std::string(input_name) + "': expected " + std::to_string(count) +
                                   " elements in 'data' (shape " + ShapeToString(shape) + "), got " +
                                   std::to_string(strings.size()));
  return Tensor::FromStrings(shape, strings);
}

int64_t CountJsonElements(const element& data) {
  simdjson::dom::array array;
  if (data.get_array().get(array)) return 1;
  int64_t n = 0;
  for (element child : array)
    n += child.type() == element_type::ARRAY ? CountJsonElements(child) : 1;
  return n;
}

Status ReadJsonTensorData(const element& data, DataType type, int64_t count, std::byte* out,
                          std::string_view input_name) {
  if (data.type() != element_type::ARRAY)
    return Status::InvalidArgument("input '" + std::string(input_name) + "': 'data' must be an array, got " +
                                   std::string(JsonTypeName(data.type())));
  bool done = false;
  switch (type) {
    case DataType::kFp32: done = TryFast<float>(data, count, out); break;
    case DataType::kFp64: done = TryFast<double>(data, count, out); break;
    case DataType::kInt64: done = TryFast<int64_t>(data, count, out); break;
    case DataType::kInt32: done = TryFast<int32_t>(data, count, out); break;
    default: break;
  }
  if (done) return Status::Ok();
  ElementSink sink(type, count, out, input_name);
  HONE_RETURN_IF_ERROR(Walk(data, sink));
  if (sink.written() != count)
    return Status::InvalidArgument("input '" + std::string(input_name) + "': expected " + std::to_string(count) +
                                   " elements in 'data' (the shape's product), got " +
                                   std::to_string(sink.written()));
  return Status::Ok();
}

void WriteJsonTensorData(JsonWriter& w, const Tensor& t) {
  w.BeginArray();
  switch (t.type()) {
    case DataType::kBool: EachElement<uint8_t>(t, [&](uint8_t v) { w.Bool(v != 0); }); break;
    case DataType::kUint8: EachElement<uint8_t>(t, [&](uint8_t v) { w.Uint(v); }); break;
    case DataType::kUint16: EachElement<uint16_t>(t, [&](uint16_t v) { w.Uint(v); }); break;
    case DataType::kUint32: EachElement<uint32_t>(t, [&](uint32_t v) { w.Uint(v); }); break;
    case DataType::kUint64: EachElement<uint64_t>(t, [&](uint64_t v) { w.Uint(v); }); break;
    case DataType::kInt8: EachElement<int8_t>(t, [&](int8_t v) { w.Int(v); }); break;
    case DataType::kInt16: EachElement<int16_t>(t, [&](int16_t v) { w.Int(v); }); break;
    case DataType::kInt32: EachElement<int32_t>(t, [&](int32_t v) { w.Int(v); }); break;
    case DataType::kInt64: EachElement<int64_t>(t, [&](int64_t v) { w.Int(v); }); break;
    case DataType::kFp16: EachElement<uint16_t>(t, [&](uint16_t v) { w.Float(HalfToFloat(v)); }); break;
    case DataType::kBf16: EachElement<uint16_t>(t, [&](uint16_t v) { w.Float(Bf16ToFloat(v)); }); break;
    case DataType::kFp32: EachElement<float>(t, [&](float v) { w.Float(v); }); break;
    case DataType::kFp64: EachElement<double>(t, [&](double v) { w.Double(v); }); break;
    case DataType::kBytes:
      for (std::string_view e : t.bytes_elements()) w.String(e);
      break;
    case DataType::kInvalid: break;
  }
  w.EndArray();
}

}  // namespace hone::client
