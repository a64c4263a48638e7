// The allow-list of convert_cpu_kernels.h against ONNX Runtime itself: every op it lists, built as a one-node model
// computing in FP16 or BF16, loads and runs on the CPU provider at the opsets hone writes.
#include "onnx/convert_cpu_kernels.h"

#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "onnx/quantize_test_models.h"
#include "runtime/session.h"

namespace hone::onnx {
namespace {

using testing::AddNode;
using testing::SetTensorType;

// One op as a one-node model: x [2, 4] (or the shape it needs) of the low type in, y out.
struct OpProbe {
  std::string op;
  int64_t min_opset = 1;  // the first opset at which this build of the probe is valid
  std::function<void(::onnx::GraphProto*, int32_t low, int64_t opset)> build;
};

void Int64Init(::onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t x : v) t->add_int64_data(x);
}

void LowInit(::onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims, int32_t low) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(low);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  t->set_raw_data(std::string(static_cast<size_t>(n) * 2, '\0'));
}

// x [2, 4] in, y out of the same type, through `op` with extra low-type inputs of `extra` shapes.
OpProbe Simple(const std::string& op, std::vector<std::vector<int64_t>> extra = {}, int64_t min_opset = 1,
               std::vector<int64_t> x_dims = {2, 4},
               std::function<void(::onnx::NodeProto*)> attrs = [](::onnx::NodeProto*) {}) {
  return {op, min_opset, [op, extra, x_dims, attrs](::onnx::GraphProto* g, int32_t low, int64_t) {
            auto* x = g->add_input();
            x->set_name("x");
            x->mutable_type()->mutable_tensor_type()->set_elem_type(low);
            for (int64_t d : x_dims) x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
            std::vector<std::string> inputs{"x"};
            static const char* const kNames[] = {"w0", "w1", "w2", "w3"};  // literals: GCC 12 misreads "w" + to_string
            for (size_t i = 0; i < extra.size() && i < 4; ++i) {
              inputs.emplace_back(kNames[i]);
              LowInit(g, kNames[i], extra[i], low);
            }
            attrs(AddNode(g, op, inputs, {"y"}));
          }};
}

std::vector<OpProbe> Probes() {
  std::vector<OpProbe> p;
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil",
                         "Erf", "Sin", "Cos", "Softplus", "Softsign", "Elu", "Selu", "LeakyRelu", "HardSigmoid",
                         "HardSwish", "Identity", "Round", "Sign", "Softmax", "LogSoftmax", "Flatten", "Dropout",
                         "Clip", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceSumSquare",
                         "Transpose", "Celu", "Mish", "Shrink", "ThresholdedRelu", "Tan", "Atan", "Asin", "Acos",
                         "Sinh", "Cosh", "IsNaN", "Not", "Hardmax", "LpNormalization", "ReduceLogSumExp"})
    p.push_back(Simple(op));
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "PRelu", "Greater", "Less",
                         "Equal"})
    p.push_back(Simple(op, {{2, 4}}));
  p.push_back(Simple("MatMul", {{4, 3}}));
  p.push_back(Simple("Gemm", {{4, 3}, {3}}));
  p.push_back(Simple("Conv", {{1, 1, 3, 3}}, 1, {1, 1, 4, 4}));
  p.push_back(Simple("ConvTranspose", {{1, 1, 3, 3}}, 1, {1, 1, 4, 4}));
  auto kernel = [](::onnx::NodeProto* n) { testing::IntsAttribute(n, "kernel_shape", {2, 2}); };
  p.push_back(Simple("MaxPool", {}, 1, {1, 1, 4, 4}, kernel));
  p.push_back(Simple("AveragePool", {}, 1, {1, 1, 4, 4}, kernel));
  p.push_back(Simple("GlobalAveragePool", {}, 1, {1, 1, 4, 4}));
  p.push_back(Simple("GlobalMaxPool", {}, 1, {1, 1, 4, 4}));
  p.push_back(Simple("Mod", {{2, 4}}, 10, {2, 4}, [](auto* n) { testing::IntAttribute(n, "fmod", 1); }));
  p.push_back(Simple("BatchNormalization", {{1}, {1}, {1}, {1}}, 1, {1, 1, 4, 4}));
  p.push_back(Simple("InstanceNormalization", {{1}, {1}}, 1, {1, 1, 4, 4}));
  p.push_back(Simple("LayerNormalization", {{4}, {4}}, 17));
  p.push_back(Simple("Shape", {}, 1));
  p.push_back(Simple("Concat", {{2, 4}}, 4, {2, 4}, [](auto* n) { testing::IntAttribute(n, "axis", 0); }));
  p.push_back(Simple("Clip", {{}, {}}, 11));  // with min and max inputs
  p.push_back(Simple("Where", {{2, 4}}));  // rebuilt below with a BOOL condition
  p.back().build = [](::onnx::GraphProto* g, int32_t low, int64_t) {
    SetTensorType(g->add_input(), "x", low, {2, 4});
    SetTensorType(g->add_input(), "c", ::onnx::TensorProto::BOOL, {2, 4});
    AddNode(g, "Where", {"c", "x", "x"}, {"y"});
  };
  auto with_int64 = [](const std::string& op, std::vector<int64_t> v, int64_t min_opset) {
    return OpProbe{op, min_opset, [op, v](::onnx::GraphProto* g, int32_t low, int64_t) {
                     SetTensorType(g->add_input(), "x", low, {2, 4});
                     Int64Init(g, "k", {static_cast<int64_t>(v.size())}, v);
                     AddNode(g, op, {"x", "k"}, {"y"});
                   }};
  };
  p.push_back(with_int64("Reshape", {4, 2}, 5));
  p.push_back(with_int64("Unsqueeze", {0}, 13));
  p.push_back(with_int64("Squeeze", {0}, 13));  // x [2, 4]: fails to run, so shaped [1, 4] below
  p.back().build = [](::onnx::GraphProto* g, int32_t low, int64_t) {
    SetTensorType(g->add_input(), "x", low, {1, 4});
    Int64Init(g, "k", {1}, {0});
    AddNode(g, "Squeeze", {"x", "k"}, {"y"});
  };
  p.push_back(with_int64("Expand", {2, 4}, 8));
  p.push_back(with_int64("Tile", {1, 2}, 6));
  p.push_back(with_int64("Gather", {0}, 1));
  p.push_back(with_int64("ReduceSum", {1}, 13));
  p.push_back(with_int64("CumSum", {1}, 11));
  p.back().build = [](::onnx::GraphProto* g, int32_t low, int64_t) {
    SetTensorType(g->add_input(), "x", low, {2, 4});
    Int64Init(g, "k", {}, {1});
    AddNode(g, "CumSum", {"x", "k"}, {"y"});
  };
  p.push_back(with_int64("Pad", {0, 1, 0, 1}, 11));
  p.push_back(with_int64("Split", {2, 2}, 13));
  p.back().build = [](::onnx::GraphProto* g, int32_t low, int64_t) {
    SetTensorType(g->add_input(), "x", low, {2, 4});
    Int64Init(g, "k", {2}, {2, 2});
    auto* n = AddNode(g, "Split", {"x", "k"}, {"y", "z"});
    testing::IntAttribute(n, "axis", 1);
  };
  p.push_back({"Slice", 10, [](::onnx::GraphProto* g, int32_t low, int64_t) {
                 SetTensorType(g->add_input(), "x", low, {2, 4});
                 Int64Init(g, "s", {1}, {0});
                 Int64Init(g, "e", {1}, {1});
                 AddNode(g, "Slice", {"x", "s", "e"}, {"y"});
               }});
  p.push_back({"Resize", 13, [](::onnx::GraphProto* g, int32_t low, int64_t) {
                 SetTensorType(g->add_input(), "x", low, {1, 1, 2, 2});
                 Int64Init(g, "sizes", {4}, {1, 1, 4, 4});
                 AddNode(g, "Resize", {"x", "", "", "sizes"}, {"y"});
               }});
  p.push_back({"Einsum", 12, [](::onnx::GraphProto* g, int32_t low, int64_t) {
                 SetTensorType(g->add_input(), "x", low, {2, 4});
                 auto* n = AddNode(g, "Einsum", {"x", "x"}, {"y"});
                 auto* a = n->add_attribute();
                 a->set_name("equation");
                 a->set_type(::onnx::AttributeProto::STRING);
                 a->set_s("ij,ij->i");
               }});
  return p;
}

// Loads and runs the probe on the CPU provider (outputs left untyped: ONNX Runtime infers them); "" when it does, else ONNX Runtime's message.
std::string LoadAndRun(const OpProbe& probe, int32_t low, int64_t opset, const testing::TempDir& dir) {
  auto m = testing::EmptyModel(probe.op, opset);
  auto* g = m.mutable_graph();
  probe.build(g, low, opset);
  // Outputs declared without a type: ONNX Runtime infers them.
  for (const auto& node : g->node())
    for (const auto& out : node.output()) g->add_output()->set_name(out);
  std::string path = dir.WriteModel(probe.op + ".onnx", m);
  runtime::SessionOptions options;
  options.intra_op_threads = 1;
  auto session = runtime::Session::Open(path, options);
  if (!session.ok()) return session.status().message();
  std::vector<Tensor> inputs;
  for (const auto& in : (*session)->metadata().inputs) {
    inputs.push_back(*Tensor::Allocate(in.type, in.shape));
  }
  auto out = (*session)->Run(inputs);
  return out.ok() ? "" : out.status().message();
}

const OpProbe* FindProbe(const std::vector<OpProbe>& probes, const std::string& op) {
  for (const auto& p : probes)
    if (p.op == op) return &p;
  return nullptr;
}

TEST(ConvertCpuKernelsTest, EveryListedOpRunsInBf16OnTheCpuProvider) {
  testing::TempDir dir;
  const auto probes = Probes();
  for (int64_t opset : {13, 17}) {
    for (const auto& op : CpuBf16Ops(opset)) {
      SCOPED_TRACE(op + " at opset " + std::to_string(opset));
      const OpProbe* probe = FindProbe(probes, op);
      ASSERT_NE(probe, nullptr) << "an allow-listed op needs a probe that proves it";
      EXPECT_EQ(LoadAndRun(*probe, ::onnx::TensorProto::BFLOAT16, opset, dir), "");
    }
  }
}

TEST(ConvertCpuKernelsTest, ArithmeticAndOldOpsetsAreNotListed) {
  EXPECT_TRUE(CpuHasBf16Kernel("Transpose", 13));
  EXPECT_FALSE(CpuHasBf16Kernel("Transpose", 11));  // BF16 entered these ops' type constraints at 13
  EXPECT_FALSE(CpuHasBf16Kernel("LayerNormalization", 13));
  EXPECT_TRUE(CpuHasBf16Kernel("LayerNormalization", 17));
  for (const char* op : {"MatMul", "Add", "Relu", "Conv", "Clip", "Where"}) EXPECT_FALSE(CpuHasBf16Kernel(op, 17)) << op;
}

// The list is complete for the probed ops: of those it leaves out, only Clip (on purpose: see the header) runs in
// BF16 without min/max inputs. A newer ONNX Runtime with more BF16 kernels fails here until they are listed.
TEST(ConvertCpuKernelsTest, NoUnlistedProbedOpRunsInBf16ButClip) {
  testing::TempDir dir;
  for (int64_t opset : {13, 17}) {
    std::vector<std::string> loads;
    for (const auto& probe : Probes()) {
      if (probe.min_opset > opset || CpuHasBf16Kernel(probe.op, opset)) continue;
      if (LoadAndRun(probe, ::onnx::TensorProto::BFLOAT16, opset, dir).empty()) loads.push_back(probe.op);
    }
    EXPECT_EQ(loads, std::vector<std::string>{"Clip"}) << "at opset " << opset;
  }
}

}  // namespace
}  // namespace hone::onnx
