// Shapes. A concrete shape has every dimension >= 0; a model's declared shape may hold -1 for a dynamic dimension.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hone {

using Shape = std::vector<int64_t>;

// Product of the dimensions (1 for a scalar); nullopt if any dimension is negative or the product overflows.
std::optional<int64_t> ElementCount(const Shape& shape);
// "1x28x28"; "-1" for a dynamic dimension; "scalar" for rank 0.
std::string ShapeToString(const Shape& shape);
// Parses "8x128" (also "8,128"); nullopt unless every dimension is a non-negative integer.
std::optional<Shape> ParseShape(std::string_view text);

}  // namespace hone
