#include "base/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace hone {

Status WriteFileAtomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  static std::atomic<int> counter{0};
  const fs::path target(path);
  fs::path temp = target;
  temp += ".hone-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::NotFound("cannot write '" + path + "': " + std::strerror(errno));
    out << text;
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(temp, ec);
      return Status::Internal("writing '" + path + "' failed");
    }
  }
  // On disk before the rename, so that a crash never leaves the name pointing at an empty file.
  if (int fd = ::open(temp.c_str(), O_RDONLY); fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    fs::remove(temp, ec);
    return Status::Internal("cannot put '" + path + "' in place: " + why);
  }
  return Status::Ok();
}

}  // namespace hone
