// Reading a stage's parameters (config.pbtxt `parameters`, all strings): typed getters with defaults, errors that
// name the key and what was expected, and a final check that refuses keys nobody read, so that a typo in a config
// fails the load instead of being silently ignored.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace hone::process {

class StageParameters {
 public:
  StageParameters(std::string kind, const std::map<std::string, std::string>& values)
      : kind_(std::move(kind)), values_(values) {}

  std::string String(const std::string& key, std::string fallback);
  // One of `choices`.
  Result<std::string> Choice(const std::string& key, std::string fallback, const std::vector<std::string>& choices);
  Result<bool> Bool(const std::string& key, bool fallback);  // true/false, 1/0
  Result<int64_t> Int(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  // A file name inside `directory` (the version directory): its full path. A name that leaves the directory ("..",
  // an absolute path) or is empty is InvalidArgument; whether the file exists is for the reader to say.
  Result<std::string> File(const std::string& key, std::string fallback, const std::string& directory);

  // InvalidArgument naming the first key no getter asked for, and the keys this stage reads.
  Status CheckAllRead() const;

 private:
  Status Bad(const std::string& key, const std::string& what) const;

  std::string kind_;
  const std::map<std::string, std::string>& values_;
  std::set<std::string> read_;
};

}  // namespace hone::process
