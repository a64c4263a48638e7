// hone: benchmark-driven inference optimization. Parses the command line and hands over to a subcommand.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <map>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"hone: measure, optimize, verify and serve ONNX models"};
  app.require_subcommand(1);
  std::map<CLI::App*, hone::cli::Command> commands;
  auto add = [&](auto adder) {
    size_t before = app.get_subcommands({}).size();
    hone::cli::Command run = adder(app);
    commands[app.get_subcommands({})[before]] = std::move(run);
  };
  add(hone::cli::AddInfoCommand);
  add(hone::cli::AddBenchCommand);
  add(hone::cli::AddCompareCommand);
  add(hone::cli::AddEvaluateCommand);
  add(hone::cli::AddServeCommand);
  add(hone::cli::AddQuantizeCommand);
  add(hone::cli::AddConvertCommand);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    // CLI11 answers --help with success; every other parse error is bad usage.
    return code == 0 ? hone::cli::kExitOk : hone::cli::kExitUsage;
  }
  try {
    for (auto& [sub, run] : commands)
      if (sub->parsed()) return run();
  } catch (const std::exception& e) {
    // A last resort (a thread that could not start, an allocation that failed): say so, never abort.
    std::fprintf(stderr, "hone: %s\n", e.what());
    return hone::cli::kExitCheckFailed;
  }
  return hone::cli::kExitUsage;
}
