#include "serve/config/model_name.h"

#include <charconv>
#include <cstdio>
#include <string>

namespace hone::serve {
namespace {

// The name as it can be shown safely: control bytes escaped, long names cut.
std::string Printable(std::string_view name) {
  std::string s;
  for (size_t i = 0; i < name.size() && i < 64; ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7F || c == '\\' || c == '\'') {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02X", c);
      s += buf;
    } else {
      s += static_cast<char>(c);
    }
  }
  if (name.size() > 64) s += "...";
  return s;
}

// Why `name` cannot be a directory entry, or "" when it can.
std::string Problem(std::string_view name) {
  if (name.empty()) return "empty";
  if (name.size() > kMaxModelNameBytes)
    return "longer than " + std::to_string(kMaxModelNameBytes) + " bytes (" + std::to_string(name.size()) + ")";
  if (name == "." || name == "..") return "a relative path component";
  if (name.front() == '.') return "starts with '.'";
  for (char ch : name) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '/' || c == '\\') return "holds a path separator";
    if (c < 0x20 || c == 0x7F) return "holds a control character";
  }
  return "";
}

}  // namespace

Status ValidateModelName(std::string_view name) {
  std::string problem = Problem(name);
  if (problem.empty()) return Status::Ok();
  return Status::InvalidArgument("model name '" + Printable(name) + "': " + problem +
                                 " (expected a plain directory name)");
}

Status ValidateFileName(std::string_view name, std::string_view what) {
  std::string problem = Problem(name);
  if (problem.empty()) return Status::Ok();
  return Status::InvalidArgument(std::string(what) + " '" + Printable(name) + "': " + problem +
                                 " (expected a plain file name)");
}

Result<int64_t> ParseModelVersion(std::string_view text) {
  if (text.empty()) return int64_t{0};
  int64_t v = 0;
  bool digits = text.size() <= 32;
  for (char c : text) digits = digits && c >= '0' && c <= '9';
  if (digits) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size() && v >= 1) return v;
  }
  return Status::InvalidArgument("model version '" + Printable(text) + "': expected a positive integer");
}

int64_t VersionFromDirectoryName(std::string_view name) {
  if (name.empty() || name.size() > 19 || name.front() == '0') return -1;
  int64_t v = 0;
  for (char c : name)
    if (c < '0' || c > '9') return -1;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
  if (ec != std::errc() || end != name.data() + name.size() || v < 1) return -1;
  return v;
}

}  // namespace hone::serve
