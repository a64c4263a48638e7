#include "onnx/quantize_select.h"

#include <unordered_set>

#include "onnx/graph_index.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx {

namespace {

void CollectUsed(const ::onnx::GraphProto& g, std::unordered_set<std::string>& used) {
  for (const auto& node : g.node()) {
    if (!node.name().empty()) used.insert(node.name());
    for (const auto& out : node.output()) used.insert(out);
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectUsed(attr.g(), used);
      for (const auto& sub : attr.graphs()) CollectUsed(sub, used);
    }
  }
}

int NameIn(::onnx::GraphProto* g, std::unordered_set<std::string>& used, int& counter) {
  int named = 0;
  for (auto& node : *g->mutable_node()) {
    if (node.name().empty()) {
      std::string name;
      do name = node.op_type() + "_" + std::to_string(counter++);
      while (used.count(name));
      used.insert(name);
      node.set_name(name);
      ++named;
    }
  }
  for (const Subgraph& sub : DirectSubgraphs(g)) named += NameIn(sub.graph, used, counter);
  return named;
}

void CollectOps(const ::onnx::GraphProto& g, std::set<std::string>& ops, std::set<std::string>& names) {
  for (const auto& node : g.node()) {
    ops.insert(node.op_type());
    names.insert(node.name());
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectOps(attr.g(), ops, names);
      for (const auto& sub : attr.graphs()) CollectOps(sub, ops, names);
    }
  }
}

}  // namespace

int NameNodes(::onnx::GraphProto* graph) {
  std::unordered_set<std::string> used;
  CollectUsed(*graph, used);
  int counter = 0;
  return NameIn(graph, used, counter);
}

NodeSelector::NodeSelector(const QuantizeOptions& options)
    : excluded_ops_(options.exclude_op_types.begin(), options.exclude_op_types.end()),
      excluded_nodes_(options.exclude_nodes.begin(), options.exclude_nodes.end()),
      only_nodes_(options.nodes.begin(), options.nodes.end()) {
  std::vector<std::string> ops = options.op_types.empty() ? DefaultOpTypes(options.mode) : options.op_types;
  op_types_.insert(ops.begin(), ops.end());
}

bool NodeSelector::Selected(const ::onnx::NodeProto& node) const {
  if (!node.domain().empty() && node.domain() != "ai.onnx") return false;
  return op_types_.count(node.op_type()) && !excluded_ops_.count(node.op_type()) &&
         !excluded_nodes_.count(node.name()) && (only_nodes_.empty() || only_nodes_.count(node.name()));
}

std::vector<std::string> NodeSelector::UnmatchedExclusions(const ::onnx::GraphProto& graph) const {
  std::set<std::string> ops, names;
  CollectOps(graph, ops, names);
  std::vector<std::string> warnings;
  for (const auto& op : excluded_ops_)
    if (!ops.count(op)) warnings.push_back("--exclude-ops '" + op + "': the model has no " + op + " node");
  for (const auto& name : excluded_nodes_)
    if (!names.count(name)) warnings.push_back("--exclude-nodes '" + name + "': the model has no node of that name");
  for (const auto& name : only_nodes_)
    if (!names.count(name)) warnings.push_back("--nodes '" + name + "': the model has no node of that name");
  return warnings;
}

}  // namespace hone::onnx
