#include "onnx/quantize_math.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/graph_tensor.h"
#include "onnx/quantize_test_models.h"

namespace hone::onnx {
namespace {

using ::testing::ElementsAre;

TEST(QuantizeMathTest, AsymmetricUint8SpansTheRangeWithZeroExact) {
  QuantParams p = ChooseQuantParams(-1.0f, 3.0f, QuantType::kUint8, false);
  EXPECT_FLOAT_EQ(p.scale, 4.0f / 255);
  EXPECT_EQ(p.zero_point, 64);  // round(1 / (4/255)) = round(63.75)
  EXPECT_EQ(QuantizeValue(0.0f, p, QuantType::kUint8), 64);
  EXPECT_EQ(QuantizeValue(-1.0f, p, QuantType::kUint8), 0);
  EXPECT_EQ(QuantizeValue(3.0f, p, QuantType::kUint8), 255);
  EXPECT_EQ(QuantizeValue(100.0f, p, QuantType::kUint8), 255);  // saturates
  EXPECT_FLOAT_EQ(DequantizeValue(64, p), 0.0f);
}

TEST(QuantizeMathTest, RangeIsWidenedToIncludeZero) {
  QuantParams p = ChooseQuantParams(2.0f, 4.0f, QuantType::kUint8, false);
  EXPECT_EQ(p.zero_point, 0);
  EXPECT_FLOAT_EQ(p.scale, 4.0f / 255);
}

TEST(QuantizeMathTest, SymmetricInt8IsCentredOnZero) {
  QuantParams p = ChooseQuantParams(-0.5f, 1.27f, QuantType::kInt8, true);
  EXPECT_EQ(p.zero_point, 0);
  EXPECT_FLOAT_EQ(p.scale, 0.01f);
  EXPECT_EQ(QuantizeValue(-1.27f, p, QuantType::kInt8), -127);
  QuantParams u = ChooseQuantParams(-0.5f, 1.27f, QuantType::kUint8, true);
  EXPECT_EQ(u.zero_point, 128);
}

TEST(QuantizeMathTest, EmptyRangeGivesUnitScale) {
  QuantParams p = ChooseQuantParams(0.0f, 0.0f, QuantType::kUint8, false);
  EXPECT_EQ(p.scale, 1.0f);
  EXPECT_EQ(p.zero_point, 0);
  EXPECT_EQ(ChooseQuantParams(0, 0, QuantType::kInt8, true).scale, 1.0f);
}

TEST(QuantizeMathTest, RoundsHalfToEven) {
  QuantParams p{1.0f, 0};
  EXPECT_EQ(QuantizeValue(2.5f, p, QuantType::kInt8), 2);
  EXPECT_EQ(QuantizeValue(3.5f, p, QuantType::kInt8), 4);
  EXPECT_EQ(QuantizeValue(-2.5f, p, QuantType::kInt8), -2);
}

TEST(QuantizeMathTest, PerChannelWeightsGetTheirOwnScale) {
  // [2, 3]: channel (row) 0 within +-1, channel 1 within +-0.1, quantized along axis 0.
  std::vector<float> w = {1.0f, -0.6f, 0.25f, 0.1f, -0.04f, 0.0f};
  QuantizedTensor q = QuantizeWeights(w, {2, 3}, 0, QuantType::kInt8, true);
  ASSERT_EQ(q.params.size(), 2u);
  EXPECT_FLOAT_EQ(q.params[0].scale, 1.0f / 127);
  EXPECT_FLOAT_EQ(q.params[1].scale, 0.1f / 127);
  EXPECT_THAT(q.values, ElementsAre(127, -76, 32, 127, -51, 0));  // -76.2, 31.75, -50.8 rounded
  // Per tensor the small channel loses most of its resolution.
  QuantizedTensor t = QuantizeWeights(w, {2, 3}, -1, QuantType::kInt8, true);
  ASSERT_EQ(t.params.size(), 1u);
  EXPECT_THAT(t.values, ElementsAre(127, -76, 32, 13, -5, 0));
}

TEST(QuantizeMathTest, PerChannelAlongTheLastAxis) {
  // [2, 2] quantized per column (axis 1): column 0 is {2, -1.2}, column 1 is {0.5, 0.3}.
  std::vector<float> w = {2.0f, 0.5f, -1.2f, 0.3f};
  QuantizedTensor q = QuantizeWeights(w, {2, 2}, 1, QuantType::kInt8, true);
  EXPECT_FLOAT_EQ(q.params[0].scale, 2.0f / 127);
  EXPECT_FLOAT_EQ(q.params[1].scale, 0.5f / 127);
  EXPECT_THAT(q.values, ElementsAre(127, 127, -76, 76));
}

TEST(QuantizeMathTest, SymmetricInt8WeightsNeverUseMinus128) {
  std::vector<float> w = {-1.0f, 1.0f, -0.999f};
  QuantizedTensor q = QuantizeWeights(w, {3}, -1, QuantType::kInt8, true);
  EXPECT_THAT(q.values, ElementsAre(-127, 127, -127));
}

TEST(QuantizeMathTest, BiasUsesTheProductOfScales) {
  std::vector<float> bias = {0.5f, -0.25f};
  std::vector<QuantParams> w = {{0.01f, 0}, {0.02f, 0}};
  EXPECT_THAT(QuantizeBias(bias, 0.1f, w), ElementsAre(500, -125));
}

TEST(QuantizeMathTest, BlockQuantizationPacksLowNibbleFirst) {
  // K = 32, N = 1: one block. Symmetric 4-bit: scale = max|w| / 7, codes = round(w / scale) + 8.
  std::vector<float> w(32, 0.0f);
  w[0] = 7.0f;
  w[1] = -7.0f;
  w[2] = 1.0f;
  BlockQuantized q = QuantizeBlocks(w, 32, 1, 4, 32, true);
  EXPECT_EQ(q.blocks, 1);
  EXPECT_EQ(q.blob_bytes, 16);
  ASSERT_EQ(q.packed.size(), 16u);
  EXPECT_FLOAT_EQ(q.scales[0], 1.0f);
  EXPECT_EQ(static_cast<uint8_t>(q.packed[0]), (1 << 4) | 15);  // w0 -> 15 low, w1 -> 1 high
  EXPECT_EQ(static_cast<uint8_t>(q.packed[1]), (8 << 4) | 9);   // w2 -> 9, w3 (0) -> 8
  EXPECT_TRUE(q.zero_points.empty());
  EXPECT_EQ(DequantizeBlocks(q, 4), w);
}

TEST(QuantizeMathTest, BlockQuantizationPadsAndStoresZeroPoints) {
  // K = 40 with block 32: two blocks per column, the second padded. N = 3 columns.
  const int64_t k = 40, n = 3;
  std::vector<float> w = testing::RandomValues(k * n, 7, -1.0f, 2.0f);
  for (int bits : {4, 8}) {
    BlockQuantized q = QuantizeBlocks(w, k, n, bits, 32, false);
    EXPECT_EQ(q.blocks, 2);
    EXPECT_EQ(q.packed.size(), static_cast<size_t>(n * 2 * 32 * bits / 8));
    EXPECT_EQ(q.zero_points.size(), static_cast<size_t>(n * ((2 * bits + 7) / 8)));
    std::vector<float> back = DequantizeBlocks(q, bits);
    // Asymmetric round to nearest: every weight within half a step of its block.
    for (int64_t col = 0; col < n; ++col)
      for (int64_t r = 0; r < k; ++r)
        EXPECT_LE(std::fabs(back[r * n + col] - w[r * n + col]), q.scales[col * 2 + r / 32] * 0.5f + 1e-6f)
            << "bits " << bits << " row " << r << " col " << col;
  }
}

TEST(QuantizeMathTest, BlockOffsetsReproduceAQ41GridExactly) {
  // Weights already on llama.cpp's Q4_1 grid (w = d * q + m per block of 32, q in 0..15, both ends used), with
  // blocks that do not contain 0: offsets give them back exactly, integer zero points cannot.
  const int64_t k = 64, n = 3;
  std::vector<float> w(k * n);
  std::vector<float> values = testing::RandomValues(k * n, 11, 0.0f, 1.0f);
  for (int64_t col = 0; col < n; ++col)
    for (int64_t b = 0; b < 2; ++b) {
      const float d = 0.01f * static_cast<float>(col + b + 1), m = 0.05f + 0.1f * static_cast<float>(b) - 0.2f * col;
      for (int64_t r = b * 32; r < b * 32 + 32; ++r) {
        int q = r == b * 32 ? 0 : r == b * 32 + 1 ? 15 : static_cast<int>(values[r * n + col] * 15.99f);
        w[r * n + col] = d * static_cast<float>(q) + m;
      }
    }
  BlockQuantized q = QuantizeBlocksWithOffsets(w, k, n, 4, 32);
  EXPECT_TRUE(q.zero_points.empty());
  ASSERT_EQ(q.offsets.size(), static_cast<size_t>(n * 2));
  std::vector<float> back = DequantizeBlocks(q, 4);
  double worst = 0, worst_zp = 0;
  std::vector<float> zp_back = DequantizeBlocks(QuantizeBlocks(w, k, n, 4, 32, false), 4);
  for (size_t i = 0; i < w.size(); ++i) {
    worst = std::max(worst, static_cast<double>(std::fabs(back[i] - w[i])));
    worst_zp = std::max(worst_zp, static_cast<double>(std::fabs(zp_back[i] - w[i])));
  }
  EXPECT_LT(worst, 1e-6);
  EXPECT_GT(worst_zp, 1e-3);
}

TEST(GraphTensorTest, HalfAndBfloat16RoundToNearestEven) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);  // rounds up to infinity
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // a tie, to even (zero)
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie between 1 and 1+2^-10: even
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
  for (float v : {0.0f, 1.5f, -3.25f, 1e-5f, 6.1e-5f, 1000.0f, 65504.0f})
    EXPECT_NEAR(HalfToFloat(FloatToHalf(v)), v, std::fabs(v) * 1e-3f + 1e-7f) << v;
  EXPECT_EQ(FloatToBfloat16(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBfloat16(1.00390625f), 0x3F80);  // tie, to even
  EXPECT_EQ(FloatToBfloat16(1.01171875f), 0x3F82);  // tie, to even (up)
  EXPECT_FLOAT_EQ(Bfloat16ToFloat(FloatToBfloat16(-2.5f)), -2.5f);
}

}  // namespace
}  // namespace hone::onnx
