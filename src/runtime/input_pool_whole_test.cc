// InputPool for models without a shared batch dimension (whole tensors), on stateful.onnx:
//   input: FP32 [1, N], state: FP32 [2, 1, 128], sr: INT64 [] -> output = input * sr, stateN = state + 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/input_pool.h"
#include "runtime/session.h"
#include "tensor/npz.h"

namespace hone::runtime {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const std::string kStateful = std::string(HONE_SOURCE_DIR) + "/src/runtime/testdata/stateful.onnx";

class WholeTensorPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Open(kStateful, {});
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = std::move(*session);
  }
  void TearDown() override { std::filesystem::remove(path_); }
  const ModelMetadata& metadata() const { return session_->metadata(); }

  InputOptions Dataset(std::vector<NamedTensor> arrays) {
    EXPECT_TRUE(WriteNpz(path_, arrays, false).ok());
    InputOptions o;
    o.data_path = path_;
    return o;
  }

  static Tensor Iota(DataType type, Shape shape, double start = 0) {
    Tensor t = *Tensor::Allocate(type, std::move(shape));
    double v = start;
    if (type == DataType::kFp32)
      for (float& x : t.mutable_values<float>()) x = static_cast<float>(v++);
    else
      for (int64_t& x : t.mutable_values<int64_t>()) x = static_cast<int64_t>(v++);
    return t;
  }

  // Runs every sample of the pool through the model, as compare and evaluate do, and checks the outputs.
  void RunEverySample(const InputPool& pool) {
    for (int64_t i = 0; i < pool.sample_count(); ++i) {
      auto inputs = pool.MakeBatch(i, 1);
      ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
      auto outputs = session_->Run(*inputs);
      ASSERT_TRUE(outputs.ok()) << "sample " << i << ": " << outputs.status().ToString();
      ASSERT_EQ(outputs->size(), 2u);
      const Tensor& in = (*inputs)[0];
      const int64_t sr = (*inputs)[2].values<int64_t>()[0];
      EXPECT_EQ((*outputs)[0].shape(), in.shape());
      for (int64_t e = 0; e < in.element_count(); ++e)
        EXPECT_FLOAT_EQ((*outputs)[0].values<float>()[e], in.values<float>()[e] * static_cast<float>(sr));
      EXPECT_EQ((*outputs)[1].shape(), (Shape{2, 1, 128}));
      EXPECT_FLOAT_EQ((*outputs)[1].values<float>()[5], (*inputs)[1].values<float>()[5] + 1);
    }
  }

  std::unique_ptr<Session> session_;
  std::string path_ = ::testing::TempDir() + "hone_whole_pool_" + std::to_string(::getpid()) + ".npz";
};

TEST_F(WholeTensorPoolTest, GeneratedInputsHonourEachInputsOwnShape) {
  InputOptions o;
  o.shapes["input"] = {1, 16};
  o.ranges["sr"] = {8000, 8001};
  o.generated_samples = 4;
  auto pool = InputPool::Create(metadata(), o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_FALSE(pool->batched());
  EXPECT_THAT(pool->mode_description(), AllOf(HasSubstr("whole tensors"), HasSubstr("no shared batch dimension"),
                                              HasSubstr("fixed to 1 but input 'state' to 2")));
  EXPECT_EQ(pool->default_batch(), 1);
  EXPECT_EQ(pool->sample_count(), 4);
  EXPECT_EQ(pool->byte_size(), 4u * (16 * 4 + 256 * 4 + 8));
  auto batch = pool->MakeBatch(1, 1);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->size(), 3u);
  EXPECT_EQ((*batch)[0].shape(), (Shape{1, 16}));
  EXPECT_EQ((*batch)[1].shape(), (Shape{2, 1, 128}));
  EXPECT_EQ((*batch)[2].shape(), Shape{});  // the scalar stays a scalar: no batch axis
  EXPECT_EQ((*batch)[2].values<int64_t>()[0], 8000);
  // Samples differ from each other.
  auto other = pool->MakeBatch(2, 1);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(std::memcmp((*batch)[1].data(), (*other)[1].data(), (*batch)[1].byte_size()), 0);
  RunEverySample(*pool);
}

TEST_F(WholeTensorPoolTest, BatchesOtherThanOneAreRefused) {
  InputOptions o;
  o.shapes["input"] = {1, 16};
  auto pool = InputPool::Create(metadata(), o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_TRUE(pool->CheckBatch(1).ok());
  Status s = pool->CheckBatch(4);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("batch size 4"), HasSubstr("no shared batch dimension"),
                                 HasSubstr("input 'state' to 2"), HasSubstr("use batch 1")));
  EXPECT_FALSE(pool->MakeBatch(0, 2).ok());
}

TEST_F(WholeTensorPoolTest, ShapeFlagMustBeTheFullShape) {
  auto missing = InputPool::Create(metadata(), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), AllOf(HasSubstr("input 'input'"), HasSubstr("dimension 1 ('N')"),
                                                HasSubstr("--shape input:"), HasSubstr("full shape")));
  InputOptions short_shape;
  short_shape.shapes["input"] = {16};
  auto s = InputPool::Create(metadata(), short_shape);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), AllOf(HasSubstr("--shape input:16"), HasSubstr("no shared batch dimension"),
                                          HasSubstr("full shape, rank 2")));
  InputOptions fixed;
  fixed.shapes["input"] = {1, 16};
  fixed.shapes["state"] = {2, 1, 64};
  auto f = InputPool::Create(metadata(), fixed);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), AllOf(HasSubstr("--shape state:2x1x64"), HasSubstr("dimension 2 is fixed to 128")));
}

TEST_F(WholeTensorPoolTest, DatasetWithPerSampleAndFixedArrays) {
  Tensor sr = *Tensor::Allocate(DataType::kInt64, {});
  sr.mutable_values<int64_t>()[0] = 3;
  InputOptions o = Dataset({{"input", Iota(DataType::kFp32, {5, 1, 16})},
                            {"state", Iota(DataType::kFp32, {2, 1, 128}, 1000)},
                            {"sr", sr},
                            {"label", Iota(DataType::kInt64, {5})}});
  auto pool = InputPool::Create(metadata(), o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_FALSE(pool->batched());
  EXPECT_EQ(pool->sample_count(), 5);
  EXPECT_EQ(pool->fixed_inputs(), (std::vector<std::string>{"state", "sr"}));
  EXPECT_EQ(pool->unused_arrays(), (std::vector<std::string>{"label"}));
  EXPECT_THAT(pool->description(), AllOf(HasSubstr("5 samples"), HasSubstr("fixed in every sample: state sr")));
  auto batch = pool->MakeBatch(6, 1);  // wraps round: sample 1
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ((*batch)[0].shape(), (Shape{1, 16}));
  EXPECT_EQ((*batch)[0].values<float>()[0], 16.0f);
  EXPECT_EQ((*batch)[1].shape(), (Shape{2, 1, 128}));
  EXPECT_EQ((*batch)[1].values<float>()[0], 1000.0f);
  EXPECT_EQ((*batch)[2].shape(), Shape{});
  EXPECT_EQ((*batch)[2].values<int64_t>()[0], 3);
  RunEverySample(*pool);
}

TEST_F(WholeTensorPoolTest, DatasetWithEverythingPerSample) {
  InputOptions o = Dataset({{"input", Iota(DataType::kFp32, {3, 1, 8})},
                            {"state", Iota(DataType::kFp32, {3, 2, 1, 128})},
                            {"sr", Iota(DataType::kInt64, {3}, 1)}});  // a scalar per sample: rank 1
  auto pool = InputPool::Create(metadata(), o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->sample_count(), 3);
  EXPECT_TRUE(pool->fixed_inputs().empty());
  auto batch = pool->MakeBatch(2, 1);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ((*batch)[2].shape(), Shape{});
  EXPECT_EQ((*batch)[2].values<int64_t>()[0], 3);
  EXPECT_EQ((*batch)[1].values<float>()[0], 512.0f);  // sample 2 of state starts at 2 * 256
  RunEverySample(*pool);
}

TEST_F(WholeTensorPoolTest, DatasetOfFixedArraysOnlyIsOneSample) {
  InputOptions o = Dataset({{"input", Iota(DataType::kFp32, {1, 8})},
                            {"state", Iota(DataType::kFp32, {2, 1, 128})},
                            {"sr", *Tensor::Allocate(DataType::kInt64, {})}});
  auto pool = InputPool::Create(metadata(), o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ(pool->sample_count(), 1);
  EXPECT_EQ(pool->fixed_inputs().size(), 3u);
  RunEverySample(*pool);
}

TEST_F(WholeTensorPoolTest, OneValueInAnotherRankIsTheSameValue) {
  // A scalar input given as [1] (what a server's metadata shows for Triton's reshape of a scalar) is that value.
  Tensor sr = *Tensor::Allocate(DataType::kInt64, {1});
  sr.mutable_values<int64_t>()[0] = 3;
  auto pool = InputPool::Create(metadata(), Dataset({{"input", Iota(DataType::kFp32, {1, 8})},
                                                     {"state", Iota(DataType::kFp32, {2, 1, 128})}, {"sr", sr}}));
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  auto batch = pool->MakeBatch(0, 1);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ((*batch)[2].shape(), Shape{});
  EXPECT_EQ((*batch)[2].values<int64_t>()[0], 3);
  RunEverySample(*pool);
}

TEST_F(WholeTensorPoolTest, DatasetErrorsStateTheRule) {
  Tensor sr = *Tensor::Allocate(DataType::kInt64, {});
  auto wrong_rank = InputPool::Create(
      metadata(), Dataset({{"input", Iota(DataType::kFp32, {5, 1, 16})}, {"state", Iota(DataType::kFp32, {128})},
                           {"sr", sr}}));
  ASSERT_FALSE(wrong_rank.ok());
  EXPECT_THAT(wrong_rank.status().message(),
              AllOf(HasSubstr("array 'state'"), HasSubstr("expected rank 4 (a tensor per sample"),
                    HasSubstr("or 3 (one tensor for every sample)"), HasSubstr("got shape 128"),
                    HasSubstr("no shared batch dimension")));
  auto scalar_rank = InputPool::Create(
      metadata(), Dataset({{"input", Iota(DataType::kFp32, {5, 1, 16})}, {"state", Iota(DataType::kFp32, {2, 1, 128})},
                           {"sr", Iota(DataType::kInt64, {5, 1})}}));
  ASSERT_FALSE(scalar_rank.ok());
  EXPECT_THAT(scalar_rank.status().message(), AllOf(HasSubstr("array 'sr'"), HasSubstr("expected rank 1"),
                                                    HasSubstr("or 0")));
  auto wrong_dim = InputPool::Create(
      metadata(), Dataset({{"input", Iota(DataType::kFp32, {5, 1, 16})},
                           {"state", Iota(DataType::kFp32, {5, 3, 1, 128})}, {"sr", sr}}));
  ASSERT_FALSE(wrong_dim.ok());
  EXPECT_THAT(wrong_dim.status().message(),
              AllOf(HasSubstr("array 'state'"), HasSubstr("dimension 1 must be 2"), HasSubstr("5x3x1x128")));
  auto rows = InputPool::Create(
      metadata(), Dataset({{"input", Iota(DataType::kFp32, {5, 1, 16})},
                           {"state", Iota(DataType::kFp32, {4, 2, 1, 128})}, {"sr", sr}}));
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.status().message(), AllOf(HasSubstr("array 'state' has 4 rows"), HasSubstr("'input' has 5")));
  auto dtype = InputPool::Create(
      metadata(), Dataset({{"input", Iota(DataType::kFp32, {5, 1, 16})},
                           {"state", Iota(DataType::kFp32, {2, 1, 128})}, {"sr", Iota(DataType::kFp32, {5})}}));
  ASSERT_FALSE(dtype.ok());
  EXPECT_THAT(dtype.status().message(), AllOf(HasSubstr("array 'sr'"), HasSubstr("expected INT64"),
                                              HasSubstr("got FP32")));
}

TEST_F(WholeTensorPoolTest, BatchedPoolsStayBatched) {
  auto fashion = Session::Open(std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx", {});
  ASSERT_TRUE(fashion.ok());
  auto pool = InputPool::Create((*fashion)->metadata(), {});
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_TRUE(pool->batched());
  EXPECT_EQ(pool->mode_description(), "batched: dimension 0 of every input is the batch");
  EXPECT_TRUE(pool->fixed_inputs().empty());
  EXPECT_EQ(pool->byte_size(), 64u * 28 * 28 * 4);
}

}  // namespace
}  // namespace hone::runtime
