// Opset upgrades: UpgradeOpset itself, and the passes that upgrade instead of refusing an old model (dynamic and
// static quantization of an opset-9 model whose weights are Constant nodes, as Paddle exports; BF16 conversion).
#include "onnx/opset_convert.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/convert.h"
#include "onnx/graph_index.h"
#include "onnx/graph_rewrite.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize.h"
#include "onnx/subgraph_test_models.h"
#include "tensor/npz.h"

namespace hone::onnx {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

TEST(UpgradeOpsetTest, UpgradesAndKeepsTheModelsMetadata) {
  ::onnx::ModelProto m = testing::Opset9ConstantModel();
  m.set_producer_name("paddle2onnx");
  auto* prop = m.add_metadata_props();
  prop->set_key("k");
  prop->set_value("v");
  auto u = UpgradeOpset(&m, 13, "per-channel QDQ");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_TRUE(u->upgraded());
  EXPECT_EQ(u->Describe(), "upgraded opset 9 -> 13 for per-channel QDQ");
  EXPECT_EQ(OpsetVersion(m, ""), 13);
  EXPECT_EQ(m.producer_name(), "paddle2onnx");
  ASSERT_EQ(m.metadata_props_size(), 1);
  EXPECT_EQ(m.metadata_props(0).value(), "v");
}

TEST(UpgradeOpsetTest, ANewEnoughModelIsLeftAlone) {
  ::onnx::ModelProto m = testing::MatMulModel();  // opset 17
  const std::string before = m.SerializeAsString();
  auto u = UpgradeOpset(&m, 13, "QDQ");
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(u->upgraded());
  EXPECT_EQ(u->Describe(), "");
  EXPECT_EQ(m.SerializeAsString(), before);
}

TEST(UpgradeOpsetTest, AModelWithoutAnAiOnnxOpsetIsAnError) {
  ::onnx::ModelProto m = testing::MatMulModel();
  m.mutable_opset_import(0)->set_domain("com.example");
  auto u = UpgradeOpset(&m, 13, "QDQ");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().code(), StatusCode::kInvalidArgument);
}

class OldOpsetQuantizeTest : public ::testing::Test {
 protected:
  // Quantizes the opset-9 model, checks it loads and stays within `tolerance` of the float model; the summary.
  QuantizeSummary QuantizeAndCompare(const QuantizeOptions& o, double tolerance) {
    const ::onnx::ModelProto source = testing::Opset9ConstantModel();
    ::onnx::ModelProto m = source;
    auto s = QuantizeModel(&m, o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return {};
    const std::string path = dir_.File("q.onnx");
    Status saved = SaveAndLoadCheck(m, path);
    EXPECT_TRUE(saved.ok()) << saved.ToString();
    std::string error;
    Tensor x = testing::RandomTensor({4, 8}, 3, -1, 1);
    auto reference = testing::RunNamed(dir_.WriteModel("float.onnx", source), {x}, &error);
    auto quantized = testing::RunNamed(path, {x}, &error);
    EXPECT_TRUE(error.empty()) << error;
    EXPECT_EQ(reference.size(), 16u);
    EXPECT_LE(testing::MaxAbsDiff(reference, quantized), tolerance * testing::MaxAbs(reference));
    return *s;
  }

  testing::TempDir dir_;
};

TEST_F(OldOpsetQuantizeTest, DynamicUpgradesOpset9To11) {
  QuantizeOptions o;
  o.mode = QuantizeMode::kDynamic;
  QuantizeSummary s = QuantizeAndCompare(o, 0.05);
  EXPECT_EQ(s.opset_upgrade.Describe(), "upgraded opset 9 -> 11 for DynamicQuantizeLinear");
  EXPECT_EQ(s.quantized.size(), 2u);  // fc1 (MatMul) and fc2 (Gemm), weights from Constant nodes
}

TEST_F(OldOpsetQuantizeTest, StaticPerChannelUpgradesOpset9To13) {
  std::vector<NamedTensor> arrays{{"x", testing::RandomTensor({64, 8}, 99, -1, 1)}};
  const std::string data = dir_.File("calibration.npz");
  ASSERT_TRUE(WriteNpz(data, arrays, false).ok());
  QuantizeOptions o;
  o.mode = QuantizeMode::kStatic;
  o.calibration_inputs.data_path = data;
  o.calibration_threads = 1;
  QuantizeSummary s = QuantizeAndCompare(o, 0.08);
  EXPECT_EQ(s.opset_upgrade.Describe(), "upgraded opset 9 -> 13 for per-channel QDQ");
  EXPECT_EQ(s.quantized.size(), 2u);
}

TEST_F(OldOpsetQuantizeTest, StaticPerTensorNeedsOnly10) {
  std::vector<NamedTensor> arrays{{"x", testing::RandomTensor({64, 8}, 98, -1, 1)}};
  const std::string data = dir_.File("calibration.npz");
  ASSERT_TRUE(WriteNpz(data, arrays, false).ok());
  QuantizeOptions o;
  o.mode = QuantizeMode::kStatic;
  o.per_channel = false;
  o.calibration_inputs.data_path = data;
  o.calibration_threads = 1;
  QuantizeSummary s = QuantizeAndCompare(o, 0.08);
  EXPECT_EQ(s.opset_upgrade.Describe(), "upgraded opset 9 -> 10 for QDQ");
}

TEST(OldOpsetConvertTest, Bf16UpgradesTo13AndConvertsOnlyWhatTheCpuRuns) {
  testing::TempDir dir;
  // x -> MatMul(W) -> Transpose -> y at opset 11: BF16 is in neither op's type constraints before 13, and the CPU
  // provider has a BF16 Transpose but no BF16 MatMul.
  auto source = testing::EmptyModel("bf16", 11);
  auto* g = source.mutable_graph();
  testing::SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 8});
  testing::SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {4, "N"});
  testing::AddRandomInitializer(g, "W", {8, 4}, 61);
  testing::AddNode(g, "MatMul", {"x", "W"}, {"h"})->set_name("mm");
  testing::AddNode(g, "Transpose", {"h"}, {"y"})->set_name("tr");
  ::onnx::ModelProto m = source;
  ConvertOptions o;
  o.to = LowPrecision::kBf16;
  auto s = ConvertModel(&m, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->opset_upgrade.Describe(), "upgraded opset 11 -> 13 for BF16 type constraints");
  EXPECT_THAT(DescribeConversion(o, *s), HasSubstr(" opset=11->13(BF16 type constraints)"));
  EXPECT_EQ(s->converted_nodes, 1);
  EXPECT_THAT(s->kept_float, Contains(HasSubstr("mm (MatMul): ONNX Runtime's CPU provider has no BF16 kernel")));
  // The Casts hone inserts are named after the user's node they serve.
  bool named = false;
  for (const auto& node : m.graph().node()) named = named || node.name() == "tr/cast_to_bf16";
  EXPECT_TRUE(named);
  std::string error;
  Tensor x = testing::RandomTensor({3, 8}, 4, -1, 1);
  const std::string path = dir.File("bf16.onnx");
  ASSERT_TRUE(SaveAndLoadCheck(m, path).ok());
  auto reference = testing::RunNamed(dir.WriteModel("float.onnx", source), {x}, &error);
  auto converted = testing::RunNamed(path, {x}, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_LE(testing::MaxAbsDiff(reference, converted), 0.01 * testing::MaxAbs(reference));
}

TEST(OldOpsetConvertTest, Bf16ClipWithBoundsStaysFloatAndLoads) {
  // The model that used to fail to load: a BF16 Clip with min/max is expanded by ONNX Runtime into a Where that has
  // no BF16 kernel.
  testing::TempDir dir;
  auto m = testing::EmptyModel("clip", 13);
  auto* g = m.mutable_graph();
  testing::SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 8});
  testing::SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {8, "N"});
  testing::AddFloatInitializer(g, "lo", {});
  auto* hi = testing::AddFloatInitializer(g, "hi", {});
  float six = 6.0f;
  hi->set_raw_data(std::string(reinterpret_cast<const char*>(&six), 4));
  testing::AddNode(g, "Clip", {"x", "lo", "hi"}, {"c"})->set_name("clip");
  testing::AddNode(g, "Transpose", {"c"}, {"y"})->set_name("tr");
  ConvertOptions o;
  o.to = LowPrecision::kBf16;
  auto s = ConvertModel(&m, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->kept_float, Contains(HasSubstr("clip (Clip)")));
  EXPECT_TRUE(SaveAndLoadCheck(m, dir.File("clip.onnx")).ok());
}

}  // namespace
}  // namespace hone::onnx
