#include "report/report_envelope.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>


namespace hone::report {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(NullNonFiniteTest, NullWithASiblingThatSaysWhich) {
  nlohmann::json j = {{"cosine", kNan}, {"max", -kInf}, {"fine", 1.5},
                      {"nested", {{"rel", kInf}}}, {"range", {0.0, kNan}}};
  NullNonFinite(j);
  EXPECT_TRUE(j["cosine"].is_null());
  EXPECT_EQ(j["cosine_non_finite"], "nan");
  EXPECT_EQ(j["max_non_finite"], "-inf");
  EXPECT_EQ(j["fine"], 1.5);
  EXPECT_FALSE(j.contains("fine_non_finite"));
  EXPECT_EQ(j["nested"]["rel_non_finite"], "inf");
  EXPECT_EQ(j["range"], nlohmann::json::parse("[0.0, null]"));
  EXPECT_EQ(j["range_non_finite"], nlohmann::json::parse("[null, \"nan\"]"));
  // Valid JSON: dump would have written nulls without saying why; now it says.
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

TEST(MakeReportTest, TheEnvelopeAroundTheBody) {
  ReportContext context;
  context.argv = {"hone", "info", "m.onnx"};
  nlohmann::json j = MakeReport("info", context, {{"path", "m.onnx"}}, {{"ir_version", 8}, {"x", kNan}});
  EXPECT_EQ(j["tool"], "hone");
  EXPECT_EQ(j["schema_version"], kReportSchemaVersion);
  EXPECT_EQ(j["report"], "info");
  EXPECT_EQ(j["command"], nlohmann::json(context.argv));
  EXPECT_THAT(j["started_at"].get<std::string>(), ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T.*Z"));
  EXPECT_FALSE(j["system"]["onnxruntime_version"].get<std::string>().empty());
  EXPECT_EQ(j["info"]["ir_version"], 8);
  EXPECT_EQ(j["info"]["x_non_finite"], "nan");
}

}  // namespace
}  // namespace hone::report
