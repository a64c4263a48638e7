// Quantization and conversion inside If and Loop bodies (weights as outer-scope initializers and as Constant nodes
// in a branch), the counts the results report for them, and what static mode says about subgraphs it leaves alone.
#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/convert.h"
#include "onnx/graph_rewrite.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize.h"
#include "onnx/subgraph_test_models.h"

namespace hone::onnx {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// Op types of every graph of the model, subgraphs included.
void AllOps(const ::onnx::GraphProto& g, std::vector<std::string>* ops) {
  for (const auto& n : g.node()) {
    ops->push_back(n.op_type());
    for (const auto& a : n.attribute())
      if (a.has_g()) AllOps(a.g(), ops);
  }
}
std::vector<std::string> AllOps(const ::onnx::ModelProto& m) {
  std::vector<std::string> ops;
  AllOps(m.graph(), &ops);
  return ops;
}

const ::onnx::GraphProto& Branch(const ::onnx::ModelProto& m, const std::string& attr) {
  for (const auto& n : m.graph().node())
    for (const auto& a : n.attribute())
      if (a.name() == attr) return a.g();
  static const ::onnx::GraphProto kNone;
  return kNone;
}

// The rewritten model saved and loaded, and its output beside the source's on the same inputs.
struct Outputs {
  std::vector<float> reference, rewritten;
  std::string error;
};
Outputs Compare(const ::onnx::ModelProto& source, const ::onnx::ModelProto& rewritten, std::vector<Tensor> inputs,
                const testing::TempDir& dir) {
  Outputs o;
  const std::string path = dir.File("rewritten.onnx");
  if (Status s = SaveAndLoadCheck(rewritten, path); !s.ok()) {
    o.error = s.ToString();
    return o;
  }
  o.reference = testing::RunNamed(dir.WriteModel("source.onnx", source), inputs, &o.error);
  o.rewritten = testing::RunNamed(path, inputs, &o.error);
  return o;
}

// An If nested in the then-branch of another: every MatMul reads the main graph's W_outer, two scopes out.
::onnx::ModelProto NestedIfModel() {
  ::onnx::ModelProto m = testing::IfModel();
  auto* outer_if = m.mutable_graph()->mutable_node(0);
  ::onnx::GraphProto inner_then, inner_else, then_branch;
  inner_then.set_name("inner_then");
  inner_else.set_name("inner_else");
  then_branch.set_name("then");
  testing::AddNode(&inner_then, "MatMul", {"x", "W_outer"}, {"it"});  // unnamed: NameNodes names it
  testing::SetTensorType(inner_then.add_output(), "it", ::onnx::TensorProto::FLOAT, {"N", 4});
  testing::AddNode(&inner_else, "MatMul", {"x", "W_outer"}, {"ie"});
  testing::SetTensorType(inner_else.add_output(), "ie", ::onnx::TensorProto::FLOAT, {"N", 4});
  auto* inner = testing::AddNode(&then_branch, "If", {"cond"}, {"t_out"});
  inner->set_name("inner");
  testing::AddGraphAttribute(inner, "then_branch", std::move(inner_then));
  testing::AddGraphAttribute(inner, "else_branch", std::move(inner_else));
  testing::SetTensorType(then_branch.add_output(), "t_out", ::onnx::TensorProto::FLOAT, {"N", 4});
  for (auto& attr : *outer_if->mutable_attribute())
    if (attr.name() == "then_branch") *attr.mutable_g() = std::move(then_branch);
  return m;
}

QuantizeOptions Mode(QuantizeMode mode) {
  QuantizeOptions o;
  o.mode = mode;
  return o;
}

TEST(SubgraphQuantizeTest, DynamicQuantizesBothBranchesOfAnIf) {
  testing::TempDir dir;
  const ::onnx::ModelProto source = testing::IfModel();
  ::onnx::ModelProto m = source;
  auto s = QuantizeModel(&m, Mode(QuantizeMode::kDynamic));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->quantized.size(), 2u);
  EXPECT_EQ(s->subgraph_nodes_quantized, 2);
  EXPECT_THAT(s->quantized, Contains("then_mm (MatMul) in branch/then_branch"));
  EXPECT_THAT(s->quantized, Contains("else_mm (MatMul) in branch/else_branch"));
  EXPECT_THAT(AllOps(m), Not(Contains("MatMul")));
  // The outer-scope weight is read by nothing float any more; the branch's Constant became its initializer.
  for (const auto& t : m.graph().initializer()) EXPECT_NE(t.name(), "W_outer");
  EXPECT_THAT(AllOps(m), Not(Contains("Constant")));
  for (bool cond : {true, false}) {
    SCOPED_TRACE(cond ? "then" : "else");
    Outputs o = Compare(source, m, {testing::RandomTensor({3, 8}, 7, -1, 1), testing::BoolScalar(cond)}, dir);
    ASSERT_TRUE(o.error.empty()) << o.error;
    ASSERT_EQ(o.reference.size(), 12u);
    EXPECT_LE(testing::MaxAbsDiff(o.reference, o.rewritten), 0.05 * testing::MaxAbs(o.reference) + 1e-3);
  }
}

TEST(SubgraphQuantizeTest, WeightOnlyRewritesALoopBodyWithAnOuterScopeWeight) {
  testing::TempDir dir;
  const ::onnx::ModelProto source = testing::LoopModel();
  ::onnx::ModelProto m = source;
  QuantizeOptions o = Mode(QuantizeMode::kWeightOnly);
  o.bits = 8;
  auto s = QuantizeModel(&m, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->quantized.size(), 1u);
  EXPECT_EQ(s->quantized[0], "body_mm (MatMul) in loop/body");
  EXPECT_THAT(AllOps(m), Contains("MatMulNBits"));
  Outputs out = Compare(source, m, {testing::RandomTensor({2, 8}, 8, -1, 1)}, dir);
  ASSERT_TRUE(out.error.empty()) << out.error;
  EXPECT_LE(testing::MaxAbsDiff(out.reference, out.rewritten), 0.03 * testing::MaxAbs(out.reference) + 1e-3);
}

TEST(SubgraphQuantizeTest, NothingToQuantizeCountsZero) {
  // The Loop body has a MatMul but no Gemm or Conv: asking for those quantizes nothing, subgraphs included.
  ::onnx::ModelProto m = testing::LoopModel();
  QuantizeOptions o = Mode(QuantizeMode::kDynamic);
  o.op_types = {"Gemm", "Conv"};
  auto s = QuantizeModel(&m, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->quantized, IsEmpty());
  EXPECT_EQ(s->subgraph_nodes_quantized, 0);
}

TEST(SubgraphQuantizeTest, WeightOnlyWithoutAnyMatMulCountsZero) {
  ::onnx::ModelProto m = testing::ConvModel();
  auto s = QuantizeModel(&m, Mode(QuantizeMode::kWeightOnly));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->quantized, IsEmpty());
  EXPECT_THAT(AllOps(m), Not(Contains("MatMulNBits")));
  for (const auto& op : m.opset_import()) EXPECT_NE(op.domain(), "com.microsoft");
}

TEST(SubgraphQuantizeTest, StaticListsSubgraphNodesAsSkippedAndWarns) {
  ::onnx::ModelProto m = testing::IfModel();
  QuantizeOptions o = Mode(QuantizeMode::kStatic);
  o.calibration_inputs.data_path = "unused.npz";  // nothing in the main graph to calibrate, so never read
  auto s = QuantizeModel(&m, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->quantized, IsEmpty());
  EXPECT_THAT(s->skipped, Contains(HasSubstr("then_mm (MatMul) in branch/then_branch: inside a subgraph")));
  EXPECT_THAT(s->skipped, Contains(HasSubstr("else_mm (MatMul) in branch/else_branch")));
  EXPECT_THAT(s->warnings, Contains(HasSubstr("2 node(s) inside If/Loop/Scan subgraphs stay float")));
}

TEST(SubgraphQuantizeTest, NestedSubgraphsAreQuantizedAndConverted) {
  testing::TempDir dir;
  const ::onnx::ModelProto source = NestedIfModel();
  ::onnx::ModelProto q = source;
  auto s = QuantizeModel(&q, Mode(QuantizeMode::kDynamic));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->quantized.size(), 3u);
  EXPECT_THAT(s->quantized, Contains("MatMul_0 (MatMul) in branch/then_branch/inner/then_branch"));
  ::onnx::ModelProto c = source;
  auto converted = ConvertModel(&c, ConvertOptions{});
  ASSERT_TRUE(converted.ok()) << converted.status().ToString();
  EXPECT_EQ(converted->converted_nodes, 4);  // two inner MatMuls, else_mm, else_relu
  for (const ::onnx::ModelProto* m : {&q, &c})
    for (bool cond : {true, false}) {
      SCOPED_TRACE(cond ? "then" : "else");
      Outputs o = Compare(source, *m, {testing::RandomTensor({3, 8}, 11, -1, 1), testing::BoolScalar(cond)}, dir);
      ASSERT_TRUE(o.error.empty()) << o.error;
      EXPECT_LE(testing::MaxAbsDiff(o.reference, o.rewritten), 0.05 * testing::MaxAbs(o.reference) + 1e-3);
    }
}

TEST(SubgraphConvertTest, Fp16ConvertsNodesInsideBothBranches) {
  testing::TempDir dir;
  const ::onnx::ModelProto source = testing::IfModel();
  ::onnx::ModelProto m = source;
  auto s = ConvertModel(&m, ConvertOptions{});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->converted_nodes, 3);  // then_mm, else_mm, else_relu
  EXPECT_EQ(s->converted_initializers, 2);
  // The branches keep FP32 outputs, as the If's output is FP32.
  EXPECT_EQ(Branch(m, "then_branch").output(0).type().tensor_type().elem_type(), ::onnx::TensorProto::FLOAT);
  EXPECT_THAT(AllOps(m), Contains("Cast"));
  for (bool cond : {true, false}) {
    SCOPED_TRACE(cond ? "then" : "else");
    Outputs o = Compare(source, m, {testing::RandomTensor({3, 8}, 9, -1, 1), testing::BoolScalar(cond)}, dir);
    ASSERT_TRUE(o.error.empty()) << o.error;
    EXPECT_LE(testing::MaxAbsDiff(o.reference, o.rewritten), 0.01 * testing::MaxAbs(o.reference) + 1e-3);
  }
}

TEST(SubgraphConvertTest, Fp16LoopBodyReadsTheOuterWeightInFp16) {
  testing::TempDir dir;
  const ::onnx::ModelProto source = testing::LoopModel();
  ::onnx::ModelProto m = source;
  auto s = ConvertModel(&m, ConvertOptions{});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->converted_nodes, 2);  // body_mm, body_tanh (the Identity of the BOOL condition touches no float)
  Outputs o = Compare(source, m, {testing::RandomTensor({2, 8}, 10, -1, 1)}, dir);
  ASSERT_TRUE(o.error.empty()) << o.error;
  EXPECT_LE(testing::MaxAbsDiff(o.reference, o.rewritten), 0.01 * testing::MaxAbs(o.reference) + 1e-3);
}

TEST(SubgraphConvertTest, Fp16ScanBody) {
  // y[t] = x[t] @ W for each row t of x [T, 8], as a Scan whose body reads W from the main graph.
  testing::TempDir dir;
  auto source = testing::EmptyModel("scan");
  auto* g = source.mutable_graph();
  testing::SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"T", 8});
  testing::SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"T", 4});
  testing::AddRandomInitializer(g, "W", {8, 4}, 71, 0.5f);
  ::onnx::GraphProto body;
  body.set_name("body");
  testing::SetTensorType(body.add_input(), "xt", ::onnx::TensorProto::FLOAT, {8});
  testing::AddNode(&body, "MatMul", {"xt", "W"}, {"yt"})->set_name("row_mm");
  testing::SetTensorType(body.add_output(), "yt", ::onnx::TensorProto::FLOAT, {4});
  auto* scan = testing::AddNode(g, "Scan", {"x"}, {"y"});
  scan->set_name("scan");
  testing::IntAttribute(scan, "num_scan_inputs", 1);
  testing::AddGraphAttribute(scan, "body", std::move(body));
  ::onnx::ModelProto m = source;
  auto s = ConvertModel(&m, ConvertOptions{});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->converted_nodes, 1);
  Outputs o = Compare(source, m, {testing::RandomTensor({5, 8}, 12, -1, 1)}, dir);
  ASSERT_TRUE(o.error.empty()) << o.error;
  ASSERT_EQ(o.reference.size(), 20u);
  EXPECT_LE(testing::MaxAbsDiff(o.reference, o.rewritten), 0.01 * testing::MaxAbs(o.reference) + 1e-3);
}

TEST(SubgraphConvertTest, AnFp16ModelConvertsZeroNodes) {
  ::onnx::ModelProto m = testing::IfModel();
  ConvertOptions o;
  o.keep_io_types = false;
  auto first = ConvertModel(&m, o);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_GT(first->converted_nodes, 0);
  auto again = ConvertModel(&m, o);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->converted_nodes, 0);
  EXPECT_EQ(again->casts_inserted, 0);
  EXPECT_EQ(again->converted_initializers, 0);
}

}  // namespace
}  // namespace hone::onnx
