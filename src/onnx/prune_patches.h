// The rows a 2-D Conv multiplies its weight by (im2col), for refitting that weight by least squares: the Conv's
// output at one position of one sample is the dot product of one such row with a column of the weight seen as a
// matrix [C x kh x kw, Cout].
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "onnx/prune_conv_channels.h"

namespace hone::onnx {

// For `x` [n, c, h, w] row-major: one row per output position of each sample (n x out_h x out_w rows), c x kh x kw
// values each, channel first then the window's rows and columns (the order of the weight's [Cout, c, kh, kw]
// flattened), zeros where the window reads the padding. Empty when the window does not fit the image.
std::vector<float> ConvPatches(std::span<const float> x, int64_t n, int64_t c, int64_t h, int64_t w,
                               const ConvWindow& window);

}  // namespace hone::onnx
