// How `hone bench --url` reads a served model's inputs: the same InputPool rules as for a model file.
#include "bench/remote_runner.h"

#include <gtest/gtest.h>

#include "runtime/input_pool.h"

namespace hone::bench {
namespace {

client::TensorMetadata Spec(const char* name, DataType type, Shape shape) {
  client::TensorMetadata t;
  t.name = name;
  t.type = type;
  t.shape = std::move(shape);
  return t;
}

client::ModelMetadataInfo Served(std::vector<client::TensorMetadata> inputs) {
  client::ModelMetadataInfo info;
  info.name = "served";
  info.inputs = std::move(inputs);
  info.outputs.push_back(Spec("y", DataType::kFp32, {-1}));
  return info;
}

TEST(RemoteRunnerTest, BatchedServedModelIsBatched) {
  // max_batch_size > 0: the server puts -1 in front of every input's dims.
  runtime::ModelMetadata m = ToRuntimeMetadata(Served({Spec("image", DataType::kFp32, {-1, 1, 28, 28})}));
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].symbols.size(), 4u);
  auto pool = runtime::InputPool::Create(m, {});
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_TRUE(pool->batched());
  EXPECT_TRUE(pool->CheckBatch(8).ok());
}

TEST(RemoteRunnerTest, ServedModelWithoutBatchDimensionSendsWholeTensors) {
  // max_batch_size 0: the inputs' own shapes, a scalar among them.
  runtime::ModelMetadata m = ToRuntimeMetadata(Served({Spec("input", DataType::kFp32, {1, -1}),
                                                       Spec("state", DataType::kFp32, {2, 1, 128}),
                                                       Spec("sr", DataType::kInt64, {})}));
  runtime::InputOptions o;
  o.shapes["input"] = {1, 512};
  auto pool = runtime::InputPool::Create(m, o);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_FALSE(pool->batched());
  auto requests = MakeRequests(*pool, 1);
  ASSERT_TRUE(requests.ok()) << requests.status().ToString();
  const std::vector<Tensor>& first = (*requests)[0];
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[0].shape(), (Shape{1, 512}));
  EXPECT_EQ(first[1].shape(), (Shape{2, 1, 128}));
  EXPECT_EQ(first[2].shape(), Shape{});
  auto batches = ResolveBatches(*pool, {2});
  ASSERT_FALSE(batches.ok());
  EXPECT_NE(batches.status().message().find("--batch 2"), std::string::npos);
}

}  // namespace
}  // namespace hone::bench
