// Writing a report file so that a reader never sees half of it and a failed write never destroys the previous one:
// the text goes to a temporary file beside the target, which is renamed over it once complete.
#pragma once

#include <string>

#include "base/status.h"

namespace hone {

// NotFound naming the path when its directory is missing or not writable; Internal when the write or the rename
// fails (the temporary file is removed, the previous file left as it was).
Status WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace hone
