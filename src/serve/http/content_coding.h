// HTTP content codings for inference bodies, as Triton supports them: a request body may arrive gzip- or
// deflate-compressed (Content-Encoding; tritonclient sends one only when asked to), and an inference response is
// compressed when Accept-Encoding asks for gzip or deflate. Other endpoints always answer uncompressed. zlib does
// the work ("deflate" is the zlib format per RFC 9110; raw deflate streams are accepted too).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "client/body_buffer.h"

namespace hone::serve::http {

enum class ContentCoding { kIdentity, kGzip, kDeflate, kUnsupported };

// A request's Content-Encoding: "" and "identity" are kIdentity; anything but gzip/deflate is kUnsupported.
ContentCoding RequestCoding(std::string_view content_encoding);
// What to compress a response with, from Accept-Encoding: gzip, else deflate, when listed with a non-zero q.
ContentCoding ResponseCoding(std::string_view accept_encoding);
std::string_view CodingName(ContentCoding coding);  // "gzip", "deflate", "identity"

// Decompresses `in` into `out` (laid out for a JSON header of `aligned_offset` bytes, see BodyBuffer).
// InvalidArgument for corrupt or truncated data; ResourceExhausted when more than `limit` bytes would come out
// (a small body must not inflate into gigabytes).
Status Decompress(ContentCoding coding, std::span<const std::byte> in, size_t limit, size_t aligned_offset,
                  client::BodyBuffer& out);

// Compresses the concatenation of `pieces`.
std::string Compress(ContentCoding coding, std::span<const std::span<const std::byte>> pieces);

}  // namespace hone::serve::http
