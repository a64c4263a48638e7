#include "onnx/graph_tensor.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "onnx/onnx_pb.h"

namespace hone::onnx {
namespace {

// raw_data is little-endian by the ONNX spec; the hosts hone runs on (x86-64, arm64) are too, so bytes are copied.
static_assert(std::endian::native == std::endian::little, "graph_tensor assumes a little-endian host");

template <typename T>
std::string ToRaw(std::span<const T> values) {
  std::string raw(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
  return raw;
}

}  // namespace

Result<int64_t> TensorElementCount(const ::onnx::TensorProto& tensor) {
  int64_t n = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0) return Status::InvalidArgument("tensor '" + tensor.name() + "': negative dimension " + std::to_string(d));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return Status::InvalidArgument("tensor '" + tensor.name() + "': element count overflows");
    n *= d;
  }
  return n;
}

Result<std::vector<float>> ReadFloatTensor(const ::onnx::TensorProto& tensor) {
  const std::string what = "tensor '" + tensor.name() + "'";
  if (tensor.data_type() != ::onnx::TensorProto::FLOAT)
    return Status::InvalidArgument(what + ": expected FLOAT, got data type " + std::to_string(tensor.data_type()));
  if (tensor.data_location() == ::onnx::TensorProto::EXTERNAL || tensor.external_data_size() > 0)
    return Status::InvalidArgument(what + ": keeps its data in an external file, which was not loaded");
  HONE_ASSIGN_OR_RETURN(int64_t n, TensorElementCount(tensor));
  std::vector<float> values(static_cast<size_t>(n));
  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != values.size() * sizeof(float))
      return Status::InvalidArgument(what + ": raw data holds " + std::to_string(tensor.raw_data().size()) +
                                     " bytes, expected " + std::to_string(values.size() * sizeof(float)));
    if (n > 0) std::memcpy(values.data(), tensor.raw_data().data(), values.size() * sizeof(float));
  } else {
    if (tensor.float_data_size() != n)
      return Status::InvalidArgument(what + ": holds " + std::to_string(tensor.float_data_size()) +
                                     " values, expected " + std::to_string(n));
    for (int64_t i = 0; i < n; ++i) values[i] = tensor.float_data(static_cast<int>(i));
  }
  return values;
}

Result<std::vector<int64_t>> ReadInt64Tensor(const ::onnx::TensorProto& tensor) {
  const std::string what = "tensor '" + tensor.name() + "'";
  if (tensor.data_type() != ::onnx::TensorProto::INT64)
    return Status::InvalidArgument(what + ": expected INT64, got data type " + std::to_string(tensor.data_type()));
  if (tensor.data_location() == ::onnx::TensorProto::EXTERNAL || tensor.external_data_size() > 0)
    return Status::InvalidArgument(what + ": keeps its data in an external file, which was not loaded");
  HONE_ASSIGN_OR_RETURN(int64_t n, TensorElementCount(tensor));
  std::vector<int64_t> values(static_cast<size_t>(n));
  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != values.size() * sizeof(int64_t))
      return Status::InvalidArgument(what + ": raw data holds " + std::to_string(tensor.raw_data().size()) +
                                     " bytes, expected " + std::to_string(values.size() * sizeof(int64_t)));
    if (n > 0) std::memcpy(values.data(), tensor.raw_data().data(), values.size() * sizeof(int64_t));
  } else {
    if (tensor.int64_data_size() != n)
      return Status::InvalidArgument(what + ": holds " + std::to_string(tensor.int64_data_size()) +
                                     " values, expected " + std::to_string(n));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = tensor.int64_data(static_cast<int>(i));
  }
  return values;
}

::onnx::TensorProto MakeRawTensor(const std::string& name, int32_t onnx_type, const std::vector<int64_t>& dims,
                                  std::string raw) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx_type);
  for (int64_t d : dims) t.add_dims(d);
  t.set_raw_data(std::move(raw));
  return t;
}

::onnx::TensorProto MakeFloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                                    std::span<const float> values) {
  return MakeRawTensor(name, ::onnx::TensorProto::FLOAT, dims, ToRaw(values));
}

::onnx::TensorProto MakeInt32Tensor(const std::string& name, const std::vector<int64_t>& dims,
                                    std::span<const int32_t> values) {
  return MakeRawTensor(name, ::onnx::TensorProto::INT32, dims, ToRaw(values));
}

::onnx::TensorProto MakeInt64Tensor(const std::string& name, const std::vector<int64_t>& dims,
                                    std::span<const int64_t> values) {
  return MakeRawTensor(name, ::onnx::TensorProto::INT64, dims, ToRaw(values));
}

::onnx::TensorProto MakeByteTensor(const std::string& name, const std::vector<int64_t>& dims,
                                   std::span<const int32_t> values, bool is_signed) {
  std::string raw(values.size(), '\0');
  for (size_t i = 0; i < values.size(); ++i) raw[i] = static_cast<char>(static_cast<uint8_t>(values[i] & 0xFF));
  return MakeRawTensor(name, is_signed ? ::onnx::TensorProto::INT8 : ::onnx::TensorProto::UINT8, dims,
                       std::move(raw));
}

uint16_t FloatToHalf(float value) {
  uint32_t f = std::bit_cast<uint32_t>(value);
  uint32_t sign = (f >> 16) & 0x8000u;
  uint32_t abs = f & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return static_cast<uint16_t>(sign | (abs > 0x7F800000u ? 0x7E00u : 0x7C00u));
  // 65520 and above round to infinity in half precision.
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): scale into the 10-bit mantissa with round to nearest even.
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // below half the smallest subnormal
    uint32_t mant = (abs & 0x007FFFFFu) | 0x00800000u;
    // value = mant * 2^(exp - 150) and a half subnormal counts units of 2^-24, so drop (126 - exp) bits.
    uint32_t drop = 126u - (abs >> 23);
    uint32_t half = mant >> drop;
    uint32_t rem = mant & ((1u << drop) - 1);
    uint32_t mid = 1u << (drop - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  // Normal: rebias the exponent (127 -> 15) and round the mantissa from 23 to 10 bits, to nearest even.
  uint32_t h = ((abs - 0x38000000u) >> 13);
  uint32_t rem = abs & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float HalfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1Fu;
  uint32_t mant = bits & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));
  if (exp == 0) {
    // Subnormal: value = mant * 2^-24, exact in float.
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t FloatToBfloat16(float value) {
  uint32_t f = std::bit_cast<uint32_t>(value);
  if ((f & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((f >> 16) | 0x0040u);  // quiet NaN
  uint32_t rounding = 0x7FFFu + ((f >> 16) & 1u);
  return static_cast<uint16_t>((f + rounding) >> 16);
}

float Bfloat16ToFloat(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

::onnx::TensorProto MakeLowPrecisionTensor(const std::string& name, const std::vector<int64_t>& dims,
                                           std::span<const float> values, bool bf16) {
  std::vector<uint16_t> words(values.size());
  for (size_t i = 0; i < values.size(); ++i) words[i] = bf16 ? FloatToBfloat16(values[i]) : FloatToHalf(values[i]);
  return MakeRawTensor(name, bf16 ? ::onnx::TensorProto::BFLOAT16 : ::onnx::TensorProto::FLOAT16, dims,
                       ToRaw(std::span<const uint16_t>(words)));
}

}  // namespace hone::onnx
