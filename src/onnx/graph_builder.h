// Adding nodes and initializers to a model under fresh names. Rewrites append nodes and let SortTopologically
// (graph_io.h) put them in order at the end, so a pass never has to find an insertion point.
#pragma once

#include <string>
#include <vector>

#include "onnx/graph_index.h"

namespace onnx {
class AttributeProto;
class GraphProto;
class ModelProto;
class NodeProto;
class TensorProto;
}  // namespace onnx

namespace hone::onnx {

class GraphBuilder {
 public:
  // `model` must outlive the builder. Nodes and initializers go to the main graph, or to `graph` (a subgraph of
  // `model`, which must outlive the builder too); names are fresh across the whole model either way.
  explicit GraphBuilder(::onnx::ModelProto* model, ::onnx::GraphProto* graph = nullptr);

  ::onnx::ModelProto* model() { return model_; }
  ::onnx::GraphProto* graph();

  // A value or node name no part of the model uses yet, derived from `base`.
  std::string Fresh(const std::string& base) { return names_.Fresh(base); }
  // Adds `tensor` as an initializer under a fresh name derived from its own name; returns the name used.
  std::string AddInitializer(::onnx::TensorProto tensor);
  // Appends a node (domain "" is ai.onnx) named fresh from `name_base`.
  ::onnx::NodeProto* AddNode(const std::string& op_type, const std::vector<std::string>& inputs,
                             const std::vector<std::string>& outputs, const std::string& name_base,
                             const std::string& domain = "");

 private:
  ::onnx::ModelProto* model_;
  ::onnx::GraphProto* graph_;
  NameGenerator names_;
};

// Attribute setters for nodes built here.
void SetIntAttr(::onnx::NodeProto* node, const std::string& name, int64_t value);
void SetFloatAttr(::onnx::NodeProto* node, const std::string& name, float value);
// How reports and refusals name a node: "'/layers.0/MatMul' (MatMul)".
std::string NodeLabel(const ::onnx::NodeProto& node);

// The attribute named `name`, or null.
const ::onnx::AttributeProto* FindAttr(const ::onnx::NodeProto& node, const std::string& name);
// An int attribute's value, or `fallback` when the node has none.
int64_t IntAttr(const ::onnx::NodeProto& node, const std::string& name, int64_t fallback);
float FloatAttr(const ::onnx::NodeProto& node, const std::string& name, float fallback);

}  // namespace hone::onnx
