#include "serve/config/fingerprint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using ::testing::ElementsAre;
using testing::TempDir;

namespace fs = std::filesystem;

// Moves a file's modification time, as a later write would.
void Touch(const std::string& path, int seconds) {
  fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(seconds));
}

TEST(RepositoryFingerprintTest, CoversConfigVersionsWarmupAndLabels) {
  TempDir repo;
  repo.Write("m/config.pbtxt", "max_batch_size: 4\n");
  repo.Write("m/1/model.onnx", "onnx");
  repo.Write("m/1/weights/data.bin", "weights");
  repo.Write("m/warmup/x.bin", "1234");
  repo.Write("m/labels.txt", "a\n");
  repo.Write("m/notes/ignored.txt", "not read by a load");
  auto fp = FingerprintModel(repo.str() + "/m");
  ASSERT_TRUE(fp.ok()) << fp.status().ToString();
  std::vector<std::string> paths;
  for (const auto& f : fp->files) paths.push_back(f.path);
  EXPECT_THAT(paths, ElementsAre("1", "1/model.onnx", "1/weights", "1/weights/data.bin", "config.pbtxt",
                                 "labels.txt", "warmup", "warmup/x.bin"));
  EXPECT_EQ(fp->files[1].size, 4u);
  EXPECT_NE(fp->files[1].mtime_ns, 0);
  EXPECT_EQ(fp->files[0].mtime_ns, 0);  // directories: presence only
  EXPECT_NE(fp->ToString().find("1/model.onnx 4 "), std::string::npos);
}

TEST(RepositoryFingerprintTest, SameFilesSameFingerprint) {
  TempDir repo;
  repo.Write("m/1/model.onnx", "onnx");
  auto a = FingerprintModel(repo.str() + "/m");
  auto b = FingerprintModel(repo.str() + "/m");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(RepositoryFingerprintTest, SeesEveryKindOfChange) {
  TempDir repo;
  std::string config = repo.Write("m/config.pbtxt", "max_batch_size: 4\n");
  std::string model = repo.Write("m/1/model.onnx", "onnx");
  auto base = *FingerprintModel(repo.str() + "/m");
  auto changed = [&] { return !(*FingerprintModel(repo.str() + "/m") == base); };

  Touch(config, 5);  // config rewritten
  EXPECT_TRUE(changed());
  base = *FingerprintModel(repo.str() + "/m");

  repo.Write("m/1/model.onnx", "onnx, longer");  // model replaced with another size
  EXPECT_TRUE(changed());
  base = *FingerprintModel(repo.str() + "/m");

  repo.MakeDir("m/2");  // a new version directory, even before its model is written
  EXPECT_TRUE(changed());
  base = *FingerprintModel(repo.str() + "/m");

  fs::remove_all(repo.path() / "m" / "2");
  EXPECT_TRUE(changed());
  base = *FingerprintModel(repo.str() + "/m");

  repo.Write("m/notes.txt", "x");  // a new top-level file (a label file, say)
  EXPECT_TRUE(changed());
  base = *FingerprintModel(repo.str() + "/m");

  repo.Write("m/docs/readme.md", "x");  // a directory that is neither a version nor warmup/
  EXPECT_FALSE(changed());
}

TEST(RepositoryFingerprintTest, MissingModelIsNotFound) {
  EXPECT_EQ(FingerprintModel("/nonexistent/m").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(FingerprintRepository("/nonexistent").status().code(), StatusCode::kNotFound);
}

TEST(RepositoryFingerprintTest, DiffsRepositorySnapshots) {
  TempDir repo;
  repo.Write("a/1/model.onnx", "a");
  repo.Write("b/1/model.onnx", "b");
  std::string c_model = repo.Write("c/1/model.onnx", "c");
  auto before = FingerprintRepository(repo.str());
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->size(), 3u);

  fs::remove_all(repo.path() / "a");
  repo.Write("d/config.pbtxt", "");
  Touch(c_model, 7);
  auto after = FingerprintRepository(repo.str());
  ASSERT_TRUE(after.ok());
  RepositoryChanges changes = DiffRepository(*before, *after);
  EXPECT_THAT(changes.added, ElementsAre("d"));
  EXPECT_THAT(changes.removed, ElementsAre("a"));
  EXPECT_THAT(changes.changed, ElementsAre("c"));
  EXPECT_FALSE(changes.empty());
  EXPECT_TRUE(DiffRepository(*after, *after).empty());
}

}  // namespace
}  // namespace hone::serve
