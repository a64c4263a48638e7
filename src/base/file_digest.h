// The SHA-256 of a file, so that a report says exactly which model (or dataset) it measured.
#pragma once

#include <string>

#include "base/result.h"

namespace hone {

// Lower-case hex digest of the file's bytes, read in chunks. NotFound naming the file when it cannot be read.
Result<std::string> Sha256OfFile(const std::string& path);

}  // namespace hone
