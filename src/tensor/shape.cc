#include "tensor/shape.h"

#include <charconv>
#include <limits>

namespace hone {

std::optional<int64_t> ElementCount(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

std::string ShapeToString(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

std::optional<Shape> ParseShape(std::string_view text) {
  Shape shape;
  if (text.empty()) return std::nullopt;
  size_t pos = 0;
  while (true) {
    size_t end = text.find_first_of("x,", pos);
    std::string_view part = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    int64_t d = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), d);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || d < 0) return std::nullopt;
    shape.push_back(d);
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return shape;
}

}  // namespace hone
