#include "tensor/zip_writer.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

#include "tensor/little_endian.h"
#include "tensor/zip_format.h"

namespace hone {
namespace {

using namespace zip;  // NOLINT: the record constants read better unqualified here

constexpr uint16_t kVersion20 = 20;  // deflate
constexpr uint16_t kVersion45 = 45;  // zip64
constexpr uint16_t kMadeByUnix = 3 << 8;
constexpr uint32_t kRegularFile0644 = 0100644u << 16;  // Unix mode in the high half of the external attributes
constexpr uint16_t kDosTime = 0;                        // 00:00:00
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, the earliest DOS date
constexpr size_t kZlibChunk = UINT_MAX;                 // zlib's stream counters are 32-bit

bool NeedsUtf8Flag(std::string_view name) {
  return std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
}

uint32_t Clamp32(uint64_t v) { return v >= kZip64Marker32 ? kZip64Marker32 : static_cast<uint32_t>(v); }

// Raw-deflates `in`, appending to `out`; returns the compressed size.
Result<uint64_t> Deflate(std::span<const std::byte> in, std::string& out) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return Status::Internal("deflateInit2 failed: out of memory?");
  size_t start = out.size();
  out.resize(start + deflateBound(&zs, in.size()) + 1);
  size_t in_done = 0, out_done = start;
  int ret = Z_OK;
  while (ret != Z_STREAM_END) {
    if (zs.avail_in == 0 && in_done < in.size()) {
      size_t n = std::min(in.size() - in_done, kZlibChunk);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data() + in_done));
      zs.avail_in = static_cast<uInt>(n);
      in_done += n;
    }
    if (zs.avail_out == 0) {
      size_t n = std::min(out.size() - out_done, kZlibChunk);
      zs.next_out = reinterpret_cast<Bytef*>(out.data() + out_done);
      zs.avail_out = static_cast<uInt>(n);
      out_done += n;
    }
    ret = deflate(&zs, in_done == in.size() && zs.avail_in == 0 ? Z_FINISH : Z_NO_FLUSH);
    if (ret != Z_OK && ret != Z_STREAM_END) {  // deflateBound makes Z_BUF_ERROR impossible; this is a bug
      deflateEnd(&zs);
      return Status::Internal("deflate failed with error " + std::to_string(ret));
    }
  }
  uint64_t produced = zs.total_out;
  deflateEnd(&zs);
  out.resize(start + produced);
  return produced;
}

}  // namespace

Status ZipWriter::Add(std::string_view name, std::span<const std::byte> contents, bool compress) {
  if (name.empty() || name.size() > 0xFFFF)
    return Status::InvalidArgument("zip entry name of " + std::to_string(name.size()) +
                                   " bytes: expected 1 to 65535 bytes");
  Entry e{std::string(name), compress ? kMethodDeflate : kMethodStored,
          static_cast<uint16_t>(NeedsUtf8Flag(name) ? kFlagUtf8 : 0), 0, 0, contents.size(), out_.size(), false};
  e.crc = static_cast<uint32_t>(
      crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(contents.data()), contents.size()));
  // Whether the local header needs zip64 sizes must be known before compressing, since the header comes first;
  // deflate's worst case is a little above the input size, so decide on a bound.
  uint64_t worst = compress ? contents.size() + contents.size() / 1000 + 1024 : contents.size();
  e.zip64_sizes = force_zip64_ || worst >= kZip64Marker32;

  size_t header = out_.size();
  le::Append32(out_, kLocalHeaderSig);
  le::Append16(out_, e.zip64_sizes ? kVersion45 : kVersion20);
  le::Append16(out_, e.flags);
  le::Append16(out_, e.method);
  le::Append16(out_, kDosTime);
  le::Append16(out_, kDosDate);
  le::Append32(out_, e.crc);
  le::Append32(out_, 0);  // compressed size, patched below
  le::Append32(out_, e.zip64_sizes ? kZip64Marker32 : static_cast<uint32_t>(e.uncompressed_size));
  le::Append16(out_, static_cast<uint16_t>(name.size()));
  le::Append16(out_, e.zip64_sizes ? 20 : 0);
  out_ += name;
  size_t zip64_csize_at = 0;
  if (e.zip64_sizes) {  // the local zip64 extra holds both sizes, always
    le::Append16(out_, kZip64ExtraId);
    le::Append16(out_, 16);
    le::Append64(out_, e.uncompressed_size);
    zip64_csize_at = out_.size();
    le::Append64(out_, 0);  // patched below
  }
  if (compress) {
    auto compressed = Deflate(contents, out_);
    if (!compressed.ok()) {
      out_.resize(header);  // drop the half-written entry so that the archive stays valid
      return compressed.status().WithContext("zip entry '" + e.name + "'");
    }
    e.compressed_size = *compressed;
  } else {
    if (!contents.empty()) out_.append(reinterpret_cast<const char*>(contents.data()), contents.size());
    e.compressed_size = contents.size();
  }
  std::string patch;
  le::Append32(patch, e.zip64_sizes ? kZip64Marker32 : static_cast<uint32_t>(e.compressed_size));
  out_.replace(header + 18, 4, patch);
  if (e.zip64_sizes) {
    patch.clear();
    le::Append64(patch, e.compressed_size);
    out_.replace(zip64_csize_at, 8, patch);
  }
  entries_.push_back(std::move(e));
  return Status::Ok();
}

std::string ZipWriter::Finish() {
  uint64_t dir_offset = out_.size();
  for (const Entry& e : entries_) {
    bool zip64_offset = force_zip64_ || e.offset >= kZip64Marker32;
    bool zip64 = e.zip64_sizes || zip64_offset;
    le::Append32(out_, kCentralHeaderSig);
    le::Append16(out_, kMadeByUnix | (zip64 ? kVersion45 : kVersion20));
    le::Append16(out_, zip64 ? kVersion45 : kVersion20);
    le::Append16(out_, e.flags);
    le::Append16(out_, e.method);
    le::Append16(out_, kDosTime);
    le::Append16(out_, kDosDate);
    le::Append32(out_, e.crc);
    le::Append32(out_, e.zip64_sizes ? kZip64Marker32 : static_cast<uint32_t>(e.compressed_size));
    le::Append32(out_, e.zip64_sizes ? kZip64Marker32 : static_cast<uint32_t>(e.uncompressed_size));
    le::Append16(out_, static_cast<uint16_t>(e.name.size()));
    le::Append16(out_, static_cast<uint16_t>(zip64 ? 4 + 8 * ((e.zip64_sizes ? 2 : 0) + (zip64_offset ? 1 : 0)) : 0));
    le::Append16(out_, 0);  // comment length
    le::Append16(out_, 0);  // disk number
    le::Append16(out_, 0);  // internal attributes
    le::Append32(out_, kRegularFile0644);
    le::Append32(out_, zip64_offset ? kZip64Marker32 : static_cast<uint32_t>(e.offset));
    out_ += e.name;
    if (zip64) {  // only the fields marked 0xFFFFFFFF above, in this order
      le::Append16(out_, kZip64ExtraId);
      le::Append16(out_, static_cast<uint16_t>(8 * ((e.zip64_sizes ? 2 : 0) + (zip64_offset ? 1 : 0))));
      if (e.zip64_sizes) {
        le::Append64(out_, e.uncompressed_size);
        le::Append64(out_, e.compressed_size);
      }
      if (zip64_offset) le::Append64(out_, e.offset);
    }
  }
  uint64_t dir_size = out_.size() - dir_offset;
  uint64_t count = entries_.size();
  if (force_zip64_ || count >= kZip64Marker16 || dir_size >= kZip64Marker32 || dir_offset >= kZip64Marker32) {
    uint64_t zip64_end = out_.size();
    le::Append32(out_, kZip64EndSig);
    le::Append64(out_, kZip64EndSize - 12);  // size of the rest of this record
    le::Append16(out_, kMadeByUnix | kVersion45);
    le::Append16(out_, kVersion45);
    le::Append32(out_, 0);  // this disk
    le::Append32(out_, 0);  // disk with the central directory
    le::Append64(out_, count);
    le::Append64(out_, count);
    le::Append64(out_, dir_size);
    le::Append64(out_, dir_offset);
    le::Append32(out_, kZip64LocatorSig);
    le::Append32(out_, 0);  // disk with the zip64 end record
    le::Append64(out_, zip64_end);
    le::Append32(out_, 1);  // total disks
  }
  le::Append32(out_, kEndSig);
  le::Append16(out_, 0);
  le::Append16(out_, 0);
  uint16_t count16 = count >= kZip64Marker16 ? kZip64Marker16 : static_cast<uint16_t>(count);
  le::Append16(out_, count16);
  le::Append16(out_, count16);
  le::Append32(out_, Clamp32(dir_size));
  le::Append32(out_, Clamp32(dir_offset));
  le::Append16(out_, 0);  // comment length
  std::string archive = std::move(out_);
  out_.clear();
  entries_.clear();
  return archive;
}

}  // namespace hone
