#include "serve/http/content_coding.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>

namespace hone::serve::http {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

// zlib works in uInt-sized steps; feed it at most this much at a time.
constexpr size_t kStep = size_t{1} << 30;

Status InflateWith(int window_bits, std::span<const std::byte> in, size_t limit, size_t aligned_offset,
                   client::BodyBuffer& out) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) return Status::Internal("zlib: inflateInit2 failed");
  out.Reset(std::min(limit, std::max<size_t>(in.size() * 4, 4096)), aligned_offset);
  size_t consumed = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0 && consumed < in.size()) {
      const size_t n = std::min(kStep, in.size() - consumed);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data() + consumed));
      z.avail_in = static_cast<uInt>(n);
      consumed += n;
    }
    if (out.size() > limit) {
      inflateEnd(&z);
      return Status::ResourceExhausted("the decompressed request body is larger than the " + std::to_string(limit) +
                                       "-byte limit");
    }
    // One byte beyond the limit is allowed to come out, so that a body of exactly `limit` bytes is told apart
    // from a larger one.
    const size_t room = std::min({kStep, limit + 1 - out.size(), std::max<size_t>(out.size(), 64 * 1024)});
    auto dst = out.Prepare(room);
    z.next_out = reinterpret_cast<Bytef*>(dst.data());
    z.avail_out = static_cast<uInt>(room);
    rc = inflate(&z, Z_NO_FLUSH);
    out.Commit(room - z.avail_out);
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && consumed == in.size()) break;  // input ran out early
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return Status::InvalidArgument("the request body is not valid compressed data");
  return Status::Ok();
}

}  // namespace

ContentCoding RequestCoding(std::string_view content_encoding) {
  content_encoding = Trim(content_encoding);
  if (content_encoding.empty() || EqualsIgnoreCase(content_encoding, "identity")) return ContentCoding::kIdentity;
  if (EqualsIgnoreCase(content_encoding, "gzip") || EqualsIgnoreCase(content_encoding, "x-gzip"))
    return ContentCoding::kGzip;
  if (EqualsIgnoreCase(content_encoding, "deflate")) return ContentCoding::kDeflate;
  return ContentCoding::kUnsupported;
}

ContentCoding ResponseCoding(std::string_view accept_encoding) {
  bool gzip = false, deflate = false;
  while (!accept_encoding.empty()) {
    const size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding.remove_prefix(comma == std::string_view::npos ? accept_encoding.size() : comma + 1);
    std::string_view name = Trim(item.substr(0, item.find(';')));
    bool refused = false;
    if (size_t q = item.find(";q="); q != std::string_view::npos)
      refused = std::strtod(std::string(Trim(item.substr(q + 3))).c_str(), nullptr) <= 0.0;
    if (refused) continue;
    if (EqualsIgnoreCase(name, "gzip")) gzip = true;
    if (EqualsIgnoreCase(name, "deflate")) deflate = true;
  }
  return gzip ? ContentCoding::kGzip : deflate ? ContentCoding::kDeflate : ContentCoding::kIdentity;
}

std::string_view CodingName(ContentCoding coding) {
  switch (coding) {
    case ContentCoding::kGzip: return "gzip";
    case ContentCoding::kDeflate: return "deflate";
    default: return "identity";
  }
}

Status Decompress(ContentCoding coding, std::span<const std::byte> in, size_t limit, size_t aligned_offset,
                  client::BodyBuffer& out) {
  if (coding == ContentCoding::kGzip) return InflateWith(15 + 16, in, limit, aligned_offset, out);
  if (coding != ContentCoding::kDeflate) return Status::InvalidArgument("unsupported content coding");
  // "deflate" should be zlib-wrapped; some clients send a raw deflate stream. Try zlib first.
  Status s = InflateWith(15, in, limit, aligned_offset, out);
  if (s.code() == StatusCode::kInvalidArgument) s = InflateWith(-15, in, limit, aligned_offset, out);
  return s;
}

std::string Compress(ContentCoding coding, std::span<const std::span<const std::byte>> pieces) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, coding == ContentCoding::kGzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY);
  std::string out;
  size_t written = 0;
  // Runs deflate until it has consumed its input (or, finishing, until the stream ends), growing `out`.
  auto pump = [&](int flush) {
    int rc;
    do {
      if (out.size() - written < 16 * 1024) out.resize(out.size() * 2 + 64 * 1024);
      const size_t room = std::min(kStep, out.size() - written);
      z.next_out = reinterpret_cast<Bytef*>(out.data() + written);
      z.avail_out = static_cast<uInt>(room);
      rc = deflate(&z, flush);
      written += room - z.avail_out;
    } while (flush == Z_FINISH ? rc != Z_STREAM_END : z.avail_in > 0);
  };
  for (const auto& piece : pieces) {
    for (size_t fed = 0; fed < piece.size();) {
      const size_t n = std::min(kStep, piece.size() - fed);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(piece.data() + fed));
      z.avail_in = static_cast<uInt>(n);
      fed += n;
      pump(Z_NO_FLUSH);
    }
  }
  pump(Z_FINISH);
  deflateEnd(&z);
  out.resize(written);
  return out;
}

}  // namespace hone::serve::http
