#include "base/log.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

// 2026-12-03T17:41:51.000042Z
constexpr int64_t kMicros = 1796319711'000042;

TEST(LogTest, TextLineHasLevelLetterUtcTimeAndMessage) {
  EXPECT_EQ(FormatLogLine(LogFormat::kText, LogLevel::kWarning, "model 'm': slow", {{"model", "m"}}, kMicros),
            "W 2026-12-03T17:41:51.000042Z model 'm': slow\n");
  EXPECT_EQ(FormatLogLine(LogFormat::kText, LogLevel::kVerbose, "x", {}, kMicros)[0], 'V');
}

TEST(LogTest, JsonLineIsOneObjectWithFieldsAndEscapes) {
  EXPECT_EQ(FormatLogLine(LogFormat::kJson, LogLevel::kError, "model 'm': \"bad\"\n\tline\x01",
                          {{"model", "m"}, {"version", 3}}, kMicros),
            R"({"timestamp":"2026-12-03T17:41:51.000042Z","level":"ERROR","message":"model 'm': \"bad\"\n\tline\u0001",)"
            R"("model":"m","version":3})"
            "\n");
  EXPECT_EQ(FormatLogLine(LogFormat::kJson, LogLevel::kInfo, "a\\b", {}, kMicros),
            R"({"timestamp":"2026-12-03T17:41:51.000042Z","level":"INFO","message":"a\\b"})"
            "\n");
}

TEST(LogTest, LevelsAndVerbosityGateLines) {
  SetLogVerbosity(0);
  EXPECT_FALSE(LogVerboseEnabled(1));
  SetLogVerbosity(2);
  EXPECT_TRUE(LogVerboseEnabled(1));
  EXPECT_TRUE(LogVerboseEnabled(2));
  EXPECT_FALSE(LogVerboseEnabled(3));
  SetLogLevelEnabled(LogLevel::kVerbose, false);
  EXPECT_FALSE(LogVerboseEnabled(1));
  SetMinLogLevel(LogLevel::kVerbose);
  EXPECT_TRUE(LogVerboseEnabled(1));

  ::testing::internal::CaptureStderr();
  SetLogLevelEnabled(LogLevel::kInfo, false);
  LogInfo("hidden {}", 1);
  LogWarning("shown {}", 2);
  SetLogFormat(LogFormat::kJson);
  Log(LogLevel::kWarning, {{"model", "m"}}, "json {}", 3);
  SetLogFormat(LogFormat::kText);
  SetLogLevelEnabled(LogLevel::kInfo, true);
  SetLogVerbosity(0);
  LogVerbose(1, "hidden too");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("hidden"), std::string::npos) << err;
  EXPECT_NE(err.find("shown 2\n"), std::string::npos) << err;
  EXPECT_NE(err.find(R"("level":"WARNING","message":"json 3","model":"m"})"), std::string::npos) << err;
}

}  // namespace
}  // namespace hone

namespace hone {
namespace {

TEST(LogSinkTest, ASinkReceivesWholeLinesInsteadOfStandardErrorUntilReset) {
  std::vector<std::pair<LogLevel, std::string>> got;
  SetLogSink([&](LogLevel level, std::string_view line) { got.emplace_back(level, std::string(line)); });
  LogWarning("disk {} full", "/tmp");
  SetLogSink({});
  LogInfo("after the reset: to standard error");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first, LogLevel::kWarning);
  EXPECT_TRUE(got[0].second.starts_with("W ")) << got[0].second;
  EXPECT_TRUE(got[0].second.ends_with("disk /tmp full\n")) << got[0].second;
}

}  // namespace
}  // namespace hone
