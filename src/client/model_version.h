// Model versions travel as strings in the protocol ("" or "3") and as int64 inside hone (0: the server picks).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace hone::client {

// "" -> 0 (the server picks); "3" -> 3; "-1" -> 0 too, as Triton reads it ("the latest"). InvalidArgument, naming
// `what` ("model 'm'") and the text, for anything else but a positive decimal integer that fits int64 (no sign,
// spaces or leading zeros: "007" is refused).
Result<int64_t> ParseModelVersion(std::string_view text, std::string_view what);

// 3 -> "3"; 0 -> "" (no version).
std::string ModelVersionToString(int64_t version);

}  // namespace hone::client
