// DecodePng over libpng 1.6's sequential read API, reading from memory through a read callback.
//
// Errors: libpng calls the error function, which must not return; ours records the message and png_longjmps to
// the setjmp in DecodePngOrJump, whose frame holds only plain C data (the output and the row pointers live in the
// caller's PngJob), so the jump skips no destructor. Warnings are dropped: a server does not print per request.
#include <png.h>

#include <cstring>
#include <string>
#include <vector>

#include "process/image_decode.h"

namespace hone::process {
namespace {

struct PngJob {
  std::string_view bytes;
  int64_t max_pixels;
  Image8* out;
  size_t offset = 0;
  bool truncated = false;
  std::string message{};  // libpng's, set before the jump
  std::vector<png_bytep> rows{};
};

[[noreturn]] void OnPngError(png_structp png, png_const_charp message) {
  static_cast<PngJob*>(png_get_error_ptr(png))->message = message;
  png_longjmp(png, 1);
}

void OnPngWarning(png_structp, png_const_charp) {}

void ReadPng(png_structp png, png_bytep data, size_t length) {
  PngJob* job = static_cast<PngJob*>(png_get_io_ptr(png));
  if (job->bytes.size() - job->offset < length) {
    job->truncated = true;
    png_error(png, "truncated");
  }
  std::memcpy(data, job->bytes.data() + job->offset, length);
  job->offset += length;
}

enum class Stop { kDone, kLibrary, kTooLarge };

// Everything libpng may longjmp out of.
Stop DecodePngOrJump(png_structp png, png_infop info, PngJob* job) {
  if (setjmp(png_jmpbuf(png))) return Stop::kLibrary;
  png_set_read_fn(png, job, &ReadPng);
  png_read_info(png, info);
  const int64_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  if (width * height > job->max_pixels) {
    job->out->width = width;
    job->out->height = height;
    return Stop::kTooLarge;  // before png_read_update_info, which allocates the row buffers
  }
  const int color_type = png_get_color_type(png, info);
  const int depth = png_get_bit_depth(png, info);
  if (depth == 16) png_set_strip_16(png);  // the high byte, as PIL reads 16-bit RGB
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  // png_set_palette_to_rgb turns a tRNS entry into an alpha channel: dropped with the file's own alpha.
  if ((color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS)) png_set_strip_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  const int channels = png_get_channels(png, info);
  if (channels != 1 && channels != 3) png_error(png, "unexpected channel count after conversion");
  Image8& image = *job->out;
  image = Image8::Zeros(width, height, channels);
  job->rows.resize(static_cast<size_t>(height));
  for (int64_t y = 0; y < height; ++y) job->rows[static_cast<size_t>(y)] = image.row(y);
  png_read_image(png, job->rows.data());
  // No png_read_end: the pixels are all read, and chunks after them (text, a missing IEND) do not change them.
  return Stop::kDone;
}

}  // namespace

Result<Image8> DecodePng(std::string_view bytes, int64_t max_pixels) {
  Image8 image;
  PngJob job{bytes, max_pixels, &image};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &job, &OnPngError, &OnPngWarning);
  if (png == nullptr) return Status::ResourceExhausted("libpng: could not create a read structure");
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return Status::ResourceExhausted("libpng: could not create an info structure");
  }
  const Stop stop = DecodePngOrJump(png, info, &job);
  png_destroy_read_struct(&png, &info, nullptr);
  switch (stop) {
    case Stop::kDone:
      return image;
    case Stop::kTooLarge:
      return Status::InvalidArgument("PNG header claims " + std::to_string(image.width) + " x " +
                                     std::to_string(image.height) + " pixels (" +
                                     std::to_string(image.width * image.height) + "), more than max_pixels " +
                                     std::to_string(max_pixels));
    case Stop::kLibrary:
      break;
  }
  if (job.truncated) return Status::InvalidArgument("PNG data is truncated");
  return Status::InvalidArgument("corrupt PNG data: " + job.message);
}

}  // namespace hone::process
