#include "onnx/prune_heads.h"

#include <algorithm>
#include <map>
#include <set>

#include "onnx/graph_builder.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx {
namespace {

// Why a block cannot be pruned; empty while it still can.
struct Walk {
  const ::onnx::GraphProto& graph;
  const GraphIndex& index;
  std::string why;
  std::set<int> chain;  // the block's nodes, for the consumer check
  // Per value the block computes, the axis that holds the heads (the flattened H*dh counts): a Shape of the value
  // may read any other dimension, which pruning leaves as it was.
  std::map<std::string, int64_t> head_axis;

  const ::onnx::NodeProto* Producer(const std::string& value, const char* op) {
    const int p = index.Producer(value);
    if (p < 0 || graph.node(p).op_type() != op || !graph.node(p).domain().empty()) {
      if (why.empty())
        why = "'" + value + "' is made by " + (p < 0 ? std::string("no node") : NodeLabel(graph.node(p))) +
              ", not a " + op;
      return nullptr;
    }
    chain.insert(p);
    return &graph.node(p);
  }

  bool Fail(const std::string& reason) {
    if (why.empty()) why = reason;
    return false;
  }
};

std::vector<int64_t> Perm(const ::onnx::NodeProto& transpose) {
  const ::onnx::AttributeProto* a = FindAttr(transpose, "perm");
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}

// The INT64 values of an initializer, or empty when it is not one.
std::vector<int64_t> Int64Values(const GraphIndex& index, const std::string& name) {
  const ::onnx::TensorProto* t = index.Initializer(name);
  if (!t) return {};
  auto v = ReadInt64Tensor(*t);
  return v.ok() ? *v : std::vector<int64_t>{};
}

// In the shape that `reshape` reshapes to, the constant at dimension `dim` (of a target of `rank` dimensions): its
// place and value. Handles a whole constant shape and a Concat of one-element pieces.
bool ShapeDim(Walk& w, const ::onnx::NodeProto& reshape, int reshape_index, int rank, int dim, ShapeConstant* out,
              int64_t* value) {
  const std::string& shape = reshape.input(1);
  if (std::vector<int64_t> v = Int64Values(w.index, shape); !v.empty()) {
    if (static_cast<int>(v.size()) != rank) return w.Fail("the shape of " + NodeLabel(reshape) + " has another rank");
    *out = {reshape_index, 1, dim, false};
    *value = v[static_cast<size_t>(dim)];
    return true;
  }
  const int c = w.index.Producer(shape);
  if (c < 0 || w.graph.node(c).op_type() != "Concat" || w.graph.node(c).input_size() != rank)
    return w.Fail("the shape of " + NodeLabel(reshape) + " is neither a constant nor a Concat of " +
                  std::to_string(rank) + " pieces");
  std::vector<int64_t> piece = Int64Values(w.index, w.graph.node(c).input(dim));
  if (piece.size() != 1)
    return w.Fail("dimension " + std::to_string(dim) + " of the shape " + NodeLabel(w.graph.node(c)) +
                  " builds is not a constant");
  *out = {c, dim, 0, false};
  *value = piece[0];
  return true;
}

// Q, K or V from its head view back to its projection: Transpose(Reshape(Add(MatMul(x, W), b) or MatMul(x, W),
// [B, T, H, dh])). `perms` are the transposes allowed on the way (K is transposed once more for Q K^T).
bool WalkHeads(Walk& w, const std::string& value, const std::vector<std::vector<int64_t>>& perms, int which,
               AttentionBlock& block) {
  std::string v = value;
  std::vector<std::string> transposed;  // each transpose's output, from the head view back
  for (const auto& perm : perms) {
    const ::onnx::NodeProto* t = w.Producer(v, "Transpose");
    if (!t) return false;
    if (Perm(*t) != perm) return w.Fail("the transpose " + NodeLabel(*t) + " is not the one multi-head attention uses");
    transposed.push_back(v);
    v = t->input(0);
  }
  // Forward from the reshape's [B, T, H, dh] (heads on axis 2) through the transposes.
  int64_t axis = 2;
  w.head_axis[v] = axis;
  for (size_t k = perms.size(); k-- > 0;) {
    const auto& perm = perms[k];
    axis = std::find(perm.begin(), perm.end(), axis) - perm.begin();
    w.head_axis[transposed[k]] = axis;
  }
  const int reshape_index = w.index.Producer(v);
  const ::onnx::NodeProto* reshape = w.Producer(v, "Reshape");
  if (!reshape) return false;
  ShapeConstant heads_at, size_at;
  int64_t heads = 0, size = 0;
  if (!ShapeDim(w, *reshape, reshape_index, 4, 2, &heads_at, &heads) ||
      !ShapeDim(w, *reshape, reshape_index, 4, 3, &size_at, &size))
    return false;
  std::string proj = reshape->input(0);
  w.head_axis[proj] = 2;
  int mm = w.index.Producer(proj);
  if (mm >= 0 && w.graph.node(mm).op_type() == "Add") {
    const ::onnx::NodeProto& add = w.graph.node(mm);
    w.chain.insert(mm);
    const int side = w.index.Initializer(add.input(0)) ? 0 : 1;
    block.biases[which] = add.input(side);
    proj = add.input(1 - side);
    w.head_axis[proj] = 2;
    mm = w.index.Producer(proj);
  }
  if (mm < 0 || w.graph.node(mm).op_type() != "MatMul")
    return w.Fail("the projection before " + NodeLabel(*reshape) + " is not a MatMul");
  w.chain.insert(mm);
  const ::onnx::TensorProto* weight = w.index.Initializer(w.graph.node(mm).input(1));
  if (!weight || weight->data_type() != ::onnx::TensorProto::FLOAT || weight->dims_size() != 2)
    return w.Fail("the projection " + NodeLabel(w.graph.node(mm)) + " does not multiply by a FLOAT weight");
  if (heads < 1 || size < 1 || heads * size != weight->dims(1))
    return w.Fail("the heads in " + NodeLabel(*reshape) + " (" + std::to_string(heads) + " x " + std::to_string(size) +
                  ") do not make the projection's width " + std::to_string(weight->dims(1)));
  if (!block.biases[which].empty()) {
    const ::onnx::TensorProto* b = w.index.Initializer(block.biases[which]);
    if (!b || b->data_type() != ::onnx::TensorProto::FLOAT || b->dims_size() != 1 || b->dims(0) != weight->dims(1))
      return w.Fail("the bias '" + block.biases[which] + "' is not a FLOAT vector of the projection's width");
  }
  if (block.heads == 0) block.heads = heads, block.head_size = size;
  if (heads != block.heads || size != block.head_size) return w.Fail("Q, K and V disagree on the heads");
  block.weights[which] = w.graph.node(mm).input(1);
  block.shapes.push_back(heads_at);
  return true;
}

// The dimensions shape inference gave `value` (value_info, graph inputs and outputs): a number each, -1 where
// unknown or symbolic; empty when the value has no recorded shape.
std::vector<int64_t> InferredDims(const ::onnx::GraphProto& graph, const std::string& value) {
  auto dims_of = [](const ::onnx::ValueInfoProto& v) {
    std::vector<int64_t> dims;
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return dims;
    for (const auto& d : v.type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    return dims;
  };
  for (const auto& v : graph.value_info())
    if (v.name() == value) return dims_of(v);
  for (const auto& v : graph.input())
    if (v.name() == value) return dims_of(v);
  return {};
}

bool IsScoreElementwise(const ::onnx::NodeProto& node) {
  static const std::set<std::string> kOps = {"Div", "Mul", "Add", "Sub", "Where", "Cast"};
  return node.domain().empty() && kOps.count(node.op_type()) > 0;
}

// Whether `value` comes from Q K^T (a MatMul of two computed values) through at most `depth` elementwise nodes: the
// scores' side of Add(scores, mask), whichever order the exporter wrote the two in. The mask's side goes back to a
// graph input instead.
bool LeadsToScores(const GraphIndex& index, const ::onnx::GraphProto& graph, const std::string& value, int depth) {
  const int p = index.Producer(value);
  if (p < 0 || depth < 0) return false;
  const ::onnx::NodeProto& node = graph.node(p);
  if (node.op_type() == "MatMul")
    return node.input_size() == 2 && !index.Initializer(node.input(0)) && !index.Initializer(node.input(1));
  if (!IsScoreElementwise(node)) return false;
  for (const std::string& in : node.input())
    if (!in.empty() && !index.Initializer(in) && LeadsToScores(index, graph, in, depth - 1)) return true;
  return false;
}

// Every value the block computes is read only inside it, or by a Shape whose dimensions are read (Gather with a
// constant index) away from the heads: batch and sequence lengths, which pruning does not change.
bool ConsumersStayInside(Walk& w, const AttentionBlock& block) {
  std::set<std::string> produced;
  for (int n : w.chain)
    for (const std::string& out : w.graph.node(n).output()) produced.insert(out);
  for (const std::string& v : produced) {
    if (w.index.IsGraphOutput(v)) return w.Fail("value '" + v + "' inside the attention is a graph output");
    for (int user : w.index.Consumers(v)) {
      if (w.chain.count(user) || user == block.out) continue;
      const ::onnx::NodeProto& u = w.graph.node(user);
      // A Shape with start/end (opset 15) renumbers the dimensions its Gathers read: not followed, refused.
      bool harmless = u.op_type() == "Shape" && u.domain().empty() && !FindAttr(u, "start") && !FindAttr(u, "end");
      if (harmless) {
        for (int g : w.index.Consumers(u.output(0))) {
          const ::onnx::NodeProto& gather = w.graph.node(g);
          const std::vector<int64_t> at = Int64Values(w.index, gather.input_size() > 1 ? gather.input(1) : "");
          const auto axis = w.head_axis.find(v);
          harmless = harmless && gather.op_type() == "Gather" && at.size() == 1 && at[0] >= 0 &&
                     axis != w.head_axis.end() && at[0] != axis->second;
        }
      }
      if (!harmless) return w.Fail("value '" + v + "' inside the attention is also read by " + NodeLabel(u));
    }
  }
  return true;
}

// From the output projection back through the attention; fills `block` or says why not in w.why. Returns false with
// an empty w.why when this MatMul does not read an attention at all.
bool WalkAttention(Walk& w, int out, AttentionBlock& block) {
  const ::onnx::NodeProto& proj = w.graph.node(out);
  block.out = out;
  block.context = proj.input(0);
  block.out_weight = proj.input(1);
  const int reshape_index = w.index.Producer(block.context);
  if (reshape_index < 0 || w.graph.node(reshape_index).op_type() != "Reshape") return false;  // not attention
  const ::onnx::NodeProto& reshape = w.graph.node(reshape_index);
  const int t = w.index.Producer(reshape.input(0));
  if (t < 0 || w.graph.node(t).op_type() != "Transpose") return false;
  const int av = w.index.Producer(w.graph.node(t).input(0));
  if (av < 0 || w.graph.node(av).op_type() != "MatMul" || w.index.Initializer(w.graph.node(av).input(1)))
    return false;  // a Reshape and Transpose before a weight, but no attention behind them
  // From here on it is attention: what does not fit is a refusal with its reason.
  w.chain.insert(reshape_index);
  w.chain.insert(t);
  w.chain.insert(av);
  w.head_axis[block.context] = 2;
  w.head_axis[w.graph.node(t).output(0)] = 2;
  w.head_axis[w.graph.node(av).output(0)] = 1;
  if (Perm(w.graph.node(t)) != std::vector<int64_t>{0, 2, 1, 3})
    return w.Fail("the transpose " + NodeLabel(w.graph.node(t)) + " before the output projection is not [0, 2, 1, 3]");
  // The context's width: H*dh in the last of three dimensions.
  ShapeConstant width_at;
  int64_t width = 0;
  if (!ShapeDim(w, reshape, reshape_index, 3, 2, &width_at, &width)) return false;
  width_at.per_head = true;
  const ::onnx::TensorProto* wo = w.index.Initializer(block.out_weight);
  if (wo->dims(0) != width) return w.Fail("the context's width is not the output projection's input");
  // V, then the probabilities back to the scores.
  if (!WalkHeads(w, w.graph.node(av).input(1), {{0, 2, 1, 3}}, 2, block)) return false;
  std::string p = w.graph.node(av).input(0);
  int softmaxes = 0;
  int scores = -1;
  for (int steps = 0; steps < 8 && scores < 0; ++steps) {
    const int n = w.index.Producer(p);
    if (n < 0) return w.Fail("the attention probabilities reach a graph input");
    const ::onnx::NodeProto& node = w.graph.node(n);
    w.chain.insert(n);
    w.head_axis[node.output(0)] = 1;  // the scores and probabilities: [B, H, T, T]
    if (node.op_type() == "Softmax") {
      // Over the keys only: any other axis (or opset 12's default, which flattens from axis 1) mixes the heads.
      const ::onnx::AttributeProto* axis = FindAttr(node, "axis");
      if (!axis || (axis->i() != -1 && axis->i() != 3))
        return w.Fail("the Softmax " + NodeLabel(node) + " is not over the last axis alone");
      ++softmaxes;
      p = node.input(0);
    } else if (node.op_type() == "MatMul") {
      scores = n;
    } else if (IsScoreElementwise(node)) {
      // The scores go on through the input that is not a constant or the mask: the one made inside this chain.
      std::string next;
      for (const std::string& in : node.input())
        if (next.empty() && !in.empty() && !w.index.Initializer(in) && LeadsToScores(w.index, w.graph, in, 4))
          next = in;
      if (next.empty()) return w.Fail("the scores cannot be followed through " + NodeLabel(node));
      // What else joins the scores (a mask, a scale, a position bias) must be the same for every head: of rank
      // below 3, or size 1 on the heads' axis of [B, H, T, T]. A per-head bias would lose its heads' rows.
      for (const std::string& in : node.input()) {
        if (in.empty() || in == next) continue;
        std::vector<int64_t> dims;
        if (const ::onnx::TensorProto* t = w.index.Initializer(in)) dims.assign(t->dims().begin(), t->dims().end());
        else dims = InferredDims(w.graph, in);
        const bool known = w.index.Initializer(in) || !dims.empty();
        const bool per_head = dims.size() >= 3 && dims[dims.size() - 3] != 1;
        if (!known || per_head)
          return w.Fail("'" + in + "', joined to the scores by " + NodeLabel(node) +
                        (known ? ", differs between heads" : ", has no known shape to tell whether it differs between heads"));
      }
      p = next;
    } else {
      return w.Fail("node " + NodeLabel(node) + " between the scores and the probabilities is not elementwise");
    }
  }
  if (softmaxes != 1 || scores < 0) return w.Fail("no Softmax over Q K^T before the values");
  const ::onnx::NodeProto& qk = w.graph.node(scores);
  if (!WalkHeads(w, qk.input(0), {{0, 2, 1, 3}}, 0, block)) return false;
  // K^T: one transpose [0, 2, 3, 1], or [0, 2, 1, 3] then [0, 1, 3, 2].
  Walk probe = w;
  if (!WalkHeads(probe, qk.input(1), {{0, 2, 3, 1}}, 1, block)) {
    if (!WalkHeads(w, qk.input(1), {{0, 1, 3, 2}, {0, 2, 1, 3}}, 1, block)) {
      // Say why the single-transpose form failed when it got past its transpose: that is the likelier form.
      if (probe.why.find("is not the one multi-head attention uses") == std::string::npos) w.why = probe.why;
      return false;
    }
  } else {
    w.chain = probe.chain;
    w.head_axis = probe.head_axis;
  }
  block.shapes.push_back(width_at);
  // A Concat that builds a shape is rewritten in place: every Reshape that reads it must be this block's.
  for (const ShapeConstant& s : block.shapes) {
    const ::onnx::NodeProto& node = w.graph.node(s.node);
    if (node.op_type() != "Concat") continue;
    for (int user : w.index.Consumers(node.output(0)))
      if (!w.chain.count(user))
        return w.Fail("the shape " + NodeLabel(node) + " builds is also read by " + NodeLabel(w.graph.node(user)));
    if (w.index.IsGraphOutput(node.output(0))) return w.Fail("the shape " + NodeLabel(node) + " builds is a graph output");
  }
  // The output projection's bias: the Add right after it.
  const auto& users = w.index.Consumers(proj.output(0));
  if (users.size() == 1 && w.graph.node(users[0]).op_type() == "Add") {
    const ::onnx::NodeProto& add = w.graph.node(users[0]);
    const std::string& other = add.input(0) == proj.output(0) ? add.input(1) : add.input(0);
    const ::onnx::TensorProto* b = w.index.Initializer(other);
    if (b && b->data_type() == ::onnx::TensorProto::FLOAT && b->dims_size() == 1 && b->dims(0) == wo->dims(1))
      block.out_bias = other;
  }
  for (const std::string& weight : {block.weights[0], block.weights[1], block.weights[2], block.out_weight,
                                    block.biases[0], block.biases[1], block.biases[2], block.out_bias})
    if (!weight.empty() && w.index.Consumers(weight).size() != 1)
      return w.Fail("weight '" + weight + "' is shared with another node");
  // The shape constants are rewritten under fresh names, so sharing them with other blocks is harmless.
  return ConsumersStayInside(w, block);
}

}  // namespace

AttentionSearch FindAttentionBlocks(const ::onnx::GraphProto& graph, const GraphIndex& index) {
  AttentionSearch search;
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    if (node.op_type() != "MatMul" || !node.domain().empty() || node.input_size() != 2) continue;
    const ::onnx::TensorProto* wo = index.Initializer(node.input(1));
    if (!wo || wo->data_type() != ::onnx::TensorProto::FLOAT || wo->dims_size() != 2) continue;
    Walk w{graph, index, "", {}};
    AttentionBlock block;
    if (WalkAttention(w, i, block)) {
      search.blocks.push_back(std::move(block));
    } else if (!w.why.empty()) {
      search.refused.push_back("attention before " + NodeLabel(node) + ": " + w.why);
    }
  }
  return search;
}

}  // namespace hone::onnx
