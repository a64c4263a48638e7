// Log lines for long-running commands (hone serve): one line per event on stderr, written with a single write so
// lines from different threads never interleave.
//
//   LogInfo("model '{}' version {}: ready ({} instances)", name, version, count);
//   Log(LogLevel::kInfo, {{"model", name}, {"version", version}}, "model '{}' version {}: ready", name, version);
//   LogVerbose(1, "repository: {} model(s) found", n);      // only with SetLogVerbosity(>= 1)
//
// Two formats (SetLogFormat): text, "I 2026-12-02T15:31:07.123456Z message" (level letter V, I, W or E, UTC
// time); and JSON, one object a line, {"timestamp": "...Z", "level": "INFO", "message": "...", <fields>}, for log
// collectors. Fields (the model, its version) appear in JSON only: the text message already names them.
//
// Every setter is thread-safe and may be called while other threads log; settings are process-wide.
#pragma once

#include <functional>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace hone {

enum class LogLevel { kVerbose, kInfo, kWarning, kError };
enum class LogFormat { kText, kJson };

// One key of a JSON log line. A number stays a JSON number; text is escaped.
struct LogField {
  LogField(std::string_view k, std::string_view v) : key(k), value(v) {}
  LogField(std::string_view k, const char* v) : key(k), value(v) {}
  LogField(std::string_view k, const std::string& v) : key(k), value(v) {}
  LogField(std::string_view k, int64_t v) : key(k), value(std::to_string(v)), number(true) {}
  LogField(std::string_view k, int v) : LogField(k, static_cast<int64_t>(v)) {}
  std::string_view key;  // a name from the code ("model", "version"), never escaped
  std::string value;
  bool number = false;
};
using LogFields = std::vector<LogField>;

// Writes one line at `level` unless that level is off. kVerbose lines go through LogVerbose, which checks the
// verbosity; WriteLogLine writes them whenever verbosity is above 0.
void WriteLogLine(LogLevel level, std::string_view message, const LogFields& fields = {});

// Turns one level on or off (all on by default): Triton's --log-info, --log-warning, --log-error.
void SetLogLevelEnabled(LogLevel level, bool enabled);
// Lines below `level` are dropped, lines at or above it kept (default kInfo).
void SetMinLogLevel(LogLevel level);
// Verbose lines of detail <= `verbosity` are written; 0 (the default) writes none: Triton's --log-verbose N.
void SetLogVerbosity(int verbosity);
bool LogVerboseEnabled(int detail);
void SetLogFormat(LogFormat format);
// Where log lines go instead of standard error (each whole line, newline included); an empty function restores
// standard error. For embedders that have a log of their own (the Python module hands them to a logger).
using LogSink = std::function<void(LogLevel level, std::string_view line)>;
void SetLogSink(LogSink sink);
LogFormat GetLogFormat();

// The line WriteLogLine would write for `message` at `level` (with its trailing newline), at `unix_micros`
// microseconds since the epoch; for tests and for callers that write elsewhere.
std::string FormatLogLine(LogFormat format, LogLevel level, std::string_view message, const LogFields& fields,
                          int64_t unix_micros);

template <typename... Args>
void Log(LogLevel level, const LogFields& fields, fmt::format_string<Args...> format, Args&&... args) {
  WriteLogLine(level, fmt::format(format, std::forward<Args>(args)...), fields);
}
template <typename... Args>
void LogVerbose(int detail, fmt::format_string<Args...> format, Args&&... args) {
  if (LogVerboseEnabled(detail)) WriteLogLine(LogLevel::kVerbose, fmt::format(format, std::forward<Args>(args)...));
}
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
