// hone's command line: parses it and hands over to a subcommand (run.h).
#include "cli/run.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "base/nearest_name.h"
#include "base/version.h"
#include "cli/argument_check.h"
#include "cli/commands.h"
#include "cli/report_output.h"
#include "report/system_info.h"

namespace {

using hone::cli::kExitOk;
using hone::cli::kExitUsage;

// `hone --version` and `hone version`: hone's, ONNX Runtime's and what the CPU offers, since defaults depend on it.
std::string VersionText() {
  const hone::report::SystemInfo s = hone::report::ReadSystemInfo();
  std::string features;
  for (const auto& f : s.cpu_features) features += (features.empty() ? "" : " ") + f;
  return fmt::format("hone {}\nONNX Runtime {}\nCPU: {}, {} logical core(s); features: {}\nbuilt with {}\n",
                     hone::HoneVersion(), s.onnxruntime_version, s.cpu_model, s.logical_cores,
                     features.empty() ? "(none detected)" : features, s.compiler);
}

CLI::App* FindSubcommand(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

// "unknown command 'bnech' (did you mean 'bench'?)"
int UnknownCommand(CLI::App& app, const std::string& name) {
  std::vector<std::string> names;
  for (CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  const std::string near = hone::NearestName(name, names);
  std::cerr << "hone: unknown command '" << name << "'" << (near.empty() ? "" : " (did you mean '" + near + "'?)")
            << "; 'hone help' lists the commands\n";
  return kExitUsage;
}

// Registers every subcommand on `app`, with the function that runs it.
void AddCommands(CLI::App& app, std::map<CLI::App*, hone::cli::Command>* commands) {
  auto add = [&](auto adder) {
    size_t before = app.get_subcommands({}).size();
    hone::cli::Command run = adder(app);
    (*commands)[app.get_subcommands({})[before]] = std::move(run);
  };
  add(hone::cli::AddInfoCommand);
  add(hone::cli::AddBenchCommand);
  add(hone::cli::AddCompareCommand);
  add(hone::cli::AddEvaluateCommand);
  add(hone::cli::AddServeCommand);
  add(hone::cli::AddQuantizeCommand);
  add(hone::cli::AddPruneCommand);
  add(hone::cli::AddConvertCommand);
  add(hone::cli::AddProfileCommand);
  add(hone::cli::AddTuneCommand);
}

}  // namespace

namespace hone::cli {

std::vector<CommandFlag> CommandFlags(const std::string& command) {
  CLI::App app{"hone", "hone"};
  std::map<CLI::App*, Command> commands;
  AddCommands(app, &commands);
  std::vector<CommandFlag> flags;
  CLI::App* sub = FindSubcommand(app, command);
  if (sub == nullptr) return flags;
  for (const CLI::Option* o : sub->get_options()) {
    if (o->get_lnames().empty() && o->get_snames().empty()) {
      if (!o->get_name().empty()) flags.push_back({o->get_name(), true, true});  // a positional argument
      continue;
    }
    for (const std::string& name : o->get_lnames())
      if (name != "help") flags.push_back({name, o->get_expected_min() > 0, false});
  }
  return flags;
}

int RunHone(const std::vector<std::string>& argv) {
  // A fresh context per run: the same process may run several commands (the Python module does).
  Invocation() = report::ReportContext{};
  Invocation().argv = argv;
  CLI::App app{"hone: measure, optimize, verify and serve ONNX models", "hone"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "print hone's version, ONNX Runtime's and the CPU's features");
  app.footer(
      "Examples:\n"
      "  hone info model.onnx\n"
      "  hone bench model.onnx --concurrency 1,8 --json report.json\n"
      "  hone quantize model.onnx -o model.int8.onnx --mode dynamic\n"
      "  hone tune model.onnx --data data.npz --slo 'p99<=5ms@concurrency=8' -o out/\n"
      "  hone serve --model-repository repo/\n"
      "  hone help bench");
  std::map<CLI::App*, Command> commands;
  AddCommands(app, &commands);
  CLI::App* version_command = app.add_subcommand("version", "print hone's version, as --version");
  CLI::App* help_command = app.add_subcommand("help", "print the help of hone or of one command");
  std::string help_topic;
  help_command->add_option("command", help_topic, "the command to explain (default: list the commands)");

  // Before CLI11: an unknown command or flag gets a suggestion, a value option never swallows the next flag.
  std::vector<std::string> args(argv.begin() + (argv.empty() ? 0 : 1), argv.end());
  if (!args.empty() && args[0][0] != '-') {
    CLI::App* sub = FindSubcommand(app, args[0]);
    if (!sub) return UnknownCommand(app, args[0]);
    auto checked = hone::cli::CheckArguments(*sub, std::vector<std::string>(args.begin() + 1, args.end()));
    if (!checked.ok()) {
      std::cerr << "hone " << sub->get_name() << ": " << checked.status().message() << "\n";
      return kExitUsage;
    }
    args.resize(1);
    args.insert(args.end(), checked->begin(), checked->end());
  }
  try {
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    // CLI11 answers --help with success; every other parse error is bad usage.
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (version || version_command->parsed()) {
    std::cout << VersionText();
    return kExitOk;
  }
  if (help_command->parsed()) {
    // CLI11's help() would describe the parsed `help` command itself; ask the formatter for the one wanted.
    if (help_topic.empty()) {
      std::cout << app.get_formatter()->make_help(&app, "hone", CLI::AppFormatMode::Normal);
      return kExitOk;
    }
    CLI::App* sub = FindSubcommand(app, help_topic);
    if (!sub) return UnknownCommand(app, help_topic);
    std::cout << sub->get_formatter()->make_help(sub, "hone " + help_topic, CLI::AppFormatMode::Normal);
    return kExitOk;
  }
  try {
    for (auto& [sub, run] : commands)
      if (sub->parsed()) return run();
  } catch (const std::exception& e) {
    // A last resort (a thread that could not start, an allocation that failed): say so, never abort.
    std::cerr << "hone: " << e.what() << "\n";
    return hone::cli::kExitCheckFailed;
  }
  // No command: what there is to run.
  std::cerr << app.get_formatter()->make_help(&app, "hone", CLI::AppFormatMode::Normal);
  return kExitUsage;
}

}  // namespace hone::cli
