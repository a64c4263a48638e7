// config.pbtxt in and out: protobuf text format, parsed strictly.
//
//   auto config = ReadModelConfig("models/mnist/config.pbtxt");   // Result<inference::ModelConfig>
//
// Parsing checks syntax and field names only; the meaning of the values is ValidateModelConfig's job.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/result.h"
#include "client/model_config.pb.h"

namespace hone::serve {

// Larger config text is refused before it is read: no real config comes near it.
inline constexpr size_t kMaxConfigBytes = 16 << 20;

// Parses config.pbtxt `text`. `file` names the source in errors. An unknown field, a bad enum value, a malformed
// value or a syntax error is InvalidArgument naming the file, the 1-based line and column and the field:
// "models/m/config.pbtxt:7:3: unknown field 'max_batch' in ModelConfig".
Result<inference::ModelConfig> ParseModelConfig(std::string_view text, const std::string& file);

// Reads and parses `path`. NotFound (naming the path) when it is missing or unreadable.
Result<inference::ModelConfig> ReadModelConfig(const std::string& path);

// The config in text format, as config.pbtxt holds it (for writing a repository).
std::string ModelConfigToText(const inference::ModelConfig& config);

}  // namespace hone::serve
