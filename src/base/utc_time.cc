#include "base/utc_time.h"

#include <fmt/format.h>

#include <ctime>

namespace hone {

std::string UtcTimestamp(int64_t unix_micros) {
  std::time_t seconds = static_cast<std::time_t>(unix_micros / 1'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec, unix_micros % 1'000'000);
}

std::string UtcTimestamp(std::chrono::system_clock::time_point t) {
  return UtcTimestamp(std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count());
}

}  // namespace hone
