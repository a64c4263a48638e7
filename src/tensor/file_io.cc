#include "tensor/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace hone {
namespace {

std::string Reason(int err) { return std::strerror(err); }

Status WriteError(const std::string& path, int err) {
  std::string m = "cannot write '" + path + "': " + Reason(err);
  switch (err) {
    case ENOENT: case ENOTDIR: return Status::NotFound(std::move(m));
    case EACCES: case EPERM: case EROFS: return {StatusCode::kPermissionDenied, std::move(m)};
    case ENOSPC: case EDQUOT: case EFBIG: return Status::ResourceExhausted(std::move(m));
    default: return Status::Unknown(std::move(m));
  }
}

}  // namespace

Result<std::vector<std::byte>> ReadFileBytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::NotFound("cannot open '" + path + "': " + Reason(errno));
  // Read in chunks to EOF rather than trusting a size from stat: pipes and /proc files report 0.
  std::vector<std::byte> bytes;
  constexpr size_t kChunk = size_t{1} << 20;
  while (true) {
    size_t old = bytes.size();
    bytes.resize(old + kChunk);
    size_t n = std::fread(bytes.data() + old, 1, kChunk, f);
    bytes.resize(old + n);
    if (n < kChunk) break;
  }
  int err = std::ferror(f) ? (errno ? errno : EIO) : 0;
  std::fclose(f);
  // A directory opens fine on Linux and fails here with EISDIR.
  if (err) return Status::NotFound("cannot read '" + path + "': " + Reason(err));
  return bytes;
}

Status WriteFileBytes(const std::string& path, std::span<const std::byte> bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return WriteError(path, errno);
  size_t n = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), f);
  int err = n != bytes.size() ? (errno ? errno : EIO) : 0;
  // fclose flushes; a full disk often shows up only here.
  if (std::fclose(f) != 0 && !err) err = errno ? errno : EIO;
  if (err) return WriteError(path, err);
  return Status::Ok();
}

}  // namespace hone
