#include "runtime/prefault.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hone::runtime {
namespace {

namespace fs = std::filesystem;

// The Rss of the mapping that starts at `at`, in KiB, from /proc/self/smaps (-1: no such mapping).
int64_t MappingRssKib(const void* at) {
  char start[32];
  std::snprintf(start, sizeof start, "%lx-", reinterpret_cast<unsigned long>(at));
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    const size_t dash = line.find('-'), space = line.find(' ');
    if (dash != std::string::npos && dash < space && std::isxdigit(static_cast<unsigned char>(line[0])))
      inside = line.starts_with(start);  // a mapping's first line: start-end perms ...
    else if (inside && line.starts_with("Rss:"))
      return std::stoll(line.substr(4));
  }
  return -1;
}

struct Mapped {
  void* at = nullptr;
  size_t length = 0;
  Mapped(const fs::path& file, size_t bytes) : length(bytes) {
    std::ofstream(file, std::ios::binary) << std::string(bytes, 'x');
    const int fd = open(file.c_str(), O_RDONLY);
    at = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
  }
  ~Mapped() { munmap(at, length); }
};

TEST(PrefaultTest, MakesTheDirectorysMappedFilesResidentAndLeavesOthers) {
  const fs::path base = fs::temp_directory_path() / ("hone-prefault-" + std::to_string(getpid()));
  fs::create_directories(base / "model");
  fs::create_directories(base / "other");
  const size_t bytes = 64 * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  {
    Mapped weights(base / "model" / "model.onnx.data", bytes), other(base / "other" / "x.data", bytes);
    ASSERT_NE(weights.at, MAP_FAILED);
    ASSERT_NE(other.at, MAP_FAILED);
    EXPECT_EQ(MappingRssKib(weights.at), 0);  // never read: nothing resident yet

    // through a link, as a repository of links to the files is served
    fs::create_directory_symlink(base / "model", base / "served");
    auto populated = PrefaultMappedFiles(base / "served");
    ASSERT_TRUE(populated.ok()) << populated.status().ToString();
    EXPECT_EQ(*populated, static_cast<int64_t>(bytes));
    EXPECT_EQ(MappingRssKib(weights.at), static_cast<int64_t>(bytes / 1024));
    EXPECT_EQ(MappingRssKib(other.at), 0);
  }
  fs::remove_all(base);
}

TEST(PrefaultTest, ADirectoryWithNothingMappedPopulatesNothing) {
  auto populated = PrefaultMappedFiles("/nonexistent-hone-dir");
  ASSERT_TRUE(populated.ok());
  EXPECT_EQ(*populated, 0);
}

}  // namespace
}  // namespace hone::runtime
