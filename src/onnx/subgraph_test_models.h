// Small models with their compute inside control flow, and an opset-9 model with its weights in Constant nodes (as
// Paddle exports them), for the tests of quantization and conversion inside subgraphs and of opset upgrades.
// Header-only: tests only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "onnx/quantize_test_models.h"

namespace hone::onnx::testing {

// A Constant node holding a random FLOAT tensor (the `value` attribute) as `output`.
inline ::onnx::NodeProto* AddConstantWeight(::onnx::GraphProto* g, const std::string& output,
                                            std::vector<int64_t> dims, uint32_t seed, float scale = 0.5f) {
  ::onnx::GraphProto scratch;
  ::onnx::TensorProto t = *AddRandomInitializer(&scratch, output, std::move(dims), seed, scale);
  auto* node = AddNode(g, "Constant", {}, {output});
  node->set_name(output + "_Constant");
  auto* a = node->add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  *a->mutable_t() = std::move(t);
  return node;
}

inline void AddGraphAttribute(::onnx::NodeProto* node, const std::string& name, ::onnx::GraphProto g) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::GRAPH);
  *a->mutable_g() = std::move(g);
}

// y = If(cond, then: x @ W_outer (W an initializer of the main graph), else: Relu(x @ W_else) with W_else a Constant
// node inside the branch). x [N, 8], cond BOOL scalar, y [N, 4].
inline ::onnx::ModelProto IfModel(int64_t opset = 17) {
  auto m = EmptyModel("if", opset);
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 8});
  SetTensorType(g->add_input(), "cond", ::onnx::TensorProto::BOOL, {});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 4});
  AddRandomInitializer(g, "W_outer", {8, 4}, 31, 0.5f);
  ::onnx::GraphProto then_branch;
  then_branch.set_name("then");
  AddNode(&then_branch, "MatMul", {"x", "W_outer"}, {"t_out"})->set_name("then_mm");
  SetTensorType(then_branch.add_output(), "t_out", ::onnx::TensorProto::FLOAT, {"N", 4});
  ::onnx::GraphProto else_branch;
  else_branch.set_name("else");
  AddConstantWeight(&else_branch, "W_else", {8, 4}, 32);
  AddNode(&else_branch, "MatMul", {"x", "W_else"}, {"e_mm"})->set_name("else_mm");
  AddNode(&else_branch, "Relu", {"e_mm"}, {"e_out"})->set_name("else_relu");
  SetTensorType(else_branch.add_output(), "e_out", ::onnx::TensorProto::FLOAT, {"N", 4});
  auto* node = AddNode(g, "If", {"cond"}, {"y"});
  node->set_name("branch");
  AddGraphAttribute(node, "then_branch", std::move(then_branch));
  AddGraphAttribute(node, "else_branch", std::move(else_branch));
  return m;
}

// h = x; 3 times: h = Tanh(h @ W) (W an initializer of the main graph); y = h. x, y [N, 8].
inline ::onnx::ModelProto LoopModel() {
  auto m = EmptyModel("loop");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 8});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 8});
  AddRandomInitializer(g, "W", {8, 8}, 41, 0.5f);
  auto* trips = g->add_initializer();
  trips->set_name("trips");
  trips->set_data_type(::onnx::TensorProto::INT64);
  trips->add_int64_data(3);
  ::onnx::GraphProto body;
  body.set_name("body");
  SetTensorType(body.add_input(), "i", ::onnx::TensorProto::INT64, {});
  SetTensorType(body.add_input(), "cond_in", ::onnx::TensorProto::BOOL, {});
  SetTensorType(body.add_input(), "h", ::onnx::TensorProto::FLOAT, {"N", 8});
  AddNode(&body, "Identity", {"cond_in"}, {"cond_out"})->set_name("body_cond");
  AddNode(&body, "MatMul", {"h", "W"}, {"hw"})->set_name("body_mm");
  AddNode(&body, "Tanh", {"hw"}, {"h_next"})->set_name("body_tanh");
  SetTensorType(body.add_output(), "cond_out", ::onnx::TensorProto::BOOL, {});
  SetTensorType(body.add_output(), "h_next", ::onnx::TensorProto::FLOAT, {"N", 8});
  auto* node = AddNode(g, "Loop", {"trips", "", "x"}, {"y"});
  node->set_name("loop");
  AddGraphAttribute(node, "body", std::move(body));
  return m;
}

// Opset 9, IR 4, weights in Constant nodes: y = Gemm(Relu(x @ W1 + b1), W2, b2), x [N, 8], y [N, 4].
inline ::onnx::ModelProto Opset9ConstantModel() {
  auto m = EmptyModel("paddle_like", 9);
  m.set_ir_version(4);
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 8});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 4});
  AddConstantWeight(g, "W1", {8, 16}, 51);
  AddConstantWeight(g, "b1", {16}, 52, 0.1f);
  AddConstantWeight(g, "W2", {16, 4}, 53);
  AddConstantWeight(g, "b2", {4}, 54, 0.1f);
  AddNode(g, "MatMul", {"x", "W1"}, {"h"})->set_name("fc1");
  AddNode(g, "Add", {"h", "b1"}, {"hb"})->set_name("fc1_bias");
  AddNode(g, "Relu", {"hb"}, {"hr"})->set_name("relu");
  AddNode(g, "Gemm", {"hr", "W2", "b2"}, {"y"})->set_name("fc2");
  return m;
}

// Runs `path` on named inputs; the first output, or empty with *error set.
inline std::vector<float> RunNamed(const std::string& path, std::vector<Tensor> inputs, std::string* error) {
  auto session = runtime::Session::Open(path, {});
  if (!session.ok()) {
    *error = session.status().ToString();
    return {};
  }
  auto outputs = (*session)->Run(inputs);
  if (!outputs.ok()) {
    *error = outputs.status().ToString();
    return {};
  }
  auto v = (*outputs)[0].values<float>();
  return {v.begin(), v.end()};
}

inline Tensor BoolScalar(bool value) {
  Tensor t = *Tensor::Allocate(DataType::kBool, {});
  t.mutable_values<bool>()[0] = value;
  return t;
}

}  // namespace hone::onnx::testing
