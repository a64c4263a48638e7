#include "onnx/quantize_select.h"

#include <unordered_set>

#include "onnx/onnx_pb.h"

namespace hone::onnx {

int NameNodes(::onnx::GraphProto* graph) {
  std::unordered_set<std::string> used;
  for (const auto& node : graph->node()) {
    if (!node.name().empty()) used.insert(node.name());
    for (const auto& out : node.output()) used.insert(out);
  }
  int named = 0, counter = 0;
  for (auto& node : *graph->mutable_node()) {
    if (!node.name().empty()) continue;
    std::string name;
    do name = node.op_type() + "_" + std::to_string(counter++);
    while (used.count(name));
    used.insert(name);
    node.set_name(name);
    ++named;
  }
  return named;
}

NodeSelector::NodeSelector(const QuantizeOptions& options)
    : excluded_ops_(options.exclude_op_types.begin(), options.exclude_op_types.end()),
      excluded_nodes_(options.exclude_nodes.begin(), options.exclude_nodes.end()) {
  std::vector<std::string> ops = options.op_types.empty() ? DefaultOpTypes(options.mode) : options.op_types;
  op_types_.insert(ops.begin(), ops.end());
}

bool NodeSelector::Selected(const ::onnx::NodeProto& node) const {
  if (!node.domain().empty() && node.domain() != "ai.onnx") return false;
  return op_types_.count(node.op_type()) && !excluded_ops_.count(node.op_type()) &&
         !excluded_nodes_.count(node.name());
}

std::vector<std::string> NodeSelector::UnmatchedExclusions(const ::onnx::GraphProto& graph) const {
  std::set<std::string> ops, names;
  for (const auto& node : graph.node()) {
    ops.insert(node.op_type());
    names.insert(node.name());
  }
  std::vector<std::string> warnings;
  for (const auto& op : excluded_ops_)
    if (!ops.count(op)) warnings.push_back("--exclude-ops '" + op + "': the model has no " + op + " node");
  for (const auto& name : excluded_nodes_)
    if (!names.count(name)) warnings.push_back("--exclude-nodes '" + name + "': the model has no node of that name");
  return warnings;
}

}  // namespace hone::onnx
