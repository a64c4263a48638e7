// Timestamps as logs and reports write them: ISO 8601 in UTC, whatever the machine's time zone.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace hone {

// "2026-12-02T15:31:07.123456Z" (microseconds since the Unix epoch in, UTC out).
std::string UtcTimestamp(int64_t unix_micros);
std::string UtcTimestamp(std::chrono::system_clock::time_point t);

}  // namespace hone
