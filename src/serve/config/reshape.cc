#include "serve/config/reshape.h"

#include "serve/config/config_types.h"

namespace hone::serve {
namespace {

// `to` with its -1s filled from the values `from` has at the -1s of `from_pattern` (from fits from_pattern).
std::optional<Shape> Map(const Shape& from_pattern, const Shape& from, const Shape& to) {
  std::vector<int64_t> variable;
  for (size_t i = 0; i < from_pattern.size(); ++i)
    if (from_pattern[i] < 0) variable.push_back(from[i]);
  size_t holes = 0;
  for (int64_t d : to) holes += d < 0 ? 1 : 0;
  Shape out = to;
  if (holes == variable.size()) {
    size_t next = 0;
    for (int64_t& d : out)
      if (d < 0) d = variable[next++];
  } else if (holes == 1) {
    std::optional<int64_t> total = ElementCount(from);
    int64_t fixed = 1;
    for (int64_t d : to) fixed *= d < 0 ? 1 : d;
    if (!total || fixed == 0 || *total % fixed != 0) return std::nullopt;
    for (int64_t& d : out)
      if (d < 0) d = *total / fixed;
  } else {
    return std::nullopt;
  }
  if (ElementCount(out) != ElementCount(from)) return std::nullopt;
  return out;
}

Shape WithBatch(bool batched, const Shape& dims) {
  Shape s;
  if (batched) s.push_back(-1);
  s.insert(s.end(), dims.begin(), dims.end());
  return s;
}

}  // namespace

bool ShapeFits(const Shape& pattern, const Shape& shape) {
  if (pattern.size() != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0 || (pattern[i] >= 0 && pattern[i] != shape[i])) return false;
  return true;
}

Result<Shape> ToModelShape(const inference::ModelInput& input, bool batched, const Shape& shape) {
  if (!input.has_reshape()) return shape;
  const Shape dims = WithBatch(batched, ToShape(input.dims()));
  const Shape model = WithBatch(batched, ToShape(input.reshape().shape()));
  if (ShapeFits(dims, shape))
    if (std::optional<Shape> mapped = Map(dims, shape, model)) return *mapped;
  if (ShapeFits(model, shape)) return shape;
  return Status::InvalidArgument("input '" + input.name() + "': expected shape " + DimsToString(dims) +
                                 " (the config's dims, reshaped to " + DimsToString(model) +
                                 " for the model) or the model's own " + DimsToString(model) + ", got " +
                                 DimsToString(shape));
}

Shape ToClientShape(const inference::ModelOutput& output, bool batched, const Shape& shape) {
  if (!output.has_reshape()) return shape;
  const Shape dims = WithBatch(batched, ToShape(output.dims()));
  const Shape model = WithBatch(batched, ToShape(output.reshape().shape()));
  if (!ShapeFits(model, shape)) return shape;
  return Map(model, shape, dims).value_or(shape);
}

}  // namespace hone::serve
