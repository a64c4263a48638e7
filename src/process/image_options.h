// hone_image's parameters, read from a config's string parameters and checked as a whole (see image_stage.h for
// what each one means).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "process/image_resize.h"

namespace hone::process {

struct ImageOptions {
  enum class Resize { kExact, kShorterSide };
  enum class Color { kGray, kRgb, kBgr };
  enum class Layout { kNchw, kNhwc };

  int64_t width = 0;   // of the output, in pixels
  int64_t height = 0;
  Resize resize = Resize::kExact;
  int64_t shorter_side = 0;  // kShorterSide only: the shorter side before the centre crop
  Interpolation interpolation = Interpolation::kBilinear;
  Color color = Color::kRgb;
  Layout layout = Layout::kNchw;
  double scale = 1.0 / 255.0;
  std::vector<double> mean;  // one per output channel, in the output's channel order
  std::vector<double> std;
  int64_t max_pixels = 40'000'000;  // of a decoded image, width times height

  int channels() const { return color == Color::kGray ? 1 : 3; }
  // "gray 28x28, exact, bilinear, nchw": for the stage's description.
  std::string Summary() const;
};

// The options `parameters` give. InvalidArgument naming the parameter (and prefixed by `kind`) for an unknown key,
// a missing width or height, a value out of range, a mean or std with the wrong count, a std of zero, or a
// shorter_side that is missing with resize shorter_side, given without it, or smaller than the crop.
Result<ImageOptions> ParseImageOptions(const std::string& kind, const std::map<std::string, std::string>& parameters);

}  // namespace hone::process
