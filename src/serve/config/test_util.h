// Helpers shared by this folder's tests (header-only; not part of the library).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/temp_dir_test_util.h"
#include "serve/config/config_text.h"

namespace hone::serve::testing {

using TempDir = hone::testing_util::TempDir;

inline std::string SourcePath(const std::string& relative) { return std::string(HONE_SOURCE_DIR) + "/" + relative; }

// Parses `text` and fails the test on an error.
inline inference::ModelConfig ParseOrFail(const std::string& text) {
  auto config = ParseModelConfig(text, "config.pbtxt");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.ok() ? *config : inference::ModelConfig();
}

}  // namespace hone::serve::testing
