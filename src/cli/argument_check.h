// Checks a subcommand's arguments before CLI11 parses them, for the mistakes CLI11 lets through or reports badly:
// a flag nobody defined ("unknown flag '--concurency' (did you mean '--concurrency'?)"), a value option followed by
// another flag instead of its value (`--json --quiet` would write a file named "--quiet"), and an empty item in a
// comma-separated list (`--concurrency 1,,2`). The value "-" (standard output) and negative numbers are values.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/result.h"

namespace hone::cli {

// `args` are the subcommand's own arguments (after its name). Returns them with Triton's way of giving a flag a
// value (`--strict-readiness false`) joined into CLI11's (`--strict-readiness=false`). InvalidArgument naming the
// flag first.
Result<std::vector<std::string>> CheckArguments(const CLI::App& subcommand, std::vector<std::string> args);

// Every flag name of `app` ("--json", "-o"), for suggestions.
std::vector<std::string> FlagNames(const CLI::App& app);

}  // namespace hone::cli
