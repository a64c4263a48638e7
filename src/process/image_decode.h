// Decoding PNG and JPEG files to 8-bit gray or RGB pixels, safely: a truncated or corrupt file, or one whose header
// claims more pixels than the caller allows (a "decompression bomb": a few bytes claiming 100000 x 100000), is an
// InvalidArgument whose message says what is wrong ("JPEG data is truncated"); nothing is printed, nothing exits,
// and no pixel buffer is allocated before the claimed size has been checked.
//
// The decoders are Debian's libjpeg-turbo (libjpeg62-turbo) and libpng 1.6: the reference decoders that PIL,
// OpenCV, browsers and most image stacks link, so hone decodes a file to the very pixels the Python pipeline a model
// was trained with saw (the same libjpeg-turbo gives bit-identical JPEG pixels with its default, accurate integer
// IDCT), and libjpeg-turbo's SIMD makes decoding fast. Both report errors by calling a handler that must not
// return (libjpeg's default calls exit()); here each handler records the message and longjmps back to the decoder
// function, whose frame holds no C++ object a jump would skip.
//
// What each file becomes, following what PIL's Image.open(...).convert("RGB" or "L") gives:
//   - PNG: palette images through their palette (a tRNS transparency ignored); 1-, 2- and 4-bit gray scaled to
//     0..255; alpha dropped, not composited (as convert("RGB") does); 16-bit samples reduced to their high byte
//     (PIL does the same for 16-bit RGB; its 16-bit gray "I;16" -> "L" clips at 255 instead, which hone does not
//     copy); interlaced (Adam7) files deinterlaced; gAMA and other colour chunks ignored, as PIL ignores them.
//   - JPEG: grayscale stays gray; YCbCr and RGB become RGB; CMYK and YCCK are refused. Decoded at full size with
//     libjpeg's defaults (no DCT scaling, fancy upsampling), as PIL does unless asked for a draft. A file cut short
//     is refused, not padded with grey as libjpeg would; other corrupt-data warnings are tolerated, as PIL and
//     browsers tolerate them.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "process/image_pixels.h"

namespace hone::process {

enum class ImageFormat { kUnknown, kPng, kJpeg };

// The format `bytes` start with (PNG's 8-byte signature, JPEG's SOI marker FF D8 FF).
ImageFormat SniffImageFormat(std::string_view bytes);

// Decodes a PNG or JPEG file to `channels` (1: gray, 3: RGB) 8-bit samples, converting as ConvertChannels does.
// InvalidArgument for empty data, another format, a file that claims more than `max_pixels` pixels (width times
// height, checked before decoding), a truncated or corrupt file or an unsupported kind of file.
Result<Image8> DecodeImage(std::string_view bytes, int channels, int64_t max_pixels);

// The decoders behind DecodeImage: each gives the file's own channels, 1 (gray) or 3 (RGB).
Result<Image8> DecodePng(std::string_view bytes, int64_t max_pixels);
Result<Image8> DecodeJpeg(std::string_view bytes, int64_t max_pixels);

// Gray to RGB copies the sample to R, G and B; RGB to gray is ITU-R 601-2 luma, L = 0.299 R + 0.587 G + 0.114 B,
// with PIL's 16-bit fixed-point weights and rounding, so the result equals PIL's convert("L") exactly.
Image8 ConvertChannels(Image8 image, int channels);

}  // namespace hone::process
