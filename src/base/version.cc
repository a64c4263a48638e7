#include "base/version.h"

#ifndef HONE_VERSION
#error "HONE_VERSION is set by src/base/CMakeLists.txt from the project's version"
#endif

namespace hone {

std::string_view HoneVersion() { return HONE_VERSION; }

}  // namespace hone
