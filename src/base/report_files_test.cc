// WriteFileAtomically and Sha256OfFile: the two things every report file needs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/atomic_file.h"
#include "base/file_digest.h"
#include "base/temp_dir_test_util.h"

namespace hone {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(WriteFileAtomicallyTest, ReplacesTheFileAndLeavesNothingElse) {
  testing_util::TempDir dir;
  const std::string path = dir.File("report.json");
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second").ok());
  EXPECT_EQ(Read(path), "second");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(WriteFileAtomicallyTest, AMissingDirectoryIsNamed) {
  testing_util::TempDir dir;
  const std::string path = dir.File("missing/report.json");
  Status s = WriteFileAtomically(path, "x");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), ::testing::HasSubstr(path));
}

TEST(Sha256OfFileTest, KnownDigests) {
  testing_util::TempDir dir;
  const std::string empty = dir.File("empty"), abc = dir.File("abc");
  std::ofstream(empty).close();
  std::ofstream(abc) << "abc";
  EXPECT_EQ(*Sha256OfFile(empty), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(*Sha256OfFile(abc), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256OfFile(dir.File("nope")).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace hone
