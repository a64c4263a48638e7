// Raw inputs for a model (or an ensemble) whose one input is BYTES: what a user has before any pre-processing.
//   a folder        every regular file in it, in name order, is one sample (its bytes: a PNG, a JPEG, a WAV...)
//   FILE.txt        every non-empty line is one sample (UTF-8 text; a trailing \r is dropped)
//   FILE.jsonl      every line is one JSON string (texts with newlines, tabs or control characters)
// Hidden files (a leading '.') in a folder are skipped.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace hone::runtime {

// Whether `path` names raw samples (a folder, .txt or .jsonl) rather than arrays (.npy, .npz).
bool IsRawSamplePath(const std::string& path);

// The samples at `path`. NotFound when it does not exist; InvalidArgument naming the line of a .jsonl that is not
// a JSON string, or when there are no samples at all.
Result<std::vector<std::string>> ReadRawSamples(const std::string& path);

}  // namespace hone::runtime
