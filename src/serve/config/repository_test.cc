#include "serve/config/repository.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/config/test_util.h"
#include "serve/config/version_policy.h"

namespace hone::serve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

// A repository with: affine (config + versions 1 and 3), fashion (version 2 only, no config), configonly (a config
// and no versions), and things that are not models.
void MakeRepository(const TempDir& repo) {
  repo.Write("affine/config.pbtxt", "name: \"affine\"\nmax_batch_size: 4\n");
  repo.CopySource("src/runtime/testdata/affine.onnx", "affine/1/model.onnx");
  repo.CopySource("src/runtime/testdata/affine.onnx", "affine/3/model.onnx");
  repo.MakeDir("affine/0");      // not a version: Triton ignores 0
  repo.MakeDir("affine/01");     // nor leading zeros
  repo.MakeDir("affine/latest");
  repo.Write("affine/7", "a file, not a version directory");
  repo.CopySource("models/fashion_mnist/model.onnx", "fashion/2/model.onnx");
  repo.Write("configonly/config.pbtxt", "");
  repo.MakeDir("empty");           // neither config nor versions
  repo.MakeDir("notes/docs");      // likewise
  repo.MakeDir(".git/objects");    // hidden
  repo.MakeDir(".hidden/1");       // hidden, even with a version
  repo.Write("README.md", "a file at the top");
}

TEST(RepositoryTest, ListsModelDirectoriesWithConfigOrVersions) {
  TempDir repo;
  MakeRepository(repo);
  auto models = ListModels(repo.str());
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  EXPECT_THAT(*models, ElementsAre("affine", "configonly", "fashion"));
}

TEST(RepositoryTest, MissingRepositoryIsNotFound) {
  auto models = ListModels("/nonexistent/repo");
  EXPECT_EQ(models.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(models.status().message(), HasSubstr("/nonexistent/repo"));
  TempDir dir;
  std::string file = dir.Write("file", "x");
  EXPECT_EQ(ListModels(file).status().code(), StatusCode::kNotFound);
}

TEST(RepositoryTest, ListsNumericVersionsOnly) {
  TempDir repo;
  MakeRepository(repo);
  auto versions = ListVersions(repo.str() + "/affine");
  ASSERT_TRUE(versions.ok());
  EXPECT_THAT(*versions, ElementsAre(1, 3));
  EXPECT_THAT(*ListVersions(repo.str() + "/configonly"), ElementsAre());
  EXPECT_EQ(ListVersions(repo.str() + "/nope").status().code(), StatusCode::kNotFound);
}

TEST(RepositoryTest, ModelDirectoryRejectsPathTricks) {
  EXPECT_EQ(*ModelDirectory("/repo", "mnist"), "/repo/mnist");
  for (const char* bad : {"..", "../other", "a/b", "", ".git", "x\\y"}) {
    auto dir = ModelDirectory("/repo", bad);
    EXPECT_EQ(dir.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(RepositoryTest, ModelFilePathUsesDefaultModelFilename) {
  inference::ModelConfig c;
  EXPECT_EQ(ModelFilePath("/repo/m", 3, c), "/repo/m/3/model.onnx");
  c.set_default_model_filename("net.onnx");
  EXPECT_EQ(ModelFilePath("/repo/m", 3, c), "/repo/m/3/net.onnx");
}

TEST(RepositoryTest, ReadsAndValidatesTheConfig) {
  TempDir repo;
  MakeRepository(repo);
  auto affine = ReadRepositoryModelConfig(repo.str(), "affine");
  ASSERT_TRUE(affine.ok()) << affine.status().ToString();
  EXPECT_TRUE(affine->has_config_file);
  EXPECT_EQ(affine->config.max_batch_size(), 4);
  EXPECT_EQ(affine->source.where, repo.str() + "/affine/config.pbtxt");
  EXPECT_EQ(affine->source.model_name, "affine");

  auto fashion = ReadRepositoryModelConfig(repo.str(), "fashion");
  ASSERT_TRUE(fashion.ok());
  EXPECT_FALSE(fashion->has_config_file);
  EXPECT_EQ(fashion->config.ByteSizeLong(), 0u);
  EXPECT_EQ(fashion->source.where, repo.str() + "/fashion");

  EXPECT_EQ(ReadRepositoryModelConfig(repo.str(), "absent").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadRepositoryModelConfig(repo.str(), "../affine").status().code(), StatusCode::kInvalidArgument);
}

TEST(RepositoryTest, ConfigErrorsNameTheFile) {
  TempDir repo;
  repo.Write("m/config.pbtxt", "name: \"other\"\n");
  auto r = ReadRepositoryModelConfig(repo.str(), "m");
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            repo.str() + "/m/config.pbtxt: name 'other' does not match the model directory 'm'");

  repo.Write("m/config.pbtxt", "name: \"m\"\nmax_batch_size: 4\ninstance_group [ { kind: KIND_GPU } ]\n");
  r = ReadRepositoryModelConfig(repo.str(), "m");
  EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented);

  repo.Write("m/config.pbtxt", "name: \"m\"\n  max_batch: 4\n");
  r = ReadRepositoryModelConfig(repo.str(), "m");
  EXPECT_EQ(r.status().message(), repo.str() + "/m/config.pbtxt:2:3: unknown field 'max_batch' in ModelConfig "
                                              "(did you mean 'max_batch_size'?)");
}

TEST(RepositoryTest, LabelFilesMustExist) {
  TempDir repo;
  repo.Write("m/config.pbtxt",
             "output [ { name: \"y\" data_type: TYPE_FP32 dims: [ 4 ] label_filename: \"labels.txt\" } ]\n");
  auto r = ReadRepositoryModelConfig(repo.str(), "m");
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("output 'y': label_filename 'labels.txt' not found"));
  repo.Write("m/labels.txt", "a\nb\n");
  EXPECT_TRUE(ReadRepositoryModelConfig(repo.str(), "m").ok());
}

inference::ModelVersionPolicy Policy(const std::string& text) {
  return testing::ParseOrFail("version_policy { " + text + " }").version_policy();
}

TEST(RepositoryVersionPolicyTest, LatestAllSpecific) {
  const std::vector<int64_t> have = {3, 1, 7, 2};
  auto v = SelectVersions(inference::ModelVersionPolicy(), have, "m");
  EXPECT_THAT(*v, ElementsAre(7));  // no policy: latest 1
  v = SelectVersions(Policy("latest { num_versions: 2 }"), have, "m");
  EXPECT_THAT(*v, ElementsAre(3, 7));
  v = SelectVersions(Policy("latest { num_versions: 10 }"), have, "m");
  EXPECT_THAT(*v, ElementsAre(1, 2, 3, 7));
  v = SelectVersions(Policy("all { }"), have, "m");
  EXPECT_THAT(*v, ElementsAre(1, 2, 3, 7));
  v = SelectVersions(Policy("specific { versions: [ 7, 1, 7 ] }"), have, "m");
  EXPECT_THAT(*v, ElementsAre(1, 7));
  v = SelectVersions(inference::ModelVersionPolicy(), std::vector<int64_t>{}, "m");
  EXPECT_TRUE(v.ok());
  EXPECT_TRUE(v->empty());
}

TEST(RepositoryVersionPolicyTest, MissingSpecificVersionIsNamed) {
  auto v = SelectVersions(Policy("specific { versions: [ 1, 4 ] }"), std::vector<int64_t>{1, 2}, "models/m");
  EXPECT_EQ(v.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(v.status().message(), "models/m: version_policy.specific: version 4 not found (available: 1, 2)");
  v = SelectVersions(Policy("specific { versions: [ 1 ] }"), std::vector<int64_t>{}, "models/m");
  EXPECT_THAT(v.status().message(), HasSubstr("(available: none)"));
}

TEST(RepositoryVersionPolicyTest, AppliedToAScannedRepository) {
  TempDir repo;
  MakeRepository(repo);
  auto versions = ListVersions(repo.str() + "/affine");
  ASSERT_TRUE(versions.ok());
  EXPECT_THAT(*SelectVersions(Policy("latest { num_versions: 1 }"), *versions, "affine"), ElementsAre(3));
  EXPECT_THAT(*SelectVersions(Policy("all { }"), *versions, "affine"), ElementsAre(1, 3));
  EXPECT_FALSE(SelectVersions(Policy("specific { versions: [ 2 ] }"), *versions, "affine").ok());
}

}  // namespace
}  // namespace hone::serve
