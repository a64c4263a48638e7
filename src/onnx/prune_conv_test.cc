// Pruning a CNN's Conv channels: finding them (and refusing what cannot be pruned safely), the im2col rows the next
// Conv is refitted on, and the whole rewrite run in ONNX Runtime; and a classifier's Gemm, Relu, Gemm hidden layer
// as a feed-forward block.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/graph_builder.h"
#include "onnx/graph_io.h"
#include "onnx/graph_rewrite.h"
#include "onnx/onnx_pb.h"
#include "onnx/prune.h"
#include "onnx/prune_conv_channels.h"
#include "onnx/prune_patches.h"
#include "onnx/prune_test_models.h"
#include "tensor/npz.h"

namespace hone::onnx {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::CnnModel;

ConvChannelSearch FindChannels(::onnx::ModelProto m) {
  RewriteScope scope;
  EXPECT_TRUE(BeginRewrite(&m, &scope).ok());
  GraphIndex index(m.graph());
  return FindConvChannelBlocks(m.graph(), index);
}


::onnx::NodeProto* Node(::onnx::ModelProto& m, const std::string& name) {
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.name() == name) return &n;
  return nullptr;
}

TEST(FindConvChannelBlocksTest, FollowsBothConvsOfACnnToTheLayerThatReadsThem) {
  ConvChannelSearch s = FindChannels(CnnModel(8, 6));
  EXPECT_THAT(s.refused, IsEmpty());
  ASSERT_EQ(s.blocks.size(), 2u);
  const ConvChannelBlock& a = s.blocks[0];
  ASSERT_EQ(a.writers.size(), 1u);
  EXPECT_EQ(a.writers[0].weight, "w1");
  EXPECT_EQ(a.writers[0].bias, "b1");
  EXPECT_EQ(a.channels, 8);
  EXPECT_THAT(a.per_channel, ElementsAre("bn_scale", "bn_bias", "bn_mean", "bn_var"));
  ASSERT_EQ(a.readers.size(), 1u);
  const ChannelReaderLayer& ra = a.readers[0];
  EXPECT_EQ(ra.value, "p1");  // after the BatchNormalization, the Relu and the MaxPool
  EXPECT_EQ(ra.kind, ChannelReader::kConv);
  EXPECT_EQ(ra.weight, "w2");
  EXPECT_EQ(ra.bias, "");
  EXPECT_EQ(ra.window.kernel_h, 3);
  EXPECT_EQ(ra.window.pads[0], 1);
  EXPECT_EQ(ra.group(), 9);
  const ConvChannelBlock& b = s.blocks[1];
  EXPECT_EQ(b.channels, 6);
  ASSERT_EQ(b.readers.size(), 1u);
  const ChannelReaderLayer& rb = b.readers[0];
  EXPECT_EQ(rb.value, "r2");
  EXPECT_EQ(rb.kind, ChannelReader::kFlattenLinear);
  EXPECT_EQ(rb.spatial, 16);
  EXPECT_EQ(rb.linear.weight, "g");
  EXPECT_EQ(rb.linear.bias, "gb");
  EXPECT_TRUE(rb.linear.transposed);
}

TEST(FindConvChannelBlocksTest, AResidualStreamIsOneGroupOfItsWritersAndReaders) {
  ConvChannelSearch s = FindChannels(testing::ResidualModel());
  EXPECT_THAT(s.refused, IsEmpty());
  ASSERT_EQ(s.blocks.size(), 2u);
  // The stream: the stem and the block's last Conv write it; the block's first Conv and the head read it.
  const ConvChannelBlock& stream = s.blocks[0];
  ASSERT_EQ(stream.writers.size(), 2u);
  EXPECT_EQ(stream.writers[0].weight, "stem_w");
  EXPECT_EQ(stream.writers[1].weight, "b_w");
  ASSERT_EQ(stream.readers.size(), 2u);
  EXPECT_EQ(stream.readers[0].weight, "a_w");
  EXPECT_EQ(stream.readers[0].value, "s");
  EXPECT_EQ(stream.readers[1].kind, ChannelReader::kFlattenLinear);
  EXPECT_EQ(stream.readers[1].value, "out");
  // The block's inner channels: its first Conv writes them, its last reads them.
  const ConvChannelBlock& inner = s.blocks[1];
  ASSERT_EQ(inner.writers.size(), 1u);
  EXPECT_EQ(inner.writers[0].weight, "a_w");
  ASSERT_EQ(inner.readers.size(), 1u);
  EXPECT_EQ(inner.readers[0].weight, "b_w");
}

TEST(FindConvChannelBlocksTest, RefusesWhatMixesChannelsByName) {
  // Channels joined with the graph's input: nothing to remove them from there.
  ::onnx::ModelProto m = CnnModel();
  Node(m, "relu1")->set_input(0, "joined");
  testing::AddNode(m.mutable_graph(), "Add", {"n1", "x"}, {"joined"})->set_name("residual");
  ConvChannelSearch s = FindChannels(m);
  EXPECT_THAT(s.refused, ElementsAre(AllOf(HasSubstr("'conv1' (Conv)"), HasSubstr("the graph input 'x'"))));

  // A Concat moves the channels to other places.
  m = CnnModel();
  testing::AddNode(m.mutable_graph(), "Concat", {"r1", "r1"}, {"cat"})->set_name("cat");
  s = FindChannels(m);
  EXPECT_THAT(s.refused, ElementsAre(AllOf(HasSubstr("'conv1' (Conv)"), HasSubstr("reach 'cat' (Concat)"))));

  // A spatial attention map (one channel) multiplied into the channels is not the same channels: refused, not
  // followed as a join.
  m = CnnModel();
  testing::AddRandomInitializer(m.mutable_graph(), "att_w", {1, 8, 1, 1}, 121);
  testing::AddNode(m.mutable_graph(), "Conv", {"r1", "att_w"}, {"att"})->set_name("att_conv");
  testing::AddNode(m.mutable_graph(), "Mul", {"r1", "att"}, {"gated"})->set_name("gate");
  Node(m, "pool1")->set_input(0, "gated");
  s = FindChannels(m);
  EXPECT_THAT(s.refused, ::testing::Contains(AllOf(HasSubstr("'conv1' (Conv)"), HasSubstr("'att_conv' (Conv)"))));

  // A grouped Conv cannot lose output channels on its own; the Conv before it cannot lose what it reads.
  m = CnnModel(8, 8);
  testing::IntAttribute(Node(m, "conv2"), "group", 2);
  s = FindChannels(m);
  EXPECT_THAT(s.blocks, IsEmpty());
  EXPECT_THAT(s.refused, ElementsAre(HasSubstr("'conv1' (Conv): the next Conv 'conv2' (Conv) is grouped"),
                                     HasSubstr("'conv2' (Conv): group 2")));

  // MaxPool's indices mix the channels' positions into one number.
  m = CnnModel();
  Node(m, "pool1")->add_output("indices");
  testing::SetTensorType(m.mutable_graph()->add_output(), "indices", ::onnx::TensorProto::INT64, {"N", 8, 4, 4});
  s = FindChannels(m);
  EXPECT_THAT(s.refused, ElementsAre(HasSubstr("'pool1' (MaxPool): its indices output is read")));

  // The channels reaching a graph output.
  m = CnnModel();
  testing::SetTensorType(m.mutable_graph()->add_output(), "r2", ::onnx::TensorProto::FLOAT, {"N", 8, 4, 4});
  s = FindChannels(m);
  EXPECT_THAT(s.refused, ElementsAre(HasSubstr("'conv2' (Conv): its channels reach the graph output 'r2'")));
}

TEST(ConvPatchesTest, PatchesTimesTheWeightIsTheConv) {
  const int64_t n = 2, c = 3, h = 5, w = 6, cout = 4;
  ConvWindow k;
  k.kernel_h = 3, k.kernel_w = 2, k.stride_h = 2, k.stride_w = 1, k.dilation_h = 1, k.dilation_w = 2;
  k.pads = {1, 0, 1, 1};
  const auto x = testing::RandomValues(static_cast<size_t>(n * c * h * w), 3);
  const auto wt = testing::RandomValues(static_cast<size_t>(cout * c * 3 * 2), 4);
  const std::vector<float> rows = ConvPatches(x, n, c, h, w, k);
  const int64_t out_h = (h + 2 - 3) / 2 + 1, out_w = (w + 1 - 3) / 1 + 1, width = c * 6;
  ASSERT_EQ(rows.size(), static_cast<size_t>(n * out_h * out_w * width));
  for (int64_t s = 0; s < n; ++s)
    for (int64_t oy = 0; oy < out_h; ++oy)
      for (int64_t ox = 0; ox < out_w; ++ox)
        for (int64_t o = 0; o < cout; ++o) {
          double direct = 0, product = 0;
          for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t i = 0; i < 3; ++i)
              for (int64_t j = 0; j < 2; ++j) {
                const int64_t y = oy * 2 - 1 + i, xx = ox - 0 + j * 2;
                const double weight = wt[static_cast<size_t>(((o * c + ch) * 3 + i) * 2 + j)];
                if (y >= 0 && y < h && xx >= 0 && xx < w) direct += weight * x[static_cast<size_t>(((s * c + ch) * h + y) * w + xx)];
                product += weight * rows[static_cast<size_t>(((s * out_h + oy) * out_w + ox) * width + (ch * 3 + i) * 2 + j)];
              }
          ASSERT_NEAR(direct, product, 1e-5);
        }
  k.kernel_h = 9;  // taller than the padded image
  EXPECT_THAT(ConvPatches(x, n, c, h, w, k), IsEmpty());
}

class PruneConvTest : public ::testing::Test {
 protected:
  std::string WriteImages(const std::string& name, int64_t samples = 192) {
    // More samples than the Gemm after the Flatten has columns (8 channels x 16): fewer would let the refit match
    // the calibration rows exactly and nothing else.
    std::vector<NamedTensor> arrays{{"x", testing::RandomTensor({samples, 1, 8, 8}, 9, -1, 1)}};
    std::string path = dir_.File(name);
    EXPECT_TRUE(WriteNpz(path, arrays, false).ok());
    return path;
  }
  PruneOptions Options(const std::string& data, double ratio, int64_t channel_multiple) {
    PruneOptions o;
    o.ratio = ratio;
    o.channel_multiple = channel_multiple;
    o.calibration_inputs.data_path = data;
    o.calibration_threads = 1;
    o.ridge = 1e-9;
    return o;
  }
  void ExpectSameOutputs(const ::onnx::ModelProto& source, const ::onnx::ModelProto& pruned, Shape probe_shape,
                         double tolerance) {
    const std::string path = dir_.File("pruned.onnx");
    ASSERT_TRUE(SaveAndLoadCheck(pruned, path).ok());
    Tensor probe = testing::RandomTensor(probe_shape, 77, -1, 1);  // inputs calibration never saw
    std::string error;
    auto want = testing::RunFirstOutput(dir_.WriteModel("source.onnx", source), probe, &error);
    auto got = testing::RunFirstOutput(path, probe, &error);
    ASSERT_TRUE(error.empty()) << error;
    EXPECT_LT(testing::MaxAbsDiff(want, got), tolerance * testing::MaxAbs(want));
  }
  testing::TempDir dir_;
};

TEST_F(PruneConvTest, HalvesEachConvOfARedundantCnnAndKeepsItsOutput) {
  const ::onnx::ModelProto source = CnnModel(8, 8, true);
  ::onnx::ModelProto pruned = source;
  auto s = PruneModel(&pruned, Options(WriteImages("cal.npz"), 0.5, 2));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->refused, IsEmpty());
  ASSERT_EQ(s->blocks.size(), 2u);
  for (const auto& b : s->blocks) {
    EXPECT_EQ(b.unit, PrunedUnit::kChannel);
    EXPECT_EQ(b.width, 8);
    EXPECT_EQ(b.kept, 4);
    EXPECT_LT(b.relative_error, 1e-7) << b.up_node;
    EXPECT_GT(b.relative_error_unrepaired, 1e-4) << b.up_node;
  }
  EXPECT_EQ(s->blocks[0].up_node, "conv1");
  EXPECT_EQ(s->blocks[0].down_node, "conv2");
  EXPECT_EQ(s->blocks[1].down_node, "fc");
  EXPECT_THAT(testing::InitializerDims(pruned, "w1"), ElementsAre(4, 1, 3, 3));
  EXPECT_THAT(testing::InitializerDims(pruned, "b1"), ElementsAre(4));
  EXPECT_THAT(testing::InitializerDims(pruned, "bn_var"), ElementsAre(4));
  EXPECT_THAT(testing::InitializerDims(pruned, "w2"), ElementsAre(4, 4, 3, 3));  // both blocks' edits: outputs and inputs
  EXPECT_THAT(testing::InitializerDims(pruned, "g"), ElementsAre(10, 4 * 16));
  // conv2 had no bias; the refit's intercept became one.
  const ::onnx::NodeProto* conv2 = Node(pruned, "conv2");
  ASSERT_EQ(conv2->input_size(), 3);
  EXPECT_THAT(testing::InitializerDims(pruned, conv2->input(2)), ElementsAre(4));
  EXPECT_EQ(s->weights_before, 8 * 9 + 8 + 4 * 8 + 8 * 8 * 9 + 10 * 128 + 10);
  EXPECT_EQ(s->weights_after, 4 * 9 + 4 + 4 * 4 + 4 * 4 * 9 + 4 + 10 * 64 + 10);
  ExpectSameOutputs(source, pruned, {5, 1, 8, 8}, 1e-4);
  bool described = false;
  for (const auto& p : pruned.metadata_props())
    if (p.key() == "hone.prune") described = p.value().find("conv-channels: ratio=0.5 multiple=2 kept=8/16") != std::string::npos;
  EXPECT_TRUE(described);
}

// A residual stream with a redundant half: its channels go from the stem and the block's last Conv alike, the
// block's first Conv and the head are refitted over the same kept channels, and the output is unchanged.
TEST_F(PruneConvTest, HalvesAResidualStreamAndTheBlockInsideIt) {
  const ::onnx::ModelProto source = testing::ResidualModel(true);
  ::onnx::ModelProto pruned = source;
  // More samples than the head keeps columns (4 channels x 64).
  auto s = PruneModel(&pruned, Options(WriteImages("cal.npz", 640), 0.5, 2));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->refused, IsEmpty());
  ASSERT_EQ(s->blocks.size(), 2u);
  EXPECT_EQ(s->blocks[0].up_node, "stem (+1 Convs writing the same channels)");
  EXPECT_EQ(s->blocks[0].down_node, "a (+1 more reading them)");
  for (const auto& b : s->blocks) {
    EXPECT_EQ(b.kept, 4);
    EXPECT_LT(b.relative_error, 1e-7) << b.up_node;
  }
  EXPECT_THAT(testing::InitializerDims(pruned, "stem_w"), ElementsAre(4, 1, 3, 3));
  EXPECT_THAT(testing::InitializerDims(pruned, "a_w"), ElementsAre(4, 4, 3, 3));
  EXPECT_THAT(testing::InitializerDims(pruned, "b_w"), ElementsAre(4, 4, 3, 3));
  EXPECT_THAT(testing::InitializerDims(pruned, "head_w"), ElementsAre(10, 4 * 64));
  ExpectSameOutputs(source, pruned, {5, 1, 8, 8}, 1e-4);
}

// MobileNet's pattern: a depthwise Conv between the Conv that writes the channels and the one that reads them is
// channelwise; its filters and bias entries go with the channels.
TEST_F(PruneConvTest, ADepthwiseConvOnTheWayLosesTheSameChannels) {
  ::onnx::ModelProto source = CnnModel(8, 8, true);
  auto* g = source.mutable_graph();
  std::vector<float> dw = testing::RandomValues(8 * 9, 101), dwb = testing::RandomValues(8, 102, -0.2f, 0.2f);
  for (int c = 4; c < 8; ++c) {
    for (int j = 0; j < 9; ++j) dw[static_cast<size_t>(c * 9 + j)] = dw[static_cast<size_t>((c - 4) * 9 + j)];
    dwb[static_cast<size_t>(c)] = dwb[static_cast<size_t>(c - 4)];
  }
  testing::SetValues(testing::AddRandomInitializer(g, "dw_w", {8, 1, 3, 3}, 101), dw);
  testing::SetValues(testing::AddRandomInitializer(g, "dw_b", {8}, 102), dwb);
  auto* depthwise = testing::AddNode(g, "Conv", {"r1", "dw_w", "dw_b"}, {"d1"});
  depthwise->set_name("depthwise");
  testing::IntsAttribute(depthwise, "pads", {1, 1, 1, 1});
  testing::IntAttribute(depthwise, "group", 8);
  Node(source, "pool1")->set_input(0, "d1");
  ConvChannelSearch found = FindChannels(source);
  EXPECT_THAT(found.refused, IsEmpty());
  ASSERT_EQ(found.blocks.size(), 2u);
  EXPECT_THAT(found.blocks[0].per_channel, ::testing::Contains("dw_w"));

  ::onnx::ModelProto pruned = source;
  auto s = PruneModel(&pruned, Options(WriteImages("cal.npz"), 0.5, 2));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->blocks.size(), 2u);
  EXPECT_THAT(testing::InitializerDims(pruned, "dw_w"), ElementsAre(4, 1, 3, 3));
  EXPECT_THAT(testing::InitializerDims(pruned, "dw_b"), ElementsAre(4));
  EXPECT_EQ(IntAttr(*Node(pruned, "depthwise"), "group", 0), 4);  // the group count follows the channels
  ExpectSameOutputs(source, pruned, {5, 1, 8, 8}, 1e-4);
}

TEST_F(PruneConvTest, ChannelsRoundToTheMultipleAndTheDefaultIsThisCpusBlock) {
  ::onnx::ModelProto m = CnnModel(8, 8);
  auto s = PruneModel(&m, Options(WriteImages("cal.npz"), 0.25, 8));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->blocks, IsEmpty());
  EXPECT_THAT(s->refused, ElementsAre(HasSubstr("'conv1' (Conv): 8 output channels; keeping a multiple of 8 removes none"),
                                      HasSubstr("'conv2' (Conv): 8 output channels")));
  PruneOptions o;
  EXPECT_EQ(o.ChannelMultiple(), ChannelBlock());
  EXPECT_TRUE(ChannelBlock() == 8 || ChannelBlock() == 16);
  o.channel_multiple = -1;
  o.calibration_inputs.data_path = "x.npz";
  EXPECT_THAT(o.Validate().message(), HasSubstr("--channel-multiple"));
}

TEST_F(PruneConvTest, RefitsWhatRemovingChannelsLosesWhenNoneIsRedundant) {
  const ::onnx::ModelProto source = CnnModel(8, 8, false);
  ::onnx::ModelProto pruned = source;
  auto s = PruneModel(&pruned, Options(WriteImages("cal.npz"), 0.25, 2));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->blocks.size(), 2u);
  for (const auto& b : s->blocks) {
    EXPECT_EQ(b.kept, 6);
    EXPECT_GT(b.relative_error, 0);
    EXPECT_LT(b.relative_error, b.relative_error_unrepaired) << b.up_node;
  }
}

// A classifier's hidden layer: Gemm (transB), Relu, Gemm (transB) is a feed-forward block with its weights stored
// [out, in].
::onnx::ModelProto GemmMlp() {
  auto m = testing::EmptyModel("mlp");
  auto* g = m.mutable_graph();
  testing::SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 6});
  testing::SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 3});
  testing::AddRandomInitializer(g, "W1", {16, 6}, 81);
  testing::AddRandomInitializer(g, "b1", {16}, 82, 0.5f);
  testing::AddRandomInitializer(g, "W2", {3, 16}, 83);
  testing::AddRandomInitializer(g, "b2", {3}, 84, 0.5f);
  testing::IntAttribute(testing::AddNode(g, "Gemm", {"x", "W1", "b1"}, {"u"}), "transB", 1);
  g->mutable_node(0)->set_name("up");
  testing::AddNode(g, "Relu", {"u"}, {"h"})->set_name("relu");
  testing::IntAttribute(testing::AddNode(g, "Gemm", {"h", "W2", "b2"}, {"y"}), "transB", 1);
  g->mutable_node(2)->set_name("down");
  return m;
}

TEST_F(PruneConvTest, AGemmReluGemmHiddenLayerLosesNeurons) {
  const ::onnx::ModelProto source = GemmMlp();
  ::onnx::ModelProto pruned = source;
  PruneOptions o = Options("", 0.5, 0);
  o.keep_multiple = 4;
  std::vector<NamedTensor> arrays{{"x", testing::RandomTensor({200, 6}, 9, -1, 1)}};
  o.calibration_inputs.data_path = dir_.File("mlp.npz");
  ASSERT_TRUE(WriteNpz(o.calibration_inputs.data_path, arrays, false).ok());
  auto s = PruneModel(&pruned, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->blocks.size(), 1u);
  EXPECT_EQ(s->blocks[0].unit, PrunedUnit::kNeuron);
  EXPECT_EQ(s->blocks[0].kept, 8);
  EXPECT_LT(s->blocks[0].relative_error, s->blocks[0].relative_error_unrepaired);
  EXPECT_THAT(testing::InitializerDims(pruned, "W1"), ElementsAre(8, 6));  // rows: Gemm's weight is [out, in]
  EXPECT_THAT(testing::InitializerDims(pruned, "b1"), ElementsAre(8));
  EXPECT_THAT(testing::InitializerDims(pruned, "W2"), ElementsAre(3, 8));
  ExpectSameOutputs(source, pruned, {4, 6}, 1.0);  // runs; the refit's closeness is the relative error above

  // A Gemm that scales its product is not y = x W + b: not followed.
  ::onnx::ModelProto scaled = GemmMlp();
  SetFloatAttr(Node(scaled, "down"), "alpha", 2.0f);
  pruned = scaled;
  s = PruneModel(&pruned, o);
  ASSERT_TRUE(s.ok());
  EXPECT_THAT(s->blocks, IsEmpty());
}

}  // namespace
}  // namespace hone::onnx

namespace hone::onnx {
namespace {

// Two feed-forward blocks in a row, the first with a redundant half (its neurons 8..15 repeat 0..7, their W2 rows a
// hundredth), the second without: --allocation global takes the removals from the first, uniform from both.
::onnx::ModelProto TwoBlocks() {
  auto m = testing::EmptyModel("two");
  auto* g = m.mutable_graph();
  testing::SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 4});
  testing::SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 4});
  auto w1 = testing::RandomValues(4 * 16, 111), w2 = testing::RandomValues(16 * 4, 112);
  for (int r = 0; r < 4; ++r)
    for (int j = 8; j < 16; ++j) w1[static_cast<size_t>(r * 16 + j)] = w1[static_cast<size_t>(r * 16 + j - 8)];
  for (int j = 8; j < 16; ++j)
    for (int o = 0; o < 4; ++o) w2[static_cast<size_t>(j * 4 + o)] = 0.01f * w2[static_cast<size_t>((j - 8) * 4 + o)];
  testing::SetValues(testing::AddRandomInitializer(g, "A1", {4, 16}, 111), w1);
  testing::SetValues(testing::AddRandomInitializer(g, "A2", {16, 4}, 112), w2);
  testing::AddRandomInitializer(g, "B1", {4, 16}, 113);
  testing::AddRandomInitializer(g, "B2", {16, 4}, 114);
  testing::AddNode(g, "MatMul", {"x", "A1"}, {"a"})->set_name("a_up");
  testing::AddNode(g, "Relu", {"a"}, {"ar"})->set_name("a_relu");
  testing::AddNode(g, "MatMul", {"ar", "A2"}, {"h"})->set_name("a_down");
  testing::AddNode(g, "MatMul", {"h", "B1"}, {"b"})->set_name("b_up");
  testing::AddNode(g, "Relu", {"b"}, {"br"})->set_name("b_relu");
  testing::AddNode(g, "MatMul", {"br", "B2"}, {"y"})->set_name("b_down");
  return m;
}

TEST(PruneAllocationTest, GlobalTakesTheRemovalsWhereTheyCostLeast) {
  testing::TempDir dir;
  const std::string data = dir.File("x.npz");
  std::vector<NamedTensor> arrays{{"x", testing::RandomTensor({256, 4}, 7, -1, 1)}};
  ASSERT_TRUE(WriteNpz(data, arrays, false).ok());
  PruneOptions o;
  o.ratio = 0.25;
  o.keep_multiple = 4;
  o.calibration_inputs.data_path = data;
  o.calibration_threads = 1;
  ::onnx::ModelProto uniform = TwoBlocks(), global = TwoBlocks();
  auto u = PruneModel(&uniform, o);
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  ASSERT_EQ(u->blocks.size(), 2u);
  EXPECT_EQ(u->blocks[0].kept, 12);
  EXPECT_EQ(u->blocks[1].kept, 12);
  o.allocation = PruneOptions::Allocation::kGlobal;
  auto g = PruneModel(&global, o);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->blocks.size(), 1u);
  EXPECT_EQ(g->blocks[0].down_node, "a_down");
  EXPECT_EQ(g->blocks[0].kept, 8);  // the redundant half goes; the same total, 24 of 32
  EXPECT_LT(g->blocks[0].relative_error, 1e-4);
  EXPECT_THAT(g->refused, ::testing::Contains(HasSubstr("'b_down' (MatMul): --allocation global keeps all 16 neurons")));
  bool described = false;
  for (const auto& p : global.metadata_props())
    if (p.key() == "hone.prune") described = p.value().find("allocation=global") != std::string::npos;
  EXPECT_TRUE(described);
}

}  // namespace
}  // namespace hone::onnx
