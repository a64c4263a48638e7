// hone's own version, from one place: CMake's project(VERSION), compiled into version.cc only, so that a release
// bump rebuilds one file and every report, `hone --version` and the server's `GET /v2` say the same thing.
#pragma once

#include <string_view>

namespace hone {

// "0.1.0"
std::string_view HoneVersion();

}  // namespace hone
