// Log lines for long-running commands (hone serve): one line per event on stderr, with a UTC timestamp and a
// level, written with a single write so lines from different threads never interleave.
//
//   LogInfo("model '{}' version {}: ready ({} instances)", name, version, count);
#pragma once

#include <string_view>

#include <fmt/format.h>

namespace hone {

enum class LogLevel { kInfo, kWarning, kError };

void WriteLogLine(LogLevel level, std::string_view message);
// Lines below `level` are dropped (default kInfo). Thread-safe.
void SetMinLogLevel(LogLevel level);

template <typename... Args>
void LogInfo(fmt::format_string<Args...> format, Args&&... args) {
  WriteLogLine(LogLevel::kInfo, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogWarning(fmt::format_string<Args...> format, Args&&... args) {
  WriteLogLine(LogLevel::kWarning, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogError(fmt::format_string<Args...> format, Args&&... args) {
  WriteLogLine(LogLevel::kError, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace hone
