// Decoding PNG and JPEG files of every common kind to gray or RGB, and refusing broken ones with a message (never a
// crash, an exit or a huge allocation). The pixels themselves are compared with PIL's in image_stage_test.cc.
#include "process/image_decode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "process/image_test_util.h"

namespace hone::process {
namespace {

using ::testing::HasSubstr;
using testing::ImageFile;

struct Expected {
  std::string file;
  int64_t width, height;
  int channels;  // the file's own: 1 or 3
};

TEST(ImageDecodeTest, EveryKindOfFileDecodesToItsOwnChannels) {
  const std::vector<Expected> files = {
      {"gray.png", 23, 17, 1},     {"gray_trns.png", 10, 9, 1},    {"gray1.png", 11, 13, 1},
      {"gray16.png", 16, 12, 1},
      {"rgb.png", 32, 24, 3},      {"rgba.png", 20, 15, 3},        {"palette.png", 19, 13, 3},
      {"rgb16.png", 14, 10, 3},    {"interlaced.png", 21, 14, 3},  {"gray.jpg", 24, 18, 1},
      {"rgb.jpg", 32, 24, 3},      {"progressive.jpg", 32, 24, 3},
  };
  for (const Expected& e : files) {
    const std::string bytes = ImageFile(e.file);
    const bool png = e.file.ends_with(".png");
    EXPECT_EQ(SniffImageFormat(bytes), png ? ImageFormat::kPng : ImageFormat::kJpeg) << e.file;
    Result<Image8> image = png ? DecodePng(bytes, 1000) : DecodeJpeg(bytes, 1000);
    ASSERT_TRUE(image.ok()) << e.file << ": " << image.status().ToString();
    EXPECT_EQ(image->width, e.width) << e.file;
    EXPECT_EQ(image->height, e.height) << e.file;
    EXPECT_EQ(image->channels, e.channels) << e.file;
    EXPECT_EQ(image->data.size(), static_cast<size_t>(e.width * e.height * e.channels)) << e.file;
    for (int channels : {1, 3}) {
      Result<Image8> converted = DecodeImage(bytes, channels, 1000);
      ASSERT_TRUE(converted.ok()) << e.file;
      EXPECT_EQ(converted->channels, channels) << e.file;
    }
  }
}

TEST(ImageDecodeTest, OneBitGrayIsScaledToFullRange) {
  Result<Image8> image = DecodePng(ImageFile("gray1.png"), 1000);
  ASSERT_TRUE(image.ok());
  for (uint8_t v : image->data) EXPECT_TRUE(v == 0 || v == 255) << int{v};
}

TEST(ImageDecodeTest, ChannelConversionsArePils) {
  Image8 rgb = Image8::Zeros(4, 1, 3);
  rgb.data = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};
  const Image8 gray = ConvertChannels(rgb, 1);
  // round(0.299 * 255), round(0.587 * 255), round(0.114 * 255) with 16-bit weights, and white stays white.
  EXPECT_EQ(gray.data, (std::vector<uint8_t>{76, 150, 29, 255}));
  const Image8 back = ConvertChannels(gray, 3);
  EXPECT_EQ(back.data, (std::vector<uint8_t>{76, 76, 76, 150, 150, 150, 29, 29, 29, 255, 255, 255}));
}

Status Decode(std::string_view bytes) { return DecodeImage(bytes, 3, 40'000'000).status(); }

void ExpectRefused(std::string_view bytes, const std::string& message, const std::string& what) {
  const Status s = Decode(bytes);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << what << ": " << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr(message)) << what;
}

TEST(ImageDecodeTest, TruncatedFilesAreRefusedAtEveryLength) {
  // Cut everywhere: in the signature, the headers, the compressed data. Never a crash, a grey-padded image or
  // another error code.
  for (const char* name : {"rgb.jpg", "progressive.jpg", "gray.jpg", "rgb.png", "interlaced.png", "palette.png"}) {
    const std::string bytes = ImageFile(name);
    // Up to the end of the image data: a PNG's last 12 bytes are its IEND chunk, a JPEG's last 2 its EOI marker,
    // and a file that lacks only those still has all its pixels.
    const size_t end = bytes.size() - (std::string_view(name).ends_with(".png") ? 12 : 2);
    for (size_t cut = 1; cut < end; ++cut) {
      const Status s = Decode(std::string_view(bytes).substr(0, cut));
      ASSERT_EQ(s.code(), StatusCode::kInvalidArgument) << name << " cut at " << cut << ": " << s.ToString();
    }
  }
  const std::string jpeg = ImageFile("rgb.jpg");
  ExpectRefused(std::string_view(jpeg).substr(0, jpeg.size() / 2), "JPEG data is truncated", "half a JPEG");
  const std::string png = ImageFile("rgb.png");
  ExpectRefused(std::string_view(png).substr(0, png.size() / 2), "PNG data is truncated", "half a PNG");
  ExpectRefused(std::string_view(png).substr(0, 4), "PNG data is truncated", "the PNG signature's start");
}

TEST(ImageDecodeTest, EmptyRandomAndCorruptDataAreRefused) {
  ExpectRefused("", "empty: expected the contents of a PNG or JPEG file", "empty");
  ExpectRefused("GIF89a...", "not a PNG or JPEG file (it starts with 47 49 46 38", "a GIF");
  std::mt19937 rng(42);
  for (int i = 0; i < 200; ++i) {
    std::string noise(static_cast<size_t>(1 + rng() % 300), '\0');
    for (char& c : noise) c = static_cast<char>(rng());
    EXPECT_EQ(Decode(noise).code(), StatusCode::kInvalidArgument) << i;
    // Random bytes after a real signature reach the decoders themselves.
    EXPECT_EQ(Decode(std::string("\x89PNG\r\n\x1a\n", 8) + noise).code(), StatusCode::kInvalidArgument) << i;
    EXPECT_EQ(Decode("\xff\xd8\xff" + noise).code(), StatusCode::kInvalidArgument) << i;
  }
  ExpectRefused(ImageFile("cmyk.jpg"), "JPEG colour space CMYK: expected grayscale, YCbCr or RGB", "a CMYK JPEG");
  // A flipped byte in a PNG's image data fails its CRC check.
  std::string png = ImageFile("rgb.png");
  png[png.find("IDAT") + 20] ^= 0x55;
  ExpectRefused(png, "corrupt PNG data", "a PNG with a bad CRC");
}

TEST(ImageDecodeTest, BombsAreRefusedFromTheirHeaders) {
  ExpectRefused(ImageFile("bomb.png"), "PNG header claims 100000 x 100000 pixels (10000000000), more than max_pixels "
                                       "40000000", "the PNG bomb");
  ExpectRefused(ImageFile("bomb.jpg"), "JPEG header claims 65000 x 65000 pixels (4225000000), more than max_pixels "
                                       "40000000", "the JPEG bomb");
  // The limit is the caller's: a real image one pixel over it is refused as well.
  EXPECT_THAT(DecodeImage(ImageFile("rgb.png"), 3, 32 * 24 - 1).status().message(),
              HasSubstr("PNG header claims 32 x 24 pixels (768), more than max_pixels 767"));
  EXPECT_TRUE(DecodeImage(ImageFile("rgb.jpg"), 3, 32 * 24).ok());
}

}  // namespace
}  // namespace hone::process
