// Pruning a feed-forward block: finding it (and refusing what cannot be pruned safely), choosing neurons and refitting
// the second MatMul from second moments, and the whole rewrite run in ONNX Runtime on calibration data written here.
#include "onnx/prune.h"

#include <cmath>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/graph_io.h"
#include "onnx/graph_rewrite.h"
#include "onnx/onnx_pb.h"
#include "onnx/prune_ffn_blocks.h"
#include "onnx/prune_heads.h"
#include "onnx/prune_repair.h"
#include "onnx/prune_test_models.h"
#include "tensor/npz.h"

namespace hone::onnx {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::FfnModel;

FfnSearch Find(::onnx::ModelProto m) {
  RewriteScope scope;
  EXPECT_TRUE(BeginRewrite(&m, &scope).ok());
  GraphIndex index(m.graph());
  return FindFfnBlocks(m.graph(), index);
}


TEST(FindFfnBlocksTest, FindsTheBlockAroundTorchsGelu) {
  FfnSearch s = Find(FfnModel(8));
  ASSERT_EQ(s.blocks.size(), 1u);
  EXPECT_THAT(s.refused, IsEmpty());
  const FfnBlock& b = s.blocks[0];
  EXPECT_EQ(b.width, 8);
  EXPECT_EQ(b.up_weight, "W1");
  EXPECT_EQ(b.up_bias, "b1");
  EXPECT_EQ(b.hidden, "h");
  EXPECT_EQ(b.down_weight, "W2");
  EXPECT_EQ(b.down_bias, "b2");
}

TEST(FindFfnBlocksTest, AttentionsProjectionsAreNotFeedForwardBlocks) {
  FfnSearch s = Find(testing::AttentionModel());
  EXPECT_THAT(s.blocks, IsEmpty());
  EXPECT_THAT(s.refused, IsEmpty());
}

TEST(FindFfnBlocksTest, RefusesAHiddenValueReadOutsideTheBlock) {
  ::onnx::ModelProto m = FfnModel(8);
  testing::SetTensorType(m.mutable_graph()->add_output(), "e", ::onnx::TensorProto::FLOAT, {"N", "T", 8});
  FfnSearch s = Find(m);
  EXPECT_THAT(s.blocks, IsEmpty());
  EXPECT_THAT(s.refused, ElementsAre(AllOf(HasSubstr("'down' (MatMul)"), HasSubstr("'e'"), HasSubstr("graph output"))));

  m = FfnModel(8);
  testing::AddNode(m.mutable_graph(), "Identity", {"ub"}, {"z"})->set_name("peek");
  testing::SetTensorType(m.mutable_graph()->add_output(), "z", ::onnx::TensorProto::FLOAT, {"N", "T", 8});
  s = Find(m);
  EXPECT_THAT(s.refused, ElementsAre(AllOf(HasSubstr("'ub'"), HasSubstr("also read by 'peek' (Identity)"))));
}

TEST(FindFfnBlocksTest, RefusesASharedWeight) {
  ::onnx::ModelProto m = FfnModel(8);
  testing::AddNode(m.mutable_graph(), "MatMul", {"x", "W1"}, {"y2"})->set_name("other");
  testing::SetTensorType(m.mutable_graph()->add_output(), "y2", ::onnx::TensorProto::FLOAT, {"N", "T", 8});
  FfnSearch s = Find(m);
  EXPECT_THAT(s.blocks, IsEmpty());
  EXPECT_THAT(s.refused, ElementsAre(HasSubstr("weight 'W1' is shared with another node")));
}

TEST(FindFfnBlocksTest, RefusesAnActivationThatMixesNeurons) {
  ::onnx::ModelProto m = FfnModel(8);
  for (auto& node : *m.mutable_graph()->mutable_node())
    if (node.name() == "gelu_erf") node.set_op_type("Softmax");  // mixes the neurons of a row
  FfnSearch s = Find(m);
  EXPECT_THAT(s.blocks, IsEmpty());
  EXPECT_THAT(s.refused, ElementsAre(HasSubstr("node 'gelu_erf' (Softmax) inside the activation is not elementwise")));
}

// H [rows, 4] whose column 3 is column 0 plus column 1, with W2's row 3 small: neuron 3 matters least and all it
// carried is in the others, so the refit recovers the output exactly where dropping it alone does not.
TEST(SelectAndRefitTest, RecoversWhatTheKeptNeuronsSpan) {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.5f, 1.0f);
  HiddenMoments moments(4);
  std::vector<float> rows;
  for (int r = 0; r < 300; ++r) {
    float a = dist(rng), b = dist(rng), c = dist(rng);
    rows.insert(rows.end(), {a, b, c, a + b});
  }
  moments.Add(rows);
  EXPECT_EQ(moments.rows(), 300);
  const std::vector<float> w2 = {1, 2, -1, 0.5f, 0.3f, 1, 0.01f, 0.02f};  // [4, 2]
  const std::vector<float> b2 = {0.1f, -0.2f};
  Refit fit = SelectAndRefit(moments.Gram(), w2, 2, b2, 3, 1e-12);
  EXPECT_THAT(fit.kept, ElementsAre(0, 1, 2));
  EXPECT_LT(fit.relative_error, 1e-9);
  EXPECT_GT(fit.relative_error_unrepaired, 1e-6);
  // Neuron 3's weights folded into neurons 0 and 1: W2'[0] = W2[0] + W2[3], W2'[1] = W2[1] + W2[3].
  EXPECT_NEAR(fit.weight[0], 1.01f, 1e-4);
  EXPECT_NEAR(fit.weight[1], 2.02f, 1e-4);
  EXPECT_NEAR(fit.weight[2], -0.99f, 1e-4);
  EXPECT_NEAR(fit.weight[3], 0.52f, 1e-4);
  EXPECT_NEAR(fit.bias[0], 0.1f, 1e-4);
}

TEST(HiddenMomentsTest, SkipsMaskedAndNonFiniteRows) {
  HiddenMoments moments(2);
  const std::vector<float> rows = {1, 2, 3, 4, NAN, 1, 5, 6};
  const std::vector<uint8_t> keep = {1, 0, 1, 1};
  moments.Add(rows, keep);
  EXPECT_EQ(moments.rows(), 2);
  EXPECT_EQ(moments.nonfinite_rows(), 1);
  Eigen::MatrixXd g = moments.Gram();
  EXPECT_DOUBLE_EQ(g(0, 0), 1 + 25);
  EXPECT_DOUBLE_EQ(g(0, 1), 2 + 30);
  EXPECT_DOUBLE_EQ(g(1, 0), 2 + 30);
  EXPECT_DOUBLE_EQ(g(2, 2), 2);  // the constant column counts the rows
}

class PruneModelTest : public ::testing::Test {
 protected:
  std::string WriteData(const std::string& name, bool with_mask) {
    Tensor x = testing::RandomTensor({64, 6, 4}, 5, -2, 2);
    std::vector<NamedTensor> arrays{{"x", x}};
    if (with_mask) {
      Tensor mask = *Tensor::Allocate(DataType::kInt64, {64, 6});
      auto v = mask.mutable_values<int64_t>();
      for (size_t i = 0; i < v.size(); ++i) v[i] = (i % 6) < 4;  // the last two positions of each row are padding
      arrays.push_back({"attention_mask", mask});
    }
    std::string path = dir_.File(name);
    EXPECT_TRUE(WriteNpz(path, arrays, false).ok());
    return path;
  }
  PruneOptions Options(const std::string& data, double ratio, int64_t multiple) {
    PruneOptions o;
    o.ratio = ratio;
    o.keep_multiple = multiple;
    o.calibration_inputs.data_path = data;
    o.calibration_threads = 1;
    o.ridge = 1e-9;
    return o;
  }
  testing::TempDir dir_;
};

TEST_F(PruneModelTest, HalvesABlockWithARedundantHalfAndKeepsItsOutput) {
  const ::onnx::ModelProto source = FfnModel(32, false, true);
  ::onnx::ModelProto pruned = source;
  auto s = PruneModel(&pruned, Options(WriteData("cal.npz", false), 0.5, 8));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->blocks.size(), 1u);
  EXPECT_EQ(s->blocks[0].width, 32);
  EXPECT_EQ(s->blocks[0].kept, 16);
  EXPECT_EQ(s->blocks[0].down_node, "down");
  EXPECT_LT(s->blocks[0].relative_error, 1e-8);
  EXPECT_GT(s->blocks[0].relative_error_unrepaired, 1e-6);
  EXPECT_EQ(s->calibration_rows, 64 * 6);
  EXPECT_EQ(s->row_mask, "");
  EXPECT_EQ(s->weights_before, 4 * 32 + 32 * 4 + 32 + 4);
  EXPECT_EQ(s->weights_after, 4 * 16 + 16 * 4 + 16 + 4);
  EXPECT_THAT(testing::InitializerDims(pruned, "W1"), ElementsAre(4, 16));
  EXPECT_THAT(testing::InitializerDims(pruned, "b1"), ElementsAre(16));
  EXPECT_THAT(testing::InitializerDims(pruned, "W2"), ElementsAre(16, 4));

  const std::string path = dir_.File("pruned.onnx");
  ASSERT_TRUE(SaveAndLoadCheck(pruned, path).ok());
  Tensor probe = testing::RandomTensor({3, 5, 4}, 77, -2, 2);  // rows calibration never saw
  std::string error;
  auto want = testing::RunFirstOutput(dir_.WriteModel("source.onnx", source), probe, &error);
  auto got = testing::RunFirstOutput(path, probe, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_LT(testing::MaxAbsDiff(want, got), 1e-4 * testing::MaxAbs(want));
  bool described = false;
  for (const auto& p : pruned.metadata_props())
    if (p.key() == "hone.prune") described = p.value().find("kept=16/32") != std::string::npos;
  EXPECT_TRUE(described);
}

TEST_F(PruneModelTest, LeavesPaddedPositionsOutOfTheFit) {
  ::onnx::ModelProto m = FfnModel(32, true);
  auto s = PruneModel(&m, Options(WriteData("masked.npz", true), 0.25, 8));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->row_mask, "attention_mask");
  EXPECT_EQ(s->calibration_rows, 64 * 4);
  EXPECT_THAT(s->calibration, HasSubstr("padding left out by 'attention_mask'"));
  EXPECT_EQ(s->blocks.at(0).kept, 24);
}

TEST_F(PruneModelTest, ABlockTooNarrowForTheRoundingIsListedNotPruned) {
  ::onnx::ModelProto m = FfnModel(8);
  auto s = PruneModel(&m, Options(WriteData("cal.npz", false), 0.25, 16));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->blocks, IsEmpty());
  EXPECT_THAT(s->refused, ElementsAre(HasSubstr("8 neurons; keeping a multiple of 16 removes none")));
}

TEST_F(PruneModelTest, BadOptionsAndDataNameTheFault) {
  ::onnx::ModelProto m = FfnModel(32);
  EXPECT_THAT(PruneModel(&m, Options("x.npz", 1.0, 8)).status().message(), HasSubstr("--ratio 1"));
  EXPECT_THAT(PruneModel(&m, Options("x.npz", 0.0, 8)).status().message(), HasSubstr("--ratio 0"));
  EXPECT_THAT(PruneModel(&m, Options("", 0.5, 8)).status().message(), HasSubstr("--calibration-data is required"));
  auto missing = PruneModel(&m, Options(dir_.File("absent.npz"), 0.5, 8));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("absent.npz"));
}

}  // namespace
}  // namespace hone::onnx

namespace hone::onnx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::AttentionBlockModel;

AttentionSearch FindHeads(::onnx::ModelProto m) {
  RewriteScope scope;
  EXPECT_TRUE(BeginRewrite(&m, &scope).ok());
  GraphIndex index(m.graph());
  return FindAttentionBlocks(m.graph(), index);
}

TEST(FindAttentionBlocksTest, FindsTorchsMultiHeadAttention) {
  AttentionSearch s = FindHeads(AttentionBlockModel());
  EXPECT_THAT(s.refused, IsEmpty());
  ASSERT_EQ(s.blocks.size(), 1u);
  const AttentionBlock& b = s.blocks[0];
  EXPECT_EQ(b.heads, 2);
  EXPECT_EQ(b.head_size, 4);
  EXPECT_EQ(b.context, "context");
  EXPECT_EQ(b.out_weight, "Wo");
  EXPECT_EQ(b.out_bias, "bo");
  EXPECT_EQ(b.weights[0], "Wq");
  EXPECT_EQ(b.weights[1], "Wk");
  EXPECT_EQ(b.weights[2], "Wv");
  EXPECT_EQ(b.biases[2], "bv");
  EXPECT_EQ(b.shapes.size(), 4u);  // H in the three reshapes, H*dh in the context's
  // Neither kind of block is mistaken for the other.
  EXPECT_THAT(FindHeads(testing::FfnModel(8)).blocks, IsEmpty());
  EXPECT_THAT(FindHeads(testing::FfnModel(8)).refused, IsEmpty());
  EXPECT_THAT(Find(AttentionBlockModel()).blocks, IsEmpty());
}

TEST(FindAttentionBlocksTest, RefusesProbabilitiesReadOutsideAndAShapeReadAtTheHeads) {
  ::onnx::ModelProto m = AttentionBlockModel();
  testing::SetTensorType(m.mutable_graph()->add_output(), "probs", ::onnx::TensorProto::FLOAT, {"N", 2, "T", "T"});
  AttentionSearch s = FindHeads(m);
  EXPECT_THAT(s.blocks, IsEmpty());
  EXPECT_THAT(s.refused, ElementsAre(AllOf(HasSubstr("'out_proj' (MatMul)"), HasSubstr("'probs'"),
                                           HasSubstr("graph output"))));
  // A Gather of the heads' dimension would see it change.
  m = AttentionBlockModel();
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() == "c_it") {  // the context's sequence index, read from av_t [N, T, 2, 4]: now dimension 2, the heads
      int64_t two = 2;
      t.set_raw_data(std::string(reinterpret_cast<const char*>(&two), 8));
    }
  s = FindHeads(m);
  EXPECT_THAT(s.blocks, IsEmpty());
  EXPECT_THAT(s.refused, ElementsAre(HasSubstr("also read by 'c_shape' (Shape)")));
}

// The scores' Add of a mask, written mask first: the walk follows the side that comes from Q K^T.
TEST(FindAttentionBlocksTest, FollowsTheScoresWhicheverSideOfTheMaskTheyAreOn) {
  ::onnx::ModelProto m = AttentionBlockModel();
  auto* g = m.mutable_graph();
  testing::SetTensorType(g->add_input(), "mask", ::onnx::TensorProto::FLOAT, {"N", 1, 1, "T"});
  testing::AddNode(g, "Mul", {"mask", "scale"}, {"mask_scaled"})->set_name("mask_mul");
  testing::AddNode(g, "Add", {"mask_scaled", "scaled"}, {"masked"})->set_name("mask_add");
  for (auto& node : *g->mutable_node())
    if (node.name() == "softmax") node.set_input(0, "masked");
  ASSERT_TRUE(SortTopologically(g).ok());
  AttentionSearch s = FindHeads(m);
  EXPECT_THAT(s.refused, IsEmpty());
  EXPECT_EQ(s.blocks.size(), 1u);
}

// A bias per head joined to the scores (relative positions, ALiBi) would lose its pruned heads' rows: refused.
TEST(FindAttentionBlocksTest, RefusesATermThatDiffersBetweenHeads) {
  ::onnx::ModelProto m = AttentionBlockModel();
  auto* g = m.mutable_graph();
  testing::AddRandomInitializer(g, "head_bias", {1, 2, 1, 1}, 71);
  testing::AddNode(g, "Add", {"scaled", "head_bias"}, {"biased"})->set_name("bias_add");
  for (auto& node : *g->mutable_node())
    if (node.name() == "softmax") node.set_input(0, "biased");
  ASSERT_TRUE(SortTopologically(g).ok());
  AttentionSearch s = FindHeads(m);
  EXPECT_THAT(s.blocks, IsEmpty());
  EXPECT_THAT(s.refused, ElementsAre(HasSubstr("'head_bias', joined to the scores by 'bias_add' (Add), differs "
                                               "between heads")));
}

TEST_F(PruneModelTest, RemovesADuplicateHeadAndKeepsTheOutputAtAnotherLength) {
  const ::onnx::ModelProto source = AttentionBlockModel(true);
  ::onnx::ModelProto pruned = source;
  PruneOptions o = Options(WriteData("cal.npz", false), 0, 8);
  o.head_ratio = 0.5;
  // The data's x is [64, 6, 4]; this model takes [N, T, 8].
  Tensor x = testing::RandomTensor({64, 6, 8}, 5, -2, 2);
  std::vector<NamedTensor> arrays{{"x", x}};
  ASSERT_TRUE(WriteNpz(dir_.File("cal8.npz"), arrays, false).ok());
  o.calibration_inputs.data_path = dir_.File("cal8.npz");
  auto s = PruneModel(&pruned, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->blocks.size(), 1u) << (s->refused.empty() ? "" : s->refused[0]);
  EXPECT_EQ(s->blocks[0].unit, PrunedUnit::kHead);
  EXPECT_EQ(s->blocks[0].width, 2);
  EXPECT_EQ(s->blocks[0].kept, 1);
  EXPECT_EQ(s->blocks[0].up_node, "q_proj");
  EXPECT_EQ(s->blocks[0].down_node, "out_proj");
  EXPECT_LT(s->blocks[0].relative_error, 1e-8);
  EXPECT_THAT(testing::InitializerDims(pruned, "Wq"), ElementsAre(8, 4));
  EXPECT_THAT(testing::InitializerDims(pruned, "bk"), ElementsAre(4));
  EXPECT_THAT(testing::InitializerDims(pruned, "Wo"), ElementsAre(4, 8));
  const std::string path = dir_.File("heads.onnx");
  ASSERT_TRUE(SaveAndLoadCheck(pruned, path).ok());
  Tensor probe = testing::RandomTensor({3, 9, 8}, 78, -2, 2);  // a sequence length calibration never saw
  std::string error;
  auto want = testing::RunFirstOutput(dir_.WriteModel("source.onnx", source), probe, &error);
  auto got = testing::RunFirstOutput(path, probe, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_LT(testing::MaxAbsDiff(want, got), 1e-4 * testing::MaxAbs(want));
}

// Q, K and V reshaped by one shared Concat (as common-subexpression elimination leaves them): it is rewritten once.
TEST_F(PruneModelTest, RewritesAShapeQKAndVShareOnce) {
  ::onnx::ModelProto source = AttentionBlockModel(true);
  for (auto& node : *source.mutable_graph()->mutable_node())
    if (node.name() == "k_reshape" || node.name() == "v_reshape") node.set_input(1, "q_shape4");
  ::onnx::ModelProto pruned = source;
  Tensor x = testing::RandomTensor({64, 6, 8}, 5, -2, 2);
  std::vector<NamedTensor> arrays{{"x", x}};
  ASSERT_TRUE(WriteNpz(dir_.File("shared.npz"), arrays, false).ok());
  PruneOptions o = Options(dir_.File("shared.npz"), 0, 8);
  o.head_ratio = 0.5;
  auto s = PruneModel(&pruned, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->blocks.size(), 1u) << (s->refused.empty() ? "" : s->refused[0]);
  const std::string path = dir_.File("shared.onnx");
  ASSERT_TRUE(SaveAndLoadCheck(pruned, path).ok());
  Tensor probe = testing::RandomTensor({2, 7, 8}, 79, -2, 2);
  std::string error;
  auto want = testing::RunFirstOutput(dir_.WriteModel("shared_source.onnx", source), probe, &error);
  auto got = testing::RunFirstOutput(path, probe, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_LT(testing::MaxAbsDiff(want, got), 1e-4 * testing::MaxAbs(want));
}

}  // namespace
}  // namespace hone::onnx
