// Small formatting helpers shared by this part's text and JSON reports. Internal to check.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/shape.h"

namespace hone::check {

// "91.17%" for 0.9117.
std::string Percent(double ratio);
// "1.23e-05", "0.0123", "inf": three significant digits.
std::string Sig(double value);
// "[2000, 10]"; "[]" for a scalar.
std::string ShapeText(const Shape& shape);
// The multi-index of flat element `index` in `shape`, as "[123, 4]".
std::string ElementIndex(int64_t index, const Shape& shape);
std::vector<int64_t> ElementIndexVector(int64_t index, const Shape& shape);

}  // namespace hone::check
