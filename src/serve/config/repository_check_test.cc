#include "serve/config/repository_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

const char kLayout[] = "<repository>/<model>/config.pbtxt (optional) and <repository>/<model>/<version>/model.onnx";

TEST(RepositoryCheckTest, RepositoryWithAModelIsOk) {
  TempDir repo;
  repo.Write("m/1/model.onnx", "bytes");
  EXPECT_TRUE(ExpectModels(repo.str()).ok());
}

TEST(RepositoryCheckTest, EmptyFolderSaysWhatARepositoryLooksLike) {
  TempDir repo;
  Status s = ExpectModels(repo.str());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("model repository '" + repo.str() + "' holds no model: it is empty"));
  EXPECT_THAT(s.message(), HasSubstr(kLayout));
}

TEST(RepositoryCheckTest, ModelFolderPointsAtItsParent) {
  TempDir repo;
  repo.Write("m/config.pbtxt", "");
  repo.Write("m/1/model.onnx", "bytes");
  repo.Write("m/2/model.onnx", "bytes");
  Status s = ExpectModels(repo.File("m"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("it looks like a model's own folder (it has config.pbtxt, version folders "
                                     "'1', '2'): did you mean its parent, '" + repo.str() + "'?"));
  EXPECT_THAT(s.message(), HasSubstr(kLayout));
  // A trailing slash names the same folder.
  EXPECT_THAT(ExpectModels(repo.File("m") + "/").message(), HasSubstr("its parent, '" + repo.str() + "'?"));
}

TEST(RepositoryCheckTest, VersionFolderPointsTwoLevelsUp) {
  TempDir repo;
  repo.Write("m/1/model.onnx", "bytes");
  EXPECT_THAT(ExpectModels(repo.File("m/1")).message(),
              HasSubstr("it looks like a model's version folder (it has model.onnx): did you mean '" + repo.str() +
                        "', two levels up?"));
}

TEST(RepositoryCheckTest, FoldersThatAreNotModelsAreNamed) {
  TempDir repo;
  repo.MakeDir("docs");
  repo.Write("m/model.onnx", "a model file one level too high");
  EXPECT_THAT(ExpectModels(repo.str()).message(),
              HasSubstr("its folders 'docs', 'm' hold no config.pbtxt and no numbered version folder"));
}

TEST(RepositoryCheckTest, MissingFolderIsNotFound) {
  TempDir repo;
  Status s = ExpectModels(repo.File("typo"));
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("model repository '" + repo.File("typo") + "': no such directory"));
  EXPECT_THAT(s.message(), HasSubstr(kLayout));
}

}  // namespace
}  // namespace hone::serve
