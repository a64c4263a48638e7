// For tests of every part: a fresh scratch directory, removed with everything in it when the test is done.
// Header-only, so that it stays out of the libraries.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace hone::testing_util {

class TempDir {
 public:
  TempDir() {
    static int counter = 0;  // tests in one process run one at a time
    path_ = std::filesystem::temp_directory_path() /
            ("hone_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  // The full path of `relative` inside the directory (nothing is created).
  std::string File(const std::string& relative) const { return (path_ / relative).string(); }
  // Writes `bytes` to `relative`, creating its directories; returns the full path.
  std::string Write(const std::string& relative, const std::string& bytes) const {
    std::filesystem::path p = path_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  std::string MakeDir(const std::string& relative) const {
    std::filesystem::create_directories(path_ / relative);
    return (path_ / relative).string();
  }
  // Copies a file of the source tree ("src/runtime/testdata/affine.onnx") to `relative`.
  std::string CopySource(const std::string& source_relative, const std::string& relative) const {
    std::filesystem::path p = path_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::filesystem::copy_file(std::string(HONE_SOURCE_DIR) + "/" + source_relative, p,
                               std::filesystem::copy_options::overwrite_existing);
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace hone::testing_util
