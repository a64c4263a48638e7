#include "runtime/input_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace hone::runtime {

Status ParseShapeFlag(const std::string& text, InputOptions& options) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return Status::InvalidArgument("--shape '" + text + "': expected NAME:DIMS, e.g. input_ids:1x128");
  auto shape = ParseShape(std::string_view(text).substr(colon + 1));
  if (!shape)
    return Status::InvalidArgument("--shape '" + text + "': expected dimensions as non-negative integers like 1x128");
  options.shapes[text.substr(0, colon)] = *shape;
  return Status::Ok();
}

static bool ParseDouble(std::string_view s, double& out) {
  if (s.empty()) return false;
  std::string copy(s);
  char* end = nullptr;
  out = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && std::isfinite(out);
}

Status ParseRangeFlag(const std::string& text, InputOptions& options) {
  // Name first, then two numbers; the name may itself hold ':' (ONNX names sometimes do), so split from the right.
  size_t second = text.rfind(':');
  size_t first = second == std::string::npos || second == 0 ? std::string::npos : text.rfind(':', second - 1);
  ValueRange r;
  if (first == std::string::npos || first == 0 ||
      !ParseDouble(std::string_view(text).substr(first + 1, second - first - 1), r.low) ||
      !ParseDouble(std::string_view(text).substr(second + 1), r.high))
    return Status::InvalidArgument("--range '" + text + "': expected NAME:LOW:HIGH, e.g. input_ids:0:30522");
  if (!(r.low < r.high)) return Status::InvalidArgument("--range '" + text + "': expected LOW < HIGH");
  options.ranges[text.substr(0, first)] = r;
  return Status::Ok();
}

}  // namespace hone::runtime
