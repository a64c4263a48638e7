#include "check/report_format.h"

#include <fmt/format.h>


namespace hone::check {

std::string Percent(double ratio) { return fmt::format("{:.2f}%", ratio * 100); }

std::string Sig(double value) { return fmt::format("{:.3g}", value); }

std::string ShapeText(const Shape& shape) {
  std::string s;
  for (int64_t d : shape) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return "[" + s + "]";
}

std::vector<int64_t> ElementIndexVector(int64_t index, const Shape& shape) {
  std::vector<int64_t> out(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] <= 0) continue;
    out[d] = index % shape[d];
    index /= shape[d];
  }
  return out;
}

std::string ElementIndex(int64_t index, const Shape& shape) { return ShapeText(ElementIndexVector(index, shape)); }

}  // namespace hone::check
