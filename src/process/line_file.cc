#include "process/line_file.h"

#include "tensor/file_io.h"

namespace hone::process {

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.emplace_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

Result<std::vector<std::string>> ReadLineFile(const std::string& path) {
  HONE_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, ReadFileBytes(path));
  return SplitLines(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace hone::process
