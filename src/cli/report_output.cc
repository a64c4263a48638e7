#include "cli/report_output.h"

#include <unistd.h>

#include <cstdio>
#include <string_view>
#include <filesystem>
#include <iostream>

#include "base/atomic_file.h"
#include "base/staged_output.h"

namespace hone::cli {
namespace {

// Standard output's own buffer, kept when std::cout is routed to standard error.
std::streambuf* g_stdout = nullptr;

}  // namespace

report::ReportContext& Invocation() {
  static report::ReportContext context;
  return context;
}

Status RefuseOverwritingInputs(const std::vector<std::pair<std::string, std::string>>& flag_and_path,
                               const std::vector<std::string>& inputs) {
  for (size_t i = 0; i < flag_and_path.size(); ++i) {
    const auto& [flag, path] = flag_and_path[i];
    if (path.empty() || path == "-") continue;
    for (size_t j = 0; j < i; ++j)
      if (!flag_and_path[j].second.empty() && SamePath(path, flag_and_path[j].second))
        return Status::InvalidArgument(flag + " '" + path + "' is also " + flag_and_path[j].first +
                                       "'s file: one would replace the other");
    for (const std::string& input : inputs)
      if (!input.empty() && SamePath(path, input))
        return Status::InvalidArgument(flag + " '" + path + "' is the input '" + input +
                                       "': hone never writes over what it reads");
  }
  return Status::Ok();
}

Status RouteReports(const std::vector<std::pair<std::string, std::string>>& flag_and_path,
                    const std::vector<std::string>& inputs) {
  HONE_RETURN_IF_ERROR(RefuseOverwritingInputs(flag_and_path, inputs));
  std::string dash_flag;
  for (size_t i = 0; i < flag_and_path.size(); ++i) {
    const auto& [flag, path] = flag_and_path[i];
    if (path.empty()) continue;
    if (path == "-") {
      if (!dash_flag.empty())
        return Status::InvalidArgument(flag + " -: standard output is already taken by " + dash_flag + " -");
      dash_flag = flag;
      continue;
    }
    // A model or a dataset is never a report, even one this command does not read (the old `hone info --json
    // a.onnx b.onnx` form would otherwise write over a.onnx).
    for (std::string_view kept : {".onnx", ".npz", ".npy", ".data"})
      if (path.size() >= kept.size() && std::string_view(path).substr(path.size() - kept.size()) == kept)
        return Status::InvalidArgument(flag + " '" + path + "': a report is never written to a " +
                                       std::string(kept) + " file (a model or a dataset); give a .json or .csv path");
    std::error_code dir_ec;
    if (std::filesystem::is_directory(path, dir_ec))
      return Status::InvalidArgument(flag + " '" + path + "' is a folder: give a file name in it");
    // Checked now rather than after minutes of measuring: the report's folder must be there to write into.
    const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(parent, ec))
      return Status::InvalidArgument(flag + " '" + path + "': the folder '" + parent.string() +
                                     "' does not exist (hone does not create it)");
    if (::access(parent.c_str(), W_OK) != 0)
      return Status::InvalidArgument(flag + " '" + path + "': the folder '" + parent.string() + "' is not writable");
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
  const nlohmann::json j = report::MakeReport(report, Invocation(), std::move(model), std::move(body));
  return WriteReport(path, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace hone::cli
