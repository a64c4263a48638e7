#include "check/numeric_values.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace hone::check {

double HalfToDouble(uint16_t bits) {
  const bool negative = bits & 0x8000;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  double value;
  if (exponent == 0)
    value = std::ldexp(mantissa, -24);  // zero or subnormal
  else if (exponent == 31)
    value = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else
    value = std::ldexp(1024 + mantissa, exponent - 25);
  return negative ? -value : value;
}

double Bf16ToDouble(uint16_t bits) {
  const uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &widened, sizeof f);
  return f;
}

namespace {

template <typename T>
void Widen(const Tensor& t, std::vector<double>& out) {
  for (T v : t.values<T>()) out.push_back(static_cast<double>(v));
}

}  // namespace

Result<std::vector<double>> ToDoubles(const Tensor& tensor, std::string_view what) {
  if (tensor.empty()) return Status::InvalidArgument(std::string(what) + ": no tensor");
  std::vector<double> out;
  out.reserve(static_cast<size_t>(tensor.element_count()));
  switch (tensor.type()) {
    case DataType::kBool: Widen<uint8_t>(tensor, out); break;
    case DataType::kUint8: Widen<uint8_t>(tensor, out); break;
    case DataType::kUint16: Widen<uint16_t>(tensor, out); break;
    case DataType::kUint32: Widen<uint32_t>(tensor, out); break;
    case DataType::kUint64: Widen<uint64_t>(tensor, out); break;
    case DataType::kInt8: Widen<int8_t>(tensor, out); break;
    case DataType::kInt16: Widen<int16_t>(tensor, out); break;
    case DataType::kInt32: Widen<int32_t>(tensor, out); break;
    case DataType::kInt64: Widen<int64_t>(tensor, out); break;
    case DataType::kFp32: Widen<float>(tensor, out); break;
    case DataType::kFp64: Widen<double>(tensor, out); break;
    case DataType::kFp16:
      for (uint16_t v : tensor.values<uint16_t>()) out.push_back(HalfToDouble(v));
      break;
    case DataType::kBf16:
      for (uint16_t v : tensor.values<uint16_t>()) out.push_back(Bf16ToDouble(v));
      break;
    default:
      return Status::InvalidArgument(std::string(what) + ": expected a numeric tensor, got " +
                                     std::string(DataTypeName(tensor.type())));
  }
  return out;
}

}  // namespace hone::check
