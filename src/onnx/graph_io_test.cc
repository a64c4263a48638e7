// External data (how models over 2 GiB are written and read), topological sorting and unused initializers.
#include "onnx/graph_io.h"

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/graph_rewrite.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize_test_models.h"

namespace hone::onnx {
namespace {

using ::testing::HasSubstr;

TEST(GraphIoTest, LargeModelsKeepTheirWeightsInExternalData) {
  testing::TempDir dir;
  ::onnx::ModelProto m = testing::MatMulModel();
  WriteOptions small;
  small.external_threshold_bytes = 1000;  // as if the 2 KiB weight made the model too big for one protobuf
  std::string path = dir.File("big.onnx");
  ASSERT_TRUE(WriteModel(m, path, small).ok());
  ASSERT_TRUE(std::filesystem::exists(path + ".data"));
  EXPECT_LT(std::filesystem::file_size(path), 1000u);

  ::onnx::ModelProto back;
  ASSERT_TRUE(LoadModelForRewrite(path, &back).ok());
  ASSERT_EQ(back.graph().initializer_size(), 1);
  EXPECT_EQ(back.graph().initializer(0).external_data_size(), 0);
  EXPECT_EQ(*ReadFloatTensor(back.graph().initializer(0)), *ReadFloatTensor(m.graph().initializer(0)));
  // ONNX Runtime reads the pair as written.
  std::string error;
  auto out = testing::RunFirstOutput(path, testing::RandomTensor({2, 32}, 1), &error);
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_EQ(out.size(), 32u);
}

TEST(GraphIoTest, MissingOrShortExternalDataIsNamed) {
  testing::TempDir dir;
  ::onnx::ModelProto m = testing::MatMulModel();
  WriteOptions small;
  small.external_threshold_bytes = 1000;
  std::string path = dir.File("big.onnx");
  ASSERT_TRUE(WriteModel(m, path, small).ok());
  std::filesystem::resize_file(path + ".data", 100);
  ::onnx::ModelProto back;
  Status s = LoadModelForRewrite(path, &back);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("tensor 'W'"));
  std::filesystem::remove(path + ".data");
  s = LoadModelForRewrite(path, &back);
  EXPECT_THAT(s.message(), HasSubstr("cannot open its external data file"));
}

TEST(GraphIoTest, SortsNodesAndFindsCycles) {
  ::onnx::ModelProto m = testing::AttentionModel();
  auto* nodes = m.mutable_graph()->mutable_node();
  nodes->SwapElements(0, nodes->size() - 1);  // the last MatMul first
  ASSERT_TRUE(SortTopologically(m.mutable_graph()).ok());
  EXPECT_EQ(m.graph().node(m.graph().node_size() - 1).output(0), "y");
  EXPECT_TRUE(CheckModel(m).ok());

  m.mutable_graph()->mutable_node(0)->set_input(0, "y");  // x @ Wq now reads the final output: a cycle
  Status s = SortTopologically(m.mutable_graph());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("cycle"));
}

TEST(GraphIoTest, RemovesOnlyUnusedInitializers) {
  ::onnx::ModelProto m = testing::MatMulModel();
  testing::AddRandomInitializer(m.mutable_graph(), "unused", {4}, 1);
  EXPECT_EQ(RemoveUnusedInitializers(m.mutable_graph()), 1);
  ASSERT_EQ(m.graph().initializer_size(), 1);
  EXPECT_EQ(m.graph().initializer(0).name(), "W");
}

}  // namespace
}  // namespace hone::onnx
