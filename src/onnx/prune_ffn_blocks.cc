#include "onnx/prune_ffn_blocks.h"

#include <set>
#include <string_view>

#include "onnx/graph_builder.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx/prune_linear.h"

namespace hone::onnx {
namespace {

// Ops that act on each element alone (with scalar operands broadcast), so that a neuron's column passes through
// them without mixing with the others.
bool IsElementwise(const ::onnx::NodeProto& node) {
  static const std::set<std::string_view> kOps = {
      "Add", "Sub", "Mul", "Div", "Erf", "Tanh", "Relu", "Sigmoid", "Gelu", "Pow", "Sqrt", "LeakyRelu",
      "Elu", "Selu", "HardSigmoid", "HardSwish", "Softplus", "Neg", "Exp", "Clip", "Mish", "Identity"};
  return (node.domain().empty() || node.domain() == "ai.onnx") && kOps.count(node.op_type()) > 0;
}

// Walks back from the second MatMul's input through elementwise nodes to the first MatMul (and its bias Add). On
// success fills block.up/up_weight/up_bias and returns ""; otherwise why not, or "-" when the walk never left the
// start (not a feed-forward block at all: attention's output projection reads a Reshape).
std::string WalkActivation(const ::onnx::GraphProto& graph, const GraphIndex& index, FfnBlock& block) {
  std::set<int> region;            // the activation's nodes
  std::set<std::string> values;    // the values they produce, and `hidden`
  std::vector<std::string> stack = {block.hidden};
  int up = -1, bias_add = -1;
  while (!stack.empty()) {
    const std::string v = stack.back();
    stack.pop_back();
    if (!values.insert(v).second) continue;
    const int p = index.Producer(v);
    if (p < 0) return region.empty() ? "-" : "value '" + v + "' reaches a graph input, not a MatMul by a weight";
    const ::onnx::NodeProto& node = graph.node(p);
    if (node.op_type() == "Add" && node.domain().empty() && node.input_size() == 2) {
      // The first MatMul's bias: Add(MatMul(x, W1), b1).
      for (int side = 0; side < 2; ++side) {
        const int mm = index.Producer(node.input(side));
        if (mm < 0 || graph.node(mm).op_type() != "MatMul") continue;
        const auto layer = AsLinear(graph, index, mm);
        if (layer && layer->bias_add == p) {
          if (up >= 0 && up != mm) return "the activation reads two MatMuls";
          up = mm, bias_add = p, block.up_bias = layer->bias;
          values.insert(node.input(side));
        }
      }
      if (bias_add == p) continue;
    }
    if ((node.op_type() == "MatMul" || node.op_type() == "Gemm") && node.domain().empty()) {
      const auto layer = AsLinear(graph, index, p);
      if (!layer) {
        if (region.empty()) return "-";
        return "node " + NodeLabel(node) + " before the activation does not multiply by a weight" +
               (node.op_type() == "Gemm" ? " (or scales or transposes its input)" : "");
      }
      if (up >= 0 && up != p) return "the activation reads two MatMuls";
      up = p;
      if (node.op_type() == "Gemm") block.up_bias = layer->bias, block.up_transposed = layer->transposed;
      continue;
    }
    if (!IsElementwise(node)) {
      if (region.empty()) return "-";
      return "node " + NodeLabel(node) + " inside the activation is not elementwise";
    }
    region.insert(p);
    for (const std::string& in : node.input()) {
      if (in.empty() || IsScalarConstant(index, in)) continue;
      if (index.Initializer(in)) return "node " + NodeLabel(node) + " reads '" + in + "', a constant that is not a scalar";
      stack.push_back(in);
    }
  }
  if (up < 0) return "-";
  const ::onnx::NodeProto& up_node = graph.node(up);
  const auto up_layer = AsLinear(graph, index, up);
  if (!up_layer || up_layer->out != block.width)
    return "the first MatMul " + NodeLabel(up_node) + " does not multiply by a FLOAT weight [D, " +
           std::to_string(block.width) + "]";
  block.up = up;
  block.up_weight = up_node.input(1);
  // Every value from the first MatMul's output to `hidden` must stay inside: one read elsewhere would see the
  // neurons disappear.
  const std::string first = bias_add >= 0 ? graph.node(bias_add).output(0) : up_node.output(0);
  if (bias_add >= 0) values.insert(up_node.output(0));
  values.insert(first);
  std::set<int> allowed = region;
  allowed.insert(block.down);
  if (bias_add >= 0) allowed.insert(bias_add);
  for (const std::string& v : values) {
    if (index.IsGraphOutput(v)) return "value '" + v + "' inside the block is a graph output";
    for (int user : index.Consumers(v))
      if (!allowed.count(user))
        return "value '" + v + "' inside the block is also read by " + NodeLabel(graph.node(user));
  }
  for (const std::string& w : {block.up_weight, block.up_bias, block.down_weight, block.down_bias})
    if (!w.empty() && !OwnedBy(index, w)) return "weight '" + w + "' is shared with another node";
  return "";
}

}  // namespace

FfnSearch FindFfnBlocks(const ::onnx::GraphProto& graph, const GraphIndex& index) {
  FfnSearch search;
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    if ((node.op_type() != "MatMul" && node.op_type() != "Gemm") || !node.domain().empty()) continue;
    const auto down = AsLinear(graph, index, i);
    if (!down || down->in < 2) continue;
    FfnBlock block;
    block.down = i;
    block.hidden = node.input(0);
    block.down_weight = down->weight;
    block.down_bias = down->bias;
    block.down_transposed = down->transposed;
    block.width = down->in;
    std::string why = WalkActivation(graph, index, block);
    if (why == "-") continue;
    if (!why.empty()) {
      search.refused.push_back("node " + NodeLabel(node) + ": " + why);
      continue;
    }
    search.blocks.push_back(std::move(block));
  }
  return search;
}

}  // namespace hone::onnx
