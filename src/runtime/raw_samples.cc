#include "runtime/raw_samples.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hone::runtime {
namespace {

namespace fs = std::filesystem;

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read '" + path.string() + "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

Result<std::vector<std::string>> ReadFolder(const std::string& path) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (!entry.is_regular_file()) continue;
    if (entry.path().filename().string().starts_with(".")) continue;
    files.push_back(entry.path());
  }
  if (ec) return Status::NotFound("cannot list '" + path + "': " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<std::string> samples;
  samples.reserve(files.size());
  for (const fs::path& f : files) {
    HONE_ASSIGN_OR_RETURN(std::string bytes, ReadFile(f));
    samples.push_back(std::move(bytes));
  }
  return samples;
}

Result<std::vector<std::string>> ReadLines(const std::string& path, bool json) {
  HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::vector<std::string> samples;
  size_t line_number = 0, start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (!json) {
      samples.push_back(std::move(line));
      continue;
    }
    nlohmann::json value = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!value.is_string())
      return Status::InvalidArgument("'" + path + "' line " + std::to_string(line_number) +
                                     ": expected a JSON string (one sample a line)");
    samples.push_back(value.get<std::string>());
  }
  return samples;
}

}  // namespace

bool IsRawSamplePath(const std::string& path) {
  std::error_code ec;
  return EndsWith(path, ".txt") || EndsWith(path, ".jsonl") || fs::is_directory(path, ec);
}

Result<std::vector<std::string>> ReadRawSamples(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status::NotFound("'" + path + "' does not exist");
  Result<std::vector<std::string>> samples = fs::is_directory(path, ec) ? ReadFolder(path)
                                              : EndsWith(path, ".jsonl") ? ReadLines(path, true)
                                                                        : ReadLines(path, false);
  if (!samples.ok()) return samples;
  if (samples->empty())
    return Status::InvalidArgument("'" + path + "' holds no samples (" +
                                   (fs::is_directory(path, ec) ? std::string("no files") : std::string("no lines")) +
                                   ")");
  return samples;
}

}  // namespace hone::runtime
