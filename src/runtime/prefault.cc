#include "runtime/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace hone::runtime {
namespace {

// Reads one byte of each page (volatile: the loads must happen) for kernels without MADV_POPULATE_READ.
void TouchPages(const char* start, size_t length, size_t page) {
  volatile char sink = 0;
  for (size_t at = 0; at < length; at += page) sink = sink + start[at];
}

}  // namespace

Result<int64_t> PrefaultMappedFiles(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path root = std::filesystem::canonical(dir, ec);
  if (ec) root = dir;
  const std::string prefix = root.string() + "/";
  std::ifstream maps("/proc/self/maps");
  if (!maps) return Status::NotFound("cannot read /proc/self/maps");
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  int64_t bytes = 0;
  std::string line;
  while (std::getline(maps, line)) {
    // start-end perms offset dev inode path
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode;
    std::getline(fields >> std::ws, path);
    if (perms.empty() || perms[0] != 'r' || !path.starts_with(prefix)) continue;
    unsigned long long start = 0, end = 0;
    if (std::sscanf(range.c_str(), "%llx-%llx", &start, &end) != 2 || end <= start) continue;
    char* at = reinterpret_cast<char*>(static_cast<uintptr_t>(start));
    const size_t length = static_cast<size_t>(end - start);
    if (madvise(at, length, MADV_POPULATE_READ) != 0) TouchPages(at, length, page);
    bytes += static_cast<int64_t>(length);
  }
  return bytes;
}

}  // namespace hone::runtime
