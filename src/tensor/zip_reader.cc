#include "tensor/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <unordered_set>

#include "tensor/little_endian.h"
#include "tensor/zip_format.h"

namespace hone {
namespace {

using namespace zip;  // NOLINT: the record constants read better unqualified here

// Deflate cannot expand data by more than about 1032:1; a larger claim is a corrupt size or a zip bomb, and is
// refused before allocating anything.
constexpr uint64_t kMaxDeflateRatio = 1032;
// zlib's stream counters are 32-bit; feed it at most this much at a time.
constexpr size_t kZlibChunk = UINT_MAX;

Status Invalid(std::string_view what, const std::string& message) {
  return Status::InvalidArgument(std::string(what) + ": " + message);
}

std::string Entry(std::string_view name) { return "entry '" + std::string(name) + "'"; }

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// Where the central directory is, from the end of central directory record (and its zip64 version, if any).
struct Directory {
  uint64_t entries = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t end = 0;  // where the end records start; the directory must lie before this
};

Result<Directory> FindDirectory(std::span<const std::byte> a, std::string_view what) {
  if (a.size() < kEndSize)
    return Invalid(what, "not a zip archive: " + std::to_string(a.size()) + " bytes is too short for one");
  // The end record sits at the very end unless the archive has a comment (at most 64 KiB); scan back for it and
  // take the last signature whose comment fits in the file.
  size_t last = a.size() - kEndSize;
  size_t first = last > kMaxCommentSize ? last - kMaxCommentSize : 0;
  size_t pos = SIZE_MAX;
  for (size_t p = last + 1; p-- > first;) {
    if (le::Load32(a.data() + p) == kEndSig && le::Load16(a.data() + p + 20) <= a.size() - kEndSize - p) {
      pos = p;
      break;
    }
  }
  if (pos == SIZE_MAX)
    return Invalid(what, "not a zip archive: expected an end of central directory record (PK\\5\\6) in the last "
                         "64 KiB, found none");
  const std::byte* e = a.data() + pos;
  uint16_t disk = le::Load16(e + 4), dir_disk = le::Load16(e + 6);
  uint16_t disk_entries = le::Load16(e + 8);
  Directory d{le::Load16(e + 10), le::Load32(e + 16), le::Load32(e + 12), pos};
  bool split = disk != 0 || dir_disk != 0 || disk_entries != d.entries;

  // A zip64 locator right before the end record points at the zip64 end record, whose 64-bit fields win.
  if (pos >= kZip64LocatorSize && le::Load32(e - kZip64LocatorSize) == kZip64LocatorSig) {
    const std::byte* loc = e - kZip64LocatorSize;
    uint64_t z = le::Load64(loc + 8);
    uint64_t z_limit = pos - kZip64LocatorSize;
    if (z > z_limit || z_limit - z < kZip64EndSize || le::Load32(a.data() + z) != kZip64EndSig)
      return Invalid(what, "zip64 end of central directory record expected at offset " + std::to_string(z) +
                               ", not found there");
    const std::byte* r = a.data() + z;
    split = split || le::Load32(loc + 4) != 0 || le::Load32(loc + 16) > 1 || le::Load32(r + 16) != 0 ||
            le::Load32(r + 20) != 0 || le::Load64(r + 24) != le::Load64(r + 32);
    d = {le::Load64(r + 32), le::Load64(r + 48), le::Load64(r + 40), z};
  }
  if (split) return Status::Unimplemented(std::string(what) + ": split (multi-disk) zip archives are not supported");
  if (d.offset > d.end || d.size > d.end - d.offset)
    return Invalid(what, "central directory at offset " + std::to_string(d.offset) + " of " +
                             std::to_string(d.size) + " bytes goes beyond the " + std::to_string(d.end) +
                             " bytes before the end record");
  if (d.entries > d.size / kCentralHeaderSize)
    return Invalid(what, "central directory of " + std::to_string(d.size) + " bytes cannot hold the " +
                             std::to_string(d.entries) + " entries it claims");
  return d;
}

// Replaces the 32-bit (and 16-bit disk) fields marked 0xFFFFFFFF with their values from the zip64 extra field,
// which holds only the marked ones, in this order.
Status ApplyZip64Extra(std::span<const std::byte> extra, uint64_t* usize, uint64_t* csize, uint64_t* offset,
                       uint32_t* disk, std::string_view what, std::string_view name) {
  bool need = *usize == kZip64Marker32 || *csize == kZip64Marker32 || *offset == kZip64Marker32 ||
              *disk == kZip64Marker16;
  if (!need) return Status::Ok();
  size_t p = 0;
  while (extra.size() - p >= 4) {
    uint16_t id = le::Load16(extra.data() + p), len = le::Load16(extra.data() + p + 2);
    p += 4;
    if (len > extra.size() - p) break;
    if (id == kZip64ExtraId) {
      std::span<const std::byte> f = extra.subspan(p, len);
      size_t q = 0;
      for (uint64_t* field : {usize, csize, offset}) {
        if (*field != kZip64Marker32) continue;
        if (f.size() - q < 8) return Invalid(what, Entry(name) + ": zip64 extra field too short");
        *field = le::Load64(f.data() + q);
        q += 8;
      }
      if (*disk == kZip64Marker16) {
        if (f.size() - q < 4) return Invalid(what, Entry(name) + ": zip64 extra field too short");
        *disk = le::Load32(f.data() + q);
      }
      return Status::Ok();
    }
    p += len;
  }
  return Invalid(what, Entry(name) + ": sizes or offset are marked zip64 but there is no zip64 extra field");
}

// Parses the central directory record at `p` (which the caller has bounded to `end`) into `entry`, checking its
// local header and data against the archive. Returns the record's size.
Result<size_t> ParseCentralEntry(std::span<const std::byte> a, size_t p, size_t end, const Directory& dir,
                                 std::string_view what, ZipEntry& entry) {
  const std::byte* c = a.data() + p;
  if (end - p < kCentralHeaderSize || le::Load32(c) != kCentralHeaderSig)
    return Invalid(what, "central directory entry at offset " + std::to_string(p) + " is truncated or corrupt");
  uint16_t flags = le::Load16(c + 8), method = le::Load16(c + 10);
  uint64_t csize = le::Load32(c + 20), usize = le::Load32(c + 24), offset = le::Load32(c + 42);
  uint32_t disk = le::Load16(c + 34);
  size_t name_len = le::Load16(c + 28), extra_len = le::Load16(c + 30), comment_len = le::Load16(c + 32);
  size_t record = kCentralHeaderSize + name_len + extra_len + comment_len;
  if (record > end - p)
    return Invalid(what, "central directory entry at offset " + std::to_string(p) + " runs past the directory");
  entry.name.assign(reinterpret_cast<const char*>(c + kCentralHeaderSize), name_len);
  std::string_view name = entry.name;
  HONE_RETURN_IF_ERROR(ApplyZip64Extra(a.subspan(p + kCentralHeaderSize + name_len, extra_len), &usize, &csize,
                                       &offset, &disk, what, name));
  if (disk != 0) return Status::Unimplemented(std::string(what) + ": " + Entry(name) + " is on another disk");
  if (flags & (kFlagEncrypted | kFlagStrongEncryption))
    return Status::Unimplemented(std::string(what) + ": " + Entry(name) + " is encrypted; encryption is not supported");
  if (method != kMethodStored && method != kMethodDeflate)
    return Status::Unimplemented(std::string(what) + ": " + Entry(name) + ": compression method " +
                                 std::to_string(method) + " is not supported: expected 0 (stored) or 8 (deflate)");
  if (method == kMethodStored && csize != usize)
    return Invalid(what, Entry(name) + " is stored but its sizes differ (" + std::to_string(csize) + " and " +
                             std::to_string(usize) + " bytes)");

  // The data follows the local header, whose name and extra field lengths may differ from the central ones.
  if (offset > dir.offset || dir.offset - offset < kLocalHeaderSize ||
      le::Load32(a.data() + offset) != kLocalHeaderSig)
    return Invalid(what, Entry(name) + ": no local header at offset " + std::to_string(offset));
  const std::byte* l = a.data() + offset;
  size_t local_name_len = le::Load16(l + 26), local_extra_len = le::Load16(l + 28);
  uint64_t data_start = offset + kLocalHeaderSize + local_name_len + local_extra_len;
  if (data_start > dir.offset || csize > dir.offset - data_start)
    return Invalid(what, Entry(name) + ": " + std::to_string(csize) + " bytes of data at offset " +
                             std::to_string(data_start) + " go beyond the central directory at " +
                             std::to_string(dir.offset));
  std::string_view local_name(reinterpret_cast<const char*>(l + kLocalHeaderSize), local_name_len);
  if (local_name != name)
    return Invalid(what, Entry(name) + ": its local header names it '" + std::string(local_name) + "'");
  entry.method = method;
  entry.crc32 = le::Load32(c + 16);
  entry.uncompressed_size = usize;
  entry.data = a.subspan(data_start, csize);
  return record;
}

Status Inflate(const ZipEntry& entry, std::vector<std::byte>& out, std::string_view what) {
  uint64_t csize = entry.data.size(), usize = entry.uncompressed_size;
  if (usize / kMaxDeflateRatio > csize + 1)
    return Invalid(what, Entry(entry.name) + " claims " + std::to_string(usize) + " bytes from " +
                             std::to_string(csize) + " deflated; deflate cannot expand that much");
  out.resize(std::max<uint64_t>(usize, 1));  // zlib refuses a null output pointer, even for no output
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)  // raw deflate: zip has no zlib header
    return Status::Internal("inflateInit2 failed: out of memory?");
  size_t in_done = 0, out_done = 0;
  int ret = Z_OK;
  while (ret != Z_STREAM_END) {
    if (zs.avail_in == 0 && in_done < csize) {
      size_t n = std::min<size_t>(csize - in_done, kZlibChunk);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(entry.data.data() + in_done));
      zs.avail_in = static_cast<uInt>(n);
      in_done += n;
    }
    if (zs.avail_out == 0 && out_done < usize) {
      size_t n = std::min<size_t>(usize - out_done, kZlibChunk);
      zs.next_out = reinterpret_cast<Bytef*>(out.data() + out_done);
      zs.avail_out = static_cast<uInt>(n);
      out_done += n;
    }
    if (zs.next_out == nullptr) zs.next_out = reinterpret_cast<Bytef*>(out.data());
    ret = inflate(&zs, Z_NO_FLUSH);
    if (ret == Z_BUF_ERROR) {
      // No progress was possible although we refill whatever we can: the input ran out or the output is full.
      bool input_done = zs.avail_in == 0 && in_done == csize;
      inflateEnd(&zs);
      std::string problem = input_done ? "deflate data ends early"
                                       : "inflates to more than its declared " + std::to_string(usize) + " bytes";
      return Status::DataLoss(std::string(what) + ": " + Entry(entry.name) + ": " + problem);
    }
    if (ret != Z_OK && ret != Z_STREAM_END) {
      std::string msg = zs.msg ? zs.msg : "error " + std::to_string(ret);
      inflateEnd(&zs);
      return Status::DataLoss(std::string(what) + ": " + Entry(entry.name) + ": corrupt deflate data: " + msg);
    }
  }
  uint64_t produced = zs.total_out;
  inflateEnd(&zs);
  if (produced != usize)
    return Status::DataLoss(std::string(what) + ": " + Entry(entry.name) + ": inflates to " +
                            std::to_string(produced) + " bytes: expected " + std::to_string(usize));
  out.resize(usize);
  return Status::Ok();
}

}  // namespace

Result<std::vector<ZipEntry>> ListZipEntries(std::span<const std::byte> archive, std::string_view what) {
  HONE_ASSIGN_OR_RETURN(Directory dir, FindDirectory(archive, what));
  std::vector<ZipEntry> entries;
  entries.reserve(dir.entries);  // bounded by the directory's size above
  std::unordered_set<std::string> names;
  size_t p = dir.offset, end = dir.offset + dir.size;
  for (uint64_t i = 0; i < dir.entries; ++i) {
    ZipEntry entry;
    HONE_ASSIGN_OR_RETURN(size_t record, ParseCentralEntry(archive, p, end, dir, what, entry));
    p += record;
    if (!names.insert(entry.name).second)
      return Invalid(what, "two entries are named '" + entry.name + "': expected unique names");
    entries.push_back(std::move(entry));
  }
  return entries;
}

Result<std::span<const std::byte>> ReadZipEntry(const ZipEntry& entry, std::vector<std::byte>& scratch,
                                                std::string_view what) {
  std::span<const std::byte> contents = entry.data;
  if (entry.method == zip::kMethodDeflate) {
    HONE_RETURN_IF_ERROR(Inflate(entry, scratch, what));
    contents = scratch;
  }
  uint32_t crc = static_cast<uint32_t>(
      crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(contents.data()), contents.size()));
  if (crc != entry.crc32)
    return Status::DataLoss(std::string(what) + ": " + Entry(entry.name) + ": CRC-32 of the contents is " +
                            Hex32(crc) + ", expected " + Hex32(entry.crc32) + ": the archive is corrupt");
  return contents;
}

}  // namespace hone
