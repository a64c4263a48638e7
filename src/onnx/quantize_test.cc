// Round trips of each quantization mode on small graphs built here: the ONNX checker passes (QuantizeModel runs
// it), ONNX Runtime loads the result, the expected operators are there, and outputs stay within the error that
// INT8 (or 4-bit) weights and activations explain.
#include "onnx/quantize.h"

#include <algorithm>
#include <cmath>
#include <random>

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

// An embedding: y = table[ids], table [50, 64] whose blocks of 32 are Q8_0's (a float16 scale times integers in
// [-127, 127], one of them +-127), as a GGUF's token_embd holds them.
::onnx::ModelProto EmbeddingModel(std::vector<float>* values) {
  auto m = testing::EmptyModel("embedding");
  auto* g = m.mutable_graph();
  testing::SetTensorType(g->add_input(), "ids", ::onnx::TensorProto::INT64, {"B", 3});
  testing::SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"B", 3, 64});
  auto* t = testing::AddFloatInitializer(g, "table", {50, 64});
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> code(-127, 127);
  values->assign(50 * 64, 0.0f);
  for (size_t block = 0; block < values->size() / 32; ++block) {
    const float scale = std::ldexp(1.0f + static_cast<float>(block % 7) / 8, -6 - static_cast<int>(block % 3));
    for (size_t i = 0; i < 32; ++i) (*values)[block * 32 + i] = scale * static_cast<float>(i == 5 ? -127 : code(rng));
  }
  testing::SetValues(t, *values);
  testing::AddNode(g, "Gather", {"table", "ids"}, {"y"})->set_name("embed");
  return m;
}

TEST(QuantizeWeightOnlyTest, AnEmbeddingGatherBecomesGatherBlockQuantizedWhenAskedFor) {
  testing::TempDir dir;
  std::vector<float> table;
  const ::onnx::ModelProto model = EmbeddingModel(&table);
  Tensor ids = *Tensor::Allocate(DataType::kInt64, {2, 3});
  const std::vector<int64_t> rows = {0, 7, 49, 12, 12, 30};
  std::copy(rows.begin(), rows.end(), ids.mutable_values<int64_t>().begin());

  // Not by default: weight-only quantizes MatMul unless Gather is named.
  RoundTrip untouched = QuantizeAndRun(model, WeightOnly(8, 32, true), ids, dir);
  ASSERT_TRUE(untouched.error.empty()) << untouched.error;
  EXPECT_THAT(untouched.summary.quantized, IsEmpty());

  QuantizeOptions o = WeightOnly(8, 32, true);
  o.op_types = {"MatMul", "Gather"};
  ASSERT_TRUE(o.Validate().ok()) << o.Validate().message();
  RoundTrip r = QuantizeAndRun(model, o, ids, dir);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_THAT(OpTypes(r.model), Contains("GatherBlockQuantized"));
  EXPECT_THAT(OpTypes(r.model), Not(Contains("Gather")));
  ASSERT_EQ(r.quantized.size(), 6u * 64);
  for (size_t i = 0; i < r.quantized.size(); ++i) {
    // 8 bits, symmetric, block 32: Q8_0's blocks come back exactly
    EXPECT_EQ(r.quantized[i], table[static_cast<size_t>(rows[i / 64] * 64) + i % 64]) << i;
    EXPECT_EQ(r.quantized[i], r.reference[i]) << i;
  }
  for (bool symmetric : {true, false}) {
    SCOPED_TRACE(symmetric ? "4 bits symmetric" : "4 bits asymmetric");
    QuantizeOptions four = WeightOnly(4, 32, symmetric);
    four.op_types = {"Gather"};
    RoundTrip r4 = QuantizeAndRun(model, four, ids, dir);
    ASSERT_TRUE(r4.error.empty()) << r4.error;
    EXPECT_THAT(OpTypes(r4.model), Contains("GatherBlockQuantized"));
    ExpectClose(r4, 0.15);  // 4 bits of values up to 2
  }
  // What stays float, and why.
  QuantizeOptions offsets = o;
  offsets.weight_only_block_offset = true;
  offsets.bits = 4;
  RoundTrip skipped = QuantizeAndRun(model, offsets, ids, dir);
  ASSERT_TRUE(skipped.error.empty()) << skipped.error;
  EXPECT_THAT(skipped.summary.skipped, Contains(HasSubstr("--block-offset applies to MatMul only")));
  QuantizeOptions wide = o;
  wide.block_size = 128;
  RoundTrip partial = QuantizeAndRun(model, wide, ids, dir);
  EXPECT_THAT(partial.summary.skipped, Contains(HasSubstr("not a multiple of the block (128)")));
  QuantizeOptions conv = WeightOnly(8, 32, true);
  conv.op_types = {"Conv"};
  EXPECT_THAT(conv.Validate().message(), HasSubstr("weight-only quantization handles MatMul, Gather"));
}

TEST(QuantizeWeightOnlyTest, AModelOfHonesOwnLayoutGetsTheBlockOffsetsInOneNode) {
  testing::TempDir dir;
  QuantizeOptions o = WeightOnly(4, 32, true);
  o.weight_only_block_offset = true;
  ::onnx::ModelProto portable_model = testing::AttentionModel();
  ::onnx::ModelProto hone_model = portable_model;
  auto* import = hone_model.add_opset_import();  // as build_decoder.py --layout paged writes it
  import->set_domain("ai.hone");
  import->set_version(1);
  const Tensor input = testing::RandomTensor({2, 8, 16}, 7, -1, 1);
  RoundTrip portable = QuantizeAndRun(portable_model, o, input, dir);
  RoundTrip fused = QuantizeAndRun(hone_model, o, input, dir);
  ASSERT_TRUE(portable.error.empty() && fused.error.empty()) << portable.error << fused.error;
  auto count = [](const ::onnx::ModelProto& m, const std::string& op) {
    return std::count_if(m.graph().node().begin(), m.graph().node().end(),
                         [&](const ::onnx::NodeProto& n) { return n.op_type() == op; });
  };
  // 4 projections: one AddBlockOffsets each instead of two MatMuls and an Add (the attention's own MatMuls stay)
  EXPECT_EQ(count(fused.model, "AddBlockOffsets"), 4);
  EXPECT_EQ(count(portable.model, "AddBlockOffsets"), 0);
  EXPECT_EQ(count(portable.model, "MatMul") - count(fused.model, "MatMul"), 8);
  ASSERT_EQ(fused.quantized.size(), portable.quantized.size());
  EXPECT_LE(testing::MaxAbsDiff(fused.quantized, portable.quantized), 1e-5 * testing::MaxAbs(portable.quantized));
  ExpectClose(fused, 0.3);
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
