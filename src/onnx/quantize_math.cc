#include "onnx/quantize_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hone::onnx {
namespace {

// Round half to even, as QuantizeLinear specifies (std::nearbyint under the default rounding mode).
float RoundHalfEven(float x) { return std::nearbyint(x); }

int32_t Saturate(float x, int32_t lo, int32_t hi) {
  if (std::isnan(x)) return 0;
  if (x <= static_cast<float>(lo)) return lo;
  if (x >= static_cast<float>(hi)) return hi;
  return static_cast<int32_t>(x);
}

}  // namespace

int32_t QuantMin(QuantType type) { return type == QuantType::kInt8 ? -128 : 0; }
int32_t QuantMax(QuantType type) { return type == QuantType::kInt8 ? 127 : 255; }

QuantParams ChooseQuantParams(float min, float max, QuantType type, bool symmetric) {
  if (!std::isfinite(min)) min = 0;
  if (!std::isfinite(max)) max = 0;
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  QuantParams p;
  if (symmetric) {
    float absmax = std::max(-min, max);
    p.scale = absmax > 0 ? absmax / 127.0f : 1.0f;
    p.zero_point = type == QuantType::kInt8 ? 0 : 128;
    return p;
  }
  if (max == min) return p;
  const int32_t qmin = QuantMin(type), qmax = QuantMax(type);
  p.scale = (max - min) / static_cast<float>(qmax - qmin);
  p.zero_point = Saturate(RoundHalfEven(static_cast<float>(qmin) - min / p.scale), qmin, qmax);
  return p;
}

int32_t QuantizeValue(float x, const QuantParams& p, QuantType type) {
  return Saturate(RoundHalfEven(x / p.scale) + static_cast<float>(p.zero_point), QuantMin(type), QuantMax(type));
}

QuantizedTensor QuantizeWeights(std::span<const float> values, const std::vector<int64_t>& shape, int axis,
                                QuantType type, bool symmetric, int32_t symmetric_limit) {
  QuantizedTensor out;
  out.values.resize(values.size());
  // View the tensor as [outer, channels, inner] around `axis`; per tensor is one channel.
  int64_t channels = 1, inner = 1;
  if (axis >= 0) {
    channels = shape[static_cast<size_t>(axis)];
    for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  } else {
    inner = static_cast<int64_t>(values.size());
  }
  const int64_t outer = channels * inner == 0 ? 0 : static_cast<int64_t>(values.size()) / (channels * inner);
  std::vector<float> lo(channels, std::numeric_limits<float>::infinity()),
      hi(channels, -std::numeric_limits<float>::infinity());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        float v = values[(o * channels + c) * inner + i];
        lo[c] = std::min(lo[c], v);
        hi[c] = std::max(hi[c], v);
      }
  out.params.resize(channels);
  for (int64_t c = 0; c < channels; ++c) {
    out.params[c] = ChooseQuantParams(lo[c], hi[c], type, symmetric);
    if (symmetric) {
      float absmax = std::max(std::fabs(lo[c]), std::fabs(hi[c]));
      out.params[c].scale = absmax > 0 && std::isfinite(absmax) ? absmax / static_cast<float>(symmetric_limit) : 1.0f;
    }
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const int32_t zp = out.params[c].zero_point;
      const int32_t qmin = symmetric ? zp - symmetric_limit : QuantMin(type);
      const int32_t qmax = symmetric ? zp + symmetric_limit : QuantMax(type);
      for (int64_t i = 0; i < inner; ++i) {
        size_t at = static_cast<size_t>((o * channels + c) * inner + i);
        out.values[at] = std::clamp(QuantizeValue(values[at], out.params[c], type), qmin, qmax);
      }
    }
  return out;
}

std::vector<int32_t> QuantizeBias(std::span<const float> bias, float input_scale,
                                  std::span<const QuantParams> weight_params) {
  std::vector<int32_t> out(bias.size());
  for (size_t i = 0; i < bias.size(); ++i) {
    const QuantParams& w = weight_params.size() == 1 ? weight_params[0] : weight_params[i];
    double scale = static_cast<double>(input_scale) * w.scale;
    double q = scale > 0 ? std::nearbyint(bias[i] / scale) : 0.0;
    q = std::clamp(q, static_cast<double>(std::numeric_limits<int32_t>::min()),
                   static_cast<double>(std::numeric_limits<int32_t>::max()));
    out[i] = static_cast<int32_t>(q);
  }
  return out;
}

namespace {

// The layout both block quantizers share: sizes, and the codes and scales zeroed.
BlockQuantized BlockLayout(int64_t k, int64_t n, int bits, int block_size) {
  BlockQuantized q;
  q.k = k;
  q.n = n;
  q.blocks = (k + block_size - 1) / block_size;
  q.blob_bytes = static_cast<int64_t>(block_size) * bits / 8;
  q.packed.assign(static_cast<size_t>(n * q.blocks * q.blob_bytes), '\0');
  q.scales.resize(static_cast<size_t>(n * q.blocks));
  return q;
}

// Packs `code` as the index-th `bits`-bit field after `base`, low bits first within each byte.
void PutCode(std::string& bytes, int bits, int64_t base, int64_t index, int32_t code) {
  const int64_t bit = index * bits;
  auto& byte = bytes[static_cast<size_t>(base + bit / 8)];
  byte = static_cast<char>(static_cast<uint8_t>(byte) | static_cast<uint8_t>(code << (bit % 8)));
}

}  // namespace

BlockQuantized QuantizeBlocks(std::span<const float> w, int64_t k, int64_t n, int bits, int block_size,
                              bool symmetric) {
  BlockQuantized q = BlockLayout(k, n, bits, block_size);
  const int32_t qmax = (1 << bits) - 1;
  const int32_t mid = 1 << (bits - 1);
  const int64_t zp_row_bytes = (q.blocks * bits + 7) / 8;
  if (!symmetric) q.zero_points.assign(static_cast<size_t>(n * zp_row_bytes), '\0');
  auto put = [bits](std::string& bytes, int64_t base, int64_t index, int32_t code) {
    PutCode(bytes, bits, base, index, code);
  };
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t b = 0; b < q.blocks; ++b) {
      const int64_t k0 = b * block_size, k1 = std::min(k, k0 + block_size);
      float lo = 0, hi = 0;
      for (int64_t r = k0; r < k1; ++r) {
        lo = std::min(lo, w[r * n + col]);
        hi = std::max(hi, w[r * n + col]);
      }
      float scale = 1.0f;
      int32_t zp = mid;
      if (symmetric) {
        float absmax = std::max(-lo, hi);
        if (absmax > 0) scale = absmax / static_cast<float>(mid - 1);
      } else if (hi > lo) {
        scale = (hi - lo) / static_cast<float>(qmax);
        zp = std::clamp(static_cast<int32_t>(std::nearbyint(-lo / scale)), 0, qmax);
      }
      q.scales[col * q.blocks + b] = scale;
      if (!symmetric) put(q.zero_points, col * zp_row_bytes, b, zp);
      const int64_t base = (col * q.blocks + b) * q.blob_bytes;
      for (int64_t r = k0; r < k0 + block_size; ++r) {
        // Padding rows (r >= k) hold the zero point, which dequantizes to exactly 0.
        int32_t code = r < k ? std::clamp(static_cast<int32_t>(std::nearbyint(w[r * n + col] / scale)) + zp, 0, qmax)
                             : zp;
        put(q.packed, base, r - k0, code);
      }
    }
  }
  return q;
}

BlockQuantized QuantizeBlocksWithOffsets(std::span<const float> w, int64_t k, int64_t n, int bits, int block_size) {
  BlockQuantized q = BlockLayout(k, n, bits, block_size);
  const int32_t qmax = (1 << bits) - 1;
  const int32_t mid = 1 << (bits - 1);
  q.offsets.resize(static_cast<size_t>(n * q.blocks));
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t b = 0; b < q.blocks; ++b) {
      const int64_t k0 = b * block_size, k1 = std::min(k, k0 + block_size);
      float lo = w[k0 * n + col], hi = lo;
      for (int64_t r = k0; r < k1; ++r) {
        lo = std::min(lo, w[r * n + col]);
        hi = std::max(hi, w[r * n + col]);
      }
      const float scale = hi > lo ? (hi - lo) / static_cast<float>(qmax) : 1.0f;
      q.scales[col * q.blocks + b] = scale;
      q.offsets[col * q.blocks + b] = lo + static_cast<float>(mid) * scale;
      const int64_t base = (col * q.blocks + b) * q.blob_bytes;
      for (int64_t r = k0; r < k0 + block_size; ++r) {
        // Padding rows (r >= k) meet zeros in the input's block sums and in MatMulNBits: any code does.
        const int32_t code =
            r < k ? std::clamp(static_cast<int32_t>(std::nearbyint((w[r * n + col] - lo) / scale)), 0, qmax) : mid;
        PutCode(q.packed, bits, base, r - k0, code);
      }
    }
  }
  return q;
}

std::vector<float> DequantizeBlocks(const BlockQuantized& q, int bits) {
  const int64_t block_size = q.blob_bytes * 8 / bits;
  const int64_t zp_row_bytes = (q.blocks * bits + 7) / 8;
  const uint32_t mask = (1u << bits) - 1;
  auto get = [bits, mask](const std::string& bytes, int64_t base, int64_t index) {
    int64_t bit = index * bits;
    return static_cast<int32_t>((static_cast<uint8_t>(bytes[static_cast<size_t>(base + bit / 8)]) >> (bit % 8)) &
                                mask);
  };
  std::vector<float> w(static_cast<size_t>(q.k * q.n));
  for (int64_t col = 0; col < q.n; ++col)
    for (int64_t b = 0; b < q.blocks; ++b) {
      int32_t zp = q.zero_points.empty() ? (1 << (bits - 1)) : get(q.zero_points, col * zp_row_bytes, b);
      float scale = q.scales[col * q.blocks + b];
      const float offset = q.offsets.empty() ? 0.0f : q.offsets[col * q.blocks + b];
      for (int64_t r = b * block_size; r < std::min(q.k, (b + 1) * block_size); ++r)
        w[r * q.n + col] = static_cast<float>(get(q.packed, (col * q.blocks + b) * q.blob_bytes, r - b * block_size) -
                                              zp) * scale + offset;
    }
  return w;
}

}  // namespace hone::onnx
