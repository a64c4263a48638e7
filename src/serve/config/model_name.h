// Names that reach the file system: model names and versions from clients (URLs, gRPC fields, load requests)
// and from the repository's directory listing. A name that passes can be joined to the repository path without
// leaving it.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"

namespace hone::serve {

inline constexpr size_t kMaxModelNameBytes = 255;

// Ok for a name that is a single, ordinary directory entry. InvalidArgument, quoting the name (escaped) and
// saying why, when it is empty, longer than 255 bytes, "." or "..", starts with '.', or holds '/', '\\', a NUL
// or another control character (bytes < 0x20 and 0x7F).
Status ValidateModelName(std::string_view name);

// The same rules for a file name the config names (default_model_filename, label_filename,
// model_warmup input_data_file); `what` names the field in the error.
Status ValidateFileName(std::string_view name, std::string_view what);

// A model version from a client: "" is 0 (the server picks); otherwise a decimal integer >= 1 that fits int64
// (leading zeros allowed). InvalidArgument, quoting the text, for anything else ("-1", "1.0", "../1", "latest").
Result<int64_t> ParseModelVersion(std::string_view text);

// A version directory's name: a decimal integer >= 1 without sign or leading zeros (Triton ignores other names).
// -1 for a name that is not a version directory.
int64_t VersionFromDirectoryName(std::string_view name);

}  // namespace hone::serve
