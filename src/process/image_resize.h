// Resampling 8-bit images as PIL's Image.resize does, and the geometry of torchvision's Resize(N) + CenterCrop.
//
// Bilinear is PIL's, not OpenCV's: a triangle filter whose support widens with the reduction factor when
// downscaling (so a reduction averages every input pixel under an output pixel: antialiased, as models trained
// with torchvision on PIL images expect), separable, horizontal pass first, each pass rounded to 8 bits with weights
// in 22-bit fixed point. Sample centres are at half-pixel positions on both sides. Against PIL 9.4 on the test
// images the result is identical; the stated tolerance is one 8-bit level (the pass order is swapped for extreme
// aspect ratios, below, and a different rounding of a weight could move a sample by one level).
// Nearest takes the input pixel under each output pixel's centre, floor((i + 0.5) * in / out), with PIL's
// floating-point rounding (identical indices).
//
// Memory stays bounded by the input and output sizes: only the output window is computed (a centre crop never
// resamples what it throws away), and when the horizontal-first intermediate would be over 16 times the larger of
// the input and the output and larger than the vertical-first one (a 1 x 40,000,000 image, say), the vertical pass
// goes first.
#pragma once

#include <cstdint>

#include "process/image_pixels.h"

namespace hone::process {

enum class Interpolation { kBilinear, kNearest };

// What to compute: the image resampled to full_width x full_height, of which only the window of width x height
// at (left, top) is kept.
struct ResizeWindow {
  int64_t full_width = 0;
  int64_t full_height = 0;
  int64_t left = 0;
  int64_t top = 0;
  int64_t width = 0;
  int64_t height = 0;
};

// Scale to width x height, whatever the aspect ratio.
ResizeWindow ExactWindow(int64_t width, int64_t height);

// torchvision's Resize(shorter_side) then CenterCrop((height, width)) of an in_width x in_height image: the shorter
// side becomes shorter_side and the longer one shorter_side * longer / shorter, truncated; the crop's offsets are
// (full - crop) / 2 rounded half to even, as Python's round. Needs shorter_side >= width and >= height.
ResizeWindow ShorterSideWindow(int64_t in_width, int64_t in_height, int64_t shorter_side, int64_t width,
                               int64_t height);

// The window of `in` resampled; the result is window.width x window.height with in.channels channels.
Image8 Resize(const Image8& in, const ResizeWindow& window, Interpolation interpolation);

}  // namespace hone::process
