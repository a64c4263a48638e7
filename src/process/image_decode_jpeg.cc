// DecodeJpeg over libjpeg-turbo's classic API, reading from memory (jpeg_mem_src).
//
// Errors: libjpeg calls error_exit, which must not return; ours formats the message and longjmps to the setjmp in
// DecodeJpegOrJump. That function holds only plain C data in its frame (the output lives in the caller's Image8,
// reached through a pointer that never changes), so the jump skips no destructor.
//
// Truncation: when jpeg_mem_src runs out of data, libjpeg warns (JWRN_JPEG_EOF) and feeds a fake end-of-image
// marker, which would yield an image padded with grey. Our message hook turns that warning into an error; other
// warnings ("corrupt JPEG data: extraneous bytes") are let through, as PIL and browsers let them through.
#include <csetjmp>
#include <cstdio>
#include <string>

// jpeglib.h needs size_t and FILE declared before it.
#include <jerror.h>
#include <jpeglib.h>

#include "process/image_decode.h"

namespace hone::process {
namespace {

struct JpegErrors {
  jpeg_error_mgr manager;  // first: libjpeg hands back a pointer to it, which we cast to JpegErrors
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool truncated;
};

[[noreturn]] void OnJpegError(j_common_ptr cinfo) {
  JpegErrors* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

// level -1 is a warning, 0 and above are trace messages (never printed).
void OnJpegMessage(j_common_ptr cinfo, int level) {
  if (level >= 0) return;
  JpegErrors* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
    errors->truncated = true;
    std::longjmp(errors->jump, 1);
  }
  cinfo->err->num_warnings++;
}

// Why a decode stopped before its pixels were read: all but kDone end in an error.
enum class Stop { kDone, kLibrary, kTooLarge, kColorSpace };

struct JpegJob {
  std::string_view bytes;
  int64_t max_pixels;
  Image8* out;
  J_COLOR_SPACE color_space = JCS_UNKNOWN;  // what the file holds, for the kColorSpace error
};

// Everything libjpeg may longjmp out of. `cinfo` was zero-filled by the caller, who destroys it afterwards.
Stop DecodeJpegOrJump(jpeg_decompress_struct* cinfo, JpegErrors* errors, JpegJob* job) {
  if (setjmp(errors->jump)) return Stop::kLibrary;
  jpeg_create_decompress(cinfo);
  jpeg_mem_src(cinfo, reinterpret_cast<const unsigned char*>(job->bytes.data()),
               static_cast<unsigned long>(job->bytes.size()));
  jpeg_read_header(cinfo, TRUE);
  const int64_t width = cinfo->image_width, height = cinfo->image_height;
  if (width * height > job->max_pixels) {
    job->out->width = width;
    job->out->height = height;
    return Stop::kTooLarge;
  }
  switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
      cinfo->out_color_space = JCS_GRAYSCALE;
      break;
    case JCS_YCbCr:
    case JCS_RGB:
      cinfo->out_color_space = JCS_RGB;
      break;
    default:
      job->color_space = cinfo->jpeg_color_space;
      return Stop::kColorSpace;
  }
  jpeg_start_decompress(cinfo);
  Image8& image = *job->out;
  image = Image8::Zeros(cinfo->output_width, cinfo->output_height, cinfo->output_components);
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = image.row(cinfo->output_scanline);
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  // No jpeg_finish_decompress: every pixel is read, and a file whose end-of-image marker alone is missing is kept,
  // as browsers keep it. jpeg_destroy_decompress releases what is left.
  return Stop::kDone;
}

std::string ColorSpaceName(J_COLOR_SPACE space) {
  switch (space) {
    case JCS_CMYK: return "CMYK";
    case JCS_YCCK: return "YCCK";
    default: return "number " + std::to_string(static_cast<int>(space));
  }
}

}  // namespace

Result<Image8> DecodeJpeg(std::string_view bytes, int64_t max_pixels) {
  jpeg_decompress_struct cinfo{};
  JpegErrors errors{};
  cinfo.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = &OnJpegError;
  errors.manager.emit_message = &OnJpegMessage;
  Image8 image;
  JpegJob job{bytes, max_pixels, &image};
  const Stop stop = DecodeJpegOrJump(&cinfo, &errors, &job);
  jpeg_destroy_decompress(&cinfo);
  switch (stop) {
    case Stop::kDone:
      return image;
    case Stop::kTooLarge:
      return Status::InvalidArgument("JPEG header claims " + std::to_string(image.width) + " x " +
                                     std::to_string(image.height) + " pixels (" +
                                     std::to_string(image.width * image.height) + "), more than max_pixels " +
                                     std::to_string(max_pixels));
    case Stop::kColorSpace:
      return Status::InvalidArgument("JPEG colour space " + ColorSpaceName(job.color_space) +
                                     ": expected grayscale, YCbCr or RGB");
    case Stop::kLibrary:
      break;
  }
  if (errors.truncated) return Status::InvalidArgument("JPEG data is truncated");
  return Status::InvalidArgument("corrupt JPEG data: " + std::string(errors.message));
}

}  // namespace hone::process
