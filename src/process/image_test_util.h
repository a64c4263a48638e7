// For the image tests: the checked-in test images (src/process/testdata/images, made by make_reference.py there).
#pragma once

#include <string>

#include "base/test_paths.h"
#include "tensor/file_io.h"

namespace hone::process::testing {

inline std::string ImagesDir() { return std::string(HONE_SOURCE_DIR) + "/src/process/testdata/images"; }

// The bytes of a test image, empty (and a test failure) when it cannot be read.
inline std::string ImageFile(const std::string& name) {
  Result<std::vector<std::byte>> bytes = ReadFileBytes(ImagesDir() + "/" + name);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  if (!bytes.ok()) return {};
  return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

}  // namespace hone::process::testing
