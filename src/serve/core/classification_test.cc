// Triton's classification extension: an output's top classes as "<value>:<index>[:<label>]" strings.
#include "serve/core/classification.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/temp_dir_test_util.h"
#include "serve/core/scheduler_test_util.h"

namespace hone::serve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ClassificationTest, TopClassesOfEachRowWithLabels) {
  Tensor scores = test::Make<float>({2, 4}, {1, 5, 10, 4, 0.5f, 0.25f, 0.5f, 2});
  std::vector<std::string> labels = {"zero", "one", "two", "three"};
  auto out = ClassifyOutput(scores, 2, true, &labels, "logits");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->type(), DataType::kBytes);
  EXPECT_EQ(out->shape(), (Shape{2, 2}));
  // Ties keep class order (0.5 at 0 before 0.5 at 2).
  EXPECT_THAT(out->bytes_elements(),
              ElementsAre("10.000000:2:two", "5.000000:1:one", "2.000000:3:three", "0.500000:0:zero"));
}

TEST(ClassificationTest, WithoutLabelsOrBatch) {
  Tensor scores = test::Make<int64_t>({3}, {7, -1, 9});
  auto out = ClassifyOutput(scores, 1, false, nullptr, "y");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->shape(), (Shape{1}));
  EXPECT_THAT(out->bytes_elements(), ElementsAre("9.000000:2"));
}

TEST(ClassificationTest, CountsAndTypesThatCannotWork) {
  Tensor scores = test::Make<float>({1, 3}, {1, 2, 3});
  EXPECT_THAT(ClassifyOutput(scores, 4, true, nullptr, "y").status().message(),
              HasSubstr("output 'y': classification 4 asked, the output has 3 classes a row"));
  Tensor text = *Tensor::FromStrings({1}, std::vector<std::string_view>{"a"});
  EXPECT_THAT(ClassifyOutput(text, 1, false, nullptr, "t").status().message(), HasSubstr("needs numbers"));
}

TEST(ClassificationTest, LabelFilesAreReadFromTheModelDirectory) {
  testing_util::TempDir dir;
  dir.Write("labels.txt", "cat\ndog\n");
  inference::ModelConfig config;
  auto* out = config.add_output();
  out->set_name("logits");
  out->set_label_filename("labels.txt");
  config.add_output()->set_name("other");
  auto labels = ReadOutputLabels(config, dir.str());
  ASSERT_TRUE(labels.ok()) << labels.status().ToString();
  EXPECT_THAT(labels->at("logits"), ElementsAre("cat", "dog"));
  EXPECT_EQ(labels->count("other"), 0u);
  out->set_label_filename("missing.txt");
  EXPECT_EQ(ReadOutputLabels(config, dir.str()).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace hone::serve
