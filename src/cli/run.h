// The whole command line as a function, for the `hone` binary (main.cc) and for the Python module, which runs the
// commands in its own process (python/src).
#pragma once

#include <string>
#include <vector>

namespace hone::cli {

// Runs hone with `argv` (argv[0] is the program's name) and returns the exit status: 0 ok, 1 a check failed, 2 bad
// usage or input. Prints what the binary prints. Not reentrant: one run at a time in a process.
int RunHone(const std::vector<std::string>& argv);

// The flags of one command, for callers that build its command line (the Python module turns keyword arguments
// into them). Empty for an unknown command.
struct CommandFlag {
  std::string name;   // "concurrency", "no-strict-readiness"; a positional argument's own name ("model")
  bool takes_value;   // false: a flag that is only present or not
  bool positional;
};
std::vector<CommandFlag> CommandFlags(const std::string& command);

}  // namespace hone::cli
