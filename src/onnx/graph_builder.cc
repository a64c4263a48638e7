#include "onnx/graph_builder.h"

#include "onnx/onnx_pb.h"

namespace hone::onnx {

GraphBuilder::GraphBuilder(::onnx::ModelProto* model, ::onnx::GraphProto* graph)
    : model_(model), graph_(graph), names_(*model) {}

::onnx::GraphProto* GraphBuilder::graph() { return graph_ ? graph_ : model_->mutable_graph(); }

std::string GraphBuilder::AddInitializer(::onnx::TensorProto tensor) {
  std::string name = Fresh(tensor.name());
  tensor.set_name(name);
  *graph()->add_initializer() = std::move(tensor);
  return name;
}

::onnx::NodeProto* GraphBuilder::AddNode(const std::string& op_type, const std::vector<std::string>& inputs,
                                         const std::vector<std::string>& outputs, const std::string& name_base,
                                         const std::string& domain) {
  auto* node = graph()->add_node();
  node->set_op_type(op_type);
  node->set_name(Fresh(name_base));
  if (!domain.empty()) node->set_domain(domain);
  for (const auto& in : inputs) node->add_input(in);
  for (const auto& out : outputs) node->add_output(out);
  return node;
}

void SetIntAttr(::onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(value);
}

void SetFloatAttr(::onnx::NodeProto* node, const std::string& name, float value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

const ::onnx::AttributeProto* FindAttr(const ::onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t IntAttr(const ::onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const auto* a = FindAttr(node, name);
  return a ? a->i() : fallback;
}

float FloatAttr(const ::onnx::NodeProto& node, const std::string& name, float fallback) {
  const auto* a = FindAttr(node, name);
  return a ? a->f() : fallback;
}

std::string NodeLabel(const ::onnx::NodeProto& node) { return "'" + node.name() + "' (" + node.op_type() + ")"; }

}  // namespace hone::onnx
