#include "cli/argument_check.h"

#include <algorithm>
#include <cctype>

#include "base/nearest_name.h"

namespace hone::cli {
namespace {

bool LooksLikeNumber(const std::string& s) {
  return s.size() > 1 && s[0] == '-' && (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.');
}

// "--x", "--x=1" and "-o" are flags; "-" (standard output) and "-5" are values.
bool LooksLikeFlag(const std::string& s) { return s.size() > 1 && s[0] == '-' && !LooksLikeNumber(s); }

bool TakesValue(const CLI::Option& o) { return o.get_items_expected_max() > 0 && o.get_type_size_max() > 0; }

}  // namespace

std::vector<std::string> FlagNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  // A negatable flag (--x,!--no-x) lists --no-x among its long names already; each name once.
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Result<std::vector<std::string>> CheckArguments(const CLI::App& subcommand, std::vector<std::string> args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;  // everything after is positional
    if (!LooksLikeFlag(arg)) continue;
    // A short option with its value attached ("-omodel.onnx") is CLI11's to split.
    if (arg[1] != '-' && arg.size() > 2 && subcommand.get_option_no_throw(arg.substr(0, 2))) continue;
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const CLI::Option* option = subcommand.get_option_no_throw(name);
    if (!option) {
      const std::string near = NearestName(name, FlagNames(subcommand));
      return Status::InvalidArgument("unknown flag '" + name + "'" +
                                     (near.empty() ? "" : " (did you mean '" + near + "'?)") + "; 'hone " +
                                     subcommand.get_name() + " --help' lists them");
    }
    if (!TakesValue(*option)) {
      const std::string next = i + 1 < args.size() ? args[i + 1] : "";
      // Triton's spellings of a boolean value, as CLI11 reads them after "=".
      static const char* const kBooleans[] = {"true", "false", "1", "0", "on", "off", "yes", "no"};
      const bool boolean = std::find(std::begin(kBooleans), std::end(kBooleans), next) != std::end(kBooleans);
      if (eq == std::string::npos && boolean) {
        args[i] += "=" + next;
        args.erase(args.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      }
      continue;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[i + 1];
      if (LooksLikeFlag(value) && option->get_items_expected_min() == 0) continue;  // its value is optional
      if (LooksLikeFlag(value))
        return Status::InvalidArgument(name + " needs a value, but the next argument is the flag '" + value +
                                       "' (write " + name + " VALUE)");
      ++i;
    } else {
      continue;  // CLI11 says a value is missing
    }
    if (option->get_delimiter() != '\0' && value.find(option->get_delimiter()) != std::string::npos) {
      const char d = option->get_delimiter();
      if (value.front() == d || value.back() == d || value.find(std::string(2, d)) != std::string::npos)
        return Status::InvalidArgument(name + " '" + value + "': the list has an empty item");
    }
  }
  return args;
}

}  // namespace hone::cli
