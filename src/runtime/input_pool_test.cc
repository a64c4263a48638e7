#include "runtime/input_pool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/input_options.h"
#include "runtime/session.h"
#include "tensor/file_io.h"
#include "tensor/npy.h"
#include "tensor/npz.h"

namespace hone::runtime {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string TestModel(const std::string& name) { return std::string(HONE_SOURCE_DIR) + "/src/runtime/testdata/" + name; }
const std::string kFashionModel = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";
const std::string kFashionData = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz";

ModelMetadata MetadataOf(const std::string& path) {
  auto session = Session::Open(path, {});
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  return session.ok() ? (*session)->metadata() : ModelMetadata{};
}

// A temp file removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& name)
      : path_(::testing::TempDir() + "hone_input_pool_" + std::to_string(::getpid()) + "_" + name) {}
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Tensor Iota(DataType type, Shape shape) {
  Tensor t = *Tensor::Allocate(type, std::move(shape));
  if (type == DataType::kFp32) {
    float v = 0;
    for (float& x : t.mutable_values<float>()) x = v++;
  } else if (type == DataType::kInt64) {
    int64_t v = 0;
    for (int64_t& x : t.mutable_values<int64_t>()) x = v++;
  }
  return t;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.type() == b.type() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byte_size()) == 0;
}

InputOptions Shapes(std::vector<std::string> flags) {
  InputOptions o;
  for (const auto& f : flags) EXPECT_TRUE(ParseShapeFlag(f, o).ok()) << f;
  return o;
}

// ---- flags ----

TEST(InputOptionsTest, ParsesShapeFlags) {
  InputOptions o;
  ASSERT_TRUE(ParseShapeFlag("input_ids:1x128", o).ok());
  ASSERT_TRUE(ParseShapeFlag("mask:8,16", o).ok());
  ASSERT_TRUE(ParseShapeFlag("scope:name:3x4", o).ok());  // names may hold ':'
  EXPECT_EQ(o.shapes.at("input_ids"), (Shape{1, 128}));
  EXPECT_EQ(o.shapes.at("mask"), (Shape{8, 16}));
  EXPECT_EQ(o.shapes.at("scope:name"), (Shape{3, 4}));
  for (const char* bad : {"x", ":1x2", "x:", "x:1xa", "x:-1x4", "x:1x", "1x128"}) {
    Status s = ParseShapeFlag(bad, o);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), AllOf(HasSubstr("--shape"), HasSubstr(bad))) << bad;
  }
}

TEST(InputOptionsTest, ParsesRangeFlags) {
  InputOptions o;
  ASSERT_TRUE(ParseRangeFlag("ids:0:30522", o).ok());
  ASSERT_TRUE(ParseRangeFlag("x:-1.5:2.5e1", o).ok());
  ASSERT_TRUE(ParseRangeFlag("a:b:0:1", o).ok());
  EXPECT_EQ(o.ranges.at("ids").low, 0);
  EXPECT_EQ(o.ranges.at("ids").high, 30522);
  EXPECT_EQ(o.ranges.at("x").low, -1.5);
  EXPECT_EQ(o.ranges.at("x").high, 25);
  EXPECT_EQ(o.ranges.count("a:b"), 1u);
  for (const char* bad : {"x", "x:1", "x:0:", ":0:1", "x:a:1", "x:0:1z", "x:1:1", "x:2:1", "x:0:inf", "x:nan:1"}) {
    Status s = ParseRangeFlag(bad, o);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), AllOf(HasSubstr("--range"), HasSubstr(bad))) << bad;
  }
}

// ---- generated inputs ----

TEST(InputPoolTest, GeneratedInputsAreDeterministicPerSeed) {
  ModelMetadata m = MetadataOf(TestModel("affine.onnx"));
  InputOptions o;
  o.generated_samples = 16;
  auto a = InputPool::Create(m, o);
  auto b = InputPool::Create(m, o);
  o.seed = 2;
  auto c = InputPool::Create(m, o);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.status().ToString();
  EXPECT_EQ(a->sample_count(), 16);
  EXPECT_EQ(a->default_batch(), 1);
  EXPECT_EQ(a->description(), "generated (seed 1, 16 samples)");
  EXPECT_TRUE(a->unused_arrays().empty());
  auto ba = a->MakeBatch(0, 16), bb = b->MakeBatch(0, 16), bc = c->MakeBatch(0, 16);
  ASSERT_TRUE(ba.ok() && bb.ok() && bc.ok());
  EXPECT_EQ((*ba)[0].shape(), (Shape{16, 4}));
  EXPECT_TRUE(SameBytes((*ba)[0], (*bb)[0]));
  EXPECT_FALSE(SameBytes((*ba)[0], (*bc)[0]));
  // Not all the same value, and rows differ from each other.
  auto v = (*ba)[0].values<float>();
  EXPECT_NE(std::memcmp(v.data(), v.data() + 4, 4 * sizeof(float)), 0);
}

TEST(InputPoolTest, GeneratedValuesRespectRanges) {
  ModelMetadata m = MetadataOf(TestModel("two_inputs.onnx"));
  InputOptions o = Shapes({"ids:16", "mask:16"});
  o.generated_samples = 50;
  ASSERT_TRUE(ParseRangeFlag("ids:5:9", o).ok());
  ASSERT_TRUE(ParseRangeFlag("mask:-3:0", o).ok());
  auto pool = InputPool::Create(m, o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  auto batch = pool->MakeBatch(0, 50);
  ASSERT_TRUE(batch.ok());
  std::vector<bool> seen_ids(4, false), seen_mask(3, false);
  for (int64_t v : (*batch)[0].values<int64_t>()) {
    ASSERT_GE(v, 5);
    ASSERT_LT(v, 9);
    seen_ids[v - 5] = true;
  }
  for (int64_t v : (*batch)[1].values<int64_t>()) {
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 0);
    seen_mask[v + 3] = true;
  }
  // 800 draws from 4 (or 3) values: every value turns up.
  for (bool s : seen_ids) EXPECT_TRUE(s);
  for (bool s : seen_mask) EXPECT_TRUE(s);

  // Defaults: integers in [0, 100), floats in [0, 1).
  InputOptions d = Shapes({"ids:16", "mask:16"});
  auto ints = InputPool::Create(m, d);
  ASSERT_TRUE(ints.ok());
  auto ints_batch = ints->MakeBatch(0, 64);
  ASSERT_TRUE(ints_batch.ok());
  for (int64_t v : (*ints_batch)[0].values<int64_t>()) {
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 100);
  }
  ModelMetadata affine = MetadataOf(TestModel("affine.onnx"));
  auto floats = InputPool::Create(affine, {});
  ASSERT_TRUE(floats.ok());
  auto floats_batch = floats->MakeBatch(0, 64);
  ASSERT_TRUE(floats_batch.ok());
  for (float v : (*floats_batch)[0].values<float>()) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
  }
  InputOptions r;
  ASSERT_TRUE(ParseRangeFlag("x:-2:-1", r).ok());
  auto neg = InputPool::Create(affine, r);
  ASSERT_TRUE(neg.ok());
  auto neg_batch = neg->MakeBatch(0, 64);
  ASSERT_TRUE(neg_batch.ok());
  for (float v : (*neg_batch)[0].values<float>()) {
    ASSERT_GE(v, -2.0f);
    ASSERT_LT(v, -1.0f);
  }
}

TEST(InputPoolTest, GeneratedFloatsStayBelowHighAfterRoundingToFloat) {
  // Every double in this range rounds to 1.0f, which is outside it; the values must stay below HIGH.
  ModelMetadata affine = MetadataOf(TestModel("affine.onnx"));
  InputOptions o;
  ASSERT_TRUE(ParseRangeFlag("x:0.9999999999:1", o).ok());
  auto pool = InputPool::Create(affine, o);
  ASSERT_TRUE(pool.ok());
  auto pool_batch = pool->MakeBatch(0, 64);
  ASSERT_TRUE(pool_batch.ok());
  for (float v : (*pool_batch)[0].values<float>()) ASSERT_LT(v, 1.0f);
}

TEST(InputPoolTest, DynamicDimsWithoutShapeNameTheInputAndSymbol) {
  ModelMetadata m = MetadataOf(TestModel("two_inputs.onnx"));
  auto pool = InputPool::Create(m, {});
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(), AllOf(HasSubstr("input 'ids'"), HasSubstr("'seq'"), HasSubstr("--shape")));
  // With ids fixed, mask's unnamed dimension is next.
  auto mask = InputPool::Create(m, Shapes({"ids:16"}));
  ASSERT_FALSE(mask.ok());
  EXPECT_THAT(mask.status().message(), AllOf(HasSubstr("input 'mask'"), HasSubstr("dimension 1")));
}

TEST(InputPoolTest, FullRankShapeSetsDefaultBatch) {
  ModelMetadata m = MetadataOf(TestModel("two_inputs.onnx"));
  auto pool = InputPool::Create(m, Shapes({"ids:4x16", "mask:4x16"}));
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->default_batch(), 4);
  auto batch = pool->MakeBatch(0, pool->default_batch());
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ((*batch)[0].shape(), (Shape{4, 16}));
  EXPECT_EQ((*batch)[1].shape(), (Shape{4, 16}));
  EXPECT_EQ((*batch)[0].type(), DataType::kInt64);
  // Any other batch size works too: the batch dimension is dynamic.
  EXPECT_EQ((*pool->MakeBatch(3, 7))[1].shape(), (Shape{7, 16}));
}

TEST(InputPoolTest, FullRankShapesMustAgreeOnBatch) {
  ModelMetadata m = MetadataOf(TestModel("two_inputs.onnx"));
  auto pool = InputPool::Create(m, Shapes({"ids:8x16", "mask:1x16"}));
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(), AllOf(HasSubstr("--shape mask:1x16"), HasSubstr("batch size 8")));
  // One input's full shape and the other's without the batch dimension: the batch comes from the first.
  auto mixed = InputPool::Create(m, Shapes({"ids:8x16", "mask:16"}));
  ASSERT_TRUE(mixed.ok()) << mixed.status().ToString();
  EXPECT_EQ(mixed->default_batch(), 8);
}

TEST(InputPoolTest, ShapeWithoutBatchDimension) {
  ModelMetadata m = MetadataOf(TestModel("two_inputs.onnx"));
  auto pool = InputPool::Create(m, Shapes({"ids:16", "mask:16"}));
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->default_batch(), 1);
  EXPECT_EQ((*pool->MakeBatch(0, 2))[0].shape(), (Shape{2, 16}));

  ModelMetadata fashion = MetadataOf(kFashionModel);
  auto image = InputPool::Create(fashion, Shapes({"image:1x28x28"}));
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ(image->default_batch(), 1);
  EXPECT_EQ((*image->MakeBatch(0, 3))[0].shape(), (Shape{3, 1, 28, 28}));
}

TEST(InputPoolTest, WrongRankShapeIsRejected) {
  ModelMetadata m = MetadataOf(TestModel("two_inputs.onnx"));
  auto pool = InputPool::Create(m, Shapes({"ids:1x2x3", "mask:16"}));
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(),
              AllOf(HasSubstr("--shape ids:1x2x3"), HasSubstr("expected rank 2"), HasSubstr("or 1 without")));
}

TEST(InputPoolTest, ShapeConflictingWithFixedDimIsRejected) {
  ModelMetadata fashion = MetadataOf(kFashionModel);
  auto full = InputPool::Create(fashion, Shapes({"image:2x3x28x28"}));
  ASSERT_FALSE(full.ok());
  EXPECT_THAT(full.status().message(),
              AllOf(HasSubstr("--shape image:2x3x28x28"), HasSubstr("dimension 1 is fixed to 1")));
  auto sample = InputPool::Create(fashion, Shapes({"image:1x28x27"}));
  ASSERT_FALSE(sample.ok());
  EXPECT_THAT(sample.status().message(), HasSubstr("dimension 3 is fixed to 28"));
}

TEST(InputPoolTest, ShapeOrRangeForUnknownInputIsRejected) {
  ModelMetadata m = MetadataOf(TestModel("affine.onnx"));
  auto shape = InputPool::Create(m, Shapes({"y:1x4"}));
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(shape.status().message(), AllOf(HasSubstr("--shape y"), HasSubstr("no input named 'y'"),
                                              HasSubstr("inputs: x")));
  InputOptions o;
  ASSERT_TRUE(ParseRangeFlag("z:0:1", o).ok());
  auto range = InputPool::Create(m, o);
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.status().message(), AllOf(HasSubstr("--range z"), HasSubstr("no input named 'z'")));
}

TEST(InputPoolTest, ZeroGeneratedSamplesIsRejected) {
  InputOptions o;
  o.generated_samples = 0;
  EXPECT_EQ(InputPool::Create(MetadataOf(TestModel("affine.onnx")), o).status().code(),
            StatusCode::kInvalidArgument);
}

// ---- datasets ----

TEST(InputPoolTest, BundledDatasetMapsImageAndReportsLabelUnused) {
  ModelMetadata m = MetadataOf(kFashionModel);
  InputOptions o;
  o.data_path = kFashionData;
  auto pool = InputPool::Create(m, o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->sample_count(), 2000);
  EXPECT_EQ(pool->default_batch(), 1);
  EXPECT_EQ(pool->unused_arrays(), (std::vector<std::string>{"label"}));
  EXPECT_THAT(pool->description(), AllOf(HasSubstr("test.npz"), HasSubstr("2000 samples")));
  EXPECT_TRUE(pool->CheckBatch(64).ok());
}

TEST(InputPoolTest, MakeBatchCopiesRowsAndWrapsAround) {
  ModelMetadata m = MetadataOf(kFashionModel);
  InputOptions o;
  o.data_path = kFashionData;
  auto pool = InputPool::Create(m, o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  auto arrays = ReadNpz(kFashionData);
  ASSERT_TRUE(arrays.ok());
  const Tensor* image = nullptr;
  for (const auto& a : *arrays)
    if (a.name == "image") image = &a.tensor;
  ASSERT_NE(image, nullptr);
  const size_t row = 28 * 28 * sizeof(float);

  auto batch = pool->MakeBatch(1998, 4);  // rows 1998, 1999, 0, 1
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->size(), 1u);
  const Tensor& t = (*batch)[0];
  EXPECT_EQ(t.shape(), (Shape{4, 1, 28, 28}));
  EXPECT_TRUE(t.owns_data());
  const int64_t rows[] = {1998, 1999, 0, 1};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(std::memcmp(t.data() + i * row, image->data() + rows[i] * row, row), 0) << "row " << i;
  // The wrapped rows are real data, not zeros, so the comparison means something.
  EXPECT_NE(std::memcmp(t.data(), t.data() + 2 * row, row), 0);

  auto far = pool->MakeBatch(2000 * 3 + 5, 1);  // wraps several times
  ASSERT_TRUE(far.ok());
  EXPECT_EQ(std::memcmp((*far)[0].data(), image->data() + 5 * row, row), 0);
  auto before = pool->MakeBatch(-2, 1);  // wraps backwards: row 1998
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(std::memcmp((*before)[0].data(), image->data() + 1998 * row, row), 0);
}

TEST(InputPoolTest, DatasetWithSeveralInputs) {
  ModelMetadata m = MetadataOf(TestModel("two_inputs.onnx"));
  TempFile f("two.npz");
  Tensor ids = Iota(DataType::kInt64, {5, 3}), mask = Iota(DataType::kInt64, {5, 2});
  for (int64_t& v : mask.mutable_values<int64_t>()) v += 1000;
  ASSERT_TRUE(WriteNpz(f.path(), {{"mask", mask}, {"extra", Iota(DataType::kFp32, {2})}, {"ids", ids}}, false).ok());
  InputOptions o;
  o.data_path = f.path();
  auto pool = InputPool::Create(m, o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->sample_count(), 5);
  EXPECT_EQ(pool->unused_arrays(), (std::vector<std::string>{"extra"}));
  auto batch = pool->MakeBatch(4, 2);  // rows 4, 0; outputs in the model's input order
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->size(), 2u);
  EXPECT_EQ((*batch)[0].shape(), (Shape{2, 3}));
  EXPECT_EQ((*batch)[1].shape(), (Shape{2, 2}));
  std::vector<int64_t> got_ids((*batch)[0].values<int64_t>().begin(), (*batch)[0].values<int64_t>().end());
  std::vector<int64_t> got_mask((*batch)[1].values<int64_t>().begin(), (*batch)[1].values<int64_t>().end());
  EXPECT_EQ(got_ids, (std::vector<int64_t>{12, 13, 14, 0, 1, 2}));
  EXPECT_EQ(got_mask, (std::vector<int64_t>{1008, 1009, 1000, 1001}));
}

TEST(InputPoolTest, NpyForOneInputModel) {
  ModelMetadata m = MetadataOf(TestModel("affine.onnx"));
  TempFile f("x.npy");
  ASSERT_TRUE(WriteNpy(f.path(), Iota(DataType::kFp32, {3, 4})).ok());
  InputOptions o;
  o.data_path = f.path();
  auto pool = InputPool::Create(m, o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->sample_count(), 3);
  auto batch = pool->MakeBatch(2, 2);
  ASSERT_TRUE(batch.ok());
  std::vector<float> got((*batch)[0].values<float>().begin(), (*batch)[0].values<float>().end());
  EXPECT_EQ(got, (std::vector<float>{8, 9, 10, 11, 0, 1, 2, 3}));
}

TEST(InputPoolTest, DatasetMissingAnInputListsItsArrays) {
  ModelMetadata m = MetadataOf(kFashionModel);
  TempFile f("missing.npz");
  ASSERT_TRUE(WriteNpz(f.path(), {{"pixels", Iota(DataType::kFp32, {2, 1, 28, 28})},
                                  {"label", Iota(DataType::kInt64, {2})}}, false).ok());
  InputOptions o;
  o.data_path = f.path();
  auto pool = InputPool::Create(m, o);
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(),
              AllOf(HasSubstr(f.path()), HasSubstr("no array for input 'image'"), HasSubstr("arrays: pixels, label")));
}

TEST(InputPoolTest, DatasetArrayWithWrongDtype) {
  ModelMetadata m = MetadataOf(kFashionModel);
  TempFile f("dtype.npz");
  ASSERT_TRUE(WriteNpz(f.path(), {{"image", Iota(DataType::kFp64, {2, 1, 28, 28})}}, false).ok());
  InputOptions o;
  o.data_path = f.path();
  auto pool = InputPool::Create(m, o);
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(),
              AllOf(HasSubstr("array 'image'"), HasSubstr("expected FP32"), HasSubstr("got FP64")));
}

TEST(InputPoolTest, DatasetArrayWithWrongRank) {
  ModelMetadata m = MetadataOf(kFashionModel);
  TempFile f("rank.npz");
  ASSERT_TRUE(WriteNpz(f.path(), {{"image", Iota(DataType::kFp32, {2, 784})}}, false).ok());
  InputOptions o;
  o.data_path = f.path();
  auto pool = InputPool::Create(m, o);
  ASSERT_FALSE(pool.ok());
  EXPECT_THAT(pool.status().message(),
              AllOf(HasSubstr("array 'image'"), HasSubstr("expected rank 4"), HasSubstr("got shape 2x784")));
}

TEST(InputPoolTest, DatasetArrayWithWrongFixedDim) {
  ModelMetadata m = MetadataOf(kFashionModel);
  TempFile f("dims.npz");
  ASSERT_TRUE(WriteNpz(f.path(), {{"image", Iota(DataType::kFp32, {2, 1, 28, 14})}}, false).ok());
  InputOptions o;
  o.data_path = f.path();
  auto pool = InputPool::Create(m, o);
  ASSERT_FALSE(pool.ok());
  EXPECT_THAT(pool.status().message(),
              AllOf(HasSubstr("array 'image'"), HasSubstr("dimension 3 must be 28"), HasSubstr("2x1x28x14")));
}

TEST(InputPoolTest, DatasetArraysWithDifferentRowCounts) {
  ModelMetadata m = MetadataOf(TestModel("two_inputs.onnx"));
  TempFile f("rows.npz");
  ASSERT_TRUE(WriteNpz(f.path(), {{"ids", Iota(DataType::kInt64, {5, 3})}, {"mask", Iota(DataType::kInt64, {4, 3})}},
                       false)
                  .ok());
  InputOptions o;
  o.data_path = f.path();
  auto pool = InputPool::Create(m, o);
  ASSERT_FALSE(pool.ok());
  EXPECT_THAT(pool.status().message(),
              AllOf(HasSubstr("array 'mask' has 4 rows"), HasSubstr("'ids' has 5")));
}

TEST(InputPoolTest, DatasetWithNoRowsIsRejected) {
  ModelMetadata m = MetadataOf(TestModel("affine.onnx"));
  TempFile f("empty.npy");
  ASSERT_TRUE(WriteNpy(f.path(), *Tensor::Allocate(DataType::kFp32, {0, 4})).ok());
  InputOptions o;
  o.data_path = f.path();
  auto pool = InputPool::Create(m, o);
  ASSERT_FALSE(pool.ok());
  EXPECT_THAT(pool.status().message(), HasSubstr("no rows"));
}

TEST(InputPoolTest, NpyForTwoInputModelIsRefused) {
  ModelMetadata m = MetadataOf(TestModel("two_inputs.onnx"));
  TempFile f("ids.npy");
  ASSERT_TRUE(WriteNpy(f.path(), Iota(DataType::kInt64, {5, 3})).ok());
  InputOptions o;
  o.data_path = f.path();
  auto pool = InputPool::Create(m, o);
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(pool.status().message(), AllOf(HasSubstr("a .npy holds one array"), HasSubstr("2 inputs"),
                                             HasSubstr(".npz")));
}

TEST(InputPoolTest, MissingOrMalformedDatasetFileNamesThePath) {
  ModelMetadata m = MetadataOf(kFashionModel);
  InputOptions o;
  o.data_path = "/nonexistent/data.npz";
  auto missing = InputPool::Create(m, o);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/data.npz"));

  TempFile f("garbage.npy");
  std::string garbage(100, 'g');
  ASSERT_TRUE(WriteFileBytes(f.path(), std::as_bytes(std::span(garbage.data(), garbage.size()))).ok());
  o.data_path = f.path();
  auto bad = InputPool::Create(m, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr(f.path()));
}

TEST(InputPoolTest, DatasetWithShapeFlag) {
  ModelMetadata m = MetadataOf(kFashionModel);
  InputOptions o = Shapes({"image:8x1x28x28"});
  o.data_path = kFashionData;
  auto pool = InputPool::Create(m, o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->default_batch(), 8);  // a full-rank --shape gives the batch size, as with generated inputs

  InputOptions bad = Shapes({"image:1x14x14"});
  bad.data_path = kFashionData;
  auto conflict = InputPool::Create(m, bad);
  ASSERT_FALSE(conflict.ok());
  EXPECT_THAT(conflict.status().message(), HasSubstr("--shape image:1x14x14"));

  TempFile f("seq.npz");
  ASSERT_TRUE(WriteNpz(f.path(), {{"ids", Iota(DataType::kInt64, {5, 3})}, {"mask", Iota(DataType::kInt64, {5, 3})}},
                       false)
                  .ok());
  InputOptions seq = Shapes({"ids:7"});
  seq.data_path = f.path();
  auto mismatch = InputPool::Create(MetadataOf(TestModel("two_inputs.onnx")), seq);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(), AllOf(HasSubstr("--shape ids:7"), HasSubstr("5x3")));
}

// ---- batches ----

ModelMetadata FixedBatchMetadata() {
  ModelMetadata m;
  IoSpec x;
  x.name = "x";
  x.type = DataType::kFp32;
  x.onnx_type = "float";
  x.shape = {1, 4};
  x.symbols = {"", ""};
  m.inputs.push_back(x);
  return m;
}

TEST(InputPoolTest, CheckBatchWithFixedFirstDim) {
  auto pool = InputPool::Create(FixedBatchMetadata(), {});
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->default_batch(), 1);
  EXPECT_TRUE(pool->CheckBatch(1).ok());
  Status s = pool->CheckBatch(8);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("input 'x'"), HasSubstr("fixed first dimension of 1"),
                                 HasSubstr("batches of 8")));
  EXPECT_FALSE(pool->MakeBatch(0, 8).ok());
  EXPECT_EQ((*pool->MakeBatch(0, 1))[0].shape(), (Shape{1, 4}));
  // A full-rank --shape must agree with the fixed batch dimension.
  auto conflict = InputPool::Create(FixedBatchMetadata(), Shapes({"x:2x4"}));
  ASSERT_FALSE(conflict.ok());
  EXPECT_THAT(conflict.status().message(), HasSubstr("dimension 0 is fixed to 1"));
}

TEST(InputPoolTest, CheckBatchRejectsNonPositive) {
  auto pool = InputPool::Create(MetadataOf(TestModel("affine.onnx")), {});
  ASSERT_TRUE(pool.ok());
  EXPECT_TRUE(pool->CheckBatch(1000).ok());  // larger than the pool: rows repeat
  EXPECT_EQ(pool->CheckBatch(0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(pool->CheckBatch(-1).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(pool->MakeBatch(0, 0).ok());
}

TEST(InputPoolTest, BatchesRunThroughTheSession) {
  auto session = Session::Open(TestModel("two_inputs.onnx"), {});
  ASSERT_TRUE(session.ok());
  auto pool = InputPool::Create((*session)->metadata(), Shapes({"ids:3x5", "mask:3x5"}));
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  auto batch = pool->MakeBatch(0, pool->default_batch());
  ASSERT_TRUE(batch.ok());
  auto out = (*session)->Run(*batch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), (Shape{3, 5}));
  EXPECT_EQ((*out)[1].shape(), (Shape{3}));
}

}  // namespace
}  // namespace hone::runtime
