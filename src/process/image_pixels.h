// An 8-bit image as the image stages pass it between decoding, colour conversion and resampling: width x height
// pixels of `channels` interleaved samples (1: gray, 3: R, G, B), rows top to bottom with no padding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hone::process {

struct Image8 {
  int64_t width = 0;
  int64_t height = 0;
  int channels = 0;
  std::vector<uint8_t> data;  // height * width * channels bytes

  // An image of the given size, every sample 0.
  static Image8 Zeros(int64_t width, int64_t height, int channels) {
    Image8 image{width, height, channels, {}};
    image.data.resize(static_cast<size_t>(width * height * channels));
    return image;
  }
  size_t stride() const { return static_cast<size_t>(width * channels); }
  const uint8_t* row(int64_t y) const { return data.data() + static_cast<size_t>(y) * stride(); }
  uint8_t* row(int64_t y) { return data.data() + static_cast<size_t>(y) * stride(); }
};

}  // namespace hone::process
