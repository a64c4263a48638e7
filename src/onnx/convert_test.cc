// hone convert's pass on small graphs: which nodes move to FP16/BF16, where Casts go and which fold away, that the
// result passes the checker and loads in ONNX Runtime, and that its outputs stay within 16-bit rounding error.
#include "onnx/convert.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/graph_rewrite.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize_test_models.h"

namespace hone::onnx {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using testing::OpTypes;

int Count(const ::onnx::ModelProto& m, const std::string& op) {
  auto ops = OpTypes(m);
  return static_cast<int>(std::count(ops.begin(), ops.end(), op));
}

const ::onnx::TensorProto* FindInitializer(const ::onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

struct Converted {
  ::onnx::ModelProto model;
  ConvertSummary summary;
  std::vector<float> reference, result;
  std::string error;
};

Converted ConvertAndRun(const ::onnx::ModelProto& source, const ConvertOptions& options, const Tensor& input,
                        const testing::TempDir& dir) {
  Converted c;
  c.model = source;
  auto s = ConvertModel(&c.model, options);
  if (!s.ok()) {
    c.error = s.status().ToString();
    return c;
  }
  c.summary = *s;
  std::string path = dir.File("converted.onnx");
  if (Status saved = SaveAndLoadCheck(c.model, path); !saved.ok()) {
    c.error = saved.ToString();
    return c;
  }
  c.reference = testing::RunFirstOutput(dir.WriteModel("float.onnx", source), input, &c.error);
  c.result = testing::RunFirstOutput(path, input, &c.error);
  return c;
}

TEST(ConvertTest, EveryTestModelConvertsLoadsAndStaysClose) {
  testing::TempDir dir;
  struct Case {
    const char* name;
    ::onnx::ModelProto model;
    Tensor input;
  };
  std::vector<Case> cases = {{"matmul", testing::MatMulModel(), testing::RandomTensor({4, 32}, 1)},
                             {"gemm", testing::GemmModel(), testing::RandomTensor({4, 32}, 2)},
                             {"conv", testing::ConvModel(), testing::RandomTensor({2, 3, 8, 8}, 3)},
                             {"cnn", testing::SmallCnnModel(), testing::RandomTensor({2, 1, 8, 8}, 4)},
                             {"attention", testing::AttentionModel(), testing::RandomTensor({2, 8, 16}, 5, -1, 1)}};
  for (LowPrecision to : {LowPrecision::kFp16, LowPrecision::kBf16})
    for (const auto& c : cases) {
      SCOPED_TRACE(std::string(c.name) + " to " + std::string(LowPrecisionName(to)));
      ConvertOptions o;
      o.to = to;
      Converted r = ConvertAndRun(c.model, o, c.input, dir);
      ASSERT_TRUE(r.error.empty()) << r.error;
      // FP16 keeps 11 significant bits, BF16 8: a few units in the last place of each product, summed.
      double tolerance = to == LowPrecision::kFp16 ? 0.01 : 0.06;
      EXPECT_LE(testing::MaxAbsDiff(r.reference, r.result), tolerance * testing::MaxAbs(r.reference));
      std::string kernels;
      for (const auto& op : r.summary.no_kernel_ops) kernels += op + " ";
      std::cerr << c.name << " " << LowPrecisionName(to) << ": converted " << r.summary.converted_nodes
                << ", no CPU kernel: " << kernels << "\n";
    }
}

TEST(ConvertTest, PassPutsCastsAtTheEdgesAndAroundBlockedOps) {
  ConvertOptions o;
  o.check_kernels = false;  // the pass alone, as for an execution provider with every FP16 kernel
  ::onnx::ModelProto m = testing::AttentionModel();
  auto s = ConvertModel(&m, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // Every node but Softmax computes in FP16: the input is cast once, Softmax is wrapped, the output restored.
  EXPECT_EQ(s->converted_nodes, 8);
  ASSERT_EQ(s->kept_float.size(), 1u);
  EXPECT_THAT(s->kept_float[0], HasSubstr("(Softmax): blocked op type"));
  EXPECT_EQ(Count(m, "Cast"), 4);
  EXPECT_EQ(s->casts_inserted, 4);
  EXPECT_EQ(s->converted_initializers, 5);  // four weights and the scale
  const auto* wq = FindInitializer(m, "Wq_fp16");
  ASSERT_NE(wq, nullptr);
  EXPECT_EQ(wq->data_type(), ::onnx::TensorProto::FLOAT16);
  EXPECT_EQ(FindInitializer(m, "Wq"), nullptr);  // the FP32 original is gone
  EXPECT_EQ(m.graph().input(0).type().tensor_type().elem_type(), ::onnx::TensorProto::FLOAT);
  EXPECT_EQ(m.graph().output(0).type().tensor_type().elem_type(), ::onnx::TensorProto::FLOAT);
}

TEST(ConvertTest, WithoutKeepIoTypesTheEdgesChangeType) {
  ConvertOptions o;
  o.check_kernels = false;
  o.keep_io_types = false;
  ::onnx::ModelProto m = testing::MatMulModel();
  auto s = ConvertModel(&m, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(Count(m, "Cast"), 0);
  EXPECT_EQ(m.graph().input(0).type().tensor_type().elem_type(), ::onnx::TensorProto::FLOAT16);
  EXPECT_EQ(m.graph().output(0).type().tensor_type().elem_type(), ::onnx::TensorProto::FLOAT16);
}

TEST(ConvertTest, ModelCastFeedingAConvertedNodeFoldsIntoOneCast) {
  // ids (INT64) -> Cast(to FLOAT) -> MatMul(W) -> y: the model's Cast and the one hone adds become one Cast.
  auto m = testing::EmptyModel("cast");
  auto* g = m.mutable_graph();
  testing::SetTensorType(g->add_input(), "ids", ::onnx::TensorProto::INT64, {"N", 32});
  testing::SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 16});
  testing::AddRandomInitializer(g, "W", {32, 16}, 1);
  testing::IntAttribute(testing::AddNode(g, "Cast", {"ids"}, {"x"}), "to", ::onnx::TensorProto::FLOAT);
  testing::AddNode(g, "MatMul", {"x", "W"}, {"y"});
  ConvertOptions o;
  o.check_kernels = false;
  auto s = ConvertModel(&m, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->casts_folded, 1);
  EXPECT_EQ(Count(m, "Cast"), 2);  // INT64 -> FP16 in front, FP16 -> FP32 for the output
  for (const auto& node : m.graph().node()) {
    if (node.op_type() == "Cast" && node.input(0) == "ids") {
      EXPECT_EQ(node.attribute(0).i(), ::onnx::TensorProto::FLOAT16);
    }
  }
}

TEST(ConvertTest, BlockedNodesStayFloat) {
  ConvertOptions o;
  o.check_kernels = false;
  o.block_nodes = {"mm"};
  ::onnx::ModelProto m = testing::MatMulModel();
  auto s = ConvertModel(&m, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->converted_nodes, 0);
  EXPECT_THAT(s->kept_float, Contains(HasSubstr("mm (MatMul): blocked node")));
}

}  // namespace
}  // namespace hone::onnx
