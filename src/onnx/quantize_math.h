// The arithmetic of linear quantization, as ONNX's QuantizeLinear and DequantizeLinear define it:
//   q = saturate(round_half_to_even(x / scale) + zero_point),   x' = (q - zero_point) * scale.
// Pure functions, no graphs: choosing scale and zero point from a range, quantizing weights per tensor, per channel
// or per block (MatMulNBits), and biases to int32.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hone::onnx {

enum class QuantType { kInt8, kUint8 };

struct QuantParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

int32_t QuantMin(QuantType type);  // -128 or 0
int32_t QuantMax(QuantType type);  // 127 or 255

// Scale and zero point that map [min, max] onto `type`. The range is first widened to include 0, so that zero
// (padding, ReLU's floor) is exact. Symmetric: zero point 0 (int8) or 128 (uint8), scale = max(|min|, |max|) / 127,
// so that +-max are both representable and the grid is centred on zero. Asymmetric: the whole integer range spans
// [min, max]. A range of width 0 gives scale 1 (every value is then 0 and exact).
QuantParams ChooseQuantParams(float min, float max, QuantType type, bool symmetric);

// One value, as QuantizeLinear computes it.
int32_t QuantizeValue(float x, const QuantParams& p, QuantType type);
inline float DequantizeValue(int32_t q, const QuantParams& p) { return static_cast<float>(q - p.zero_point) * p.scale; }

// A weight tensor quantized per tensor (one QuantParams) or per channel (one per slice along an axis).
struct QuantizedTensor {
  std::vector<int32_t> values;        // in range for the type; same layout as the input
  std::vector<QuantParams> params;    // one, or one per channel
};

// Quantizes `values` (row-major with `shape`) per slice along `axis`, or per tensor when axis < 0. Symmetric
// weights use codes zero_point +- symmetric_limit with scale max|w| / symmetric_limit: 127 is the full int8 range
// without -128 (so that w and -w stay exact negatives), 64 the "reduced range" that keeps u8 x s8 products from
// saturating on x86 CPUs without VNNI (see kReducedWeightLimit). Asymmetric weights use the whole type's range.
QuantizedTensor QuantizeWeights(std::span<const float> values, const std::vector<int64_t>& shape, int axis,
                                QuantType type, bool symmetric, int32_t symmetric_limit = 127);

// x86 CPUs without VNNI multiply u8 activations by s8 weights with VPMADDUBSW, which adds two products into a
// saturating int16: 255 * 127 * 2 = 64770 overflows 32767, 255 * 64 * 2 = 32640 does not. Weights limited to
// +-64 (7 bits) can never saturate, at the cost of one bit of weight precision.
inline constexpr int32_t kFullWeightLimit = 127;
inline constexpr int32_t kReducedWeightLimit = 64;

// Biases to int32 with scale input_scale * weight_scale[c] (zero point 0), what QLinearConv and QGemm expect.
// `weight_params` holds one entry (per tensor) or one per bias element. Values that would overflow int32 saturate.
std::vector<int32_t> QuantizeBias(std::span<const float> bias, float input_scale,
                                  std::span<const QuantParams> weight_params);

// MatMulNBits' block quantization of a [K, N] weight matrix W (row-major), column by column along K in blocks of
// `block_size` (a K that is not a multiple is padded with zeros).
struct BlockQuantized {
  int64_t k = 0, n = 0, blocks = 0, blob_bytes = 0;
  std::string packed;               // [N, blocks, blob_bytes]: codes low bits first within each byte
  std::vector<float> scales;        // [N, blocks]
  std::string zero_points;          // [N, ceil(blocks * bits / 8)] packed like the codes; empty when symmetric
  // With block offsets: [N, blocks]; a weight is scale * (code - 2^(bits-1)) + offset. Empty otherwise.
  std::vector<float> offsets;
};

// Codes are unsigned in [0, 2^bits - 1]. Symmetric: the zero point is ONNX Runtime's default 2^(bits-1) and is not
// stored; scale = max|w| / (2^(bits-1) - 1) per block. Asymmetric: the block's [min, max] (widened to include 0)
// spans the codes, with a stored zero point. bits is 4 or 8; block_size a power of two >= 16.
BlockQuantized QuantizeBlocks(std::span<const float> w, int64_t k, int64_t n, int bits, int block_size,
                              bool symmetric);

// The block-offset form (Q4_1's): each block's [min, max] spans the codes exactly, without widening to include 0;
// zero points are MatMulNBits' default 2^(bits-1) (not stored) and the minimum goes to `offsets`.
BlockQuantized QuantizeBlocksWithOffsets(std::span<const float> w, int64_t k, int64_t n, int bits, int block_size);

// The weight matrix BlockQuantized stands for, [K, N] row-major: for tests and error estimates.
std::vector<float> DequantizeBlocks(const BlockQuantized& q, int bits);

}  // namespace hone::onnx
