// The precision stage on planted models: a variant planted to be slower is rejected for speed, whatever its
// outputs; a quantization planted to fail the quality gate is rejected for quality and then rescued by keeping the
// one node that costs the quality in FP32 (INC's fallback), found by per-node sensitivity.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "onnx/quantize_test_models.h"
#include "runtime/session.h"
#include "tensor/npz.h"
#include "tune/tune_state.h"
#include "tune/variant_stage_test_util.h"

namespace hone::tune {
namespace {

using onnx::testing::AddFloatInitializer;
using onnx::testing::AddNode;
using onnx::testing::AddRandomInitializer;
using onnx::testing::EmptyModel;
using onnx::testing::RandomTensor;
using onnx::testing::RandomValues;
using onnx::testing::SetTensorType;
using onnx::testing::SetValues;

// x [N, 32] in [0, 1) -> MatMul W1 ('/block/mm_benign') -> Relu -> MatMul W2 ('/block/mm_sensitive') -> y [N, 8].
// Column 31 of W1 is all -1, so hidden unit 31 is always 0 after the Relu; row 31 of W2 is 100 in every column.
// In FP32 that row never counts, but INT8 scales each column of W2 by its largest value, 100, and the others
// (within +-0.1) all round to 0: quantized, the model answers 0 for every class.
::onnx::ModelProto SensitiveModel() {
  auto m = EmptyModel("sensitive");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 32});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 8});
  std::vector<float> w1 = RandomValues(32 * 32, 7);
  for (int row = 0; row < 32; ++row) w1[static_cast<size_t>(row * 32 + 31)] = -1.0f;
  SetValues(AddFloatInitializer(g, "W1", {32, 32}), w1);
  std::vector<float> w2 = RandomValues(32 * 8, 8, -0.1f, 0.1f);
  for (int col = 0; col < 8; ++col) w2[static_cast<size_t>(31 * 8 + col)] = 100.0f;
  SetValues(AddFloatInitializer(g, "W2", {32, 8}), w2);
  AddNode(g, "MatMul", {"x", "W1"}, {"h"})->set_name("/block/mm_benign");  // named as torch.onnx.export names
  AddNode(g, "Relu", {"h"}, {"r"});
  AddNode(g, "MatMul", {"r", "W2"}, {"y"})->set_name("/block/mm_sensitive");
  return m;
}

// The same y = x W as onnx::testing::MatMulModel, plus a branch of two large MatMuls whose sum is multiplied by 0
// and added: the outputs are the source's to the bit, and every run does hundreds of times the work.
::onnx::ModelProto SlowerCopy() {
  auto m = onnx::testing::MatMulModel();
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_output(0, "fast");
  AddRandomInitializer(g, "B1", {32, 1024}, 31, 0.01f);
  AddRandomInitializer(g, "B2", {1024, 1024}, 32, 0.01f);
  SetValues(AddFloatInitializer(g, "zero", {}), {0.0f});
  AddNode(g, "MatMul", {"x", "B1"}, {"b1"});
  AddNode(g, "MatMul", {"b1", "B2"}, {"b2"});
  auto* sum = AddNode(g, "ReduceSum", {"b2"}, {"s"});
  onnx::testing::IntAttribute(sum, "keepdims", 1);
  AddNode(g, "Mul", {"s", "zero"}, {"nothing"});
  AddNode(g, "Add", {"fast", "nothing"}, {"y"});
  return m;
}

using TunePrecisionTest = testing::VariantStageTest;

TEST_F(TunePrecisionTest, APlantedSlowerVariantIsRejectedForSpeed) {
  Prepare(onnx::testing::MatMulModel(), false);
  PrecisionVariant slower{"planted-slower", "the source with a zero-weighted heavy branch", 10, {}, {},
                          [](const std::string&, const std::string& path) {
                            std::ofstream(path, std::ios::binary) << SlowerCopy().SerializeAsString();
                            return Status::Ok();
                          }};
  RunPrecisionStage(state_, {slower});
  const VariantCheckRecord* check = CheckOf("planted-slower");
  ASSERT_NE(check, nullptr) << Checks();
  EXPECT_FALSE(check->outcome.passed());
  ASSERT_EQ(check->outcome.failures.size(), 1u) << Checks();
  EXPECT_NE(check->outcome.failures[0].find("slower than the source"), std::string::npos);
  ASSERT_TRUE(check->outcome.speed.has_value());
  EXPECT_LT(check->outcome.speed->throughput_ratio, 0.5);
  ASSERT_FALSE(state_.ledger.rejected.empty());
  EXPECT_EQ(state_.ledger.rejected.back().candidate, "planted-slower");
  EXPECT_EQ(state_.ledger.incumbent.id, "baseline");  // nothing slower replaces it
  EXPECT_EQ(state_.ledger.stages.back().status, StageStatus::kNoGain);
}

TEST_F(TunePrecisionTest, AQualityFailureIsRescuedByKeepingTheSensitiveNodeInFp32) {
  Prepare(SensitiveModel(), true);
  ASSERT_TRUE(state_.given.has_labels);
  settings_.gates = *check::ParseGates("accuracy_drop<=0.05");
  given_.gates = settings_.gates;
  onnx::QuantizeOptions dynamic;
  dynamic.mode = onnx::QuantizeMode::kDynamic;
  RunPrecisionStage(state_, {{"int8-dynamic", "dynamic INT8", 10, dynamic, std::nullopt, nullptr}});
  const VariantCheckRecord* check = CheckOf("int8-dynamic");
  ASSERT_NE(check, nullptr) << Checks();
  // First rejected for quality: every quantized node in, the accuracy collapses.
  ASSERT_TRUE(check->first_try.has_value()) << Checks();
  EXPECT_TRUE(AnyGateFailed(*check->first_try)) << Checks();
  // Then rescued: the sensitivity points at /block/mm_sensitive, and with it in FP32 every gate passes.
  EXPECT_EQ(check->kept_fp32, std::vector<std::string>{"/block/mm_sensitive"}) << Checks();
  ASSERT_TRUE(check->outcome.evaluate.has_value());
  ASSERT_FALSE(check->outcome.evaluate->gates.empty());
  EXPECT_FALSE(AnyGateFailed(check->outcome)) << Checks();
  // Whether the rescued variant also competes depends on its speed on this CPU; a rejection may only be for speed.
  if (!check->outcome.passed()) {
    ASSERT_EQ(check->outcome.failures.size(), 1u) << Checks();
    EXPECT_NE(check->outcome.failures[0].find("slower"), std::string::npos);
  }
}

}  // namespace
}  // namespace hone::tune
