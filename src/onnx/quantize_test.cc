// Round trips of each quantization mode on small graphs built here: the ONNX checker passes (QuantizeModel runs
// it), ONNX Runtime loads the result, the expected operators are there, and outputs stay within the error that
// INT8 (or 4-bit) weights and activations explain.
#include "onnx/quantize.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/graph_rewrite.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize_test_models.h"
#include "tensor/npz.h"

namespace hone::onnx {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::OpTypes;

struct RoundTrip {
  std::vector<float> reference, quantized;
  ::onnx::ModelProto model;
  QuantizeSummary summary;
  std::string error;
};

// Quantizes `model`, writes both versions and runs them on `input`.
RoundTrip QuantizeAndRun(const ::onnx::ModelProto& model, const QuantizeOptions& options, const Tensor& input,
              const testing::TempDir& dir) {
  RoundTrip r;
  r.model = model;
  auto summary = QuantizeModel(&r.model, options);
  if (!summary.ok()) {
    r.error = summary.status().ToString();
    return r;
  }
  r.summary = *summary;
  std::string float_path = dir.WriteModel("float.onnx", model);
  std::string quant_path = dir.File("quantized.onnx");
  if (Status s = SaveAndLoadCheck(r.model, quant_path); !s.ok()) {
    r.error = s.ToString();
    return r;
  }
  r.reference = testing::RunFirstOutput(float_path, input, &r.error);
  r.quantized = testing::RunFirstOutput(quant_path, input, &r.error);
  return r;
}

QuantizeOptions Dynamic(DynamicForm form = DynamicForm::kInteger, bool per_channel = true) {
  QuantizeOptions o;
  o.mode = QuantizeMode::kDynamic;
  o.dynamic_form = form;
  o.per_channel = per_channel;
  return o;
}

// The error INT8 leaves: a few quantization steps of the output's scale, relative to the output's magnitude.
void ExpectClose(const RoundTrip& r, double relative) {
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.reference.size(), r.quantized.size());
  ASSERT_FALSE(r.reference.empty());
  double err = testing::MaxAbsDiff(r.reference, r.quantized), mag = testing::MaxAbs(r.reference);
  EXPECT_LE(err, relative * mag) << "max error " << err << " for outputs up to " << mag;
  EXPECT_GT(err, 0.0) << "identical outputs: was anything quantized?";
}

TEST(QuantizeDynamicTest, MatMulBecomesMatMulInteger) {
  testing::TempDir dir;
  for (bool per_channel : {true, false}) {
    RoundTrip r = QuantizeAndRun(testing::MatMulModel(), Dynamic(DynamicForm::kInteger, per_channel),
                      testing::RandomTensor({4, 32}, 1), dir);
    ExpectClose(r, 0.03);
    EXPECT_THAT(OpTypes(r.model), Contains("MatMulInteger"));
    EXPECT_THAT(OpTypes(r.model), Contains("DynamicQuantizeLinear"));
    EXPECT_THAT(OpTypes(r.model), Not(Contains("MatMul")));
    EXPECT_THAT(r.summary.quantized, Contains("mm (MatMul)"));
  }
}

TEST(QuantizeDynamicTest, GemmWithTransBAlphaAndBias) {
  testing::TempDir dir;
  for (DynamicForm form : {DynamicForm::kInteger, DynamicForm::kQdq}) {
    RoundTrip r = QuantizeAndRun(testing::GemmModel(), Dynamic(form), testing::RandomTensor({4, 32}, 2), dir);
    ExpectClose(r, 0.03);
    EXPECT_THAT(r.summary.quantized, Contains("gemm (Gemm)"));
  }
}

TEST(QuantizeDynamicTest, ConvBecomesConvInteger) {
  testing::TempDir dir;
  RoundTrip r = QuantizeAndRun(testing::ConvModel(), Dynamic(), testing::RandomTensor({2, 3, 8, 8}, 3), dir);
  ExpectClose(r, 0.03);
  EXPECT_THAT(OpTypes(r.model), Contains("ConvInteger"));
  RoundTrip q = QuantizeAndRun(testing::ConvModel(), Dynamic(DynamicForm::kQdq), testing::RandomTensor({2, 3, 8, 8}, 3), dir);
  ExpectClose(q, 0.03);
  EXPECT_THAT(OpTypes(q.model), Contains("DequantizeLinear"));
}

TEST(QuantizeDynamicTest, AttentionBlockQuantizesItsProjectionsOnly) {
  testing::TempDir dir;
  RoundTrip r = QuantizeAndRun(testing::AttentionModel(), Dynamic(), testing::RandomTensor({2, 8, 16}, 4, -1, 1), dir);
  ExpectClose(r, 0.05);
  // Four projections with constant weights; the two activation x activation MatMuls stay float.
  EXPECT_EQ(r.summary.quantized.size(), 4u);
  EXPECT_EQ(r.summary.skipped.size(), 2u);
  std::vector<std::string> ops = OpTypes(r.model);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "MatMulInteger"), 4);
}

TEST(QuantizeDynamicTest, ExcludedNodesAndOpsStayFloat) {
  testing::TempDir dir;
  QuantizeOptions o = Dynamic();
  o.exclude_nodes = {"mm"};
  o.exclude_op_types = {"LSTM"};
  RoundTrip r = QuantizeAndRun(testing::MatMulModel(), o, testing::RandomTensor({4, 32}, 5), dir);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_THAT(r.summary.quantized, IsEmpty());
  EXPECT_EQ(r.reference, r.quantized);
  // An op type the model lacks is a warning, not a failure.
  ASSERT_EQ(r.summary.warnings.size(), 1u);
  EXPECT_THAT(r.summary.warnings[0], HasSubstr("'LSTM': the model has no LSTM node"));
}

TEST(QuantizeDynamicTest, OnlyTheNamedNodesAreQuantized) {
  testing::TempDir dir;
  QuantizeOptions o = Dynamic();
  o.nodes = {"absent"};
  RoundTrip r = QuantizeAndRun(testing::MatMulModel(), o, testing::RandomTensor({4, 32}, 5), dir);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_THAT(r.summary.quantized, IsEmpty());
  ASSERT_EQ(r.summary.warnings.size(), 1u);
  EXPECT_THAT(r.summary.warnings[0], HasSubstr("--nodes 'absent': the model has no node of that name"));
  o.nodes = {"mm"};
  RoundTrip named = QuantizeAndRun(testing::MatMulModel(), o, testing::RandomTensor({4, 32}, 5), dir);
  ASSERT_TRUE(named.error.empty()) << named.error;
  EXPECT_EQ(named.summary.quantized.size(), 1u);
}

TEST(QuantizeDynamicTest, OldOpsetIsUpgradedNotRejected) {
  ::onnx::ModelProto m = testing::MatMulModel();
  m.mutable_opset_import(0)->set_version(10);
  auto s = QuantizeModel(&m, Dynamic());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->opset_upgrade.Describe(), "upgraded opset 10 -> 11 for DynamicQuantizeLinear");
  EXPECT_EQ(s->quantized.size(), 1u);
  EXPECT_EQ(m.opset_import(0).version(), 11);
}

QuantizeOptions WeightOnly(int bits, int block, bool symmetric) {
  QuantizeOptions o;
  o.mode = QuantizeMode::kWeightOnly;
  o.bits = bits;
  o.block_size = block;
  o.weight_only_symmetric = symmetric;
  return o;
}

TEST(QuantizeWeightOnlyTest, MatMulBecomesMatMulNBits) {
  testing::TempDir dir;
  for (int bits : {4, 8})
    for (bool symmetric : {true, false}) {
      SCOPED_TRACE("bits " + std::to_string(bits) + (symmetric ? " symmetric" : " asymmetric"));
      RoundTrip r = QuantizeAndRun(testing::MatMulModel(), WeightOnly(bits, 32, symmetric), testing::RandomTensor({4, 32}, 6), dir);
      ExpectClose(r, bits == 4 ? 0.25 : 0.02);
      EXPECT_THAT(OpTypes(r.model), Contains("MatMulNBits"));
      EXPECT_THAT(OpTypes(r.model), Not(Contains("MatMul")));
    }
}

TEST(QuantizeWeightOnlyTest, BlockOffsetsAddASmallFloatCorrection) {
  testing::TempDir dir;
  QuantizeOptions o = WeightOnly(4, 32, true);
  o.weight_only_block_offset = true;
  RoundTrip r = QuantizeAndRun(testing::MatMulModel(), o, testing::RandomTensor({4, 32}, 6), dir);
  ExpectClose(r, 0.25);
  EXPECT_THAT(OpTypes(r.model), Contains("MatMulNBits"));
  EXPECT_THAT(OpTypes(r.model), Contains("Add"));
  // A 3-D input (a transformer's [batch, sequence, hidden]) and K = 16 with block 64: one padded block.
  RoundTrip attention = QuantizeAndRun(testing::AttentionModel(), [] {
    QuantizeOptions a = WeightOnly(4, 64, true);
    a.weight_only_block_offset = true;
    return a;
  }(), testing::RandomTensor({2, 8, 16}, 7, -1, 1), dir);
  ExpectClose(attention, 0.3);
  EXPECT_EQ(attention.summary.quantized.size(), 4u);
  o.weight_only_symmetric = false;
  EXPECT_THAT(o.Validate().message(), HasSubstr("--block-offset"));
}

TEST(QuantizeWeightOnlyTest, AttentionProjectionsWithLargeBlocks) {
  testing::TempDir dir;
  // K = 16 with block 64: one padded block per column.
  RoundTrip r = QuantizeAndRun(testing::AttentionModel(), WeightOnly(4, 64, true), testing::RandomTensor({2, 8, 16}, 7, -1, 1), dir);
  ExpectClose(r, 0.3);
  EXPECT_EQ(r.summary.quantized.size(), 4u);
}

}  // namespace
}  // namespace hone::onnx
