// FoldCasts (convert_precision.h): the Casts the precision pass inserts, simplified where that is exact or closer to
// the float model.
#include <vector>

#include "onnx/convert_precision.h"
#include "onnx/graph_builder.h"
#include "onnx/graph_index.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx {
namespace {

bool IsCast(const ::onnx::NodeProto& node) {
  return node.op_type() == "Cast" && (node.domain().empty() || node.domain() == "ai.onnx") && node.input_size() == 1;
}

// One simplification, if any applies; returns whether the graph changed.
bool FoldOnce(::onnx::ModelProto* model, const std::set<std::string>& inserted, int* removed) {
  auto* graph = model->mutable_graph();
  GraphIndex index(*graph);
  for (int b = 0; b < graph->node_size(); ++b) {
    const auto& second = graph->node(b);
    if (!IsCast(second) || !inserted.count(second.name())) continue;
    const std::string& out = second.output(0);
    if (index.IsGraphOutput(out)) continue;  // its name is the graph's contract
    int a = index.Producer(second.input(0));
    if (a < 0 || !IsCast(graph->node(a))) continue;
    const auto& first = graph->node(a);
    const int64_t first_to = IntAttr(first, "to", 0), second_to = IntAttr(second, "to", 0);
    if (inserted.count(first.name())) {
      // Both ours, so the pair is FP32 -> low -> FP32 or low -> FP32 -> low: readers of the second take the
      // first's input, which is exact for the second case and the float model's own value for the first.
      if (first_to == second_to) continue;
      RenameInputs(graph, out, first.input(0));
    } else {
      // A Cast of the model's own (int -> FP32, say) read only by ours: one Cast to our type does both.
      if (index.Consumers(first.output(0)).size() != 1 || index.IsGraphOutput(first.output(0))) continue;
      for (auto& attr : *graph->mutable_node(a)->mutable_attribute())
        if (attr.name() == "to") attr.set_i(second_to);
      for (auto& info : *graph->mutable_value_info())
        if (info.name() == first.output(0)) info.mutable_type()->mutable_tensor_type()->set_elem_type(second_to);
      RenameInputs(graph, out, first.output(0));
    }
    graph->mutable_node()->DeleteSubrange(b, 1);
    ++*removed;
    return true;
  }
  // Casts left without readers (the first of a folded pair).
  for (int b = 0; b < graph->node_size(); ++b) {
    const auto& node = graph->node(b);
    if (IsCast(node) && inserted.count(node.name()) && index.Consumers(node.output(0)).empty() &&
        !index.IsGraphOutput(node.output(0))) {
      graph->mutable_node()->DeleteSubrange(b, 1);
      ++*removed;
      return true;
    }
  }
  return false;
}

}  // namespace

int FoldCasts(::onnx::ModelProto* model, const std::set<std::string>& inserted_casts) {
  int removed = 0;
  while (FoldOnce(model, inserted_casts, &removed)) {
  }
  return removed;
}

}  // namespace hone::onnx
