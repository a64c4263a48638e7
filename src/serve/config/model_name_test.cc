#include "serve/config/model_name.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hone::serve {
namespace {

using ::testing::HasSubstr;

TEST(ConfigModelNameTest, OrdinaryNamesPass) {
  for (const char* ok : {"mnist", "fashion_mnist", "resnet-50", "a.b", "m..v2", "Model 1", "ü-model", "x"})
    EXPECT_TRUE(ValidateModelName(ok).ok()) << ok;
  EXPECT_TRUE(ValidateModelName(std::string(255, 'a')).ok());
}

TEST(ConfigModelNameTest, PathTricksAreRejected) {
  struct Case {
    std::string name;
    const char* why;
  };
  const Case cases[] = {
      {"", "empty"},
      {".", "a relative path component"},
      {"..", "a relative path component"},
      {".hidden", "starts with '.'"},
      {"../etc", "starts with '.'"},
      {"a/../b", "path separator"},
      {"/etc/passwd", "path separator"},
      {"models/m", "path separator"},
      {"..\\windows", "starts with '.'"},
      {"a\\b", "path separator"},
      {std::string("a\0b", 3), "control character"},
      {"line\nbreak", "control character"},
      {"tab\tname", "control character"},
      {"del\x7F", "control character"},
      {std::string(256, 'a'), "longer than 255 bytes (256)"},
  };
  for (const Case& c : cases) {
    Status s = ValidateModelName(c.name);
    ASSERT_FALSE(s.ok()) << c.name;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(c.why)) << c.name;
    EXPECT_THAT(s.message(), HasSubstr("model name '")) << c.name;
  }
  // Control characters are escaped in the message, never echoed raw.
  Status s = ValidateModelName("bad\nname");
  EXPECT_THAT(s.message(), HasSubstr("bad\\x0Aname"));
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST(ConfigModelNameTest, FileNamesNameTheField) {
  Status s = ValidateFileName("../x.onnx", "default_model_filename");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("default_model_filename '../x.onnx': starts with '.'"));
  EXPECT_TRUE(ValidateFileName("model.onnx", "default_model_filename").ok());
}

TEST(ConfigModelNameTest, ClientVersions) {
  EXPECT_EQ(*ParseModelVersion(""), 0);
  EXPECT_EQ(*ParseModelVersion("1"), 1);
  EXPECT_EQ(*ParseModelVersion("42"), 42);
  EXPECT_EQ(*ParseModelVersion("007"), 7);
  EXPECT_EQ(*ParseModelVersion("9223372036854775807"), INT64_MAX);
  for (const char* bad : {"0", "-1", "+1", "1.0", "1e3", "latest", "../1", "1/", " 1", "9223372036854775808",
                          "99999999999999999999999999999999999"}) {
    auto v = ParseModelVersion(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(v.status().message(), HasSubstr("expected a positive integer")) << bad;
  }
}

TEST(ConfigModelNameTest, VersionDirectories) {
  EXPECT_EQ(VersionFromDirectoryName("1"), 1);
  EXPECT_EQ(VersionFromDirectoryName("120"), 120);
  for (const char* not_version : {"0", "01", "-1", "v1", "1a", "", "99999999999999999999", ".1"})
    EXPECT_EQ(VersionFromDirectoryName(not_version), -1) << not_version;
}

}  // namespace
}  // namespace hone::serve
