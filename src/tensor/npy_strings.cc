#include "tensor/npy_strings.h"

#include <charconv>
#include <string>
#include <vector>

#include "tensor/little_endian.h"

namespace hone {
namespace {

Status Invalid(std::string_view what, const std::string& message) {
  return Status::InvalidArgument(std::string(what) + ": " + message);
}

void AppendUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace

Result<std::optional<Tensor>> ParseNpyStrings(const NpyHeader& header, std::span<const std::byte> data,
                                              std::string_view what) {
  if (!header.descr_is_string) return std::optional<Tensor>();
  std::string_view d = header.descr;
  char order = '|';
  if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) {
    order = d[0];
    d.remove_prefix(1);
  }
  if (d.size() < 2 || (d[0] != 'S' && d[0] != 'U')) return std::optional<Tensor>();
  const bool unicode = d[0] == 'U';
  size_t width = 0;
  auto [ptr, ec] = std::from_chars(d.data() + 1, d.data() + d.size(), width);
  if (ec != std::errc() || ptr != d.data() + d.size() || width == 0 || width > (size_t{1} << 24))
    return std::optional<Tensor>();
  const size_t unit = unicode ? 4 : 1;
  auto count = ElementCount(header.shape);
  if (!count) return Invalid(what, "shape " + ShapeToString(header.shape) + ": expected non-negative dimensions");
  if (static_cast<uint64_t>(*count) > data.size() / (width * unit) + 1 ||
      data.size() != static_cast<size_t>(*count) * width * unit)
    return Invalid(what, "data is " + std::to_string(data.size()) + " bytes: expected " +
                             std::to_string(static_cast<size_t>(*count) * width * unit) + " for shape " +
                             ShapeToString(header.shape) + " of " + header.descr);
  if (header.fortran_order && header.shape.size() > 1)
    return Status::Unimplemented(std::string(what) + ": a string array in Fortran order; save it in C order");

  std::vector<std::string> elements(static_cast<size_t>(*count));
  for (size_t i = 0; i < elements.size(); ++i) {
    const std::byte* at = data.data() + i * width * unit;
    size_t length = width;
    if (!unicode) {
      while (length > 0 && at[length - 1] == std::byte{0}) --length;
      elements[i].assign(reinterpret_cast<const char*>(at), length);
      continue;
    }
    auto code = [&](size_t k) {
      uint32_t c = le::Load32(at + 4 * k);
      if (order == '>') c = ((c & 0xFF) << 24) | ((c & 0xFF00) << 8) | ((c >> 8) & 0xFF00) | (c >> 24);
      return c;
    };
    while (length > 0 && code(length - 1) == 0) --length;
    for (size_t k = 0; k < length; ++k) {
      uint32_t c = code(k);
      if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return Invalid(what, "element " + std::to_string(i) + " holds " + std::to_string(c) +
                                 ", which is not a Unicode code point");
      AppendUtf8(elements[i], c);
    }
  }
  std::vector<std::string_view> views(elements.begin(), elements.end());
  HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::FromStrings(header.shape, views));
  return std::optional<Tensor>(std::move(t));
}

}  // namespace hone
