// The processing stages as a server runs them: made from a kind, parameters and a directory; whole batches in
// and out; bad parameters and bad data refused with errors that name them.
#include "process/stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "base/test_paths.h"

namespace hone::process {
namespace {

using ::testing::HasSubstr;

Tensor Floats(Shape shape, std::vector<float> values) {
  Tensor t = *Tensor::Allocate(DataType::kFp32, std::move(shape));
  std::copy(values.begin(), values.end(), t.mutable_values<float>().begin());
  return t;
}

Tensor Ints(Shape shape, std::vector<int64_t> values) {
  Tensor t = *Tensor::Allocate(DataType::kInt64, std::move(shape));
  std::copy(values.begin(), values.end(), t.mutable_values<int64_t>().begin());
  return t;
}

std::unique_ptr<Stage> Make(const std::string& kind, std::map<std::string, std::string> parameters = {},
                            std::string directory = "") {
  auto stage = CreateStage({kind, std::move(parameters), std::move(directory)});
  EXPECT_TRUE(stage.ok()) << stage.status().ToString();
  return stage.ok() ? std::move(stage).value() : nullptr;
}

TEST(StageTest, KindsAreListedAndUnknownOnesRefused) {
  for (const char* kind : {"hone_classify", "hone_image", "hone_pooling", "hone_tokenizer"})
    EXPECT_TRUE(IsStageKind(kind)) << kind;
  EXPECT_FALSE(IsStageKind("onnxruntime"));
  auto unknown = CreateStage({"hone_resize", {}, ""});
  EXPECT_EQ(unknown.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(unknown.status().message(), HasSubstr("hone_classify, hone_ctc, hone_image, hone_pooling, hone_tokenizer"));
}

TEST(PoolingStageTest, MaskedMeanThenL2) {
  auto stage = Make("hone_pooling");
  ASSERT_TRUE(stage);
  ASSERT_EQ(stage->inputs().size(), 2u);
  EXPECT_EQ(stage->outputs()[0].name, "embedding");
  // Row 0: tokens (1, 1) and (5, 7), both kept: mean (3, 4) -> (0.6, 0.8). Row 1: only the first token kept.
  Tensor tokens = Floats({2, 2, 2}, {1, 1, 5, 7, 0, 2, 100, 100});
  Tensor mask = Ints({2, 2}, {1, 1, 1, 0});
  std::vector<Tensor> in = {tokens, mask};
  auto out = stage->Run(in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].shape(), (Shape{2, 2}));
  auto v = (*out)[0].values<float>();
  EXPECT_FLOAT_EQ(v[0], 0.6f);
  EXPECT_FLOAT_EQ(v[1], 0.8f);
  EXPECT_FLOAT_EQ(v[2], 0.0f);
  EXPECT_FLOAT_EQ(v[3], 1.0f);
}

TEST(PoolingStageTest, ModesAndAllMaskedRows) {
  Tensor tokens = Floats({1, 2, 2}, {1, -3, 2, 4});
  std::vector<Tensor> in = {tokens, Ints({1, 2}, {1, 1})};
  auto cls = Make("hone_pooling", {{"mode", "cls"}, {"normalize", "false"}})->Run(in);
  EXPECT_EQ((*cls)[0].values<float>()[1], -3.0f);
  auto max = Make("hone_pooling", {{"mode", "max"}, {"normalize", "0"}})->Run(in);
  EXPECT_EQ((*max)[0].values<float>()[0], 2.0f);
  EXPECT_EQ((*max)[0].values<float>()[1], 4.0f);
  // Nothing kept: the mean pools to zeros and stays zero through the normalisation (no NaN).
  std::vector<Tensor> none = {tokens, Ints({1, 2}, {0, 0})};
  auto zero = Make("hone_pooling")->Run(none);
  EXPECT_EQ((*zero)[0].values<float>()[0], 0.0f);
  EXPECT_FALSE(std::isnan((*zero)[0].values<float>()[1]));
}

TEST(PoolingStageTest, ShapesThatDisagreeAndBadParameters) {
  auto stage = Make("hone_pooling");
  std::vector<Tensor> in = {Floats({1, 3, 2}, std::vector<float>(6)), Ints({1, 2}, {1, 1})};
  auto out = stage->Run(in);
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("token_embeddings 1x3x2 and attention_mask 1x2"));
  EXPECT_THAT(CreateStage({"hone_pooling", {{"mode", "median"}}, ""}).status().message(),
              HasSubstr("hone_pooling parameter 'mode': expected one of mean, cls, max, got 'median'"));
  EXPECT_THAT(CreateStage({"hone_pooling", {{"normalize", "yes"}}, ""}).status().message(),
              HasSubstr("parameter 'normalize': expected true or false, got 'yes'"));
  EXPECT_THAT(CreateStage({"hone_pooling", {{"pooling", "mean"}}, ""}).status().message(),
              HasSubstr("hone_pooling parameter 'pooling': unknown (hone_pooling reads mode, normalize)"));
}

std::string TestData() { return std::string(HONE_SOURCE_DIR) + "/src/process/testdata"; }

Tensor Texts(std::vector<std::string_view> texts) {
  return *Tensor::FromStrings({static_cast<int64_t>(texts.size()), 1}, texts);
}

TEST(TokenizerStageTest, PadsABatchToItsLongestRow) {
  auto stage = Make("hone_tokenizer", {{"tokenizer_file", "bert.tokenizer.json"}}, TestData());
  ASSERT_TRUE(stage);
  EXPECT_EQ(stage->inputs()[0].type, DataType::kBytes);
  std::vector<Tensor> in = {Texts({"hello", "hello world, hello"})};
  auto out = stage->Run(in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 3u);
  const Tensor& ids = (*out)[0];
  const Tensor& mask = (*out)[1];
  ASSERT_EQ(ids.shape().size(), 2u);
  EXPECT_EQ(ids.shape()[0], 2);
  const int64_t length = ids.shape()[1];
  auto m = mask.values<int64_t>();
  int64_t kept0 = 0, kept1 = 0;
  for (int64_t i = 0; i < length; ++i) {
    kept0 += m[static_cast<size_t>(i)];
    kept1 += m[static_cast<size_t>(length + i)];
  }
  EXPECT_EQ(kept1, length) << "the longest row is not padded";
  EXPECT_LT(kept0, length);
  EXPECT_EQ((*out)[2].shape(), ids.shape());
}

TEST(TokenizerStageTest, MaxLengthTruncatesAndBadTextNamesItsRow) {
  auto stage = Make("hone_tokenizer", {{"tokenizer_file", "bert.tokenizer.json"}, {"max_length", "5"}}, TestData());
  ASSERT_TRUE(stage);
  std::vector<Tensor> long_text = {Texts({"one two three four five six seven eight nine ten"})};
  auto out = stage->Run(long_text);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), (Shape{1, 5}));

  std::vector<Tensor> bad = {Texts({"fine", std::string_view("\xc3\x28", 2)})};
  auto refused = stage->Run(bad);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("input 'text'"));
  EXPECT_THAT(refused.status().message(), HasSubstr("UTF-8"));

  std::vector<Tensor> flat = {*Tensor::FromStrings({2}, std::vector<std::string_view>{"a", "b"})};
  EXPECT_THAT(stage->Run(flat).status().message(), HasSubstr("expected [batch, 1]"));
}

TEST(TokenizerStageTest, FilesAndParametersAreChecked) {
  EXPECT_EQ(CreateStage({"hone_tokenizer", {}, "/nonexistent"}).status().code(), StatusCode::kNotFound);
  EXPECT_THAT(CreateStage({"hone_tokenizer", {{"tokenizer_file", "../x.json"}}, TestData()}).status().message(),
              HasSubstr("expected a file name inside the version directory"));
  EXPECT_THAT(CreateStage({"hone_tokenizer", {{"max_length", "0"}}, TestData()}).status().message(),
              HasSubstr("parameter 'max_length'"));
  EXPECT_THAT(CreateStage({"hone_tokenizer", {{"padding", "left"}}, TestData()}).status().message(),
              HasSubstr("expected one of longest, max_length"));
}

}  // namespace
}  // namespace hone::process
