#include "base/utc_time.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace hone {
namespace {

TEST(UtcTimestampTest, IsUtcWhateverTheTimeZone) {
  setenv("TZ", "Asia/Tokyo", 1);
  tzset();
  EXPECT_EQ(UtcTimestamp(int64_t{0}), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(UtcTimestamp(int64_t{1'796'319'151'123'456}), "2026-12-03T17:32:31.123456Z");
  EXPECT_EQ(UtcTimestamp(std::chrono::system_clock::time_point(std::chrono::microseconds(1'500'000))),
            "1970-01-01T00:00:01.500000Z");
  unsetenv("TZ");
  tzset();
}

}  // namespace
}  // namespace hone
