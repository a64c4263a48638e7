// BYTES tensors in the binary tensor data extension: each element is a 4-byte little-endian length followed by that
// many bytes, elements back to back, no padding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace hone::serve::http {

// Splits `data` into exactly `count` elements (views into `data`). InvalidArgument naming `input_name` when a
// length prefix is cut short, an element runs past the end, or bytes are left over or missing.
Result<std::vector<std::string_view>> SplitBytesElements(std::span<const std::byte> data, int64_t count,
                                                         std::string_view input_name);

// Appends one element (its length prefix, then its bytes) to `out`.
void AppendBytesElement(std::string& out, std::string_view element);

}  // namespace hone::serve::http
