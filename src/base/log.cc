#include "base/log.h"

#include <mutex>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <string>

#include <nlohmann/json.hpp>

#include "base/utc_time.h"

namespace hone {
namespace {

// One bit per LogLevel: whether lines at that level are written. Verbose lines also need verbosity > 0.
std::atomic<unsigned> enabled_levels{~0u};
std::atomic<int> verbosity{0};
std::atomic<int> format{static_cast<int>(LogFormat::kText)};

unsigned Bit(LogLevel level) { return 1u << static_cast<unsigned>(level); }

char LevelLetter(LogLevel level) {
  switch (level) {
    case LogLevel::kVerbose: return 'V';
    case LogLevel::kInfo: return 'I';
    case LogLevel::kWarning: return 'W';
    case LogLevel::kError: return 'E';
  }
  return '?';
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kVerbose: return "VERBOSE";
    case LogLevel::kInfo: return "INFO";
    case LogLevel::kWarning: return "WARNING";
    case LogLevel::kError: return "ERROR";
  }
  return "?";
}


}  // namespace

void SetLogLevelEnabled(LogLevel level, bool enabled) {
  if (enabled) {
    enabled_levels.fetch_or(Bit(level), std::memory_order_relaxed);
  } else {
    enabled_levels.fetch_and(~Bit(level), std::memory_order_relaxed);
  }
}

void SetMinLogLevel(LogLevel level) {
  for (LogLevel l : {LogLevel::kVerbose, LogLevel::kInfo, LogLevel::kWarning, LogLevel::kError})
    SetLogLevelEnabled(l, static_cast<int>(l) >= static_cast<int>(level));
}

void SetLogVerbosity(int v) { verbosity.store(v < 0 ? 0 : v, std::memory_order_relaxed); }

bool LogVerboseEnabled(int detail) {
  return detail <= verbosity.load(std::memory_order_relaxed) &&
         (enabled_levels.load(std::memory_order_relaxed) & Bit(LogLevel::kVerbose)) != 0;
}

void SetLogFormat(LogFormat f) { format.store(static_cast<int>(f), std::memory_order_relaxed); }

LogFormat GetLogFormat() { return static_cast<LogFormat>(format.load(std::memory_order_relaxed)); }

std::string FormatLogLine(LogFormat f, LogLevel level, std::string_view message, const LogFields& fields,
                          int64_t unix_micros) {
  if (f == LogFormat::kText)
    return fmt::format("{} {} {}\n", LevelLetter(level), UtcTimestamp(unix_micros), message);
  // nlohmann escapes what JSON needs and replaces bytes that are not UTF-8; ordered, so that each line starts with
  // the same three keys.
  nlohmann::ordered_json j = {{"timestamp", UtcTimestamp(unix_micros)}, {"level", LevelName(level)},
                              {"message", std::string(message)}};
  for (const LogField& field : fields) {
    if (field.number)
      j[std::string(field.key)] = std::stoll(field.value);
    else
      j[std::string(field.key)] = field.value;
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {
std::mutex sink_mu;
LogSink& Sink() {
  static LogSink sink;
  return sink;
}
}  // namespace

void SetLogSink(LogSink sink) {
  std::lock_guard lock(sink_mu);
  Sink() = std::move(sink);
}

void WriteLogLine(LogLevel level, std::string_view message, const LogFields& fields) {
  if ((enabled_levels.load(std::memory_order_relaxed) & Bit(level)) == 0) return;
  if (level == LogLevel::kVerbose && verbosity.load(std::memory_order_relaxed) <= 0) return;
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  // Built whole so that one write() carries it (atomic for a pipe or a tty).
  std::string line = FormatLogLine(GetLogFormat(), level, message, fields, micros);
  LogSink sink;
  {
    std::lock_guard lock(sink_mu);
    sink = Sink();  // a copy, called unlocked: a sink that logs, or sets the sink, must not deadlock
  }
  if (sink) {
    sink(level, line);
    return;
  }
  size_t written = 0;
  while (written < line.size()) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + written, line.size() - written);
    if (n <= 0) break;  // nowhere to report a failed log write
    written += static_cast<size_t>(n);
  }
}

}  // namespace hone
