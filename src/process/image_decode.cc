#include "process/image_decode.h"

#include <cstdio>
#include <string>

namespace hone::process {
namespace {

constexpr std::string_view kPngSignature("\x89PNG\r\n\x1a\n", 8);
constexpr std::string_view kJpegStart("\xff\xd8\xff", 3);

std::string FirstBytes(std::string_view bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < 4; ++i) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "%s%02x", i == 0 ? "" : " ", static_cast<unsigned char>(bytes[i]));
    out += hex;
  }
  return out;
}

}  // namespace

ImageFormat SniffImageFormat(std::string_view bytes) {
  if (bytes.starts_with(kPngSignature)) return ImageFormat::kPng;
  if (bytes.starts_with(kJpegStart)) return ImageFormat::kJpeg;
  return ImageFormat::kUnknown;
}

Result<Image8> DecodeImage(std::string_view bytes, int channels, int64_t max_pixels) {
  if (bytes.empty()) return Status::InvalidArgument("empty: expected the contents of a PNG or JPEG file");
  const ImageFormat format = SniffImageFormat(bytes);
  switch (format) {
    case ImageFormat::kPng:
    case ImageFormat::kJpeg:
      break;
    case ImageFormat::kUnknown:
      // The first bytes of a signature, and nothing after them: a file cut short rather than another format.
      if (kPngSignature.starts_with(bytes)) return Status::InvalidArgument("PNG data is truncated");
      if (kJpegStart.starts_with(bytes)) return Status::InvalidArgument("JPEG data is truncated");
      return Status::InvalidArgument("not a PNG or JPEG file (it starts with " + FirstBytes(bytes) +
                                     "; expected 89 50 4e 47 or ff d8 ff)");
  }
  Result<Image8> decoded = format == ImageFormat::kPng ? DecodePng(bytes, max_pixels) : DecodeJpeg(bytes, max_pixels);
  if (!decoded.ok()) return decoded.status();
  return ConvertChannels(std::move(decoded).value(), channels);
}

Image8 ConvertChannels(Image8 image, int channels) {
  if (image.channels == channels) return image;
  Image8 out = Image8::Zeros(image.width, image.height, channels);
  const size_t pixels = static_cast<size_t>(image.width * image.height);
  const uint8_t* in = image.data.data();
  uint8_t* to = out.data.data();
  if (channels == 3) {
    for (size_t i = 0; i < pixels; ++i) to[3 * i] = to[3 * i + 1] = to[3 * i + 2] = in[i];
  } else {
    // 0.299, 0.587 and 0.114 in units of 1/65536 (they sum to 65536, so white stays 255), rounded half up: PIL's
    // convert("L").
    for (size_t i = 0; i < pixels; ++i) {
      const uint32_t l = in[3 * i] * 19595u + in[3 * i + 1] * 38470u + in[3 * i + 2] * 7471u + 0x8000u;
      to[i] = static_cast<uint8_t>(l >> 16);
    }
  }
  return out;
}

}  // namespace hone::process
