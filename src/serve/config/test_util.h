// Helpers shared by this folder's tests (header-only; not part of the library).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "serve/config/config_text.h"

namespace hone::serve::testing {

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("hone_config_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
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
  // Writes `bytes` to `relative` (creating directories); returns the full path.
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
  // Copies a file from the source tree ("src/runtime/testdata/affine.onnx") to `relative`.
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

inline std::string SourcePath(const std::string& relative) { return std::string(HONE_SOURCE_DIR) + "/" + relative; }

// Parses `text` and fails the test on an error.
inline inference::ModelConfig ParseOrFail(const std::string& text) {
  auto config = ParseModelConfig(text, "config.pbtxt");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.ok() ? *config : inference::ModelConfig();
}

}  // namespace hone::serve::testing
