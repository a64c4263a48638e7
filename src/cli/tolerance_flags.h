// The flags that say when two outputs match, shared by `hone compare` and the verification of every variant that
// `hone quantize` and `hone convert` write, so that the same pair gets the same verdict from each (see
// check/tolerance.h for the rules).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "check/tolerance.h"

namespace hone::cli {

struct ToleranceFlags {
  std::vector<std::string> atol, rtol, error_stat;
  double min_cosine = check::kDefaultMinCosine;
  double max_range_error = check::kDefaultMaxRangeError;
};

void AddToleranceFlags(CLI::App& app, ToleranceFlags& flags);

// InvalidArgument naming the flag and its text when a value does not parse.
Status ApplyToleranceFlags(const ToleranceFlags& flags, check::Tolerances& tolerances);

}  // namespace hone::cli
