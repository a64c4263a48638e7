// Small float models for the quantization and conversion tests (MatMul, Gemm, Conv, a CNN and an attention block
// with random weights), and a helper that runs a model file in ONNX Runtime. Header-only: tests only.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "onnx/test_models.h"
#include "runtime/session.h"
#include "tensor/npz.h"

namespace hone::onnx::testing {

inline std::vector<float> RandomValues(size_t n, uint32_t seed, float low = -1.0f, float high = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Replaces a FLOAT initializer's values (raw data) with `v`.
inline void SetValues(::onnx::TensorProto* t, const std::vector<float>& v) {
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
}

inline ::onnx::TensorProto* AddRandomInitializer(::onnx::GraphProto* g, const std::string& name,
                                                 std::vector<int64_t> dims, uint32_t seed, float scale = 1.0f) {
  auto* t = AddFloatInitializer(g, name, dims);
  std::vector<float> v = RandomValues(t->raw_data().size() / 4, seed, -scale, scale);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
  return t;
}

inline ::onnx::ModelProto EmptyModel(const std::string& name, int64_t opset = 17) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  m.mutable_graph()->set_name(name);
  return m;
}

inline void IntAttribute(::onnx::NodeProto* node, const std::string& name, int64_t v) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

inline void IntsAttribute(::onnx::NodeProto* node, const std::string& name, std::vector<int64_t> v) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

// y = x @ W: x [N, 32], W [32, 16].
inline ::onnx::ModelProto MatMulModel() {
  auto m = EmptyModel("matmul");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 32});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 16});
  AddRandomInitializer(g, "W", {32, 16}, 1);
  AddNode(g, "MatMul", {"x", "W"}, {"y"})->set_name("mm");
  return m;
}

// y = 0.5 * x @ W^T + C: x [N, 32], W [16, 32] (transB), C [16].
inline ::onnx::ModelProto GemmModel() {
  auto m = EmptyModel("gemm");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 32});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 16});
  AddRandomInitializer(g, "W", {16, 32}, 2);
  AddRandomInitializer(g, "C", {16}, 3);
  auto* gemm = AddNode(g, "Gemm", {"x", "W", "C"}, {"y"});
  gemm->set_name("gemm");
  IntAttribute(gemm, "transB", 1);
  auto* alpha = gemm->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(::onnx::AttributeProto::FLOAT);
  alpha->set_f(0.5f);
  return m;
}

// y = Conv(x, W, B), 3x3, pads 1: x [N, 3, 8, 8], W [4, 3, 3, 3].
inline ::onnx::ModelProto ConvModel() {
  auto m = EmptyModel("conv");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 3, 8, 8});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 4, 8, 8});
  AddRandomInitializer(g, "W", {4, 3, 3, 3}, 4);
  AddRandomInitializer(g, "B", {4}, 5);
  auto* conv = AddNode(g, "Conv", {"x", "W", "B"}, {"y"});
  conv->set_name("conv");
  IntsAttribute(conv, "kernel_shape", {3, 3});
  IntsAttribute(conv, "pads", {1, 1, 1, 1});
  return m;
}

// The bundled model's shape in small: Conv -> Relu -> MaxPool -> Flatten -> Gemm -> Relu -> Gemm.
inline ::onnx::ModelProto SmallCnnModel() {
  auto m = EmptyModel("cnn");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 1, 8, 8});
  SetTensorType(g->add_output(), "logits", ::onnx::TensorProto::FLOAT, {"N", 4});
  AddRandomInitializer(g, "conv_w", {8, 1, 3, 3}, 11, 0.5f);
  AddRandomInitializer(g, "conv_b", {8}, 12, 0.1f);
  AddRandomInitializer(g, "fc1_w", {16, 128}, 13, 0.2f);
  AddRandomInitializer(g, "fc1_b", {16}, 14, 0.1f);
  AddRandomInitializer(g, "fc2_w", {4, 16}, 15, 0.5f);
  AddRandomInitializer(g, "fc2_b", {4}, 16, 0.1f);
  auto* conv = AddNode(g, "Conv", {"x", "conv_w", "conv_b"}, {"c"});
  IntsAttribute(conv, "kernel_shape", {3, 3});
  IntsAttribute(conv, "pads", {1, 1, 1, 1});
  AddNode(g, "Relu", {"c"}, {"r"});
  auto* pool = AddNode(g, "MaxPool", {"r"}, {"p"});
  IntsAttribute(pool, "kernel_shape", {2, 2});
  IntsAttribute(pool, "strides", {2, 2});
  AddNode(g, "Flatten", {"p"}, {"f"});
  IntAttribute(AddNode(g, "Gemm", {"f", "fc1_w", "fc1_b"}, {"h"}), "transB", 1);
  AddNode(g, "Relu", {"h"}, {"hr"});
  IntAttribute(AddNode(g, "Gemm", {"hr", "fc2_w", "fc2_b"}, {"logits"}), "transB", 1);
  return m;
}

// One self-attention head over x [N, 8, 16]: softmax((x Wq)(x Wk)^T / 4) (x Wv) Wo.
inline ::onnx::ModelProto AttentionModel() {
  auto m = EmptyModel("attention");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 8, 16});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 8, 16});
  for (auto [name, seed] : {std::pair{"Wq", 21u}, {"Wk", 22u}, {"Wv", 23u}, {"Wo", 24u}})
    AddRandomInitializer(g, name, {16, 16}, seed, 0.5f);
  auto* quarter = AddFloatInitializer(g, "quarter", {});
  float q = 0.25f;
  quarter->set_raw_data(std::string(reinterpret_cast<const char*>(&q), 4));
  AddNode(g, "MatMul", {"x", "Wq"}, {"q"});
  AddNode(g, "MatMul", {"x", "Wk"}, {"k"});
  AddNode(g, "MatMul", {"x", "Wv"}, {"v"});
  IntsAttribute(AddNode(g, "Transpose", {"k"}, {"kt"}), "perm", {0, 2, 1});
  AddNode(g, "MatMul", {"q", "kt"}, {"scores"});
  AddNode(g, "Mul", {"scores", "quarter"}, {"scaled"});
  IntAttribute(AddNode(g, "Softmax", {"scaled"}, {"probs"}), "axis", -1);
  AddNode(g, "MatMul", {"probs", "v"}, {"context"});
  AddNode(g, "MatMul", {"context", "Wo"}, {"y"});
  return m;
}

// A float tensor of `shape` with values uniform in [low, high).
inline Tensor RandomTensor(Shape shape, uint32_t seed, float low = 0.0f, float high = 1.0f) {
  Tensor t = *Tensor::Allocate(DataType::kFp32, shape);
  auto v = RandomValues(static_cast<size_t>(t.element_count()), seed, low, high);
  std::copy(v.begin(), v.end(), t.mutable_values<float>().begin());
  return t;
}

// Runs the model file on one input; the first output's values, or an empty vector with *error set.
inline std::vector<float> RunFirstOutput(const std::string& path, const Tensor& input, std::string* error,
                                         const runtime::SessionOptions& options = {}) {
  auto session = runtime::Session::Open(path, options);
  if (!session.ok()) {
    *error = session.status().ToString();
    return {};
  }
  std::vector<Tensor> inputs{input};
  auto outputs = (*session)->Run(inputs);
  if (!outputs.ok()) {
    *error = outputs.status().ToString();
    return {};
  }
  auto v = (*outputs)[0].values<float>();
  return {v.begin(), v.end()};
}

inline double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, std::fabs(double(a[i]) - double(b[i])));
  return m;
}

inline double MaxAbs(const std::vector<float>& a) {
  double m = 0;
  for (float x : a) m = std::max(m, std::fabs(double(x)));
  return m;
}

// Op types of the model's main graph, one entry per node.
inline std::vector<std::string> OpTypes(const ::onnx::ModelProto& m) {
  std::vector<std::string> ops;
  for (const auto& n : m.graph().node()) ops.push_back(n.op_type());
  return ops;
}

}  // namespace hone::onnx::testing
