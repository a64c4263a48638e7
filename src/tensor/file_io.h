// Whole-file reads and writes for the file formats in this folder. Errors name the path and the OS's reason.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"

namespace hone {

// The file's bytes. NotFound (with the path and reason) when it is missing or cannot be read.
Result<std::vector<std::byte>> ReadFileBytes(const std::string& path);
// Creates or truncates `path` and writes `bytes`. NotFound when the directory is missing, PermissionDenied when
// not allowed, ResourceExhausted when the disk is full, Unknown otherwise.
Status WriteFileBytes(const std::string& path, std::span<const std::byte> bytes);

}  // namespace hone
