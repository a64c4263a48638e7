#include "onnx/graph_index.h"

#include "onnx/onnx_pb.h"

namespace hone::onnx {
namespace {

const std::vector<int> kNoConsumers;

// Names a subgraph reads but does not define: the values it takes from the enclosing scopes.
void CollectOuterReads(const ::onnx::GraphProto& g, std::unordered_set<std::string>& defined,
                       std::unordered_set<std::string>& reads) {
  for (const auto& in : g.input()) defined.insert(in.name());
  for (const auto& init : g.initializer()) defined.insert(init.name());
  for (const auto& node : g.node()) {
    for (const auto& in : node.input())
      if (!in.empty() && !defined.count(in)) reads.insert(in);
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectOuterReads(attr.g(), defined, reads);
      for (const auto& sub : attr.graphs()) CollectOuterReads(sub, defined, reads);
    }
    for (const auto& out : node.output()) defined.insert(out);
  }
  for (const auto& out : g.output())
    if (!defined.count(out.name())) reads.insert(out.name());
}

std::unordered_set<std::string> OuterReads(const ::onnx::NodeProto& node) {
  std::unordered_set<std::string> defined, reads;
  for (const auto& attr : node.attribute()) {
    if (attr.has_g()) CollectOuterReads(attr.g(), defined, reads);
    for (const auto& sub : attr.graphs()) CollectOuterReads(sub, defined, reads);
  }
  return reads;
}

void CollectNames(const ::onnx::GraphProto& g, std::unordered_set<std::string>& used) {
  for (const auto& v : g.input()) used.insert(v.name());
  for (const auto& v : g.output()) used.insert(v.name());
  for (const auto& v : g.value_info()) used.insert(v.name());
  for (const auto& t : g.initializer()) used.insert(t.name());
  for (const auto& node : g.node()) {
    if (!node.name().empty()) used.insert(node.name());
    for (const auto& v : node.input()) used.insert(v);
    for (const auto& v : node.output()) used.insert(v);
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectNames(attr.g(), used);
      for (const auto& sub : attr.graphs()) CollectNames(sub, used);
    }
  }
}

void RenameIn(::onnx::GraphProto* g, const std::string& from, const std::string& to, int skip_node) {
  for (int i = 0; i < g->node_size(); ++i) {
    if (i == skip_node) continue;
    auto* node = g->mutable_node(i);
    for (auto& in : *node->mutable_input())
      if (in == from) in = to;
    for (auto& attr : *node->mutable_attribute()) {
      if (attr.has_g()) RenameIn(attr.mutable_g(), from, to, -1);
      for (auto& sub : *attr.mutable_graphs()) RenameIn(&sub, from, to, -1);
    }
  }
}

}  // namespace

GraphIndex::GraphIndex(const ::onnx::GraphProto& graph, const GraphIndex* outer) : graph_(&graph), outer_(outer) {
  for (const auto& t : graph.initializer()) {
    initializers_[t.name()] = &t;
    elem_types_[t.name()] = t.data_type();
  }
  auto note_type = [this](const ::onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() != 0)
      elem_types_[v.name()] = v.type().tensor_type().elem_type();
  };
  for (const auto& v : graph.value_info()) note_type(v);
  for (const auto& v : graph.input()) {
    graph_inputs_.insert(v.name());
    note_type(v);
  }
  for (const auto& v : graph.output()) {
    graph_outputs_.insert(v.name());
    note_type(v);
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    for (const auto& out : node.output())
      if (!out.empty()) producers_[out] = i;
    std::unordered_set<std::string> seen;
    for (const auto& in : node.input())
      if (!in.empty() && seen.insert(in).second) consumers_[in].push_back(i);
    bool has_graph = false;
    for (const auto& attr : node.attribute()) has_graph = has_graph || attr.has_g() || attr.graphs_size() > 0;
    if (has_graph) {
      has_subgraphs_ = true;
      for (const auto& read : OuterReads(node))
        if (seen.insert(read).second) consumers_[read].push_back(i);
    }
  }
}

const ::onnx::TensorProto* GraphIndex::Initializer(const std::string& name) const {
  auto it = initializers_.find(name);
  if (it != initializers_.end()) return it->second;
  return outer_ ? outer_->Initializer(name) : nullptr;
}

int GraphIndex::Producer(const std::string& value) const {
  auto it = producers_.find(value);
  return it == producers_.end() ? -1 : it->second;
}

const std::vector<int>& GraphIndex::Consumers(const std::string& value) const {
  auto it = consumers_.find(value);
  return it == consumers_.end() ? kNoConsumers : it->second;
}

int32_t GraphIndex::ElemType(const std::string& value) const {
  auto it = elem_types_.find(value);
  if (it != elem_types_.end()) return it->second;
  return outer_ ? outer_->ElemType(value) : 0;
}

NameGenerator::NameGenerator(const ::onnx::ModelProto& model) { CollectNames(model.graph(), used_); }

std::string NameGenerator::Fresh(const std::string& base) {
  std::string name = base;
  for (int i = 1; used_.count(name); ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

int64_t OpsetVersion(const ::onnx::ModelProto& model, const std::string& domain) {
  bool default_domain = domain.empty() || domain == "ai.onnx";
  for (const auto& op : model.opset_import()) {
    bool op_default = op.domain().empty() || op.domain() == "ai.onnx";
    if (default_domain ? op_default : op.domain() == domain) return op.version();
  }
  return 0;
}

void EnsureOpsetImport(::onnx::ModelProto* model, const std::string& domain, int64_t version) {
  if (OpsetVersion(*model, domain) > 0) return;
  auto* op = model->add_opset_import();
  op->set_domain(domain);
  op->set_version(version);
}

int HoistConstants(::onnx::GraphProto* graph, bool subgraphs) {
  int moved = 0;
  if (subgraphs)
    for (const Subgraph& sub : DirectSubgraphs(graph)) moved += HoistConstants(sub.graph, true);
  auto* nodes = graph->mutable_node();
  for (int i = 0; i < nodes->size();) {
    const auto& node = nodes->Get(i);
    bool tensor_constant = node.op_type() == "Constant" && (node.domain().empty() || node.domain() == "ai.onnx") &&
                           node.output_size() == 1 && node.attribute_size() == 1 &&
                           node.attribute(0).name() == "value" && node.attribute(0).has_t();
    if (!tensor_constant) {
      ++i;
      continue;
    }
    ::onnx::TensorProto* init = graph->add_initializer();
    *init = node.attribute(0).t();
    init->set_name(node.output(0));
    nodes->DeleteSubrange(i, 1);
    ++moved;
  }
  return moved;
}

std::vector<Subgraph> DirectSubgraphs(::onnx::GraphProto* graph, const std::string& path_prefix) {
  std::vector<Subgraph> out;
  const std::string prefix = path_prefix.empty() ? "" : path_prefix + "/";
  for (auto& node : *graph->mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      const std::string base = prefix + node.name() + "/" + attr.name();
      if (attr.has_g()) out.push_back({attr.mutable_g(), base});
      for (int i = 0; i < attr.graphs_size(); ++i)
        out.push_back({attr.mutable_graphs(i), base + "[" + std::to_string(i) + "]"});
    }
  }
  return out;
}

void RenameInputs(::onnx::GraphProto* graph, const std::string& from, const std::string& to, int skip_node) {
  RenameIn(graph, from, to, skip_node);
}

}  // namespace hone::onnx
