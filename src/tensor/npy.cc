#include "tensor/npy.h"

#include <array>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "tensor/file_io.h"
#include "tensor/little_endian.h"
#include "tensor/npy_header.h"
#include "tensor/npy_strings.h"

namespace hone {
namespace {

// hone runs on little-endian hosts (x86-64, arm64); tensors hold native-order bytes, so '<' data is copied as is.
static_assert(std::endian::native == std::endian::little, "npy.cc assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";
// numpy aligns the start of the data to 64 bytes so that it can be memory-mapped and read with SIMD loads.
constexpr size_t kDataAlign = 64;

struct DtypeInfo {
  char kind;
  size_t size;
  DataType type;
  std::string_view descr;  // what we write
};

constexpr std::array<DtypeInfo, 12> kDtypes = {{
    {'b', 1, DataType::kBool, "|b1"},   {'u', 1, DataType::kUint8, "|u1"},  {'u', 2, DataType::kUint16, "<u2"},
    {'u', 4, DataType::kUint32, "<u4"}, {'u', 8, DataType::kUint64, "<u8"}, {'i', 1, DataType::kInt8, "|i1"},
    {'i', 2, DataType::kInt16, "<i2"},  {'i', 4, DataType::kInt32, "<i4"},  {'i', 8, DataType::kInt64, "<i8"},
    {'f', 2, DataType::kFp16, "<f2"},   {'f', 4, DataType::kFp32, "<f4"},  {'f', 8, DataType::kFp64, "<f8"},
}};

constexpr std::string_view kSupported = "expected one of b1, u1, u2, u4, u8, i1, i2, i4, i8, f2, f4, f8";

Status Invalid(std::string_view what, const std::string& message) {
  return Status::InvalidArgument(std::string(what) + ": " + message);
}

// Maps a descr such as "<f4" to a DataType; sets *swap when the data is big-endian and wider than a byte.
Result<DataType> DescrToType(const NpyHeader& header, std::string_view what, bool* swap) {
  auto unsupported = [&] {
    return Status::Unimplemented(std::string(what) + ": unsupported dtype '" + header.descr + "': " +
                                 std::string(kSupported));
  };
  if (!header.descr_is_string) return unsupported();  // a structured dtype
  std::string_view d = header.descr;
  char order = '=';
  if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) {
    order = d[0];
    d.remove_prefix(1);
  }
  if (d.size() < 2) return unsupported();
  char kind = d[0];
  size_t size = 0;
  auto [ptr, ec] = std::from_chars(d.data() + 1, d.data() + d.size(), size);
  if (ec != std::errc() || ptr != d.data() + d.size()) return unsupported();
  for (const DtypeInfo& info : kDtypes) {
    if (info.kind == kind && info.size == size) {
      *swap = order == '>' && size > 1;
      return info.type;
    }
  }
  return unsupported();
}

void ByteSwapInPlace(std::byte* data, size_t count, size_t elem) {
  for (size_t i = 0; i < count; ++i) {
    std::byte* p = data + i * elem;
    for (size_t a = 0, b = elem - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
  }
}

// Copies column-major `src` into row-major `dst`: walks dst in order while stepping through src with the
// Fortran strides, so each element is copied once with no index arithmetic per element beyond one add.
void FortranToC(const std::byte* src, std::byte* dst, const Shape& shape, size_t count, size_t elem) {
  size_t rank = shape.size();
  std::vector<size_t> stride(rank);
  size_t s = 1;
  for (size_t k = 0; k < rank; ++k) {
    stride[k] = s;
    s *= static_cast<size_t>(shape[k]);
  }
  std::vector<int64_t> index(rank, 0);
  size_t from = 0;  // in elements
  for (size_t i = 0; i < count; ++i) {
    std::memcpy(dst + i * elem, src + from * elem, elem);
    for (size_t k = rank; k-- > 0;) {
      from += stride[k];
      if (++index[k] < shape[k]) break;
      from -= stride[k] * static_cast<size_t>(shape[k]);
      index[k] = 0;
    }
  }
}

std::string HexPrefix(std::span<const std::byte> bytes) {
  std::string s;
  for (size_t i = 0; i < bytes.size() && i < kMagic.size(); ++i) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%s%02x", i ? " " : "", static_cast<unsigned>(bytes[i]));
    s += buf;
  }
  return s.empty() ? "nothing" : s;
}

}  // namespace

std::string_view NpyDescr(DataType type) {
  for (const DtypeInfo& info : kDtypes)
    if (info.type == type) return info.descr;
  return {};
}

Result<Tensor> ParseNpy(std::span<const std::byte> bytes, std::string_view what) {
  if (bytes.size() < kMagic.size() || std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0)
    return Invalid(what, "not a .npy file: expected it to start with \\x93NUMPY (93 4e 55 4d 50 59), got " +
                             HexPrefix(bytes));
  if (bytes.size() < 10)
    return Invalid(what, "truncated .npy prefix: expected at least 10 bytes, got " + std::to_string(bytes.size()));
  unsigned major = static_cast<unsigned>(bytes[6]), minor = static_cast<unsigned>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return Invalid(what, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                             ": expected 1.0, 2.0 or 3.0");
  // Version 1.0 has a 2-byte header length; 2.0 and 3.0 (3.0 only allows UTF-8 in the header) have 4 bytes.
  size_t prefix = major == 1 ? 10 : 12;
  if (bytes.size() < prefix)
    return Invalid(what, "truncated .npy prefix: expected " + std::to_string(prefix) + " bytes for version " +
                             std::to_string(major) + ".0, got " + std::to_string(bytes.size()));
  size_t header_len = major == 1 ? le::Load16(bytes.data() + 8) : le::Load32(bytes.data() + 8);
  if (header_len > bytes.size() - prefix)
    return Invalid(what, "header length " + std::to_string(header_len) + " goes beyond the end of the file: " +
                             "expected at most " + std::to_string(bytes.size() - prefix) + " bytes");
  std::string_view text(reinterpret_cast<const char*>(bytes.data() + prefix), header_len);
  HONE_ASSIGN_OR_RETURN(NpyHeader header, ParseNpyHeaderDict(text, what));

  {
    // numpy's string dtypes ("|S8", "<U12") become BYTES tensors.
    HONE_ASSIGN_OR_RETURN(std::optional<Tensor> strings,
                          ParseNpyStrings(header, bytes.subspan(prefix + header_len), what));
    if (strings) return std::move(*strings);
  }
  bool swap = false;
  HONE_ASSIGN_OR_RETURN(DataType type, DescrToType(header, what, &swap));
  size_t elem = ElementSize(type);
  auto count = ElementCount(header.shape);
  if (!count || static_cast<uint64_t>(*count) > SIZE_MAX / elem)
    return Invalid(what, "shape " + ShapeToString(header.shape) + " has more elements than memory can hold");
  size_t expected = static_cast<size_t>(*count) * elem;
  std::span<const std::byte> data = bytes.subspan(prefix + header_len);
  if (data.size() != expected)
    return Invalid(what, "data is " + std::to_string(data.size()) + " bytes: expected " + std::to_string(expected) +
                             " for shape " + ShapeToString(header.shape) + " of " + header.descr);

  auto allocated = Tensor::Allocate(type, header.shape);
  if (!allocated.ok()) return allocated.status().WithContext(what);
  Tensor tensor = std::move(allocated).value();
  if (header.fortran_order && header.shape.size() > 1) {
    FortranToC(data.data(), tensor.mutable_data(), header.shape, static_cast<size_t>(*count), elem);
  } else if (expected) {
    std::memcpy(tensor.mutable_data(), data.data(), expected);
  }
  if (swap) ByteSwapInPlace(tensor.mutable_data(), static_cast<size_t>(*count), elem);
  if (type == DataType::kBool) {
    // numpy reads any nonzero byte as True; C++ bool must be exactly 0 or 1, so normalize rather than hand the
    // caller bytes that are undefined behaviour to read through values<bool>().
    for (std::byte& b : std::span(tensor.mutable_data(), expected)) b = b != std::byte{0} ? std::byte{1} : b;
  }
  return tensor;
}

Result<Tensor> ReadNpy(const std::string& path) {
  HONE_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, ReadFileBytes(path));
  return ParseNpy(bytes, "file '" + path + "'");
}

Result<std::string> EncodeNpy(const Tensor& tensor) {
  if (tensor.empty()) return Status::InvalidArgument("cannot encode an empty Tensor as .npy");
  std::string_view descr = NpyDescr(tensor.type());
  if (descr.empty())
    return Status::Unimplemented("tensor of " + std::string(DataTypeName(tensor.type())) +
                                 ": numpy has no such dtype, so it cannot be written as .npy");
  std::string dict = FormatNpyHeaderDict({std::string(descr), true, false, tensor.shape()});
  // Pad with spaces and end with '\n' (as numpy does) so that the data starts on a 64-byte boundary.
  size_t prefix = 10;
  size_t total = (prefix + dict.size() + 1 + kDataAlign - 1) / kDataAlign * kDataAlign;
  if (total - prefix > 0xFFFF) {  // version 1.0's header length is 16 bits
    prefix = 12;
    total = (prefix + dict.size() + 1 + kDataAlign - 1) / kDataAlign * kDataAlign;
  }
  std::string out;
  out.reserve(total + tensor.byte_size());
  out += kMagic;
  out += static_cast<char>(prefix == 10 ? 1 : 2);
  out += '\0';
  size_t header_len = total - prefix;
  if (prefix == 10) {
    le::Append16(out, static_cast<uint16_t>(header_len));
  } else {
    le::Append32(out, static_cast<uint32_t>(header_len));
  }
  out += dict;
  out.append(total - out.size() - 1, ' ');
  out += '\n';
  if (tensor.byte_size()) out.append(reinterpret_cast<const char*>(tensor.data()), tensor.byte_size());
  return out;
}

Status WriteNpy(const std::string& path, const Tensor& tensor) {
  auto encoded = EncodeNpy(tensor);
  if (!encoded.ok()) return encoded.status().WithContext("writing '" + path + "'");
  return WriteFileBytes(path, std::as_bytes(std::span(encoded->data(), encoded->size())));
}

}  // namespace hone
