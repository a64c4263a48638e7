#include "serve/config/warmup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "serve/config/test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

const ConfigSource kSource{"models/m/config.pbtxt", "m"};

constexpr char kModel[] = R"pb(
  name: "m" max_batch_size: 4
  input [ { name: "image" data_type: TYPE_FP32 dims: [ 2, -1 ] },
          { name: "ids" data_type: TYPE_INT64 dims: [ 3 ] },
          { name: "flag" data_type: TYPE_BOOL dims: [ 1 ] optional: true } ]
  output [ { name: "y" data_type: TYPE_FP32 dims: [ 2 ] } ]
)pb";

Result<std::vector<WarmupSample>> Build(const std::string& warmup, const std::string& model_dir = "/nonexistent",
                                        const std::string& base = kModel) {
  return BuildWarmupSamples(testing::ParseOrFail(base + warmup), model_dir, kSource);
}

template <typename T>
void ExpectError(const Result<T>& r, StatusCode code, const std::string& expect) {
  ASSERT_FALSE(r.ok()) << expect;
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
  EXPECT_THAT(r.status().message(), ::testing::StartsWith("models/m/config.pbtxt: "));
  EXPECT_THAT(r.status().message(), HasSubstr(expect));
}

Result<WarmupSample> Generate(const std::string& config, GeneratedSampleSpec spec) {
  return GenerateSample(testing::ParseOrFail(config), spec, "generated", kSource);
}

TEST(RepositoryWarmupTest, WithoutModelWarmupThereAreNoSamples) {
  auto samples = Build("");
  ASSERT_TRUE(samples.ok()) << samples.status().ToString();
  EXPECT_TRUE(samples->empty());
}

TEST(RepositoryWarmupTest, GeneratedZerosOfBatchOne) {
  auto s = Generate(kModel, {});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->name, "generated");
  EXPECT_EQ(s->batch_size, 1);
  EXPECT_EQ(s->count, 1u);
  ASSERT_EQ(s->inputs.size(), 3u);
  EXPECT_EQ(s->inputs[0].name, "image");
  EXPECT_EQ(s->inputs[0].tensor.type(), DataType::kFp32);
  EXPECT_EQ(s->inputs[0].tensor.shape(), (Shape{1, 2, 1}));  // batch 1 prepended, dynamic dim 1
  for (float v : s->inputs[0].tensor.values<float>()) EXPECT_EQ(v, 0.0f);
  EXPECT_EQ(s->inputs[1].tensor.shape(), (Shape{1, 3}));
  EXPECT_EQ(s->inputs[2].tensor.type(), DataType::kBool);
}

TEST(RepositoryWarmupTest, GeneratedOnesAndDynamicSize) {
  auto s = Generate(kModel, {.dynamic_dim = 2, .fill = GeneratedFill::kOnes});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->inputs[0].tensor.shape(), (Shape{1, 2, 2}));
  for (float v : s->inputs[0].tensor.values<float>()) EXPECT_EQ(v, 1.0f);
  for (int64_t v : s->inputs[1].tensor.values<int64_t>()) EXPECT_EQ(v, 1);
  auto half = Generate("input [ { name: \"x\" data_type: TYPE_FP16 dims: [ -1, 5 ] } ]",
                       {.fill = GeneratedFill::kOnes});
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->inputs[0].tensor.shape(), (Shape{1, 5}));  // no batch dimension: -1 is a dynamic dim
  EXPECT_EQ(half->inputs[0].tensor.values<uint16_t>()[0], 0x3C00);  // 1.0 in IEEE half
}

TEST(RepositoryWarmupTest, GeneratedRandomRowsDifferAndSeedsRepeat) {
  const std::string config = "max_batch_size: 4 input [ { name: \"x\" data_type: TYPE_FP32 dims: [ 3 ] } ]";
  GeneratedSampleSpec spec{.fill = GeneratedFill::kRandom, .seed = 7, .batch_size = 2};
  auto a = Generate(config, spec), b = Generate(config, spec);
  spec.seed = 8;
  auto c = Generate(config, spec);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  auto va = a->inputs[0].tensor.values<float>();
  ASSERT_EQ(a->inputs[0].tensor.shape(), (Shape{2, 3}));
  EXPECT_NE(va[0], va[3]);  // row 0 and row 1 are not copies
  EXPECT_EQ(va[0], b->inputs[0].tensor.values<float>()[0]);
  EXPECT_NE(va[0], c->inputs[0].tensor.values<float>()[0]);
  for (float v : va) EXPECT_TRUE(v >= 0.0f && v < 1.0f);
}

TEST(RepositoryWarmupTest, DefaultCandidatesStartCheapAndGrow) {
  auto candidates = DefaultWarmupCandidates();
  ASSERT_GE(candidates.size(), 3u);
  EXPECT_EQ(candidates.front().ToString(), "dynamic dimensions 1, zeros");
  EXPECT_EQ(candidates.front().batch_size, 1);
  EXPECT_GT(candidates.back().dynamic_dim, 1);
}

TEST(RepositoryWarmupTest, ScalarInputTakesDimsOneOrTheModelShape) {
  const std::string scalar =
      "input [ { name: \"sr\" data_type: TYPE_INT64 dims: [ 1 ] reshape: { } } ] "
      "output [ { name: \"y\" data_type: TYPE_FP32 dims: [ 1 ] } ] ";
  auto with_dims = [&](const std::string& dims) {
    return Build("model_warmup [ { name: \"s\" inputs { key: \"sr\" value { data_type: TYPE_INT64 dims: " + dims +
                     " zero_data: true } } } ]",
                 "/x", scalar);
  };
  auto empty = with_dims("[ ]");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].inputs[0].tensor.shape(), Shape{});
  auto one = with_dims("[ 1 ]");
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ((*one)[0].inputs[0].tensor.shape(), Shape{1});
  ExpectError(with_dims("[ 2 ]"), StatusCode::kInvalidArgument,
              "dims [2] do not match the input's dims [1] nor its reshape.shape []");
}

TEST(RepositoryWarmupTest, ZeroRandomAndFileData) {
  TempDir model;
  std::vector<int64_t> ids = {5, 6, 7};
  std::string bytes(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(int64_t));
  model.Write("warmup/ids.bin", bytes);
  auto samples = Build(R"pb(
    model_warmup [ {
      name: "mixed" batch_size: 3 count: 2
      inputs { key: "image" value { data_type: TYPE_FP32 dims: [ 2, 5 ] random_data: true } }
      inputs { key: "ids" value { data_type: TYPE_INT64 dims: [ 3 ] input_data_file: "ids.bin" } }
      inputs { key: "flag" value { data_type: TYPE_BOOL dims: [ 1 ] zero_data: true } }
    }, {
      batch_size: 1
      inputs { key: "image" value { data_type: TYPE_FP32 dims: [ 2, 1 ] zero_data: true } }
      inputs { key: "ids" value { data_type: TYPE_INT64 dims: [ 3 ] random_data: true } }
    } ])pb",
                       model.str());
  ASSERT_TRUE(samples.ok()) << samples.status().ToString();
  ASSERT_EQ(samples->size(), 2u);
  const WarmupSample& s = (*samples)[0];
  EXPECT_EQ(s.name, "mixed");
  EXPECT_EQ(s.batch_size, 3);
  EXPECT_EQ(s.count, 2u);
  ASSERT_EQ(s.inputs.size(), 3u);  // config input order
  const Tensor& image = s.inputs[0].tensor;
  EXPECT_EQ(image.shape(), (Shape{3, 2, 5}));
  bool any_nonzero = false;
  for (float v : image.values<float>()) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
    any_nonzero = any_nonzero || v != 0.0f;
  }
  EXPECT_TRUE(any_nonzero);
  // Every row holds the same sample.
  EXPECT_EQ(std::memcmp(image.data(), image.data() + 40, 40), 0);
  EXPECT_EQ(std::memcmp(image.data(), image.data() + 80, 40), 0);
  const Tensor& id_tensor = s.inputs[1].tensor;
  EXPECT_EQ(id_tensor.shape(), (Shape{3, 3}));
  std::vector<int64_t> got(id_tensor.values<int64_t>().begin(), id_tensor.values<int64_t>().end());
  EXPECT_EQ(got, (std::vector<int64_t>{5, 6, 7, 5, 6, 7, 5, 6, 7}));
  EXPECT_EQ(s.inputs[2].tensor.shape(), (Shape{3, 1}));

  const WarmupSample& second = (*samples)[1];
  EXPECT_EQ(second.name, "sample_1");
  EXPECT_EQ(second.count, 1u);
  ASSERT_EQ(second.inputs.size(), 2u);  // the optional input left out
  for (int64_t v : second.inputs[1].tensor.values<int64_t>()) {
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 10);
  }

  // Random data is repeatable.
  auto again = Build(R"pb(model_warmup [ { batch_size: 1
      inputs { key: "image" value { data_type: TYPE_FP32 dims: [ 2, 2 ] random_data: true } }
      inputs { key: "ids" value { data_type: TYPE_INT64 dims: [ 3 ] zero_data: true } } } ])pb");
  auto again2 = Build(R"pb(model_warmup [ { batch_size: 1
      inputs { key: "image" value { data_type: TYPE_FP32 dims: [ 2, 2 ] random_data: true } }
      inputs { key: "ids" value { data_type: TYPE_INT64 dims: [ 3 ] zero_data: true } } } ])pb");
  ASSERT_TRUE(again.ok() && again2.ok());
  EXPECT_EQ(std::memcmp((*again)[0].inputs[0].tensor.data(), (*again2)[0].inputs[0].tensor.data(), 16), 0);
}


TEST(RepositoryWarmupTest, MismatchesAreNamed) {
  const std::string ids = R"pb(inputs { key: "ids" value { data_type: TYPE_INT64 dims: [ 3 ] zero_data: true } })pb";
  ExpectError(Build("model_warmup [ { name: \"w\" batch_size: 1 " + ids +
                    " inputs { key: \"other\" value { data_type: TYPE_FP32 dims: [ 1 ] zero_data: true } } } ]"),
              StatusCode::kInvalidArgument, "model_warmup[0] 'w': input 'other': no such model input");
  ExpectError(Build("model_warmup [ { batch_size: 1 " + ids + " } ]"), StatusCode::kInvalidArgument,
              "model_warmup[0]: input 'image' is missing");
  ExpectError(Build("model_warmup [ { batch_size: 1 " + ids +
                    " inputs { key: \"image\" value { data_type: TYPE_FP16 dims: [ 2, 1 ] zero_data: true } } } ]"),
              StatusCode::kInvalidArgument, "input 'image': data_type TYPE_FP16 does not match the input's TYPE_FP32");
  ExpectError(Build("model_warmup [ { batch_size: 1 " + ids +
                    " inputs { key: \"image\" value { data_type: TYPE_FP32 dims: [ 3, 1 ] zero_data: true } } } ]"),
              StatusCode::kInvalidArgument, "input 'image': dims [3, 1] do not match the input's dims [2, -1]");
}

TEST(RepositoryWarmupTest, DataFileErrors) {
  TempDir model;
  model.Write("warmup/short.bin", "1234");
  const std::string image =
      R"pb(inputs { key: "image" value { data_type: TYPE_FP32 dims: [ 2, 1 ] zero_data: true } })pb";
  auto with_file = [&](const std::string& file) {
    return Build("model_warmup [ { batch_size: 1 " + image +
                     " inputs { key: \"ids\" value { data_type: TYPE_INT64 dims: [ 3 ] input_data_file: \"" + file +
                     "\" } } } ]",
                 model.str());
  };
  ExpectError(with_file("short.bin"), StatusCode::kInvalidArgument, "holds 4 bytes, dims [3] of TYPE_INT64 need 24");
  ExpectError(with_file("absent.bin"), StatusCode::kNotFound, "input 'ids'");
  ExpectError(with_file("../config.pbtxt"), StatusCode::kInvalidArgument, "input_data_file '../config.pbtxt'");
}

TEST(RepositoryWarmupTest, StringInputsCannotBeGenerated) {
  auto r = Generate("input [ { name: \"text\" data_type: TYPE_STRING dims: [ 1 ] } ]", {});
  ExpectError(r, StatusCode::kUnimplemented, "input 'text': hone cannot generate TYPE_STRING data");
}

}  // namespace
}  // namespace hone::serve
