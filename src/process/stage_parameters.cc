#include "process/stage_parameters.h"

#include <charconv>
#include <filesystem>

namespace hone::process {

Status StageParameters::Bad(const std::string& key, const std::string& what) const {
  auto it = values_.find(key);
  return Status::InvalidArgument(kind_ + " parameter '" + key + "': " + what + ", got '" +
                                 (it == values_.end() ? std::string() : it->second) + "'");
}

std::string StageParameters::String(const std::string& key, std::string fallback) {
  read_.insert(key);
  auto it = values_.find(key);
  return it == values_.end() ? std::move(fallback) : it->second;
}

Result<std::string> StageParameters::Choice(const std::string& key, std::string fallback,
                                            const std::vector<std::string>& choices) {
  std::string value = String(key, std::move(fallback));
  for (const std::string& c : choices)
    if (value == c) return value;
  std::string list;
  for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + c;
  return Bad(key, "expected one of " + list);
}

Result<bool> StageParameters::Bool(const std::string& key, bool fallback) {
  read_.insert(key);
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (it->second == "true" || it->second == "1") return true;
  if (it->second == "false" || it->second == "0") return false;
  return Bad(key, "expected true or false");
}

Result<int64_t> StageParameters::Int(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  read_.insert(key);
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const std::string& text = it->second;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
    return Bad(key, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return v;
}

Result<std::string> StageParameters::File(const std::string& key, std::string fallback, const std::string& directory) {
  const std::string name = String(key, std::move(fallback));
  if (name.empty() || name.find("..") != std::string::npos || name.front() == '/')
    return Status::InvalidArgument(kind_ + " parameter '" + key + "': '" + name +
                                   "': expected a file name inside the version directory");
  return (std::filesystem::path(directory) / name).string();
}

Status StageParameters::CheckAllRead() const {
  for (const auto& [key, value] : values_) {
    if (read_.count(key)) continue;
    std::string known;
    for (const std::string& k : read_) known += (known.empty() ? "" : ", ") + k;
    return Status::InvalidArgument(kind_ + " parameter '" + key + "': unknown (" + kind_ + " reads " +
                                   (known.empty() ? std::string("none") : known) + ")");
  }
  return Status::Ok();
}

}  // namespace hone::process
