#include "client/model_version.h"

#include <charconv>

namespace hone::client {

Result<int64_t> ParseModelVersion(std::string_view text, std::string_view what) {
  if (text.empty() || text == "-1") return int64_t{0};
  int64_t version = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
  // from_chars accepts a leading '-'; a version is positive, and "07" would name the same directory as "7" only
  // by accident, so it is refused rather than guessed.
  bool ok = ec == std::errc() && end == text.data() + text.size() && version > 0 && text.front() != '0';
  if (!ok)
    return Status::InvalidArgument(std::string(what) + ": version '" + std::string(text) +
                                   "': expected a positive integer or \"\"");
  return version;
}

std::string ModelVersionToString(int64_t version) { return version == 0 ? std::string() : std::to_string(version); }

}  // namespace hone::client
