#include "cli/report_output.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "base/atomic_file.h"
#include "base/staged_output.h"

namespace hone::cli {
namespace {

// Standard output's own buffer, kept when std::cout is routed to standard error.
std::streambuf* g_stdout = nullptr;

}  // namespace

tune::ReportContext& Invocation() {
  static tune::ReportContext context;
  return context;
}

Status RouteReports(const std::vector<std::pair<std::string, std::string>>& flag_and_path,
                    const std::vector<std::string>& inputs) {
  std::string dash_flag;
  for (const auto& [flag, path] : flag_and_path) {
    if (path.empty()) continue;
    if (path == "-") {
      if (!dash_flag.empty())
        return Status::InvalidArgument(flag + " -: standard output is already taken by " + dash_flag + " -");
      dash_flag = flag;
      continue;
    }
    // Checked now rather than after minutes of measuring: the report's folder must be there to write into.
    const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(parent, ec))
      return Status::InvalidArgument(flag + " '" + path + "': the folder '" + parent.string() +
                                     "' does not exist (hone does not create it)");
    if (::access(parent.c_str(), W_OK) != 0)
      return Status::InvalidArgument(flag + " '" + path + "': the folder '" + parent.string() + "' is not writable");
    for (const std::string& input : inputs)
      if (!input.empty() && SamePath(path, input))
        return Status::InvalidArgument(flag + " '" + path + "' is the input '" + input +
                                       "': a report never replaces what it reports on");
  }
  if (!dash_flag.empty() && !g_stdout) {
    std::cout.flush();
    g_stdout = std::cout.rdbuf(std::cerr.rdbuf());
  }
  return Status::Ok();
}

Status WriteReport(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::ostream out(g_stdout ? g_stdout : std::cout.rdbuf());
    out << text;
    out.flush();
    return out ? Status::Ok() : Status::Internal("writing the report to standard output failed");
  }
  return WriteFileAtomically(path, text);
}

Status WriteJsonReport(const std::string& path, std::string_view report, nlohmann::json model, nlohmann::json body) {
  const nlohmann::json j = tune::MakeReport(report, Invocation(), std::move(model), std::move(body));
  return WriteReport(path, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace hone::cli
