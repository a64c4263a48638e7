#include "onnx/prune_patches.h"

namespace hone::onnx {

std::vector<float> ConvPatches(std::span<const float> x, int64_t n, int64_t c, int64_t h, int64_t w,
                               const ConvWindow& k) {
  const int64_t span_h = k.dilation_h * (k.kernel_h - 1) + 1, span_w = k.dilation_w * (k.kernel_w - 1) + 1;
  const int64_t padded_h = h + k.pads[0] + k.pads[2], padded_w = w + k.pads[1] + k.pads[3];
  if (padded_h < span_h || padded_w < span_w || k.stride_h < 1 || k.stride_w < 1) return {};
  const int64_t out_h = (padded_h - span_h) / k.stride_h + 1, out_w = (padded_w - span_w) / k.stride_w + 1;
  const int64_t width = c * k.kernel_h * k.kernel_w;
  std::vector<float> rows(static_cast<size_t>(n * out_h * out_w * width), 0.0f);
  float* row = rows.data();
  for (int64_t s = 0; s < n; ++s)
    for (int64_t oy = 0; oy < out_h; ++oy)
      for (int64_t ox = 0; ox < out_w; ++ox, row += width) {
        float* col = row;
        for (int64_t ch = 0; ch < c; ++ch) {
          const float* plane = x.data() + (s * c + ch) * h * w;
          for (int64_t i = 0; i < k.kernel_h; ++i) {
            const int64_t y = oy * k.stride_h - k.pads[0] + i * k.dilation_h;
            for (int64_t j = 0; j < k.kernel_w; ++j, ++col) {
              const int64_t xx = ox * k.stride_w - k.pads[1] + j * k.dilation_w;
              if (y >= 0 && y < h && xx >= 0 && xx < w) *col = plane[y * w + xx];
            }
          }
        }
      }
  return rows;
}

}  // namespace hone::onnx
