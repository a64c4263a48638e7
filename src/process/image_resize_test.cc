// Resampling's invariants and torchvision's geometry; the pixels against PIL's are in image_stage_test.cc.
#include "process/image_resize.h"

#include <gtest/gtest.h>

#include <random>

namespace hone::process {
namespace {

Image8 Noise(int64_t width, int64_t height, int channels, unsigned seed) {
  Image8 image = Image8::Zeros(width, height, channels);
  std::mt19937 rng(seed);
  for (uint8_t& v : image.data) v = static_cast<uint8_t>(rng());
  return image;
}

Image8 Constant(int64_t width, int64_t height, int channels, uint8_t value) {
  Image8 image = Image8::Zeros(width, height, channels);
  std::fill(image.data.begin(), image.data.end(), value);
  return image;
}

TEST(ImageResizeTest, ShorterSideThenCentreCropAsTorchvision) {
  // Landscape 32x24, shorter side 20: 26x20 (20 * 32 / 24 = 26.67, truncated); a 15x15 crop at (5.5, 2.5),
  // rounded half to even: (6, 2).
  ResizeWindow w = ShorterSideWindow(32, 24, 20, 15, 15);
  EXPECT_EQ(w.full_width, 26);
  EXPECT_EQ(w.full_height, 20);
  EXPECT_EQ(w.left, 6);
  EXPECT_EQ(w.top, 2);
  EXPECT_EQ(w.width, 15);
  // Portrait, and a square crop of a square image.
  w = ShorterSideWindow(480, 640, 256, 224, 224);
  EXPECT_EQ(w.full_width, 256);
  EXPECT_EQ(w.full_height, 341);
  EXPECT_EQ(w.left, 16);
  EXPECT_EQ(w.top, 58);  // round(58.5) = 58
  w = ShorterSideWindow(100, 100, 7, 6, 6);
  EXPECT_EQ(w.left, 0);  // round(0.5) = 0
  EXPECT_EQ(ShorterSideWindow(100, 100, 9, 6, 6).left, 2);  // round(1.5) = 2
  EXPECT_EQ(ShorterSideWindow(100, 100, 11, 6, 6).left, 2);  // round(2.5) = 2
}

TEST(ImageResizeTest, SameSizeIsACopy) {
  const Image8 in = Noise(13, 7, 3, 1);
  for (Interpolation i : {Interpolation::kBilinear, Interpolation::kNearest})
    EXPECT_EQ(Resize(in, ExactWindow(13, 7), i).data, in.data);
}

TEST(ImageResizeTest, ConstantImagesStayConstant) {
  // The weights of every output sample sum to one (to within the fixed point's rounding): nothing drifts.
  for (auto [w, h] : std::vector<std::pair<int64_t, int64_t>>{{5, 3}, {64, 48}, {1, 1}, {200, 7}}) {
    for (Interpolation i : {Interpolation::kBilinear, Interpolation::kNearest}) {
      const Image8 out = Resize(Constant(37, 23, 3, 201), ExactWindow(w, h), i);
      ASSERT_EQ(out.width, w);
      ASSERT_EQ(out.height, h);
      ASSERT_EQ(out.channels, 3);
      for (uint8_t v : out.data) ASSERT_EQ(v, 201) << w << "x" << h;
    }
  }
}

TEST(ImageResizeTest, AWindowIsThatPartOfTheWholeResize) {
  const Image8 in = Noise(41, 29, 3, 2);
  for (Interpolation i : {Interpolation::kBilinear, Interpolation::kNearest}) {
    const Image8 whole = Resize(in, ExactWindow(30, 35), i);
    const Image8 part = Resize(in, ResizeWindow{30, 35, 7, 4, 12, 20}, i);
    for (int64_t y = 0; y < 20; ++y)
      for (int64_t x = 0; x < 12 * 3; ++x)
        ASSERT_EQ(part.row(y)[x], whole.row(y + 4)[x + 7 * 3]) << x << "," << y;
  }
}

TEST(ImageResizeTest, ReducingAveragesEveryPixelUnderTheOutput) {
  // A 1-pixel checkerboard halved: PIL's bilinear averages each 2x2 block (antialiasing) to mid-grey, where
  // sampling two pixels (OpenCV's bilinear without INTER_AREA) would alias.
  Image8 board = Image8::Zeros(16, 16, 1);
  for (int64_t y = 0; y < 16; ++y)
    for (int64_t x = 0; x < 16; ++x) board.row(y)[x] = ((x + y) % 2) ? 255 : 0;
  const Image8 half = Resize(board, ExactWindow(4, 4), Interpolation::kBilinear);
  for (uint8_t v : half.data) EXPECT_NEAR(v, 128, 8);
}

TEST(ImageResizeTest, ExtremeAspectRatiosStayBounded) {
  // 1 x 200000 to 64 x 64: the horizontal-first intermediate would be 200000 x 64; the vertical pass goes first.
  Image8 tall = Image8::Zeros(1, 200000, 1);
  for (int64_t y = 0; y < tall.height; ++y) tall.row(y)[0] = static_cast<uint8_t>(y * 256 / tall.height);
  const Image8 out = Resize(tall, ExactWindow(64, 64), Interpolation::kBilinear);
  for (int64_t y = 1; y < 64; ++y) {
    EXPECT_GE(out.row(y)[0], out.row(y - 1)[0]) << "a ramp stays a ramp";
    EXPECT_EQ(out.row(y)[0], out.row(y)[63]) << "every column is the same";
  }
  // Shorter side 224 of the same image would be 224 x 44800000: only the crop is computed.
  const ResizeWindow w = ShorterSideWindow(1, 200000, 224, 224, 224);
  EXPECT_EQ(w.full_height, 44800000);
  const Image8 crop = Resize(tall, w, Interpolation::kBilinear);
  EXPECT_EQ(crop.data.size(), 224u * 224u);
}

}  // namespace
}  // namespace hone::process
