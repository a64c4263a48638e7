#include "base/scratch_dir.h"

#include <unistd.h>

#include <atomic>

namespace hone {

ScratchDir::ScratchDir(std::string_view prefix) {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          (std::string(prefix) + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string ScratchDir::File(const std::string& name) const { return (path_ / name).string(); }

}  // namespace hone
