#include "base/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <string>

namespace hone {
namespace {

std::atomic<int> min_level{static_cast<int>(LogLevel::kInfo)};

char LevelLetter(LogLevel level) {
  switch (level) {
    case LogLevel::kInfo: return 'I';
    case LogLevel::kWarning: return 'W';
    case LogLevel::kError: return 'E';
  }
  return '?';
}

}  // namespace

void SetMinLogLevel(LogLevel level) { min_level.store(static_cast<int>(level), std::memory_order_relaxed); }

void WriteLogLine(LogLevel level, std::string_view message) {
  if (static_cast<int>(level) < min_level.load(std::memory_order_relaxed)) return;
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1'000'000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  // "I 2026-12-02T15:31:07.123456Z message\n", built whole so one write() carries it (atomic for a pipe or tty).
  std::string line = fmt::format("{} {:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z {}\n", LevelLetter(level),
                                 utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                                 utc.tm_sec, micros, message);
  size_t written = 0;
  while (written < line.size()) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + written, line.size() - written);
    if (n <= 0) break;  // nowhere to report a failed log write
    written += static_cast<size_t>(n);
  }
}

}  // namespace hone
