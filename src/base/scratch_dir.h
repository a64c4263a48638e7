// A private directory under the system's temp directory, removed with everything in it when the object goes: for
// files a pass writes only to read them back (an augmented model for calibration, pruned candidates measured and
// dropped).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace hone {

class ScratchDir {
 public:
  // Creates TMP/<prefix>_<pid>_<n> (n counts the directories this process made).
  explicit ScratchDir(std::string_view prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // The path of `name` inside the directory.
  std::string File(const std::string& name) const;

 private:
  std::filesystem::path path_;
};

}  // namespace hone
