// The subcommands. Each registers its flags on the app and returns the function that runs it, which returns the
// process exit code: 0 ok, 1 a check failed (unstable or erroneous measurement), 2 bad usage or bad input.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace hone::cli {

using Command = std::function<int()>;

Command AddInfoCommand(CLI::App& app);
Command AddBenchCommand(CLI::App& app);
Command AddCompareCommand(CLI::App& app);
Command AddEvaluateCommand(CLI::App& app);
Command AddServeCommand(CLI::App& app);
Command AddQuantizeCommand(CLI::App& app);
Command AddPruneCommand(CLI::App& app);
Command AddConvertCommand(CLI::App& app);
Command AddProfileCommand(CLI::App& app);
Command AddTuneCommand(CLI::App& app);

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitUsage = 2;

}  // namespace hone::cli
