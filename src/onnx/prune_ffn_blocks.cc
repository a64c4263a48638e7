#include "onnx/prune_ffn_blocks.h"

#include <set>
#include <string_view>

#include "onnx/graph_builder.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"

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

// A FLOAT initializer of rank 2, or null.
const ::onnx::TensorProto* Matrix(const GraphIndex& index, const std::string& name) {
  const ::onnx::TensorProto* t = index.Initializer(name);
  return t && t->data_type() == ::onnx::TensorProto::FLOAT && t->dims_size() == 2 ? t : nullptr;
}

// A FLOAT initializer holding `n` values in a shape that broadcasts along the last axis only ([n] or [1, n]).
bool IsVector(const GraphIndex& index, const std::string& name, int64_t n) {
  const ::onnx::TensorProto* t = index.Initializer(name);
  if (!t || t->data_type() != ::onnx::TensorProto::FLOAT || t->dims_size() < 1 || t->dims(t->dims_size() - 1) != n)
    return false;
  for (int i = 0; i + 1 < t->dims_size(); ++i)
    if (t->dims(i) != 1) return false;
  return true;
}

bool IsScalarConstant(const GraphIndex& index, const std::string& name) {
  const ::onnx::TensorProto* t = index.Initializer(name);
  if (!t) return false;
  auto n = TensorElementCount(*t);
  return n.ok() && *n == 1;
}

// The bias Add right after `matmul` (one consumer, the other operand a vector of `n`), or -1.
int BiasAdd(const ::onnx::GraphProto& graph, const GraphIndex& index, int matmul, int64_t n, std::string* bias) {
  const std::string& out = graph.node(matmul).output(0);
  const auto& users = index.Consumers(out);
  if (users.size() != 1 || index.IsGraphOutput(out)) return -1;
  const ::onnx::NodeProto& add = graph.node(users[0]);
  if (add.op_type() != "Add" || !add.domain().empty() || add.input_size() != 2) return -1;
  const std::string& other = add.input(0) == out ? add.input(1) : add.input(0);
  if (!IsVector(index, other, n)) return -1;
  *bias = other;
  return users[0];
}

// Only `node` reads the initializer: a weight shared with another node cannot lose columns for one of them.
bool OwnedBy(const GraphIndex& index, const std::string& weight) { return index.Consumers(weight).size() == 1; }

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
        if (mm >= 0 && graph.node(mm).op_type() == "MatMul" && IsVector(index, node.input(1 - side), block.width) &&
            Matrix(index, graph.node(mm).input(1))) {
          if (up >= 0 && up != mm) return "the activation reads two MatMuls";
          up = mm, bias_add = p, block.up_bias = node.input(1 - side);
          values.insert(node.input(side));
        }
      }
      if (bias_add == p) continue;
    }
    if (node.op_type() == "MatMul" && node.domain().empty()) {
      if (!Matrix(index, node.input(1))) {
        if (region.empty()) return "-";
        return "node " + NodeLabel(node) + " before the activation does not multiply by a weight";
      }
      if (up >= 0 && up != p) return "the activation reads two MatMuls";
      up = p;
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
  const ::onnx::TensorProto* w1 = Matrix(index, up_node.input(1));
  if (!w1 || w1->dims(1) != block.width)
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
    if (node.op_type() != "MatMul" || !node.domain().empty() || node.input_size() != 2) continue;
    const ::onnx::TensorProto* w2 = Matrix(index, node.input(1));
    if (!w2 || w2->dims(0) < 2) continue;
    FfnBlock block;
    block.down = i;
    block.hidden = node.input(0);
    block.down_weight = node.input(1);
    block.width = w2->dims(0);
    BiasAdd(graph, index, i, w2->dims(1), &block.down_bias);
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
