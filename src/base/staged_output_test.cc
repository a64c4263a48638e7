#include "base/staged_output.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/temp_dir_test_util.h"

namespace hone {
namespace {
namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t Entries(const fs::path& dir) { return static_cast<size_t>(std::distance(fs::directory_iterator(dir), {})); }

class StagedOutputTest : public ::testing::Test {
 protected:
  testing_util::TempDir dir_;
};

TEST_F(StagedOutputTest, RefusesTheInputItselfHoweverItIsSpelled) {
  std::string input = dir_.Write("model.onnx", "float model");
  for (const std::string& out : {input, dir_.str() + "/./model.onnx", dir_.str() + "/sub/../model.onnx"}) {
    auto staged = StagedOutput::Create(out, input);
    ASSERT_FALSE(staged.ok()) << out;
    EXPECT_EQ(staged.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(staged.status().message().find("never overwrites its input"), std::string::npos);
  }
  fs::create_symlink(input, dir_.File("link.onnx"));
  EXPECT_FALSE(StagedOutput::Create(dir_.File("link.onnx"), input).ok());
  EXPECT_EQ(Read(input), "float model");
  EXPECT_EQ(Entries(dir_.path()), 2u);  // nothing staged
}

TEST_F(StagedOutputTest, CommitRenamesModelAndDataIntoPlace) {
  std::string input = dir_.Write("model.onnx", "float model");
  std::string final = dir_.File("model.int8.onnx");
  dir_.Write("model.int8.onnx", "previous output");
  {
    auto staged = StagedOutput::Create(final, input);
    ASSERT_TRUE(staged.ok()) << staged.status().message();
    EXPECT_NE(staged->path(), final);
    EXPECT_EQ(fs::path(staged->path()).filename(), "model.int8.onnx");
    std::ofstream(staged->path()) << "new model";
    std::ofstream(staged->path() + ".data") << "weights";
    EXPECT_EQ(Read(final), "previous output");  // untouched until the commit
    ASSERT_TRUE(staged->Commit().ok());
  }
  EXPECT_EQ(Read(final), "new model");
  EXPECT_EQ(Read(final + ".data"), "weights");
  EXPECT_EQ(Read(input), "float model");
  EXPECT_EQ(Entries(dir_.path()), 3u);  // the staging directory is gone
}

TEST_F(StagedOutputTest, WithoutCommitNothingChanges) {
  std::string input = dir_.Write("model.onnx", "float model");
  std::string final = dir_.Write("out.onnx", "previous output");
  {
    auto staged = StagedOutput::Create(final, input);
    ASSERT_TRUE(staged.ok());
    std::ofstream(staged->path()) << "half-written";
  }
  EXPECT_EQ(Read(final), "previous output");
  EXPECT_EQ(Entries(dir_.path()), 2u);
}

TEST_F(StagedOutputTest, CommitWithNothingWrittenIsAnError) {
  std::string input = dir_.Write("model.onnx", "m");
  auto staged = StagedOutput::Create(dir_.File("out.onnx"), input);
  ASSERT_TRUE(staged.ok());
  EXPECT_EQ(staged->Commit().code(), StatusCode::kNotFound);
  EXPECT_FALSE(fs::exists(dir_.File("out.onnx")));
}

TEST_F(StagedOutputTest, MissingDirectoryAndDirectoryOutputAreErrors) {
  std::string input = dir_.Write("model.onnx", "m");
  EXPECT_EQ(StagedOutput::Create(dir_.File("no/such/dir/out.onnx"), input).status().code(), StatusCode::kNotFound);
  dir_.MakeDir("adir");
  EXPECT_EQ(StagedOutput::Create(dir_.File("adir"), input).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(StagedOutputTest, MessagesNameTheFinalFile) {
  std::string input = dir_.Write("model.onnx", "m");
  auto staged = StagedOutput::Create(dir_.File("out.onnx"), input);
  ASSERT_TRUE(staged.ok());
  std::string message = "Load model from " + staged->path() + " failed; see " + staged->path();
  EXPECT_EQ(staged->NameFinal(message),
            "Load model from " + dir_.File("out.onnx") + " failed; see " + dir_.File("out.onnx"));
}

TEST(SamePathTest, ExistingAndMissingFiles) {
  testing_util::TempDir dir;
  std::string a = dir.Write("a", "x");
  EXPECT_TRUE(SamePath(a, dir.str() + "/./a"));
  EXPECT_FALSE(SamePath(a, dir.File("b")));
  EXPECT_TRUE(SamePath(dir.File("missing"), dir.str() + "/x/../missing"));
}

}  // namespace
}  // namespace hone
