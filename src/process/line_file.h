// Files of one entry a line, as stages read them: a classifier's labels (Triton's label_filename), a CTC decoder's
// characters. A final newline ends the last line rather than adding an empty one; "\r\n" counts as "\n"; other
// empty lines are empty entries (a label may be blank; a CTC dictionary's space is a line holding one space).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace hone::process {

std::vector<std::string> SplitLines(std::string_view text);
// SplitLines of the file at `path`; NotFound naming it when it cannot be read.
Result<std::vector<std::string>> ReadLineFile(const std::string& path);

}  // namespace hone::process
