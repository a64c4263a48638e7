// hone_classify: the k best classes per row with their names and scores, a labels file read as Triton reads one,
// and a labels file too short for the logits refused by name.
#include "process/classify_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "base/temp_dir_test_util.h"

namespace hone::process {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor Logits(Shape shape, std::vector<float> values) {
  Tensor t = *Tensor::Allocate(DataType::kFp32, std::move(shape));
  std::copy(values.begin(), values.end(), t.mutable_values<float>().begin());
  return t;
}

class ClassifyStageTest : public ::testing::Test {
 protected:
  std::unique_ptr<Stage> Make(std::map<std::string, std::string> p = {}) {
    auto stage = CreateStage({"hone_classify", std::move(p), dir_.str()});
    EXPECT_TRUE(stage.ok()) << stage.status().ToString();
    return stage.ok() ? std::move(stage).value() : nullptr;
  }
  Result<std::vector<Tensor>> Run(const Stage& stage, Tensor logits) {
    std::vector<Tensor> in = {std::move(logits)};
    return stage.Run(in);
  }
  testing_util::TempDir dir_;
};

TEST_F(ClassifyStageTest, TopKWithNamesAndProbabilities) {
  dir_.Write("labels.txt", "cat\r\ndog\nbird\nfish\n");  // CRLF and a final newline: four labels
  auto stage = Make({{"top_k", "2"}});
  ASSERT_TRUE(stage);
  EXPECT_EQ(stage->outputs()[1].shape, (Shape{-1, 2}));
  EXPECT_THAT(stage->description(), HasSubstr("4 labels, top 2, softmax"));
  auto out = Run(*stage, Logits({2, 4}, {1, 3, 2, 0, 5, 5, -1, 5}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT((*out)[0].values<int64_t>(), ElementsAre(1, 2, 0, 1));  // the tie at 5 keeps class order
  EXPECT_THAT((*out)[1].bytes_elements(), ElementsAre("dog", "bird", "cat", "dog"));
  auto score = (*out)[2].values<float>();
  const double z = std::exp(1.0) + std::exp(3.0) + std::exp(2.0) + std::exp(0.0);
  EXPECT_NEAR(score[0], std::exp(3.0) / z, 1e-7);
  EXPECT_NEAR(score[1], std::exp(2.0) / z, 1e-7);
  EXPECT_NEAR(score[2], 1.0 / (3.0 + std::exp(-6.0)), 1e-7);
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ((*out)[1].type(), DataType::kBytes);
}

TEST_F(ClassifyStageTest, RawLogitsAndHugeOnesDoNotOverflow) {
  dir_.Write("names.txt", "a\nb\nc");  // no final newline
  auto raw = Make({{"labels_file", "names.txt"}, {"softmax", "false"}, {"top_k", "3"}});
  auto out = Run(*raw, Logits({1, 3}, {-2.5f, 7.0f, 0.25f}));
  ASSERT_TRUE(out.ok());
  EXPECT_THAT((*out)[2].values<float>(), ElementsAre(7.0f, 0.25f, -2.5f));
  EXPECT_THAT((*out)[1].bytes_elements(), ElementsAre("b", "c", "a"));
  auto soft = Make({{"labels_file", "names.txt"}});
  out = Run(*soft, Logits({1, 3}, {1000.0f, 999.0f, -1000.0f}));
  ASSERT_TRUE(out.ok());
  EXPECT_NEAR((*out)[2].values<float>()[0], 1.0 / (1.0 + std::exp(-1.0)), 1e-6);
}

TEST_F(ClassifyStageTest, AShortLabelsFileFailsEveryRequestNamingTheClass) {
  dir_.Write("labels.txt", "zero\none\n");
  auto stage = Make();
  ASSERT_TRUE(stage);
  // Class 0 wins, yet class 2 has no name: refused all the same, so that a wrong file cannot go unnoticed.
  auto out = Run(*stage, Logits({1, 3}, {9, 1, 1}));
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(out.status().message(), HasSubstr("class 2 has no name: "));
  EXPECT_THAT(out.status().message(), HasSubstr("labels.txt has 2 lines, the logits 3 classes"));
  // Fewer classes than labels is fine (a file for a larger model, as Triton allows).
  EXPECT_TRUE(Run(*stage, Logits({1, 1}, {0})).ok());
}

TEST_F(ClassifyStageTest, BadLogitsAreNamed) {
  dir_.Write("labels.txt", "a\nb\n");
  auto stage = Make({{"top_k", "2"}});
  auto nan = Run(*stage, Logits({2, 2}, {0, 1, std::numeric_limits<float>::quiet_NaN(), 1}));
  EXPECT_EQ(nan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(nan.status().message(), HasSubstr("input 'logits' row 1: class 0 is nan, expected a finite number"));
  EXPECT_THAT(Run(*stage, Logits({1, 1}, {0})).status().message(),
              HasSubstr("input 'logits': 1 classes, fewer than top_k 2"));
  EXPECT_THAT(Run(*stage, Logits({2}, {0, 1})).status().message(), HasSubstr("expected FP32 [batch, classes]"));
}

TEST_F(ClassifyStageTest, ParametersAndFilesAreChecked) {
  EXPECT_EQ(CreateStage({"hone_classify", {}, dir_.str()}).status().code(), StatusCode::kNotFound);
  dir_.Write("labels.txt", "");
  EXPECT_THAT(CreateStage({"hone_classify", {}, dir_.str()}).status().message(), HasSubstr("is empty"));
  EXPECT_THAT(CreateStage({"hone_classify", {{"labels_file", "../etc/passwd"}}, dir_.str()}).status().message(),
              HasSubstr("expected a file name inside the version directory"));
  EXPECT_THAT(CreateStage({"hone_classify", {{"top_k", "0"}}, dir_.str()}).status().message(),
              HasSubstr("parameter 'top_k'"));
  EXPECT_THAT(CreateStage({"hone_classify", {{"softmax", "maybe"}}, dir_.str()}).status().message(),
              HasSubstr("parameter 'softmax': expected true or false"));
  EXPECT_THAT(CreateStage({"hone_classify", {{"k", "5"}}, dir_.str()}).status().message(),
              HasSubstr("hone_classify parameter 'k': unknown (hone_classify reads labels_file, softmax, top_k)"));
}

}  // namespace
}  // namespace hone::process
