#include "onnx/prune_conv_channels.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "onnx/graph_builder.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx {
namespace {

// A FLOAT initializer of exactly [n].
bool IsChannelVector(const GraphIndex& index, const std::string& name, int64_t n) {
  const ::onnx::TensorProto* t = index.Initializer(name);
  return t && t->data_type() == ::onnx::TensorProto::FLOAT && t->dims_size() == 1 && t->dims(0) == n;
}

std::vector<int64_t> Ints(const ::onnx::NodeProto& node, const std::string& name) {
  const ::onnx::AttributeProto* a = FindAttr(node, name);
  if (!a) return {};
  return {a->ints().begin(), a->ints().end()};
}

// Whether `node` keeps each channel apart (a channel of its output depends on that channel of its input alone), so
// that a channel removed before it is simply absent after it. Fills `per_channel` with the initializers that hold
// an entry per channel (BatchNormalization's four). "" when it does; else why not.
std::string Channelwise(const ::onnx::NodeProto& node, const GraphIndex& index, int64_t channels,
                        std::vector<std::string>* per_channel) {
  static const std::set<std::string_view> kUnary = {
      "Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Elu", "Selu", "Softplus", "Mish",
      "Identity", "Erf", "Neg", "Exp", "Sqrt", "Gelu", "Abs"};
  static const std::set<std::string_view> kPools = {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"};
  static const std::set<std::string_view> kArithmetic = {"Add", "Sub", "Mul", "Div", "Pow", "Clip"};
  if (!IsAiOnnx(node)) return "not an ONNX operator hone follows";
  const std::string& op = node.op_type();
  if (kUnary.count(op)) return "";
  if (op == "Conv") {
    // Only a depthwise Conv over these channels gets here (the others write or read the group).
    for (int i = 1; i < node.input_size() && i < 3; ++i) {
      if (node.input(i).empty()) continue;
      if (!OwnedBy(index, node.input(i))) return "its input '" + node.input(i) + "' is shared with another node";
      if (i == 2 && !IsChannelVector(index, node.input(i), channels)) return "its bias is not a constant [C]";
      per_channel->push_back(node.input(i));
    }
    return "";
  }
  if (kPools.count(op)) {
    if (node.output_size() > 1 && !node.output(1).empty() &&
        (!index.Consumers(node.output(1)).empty() || index.IsGraphOutput(node.output(1))))
      return "its indices output is read";
    return "";
  }
  if (op == "BatchNormalization") {
    if (node.output_size() > 1) return "it runs in training mode (running statistics as outputs)";
    if (node.input_size() != 5) return "it does not have scale, bias, mean and variance inputs";
    for (int i = 1; i < 5; ++i) {
      if (!IsChannelVector(index, node.input(i), channels)) return "its input '" + node.input(i) + "' is not a constant [C]";
      if (!OwnedBy(index, node.input(i))) return "its input '" + node.input(i) + "' is shared with another node";
      per_channel->push_back(node.input(i));
    }
    return "";
  }
  if (kArithmetic.count(op)) {
    int values = 0;
    for (const std::string& in : node.input()) {
      if (in.empty() || IsScalarConstant(index, in)) continue;
      if (index.Initializer(in)) return "it reads '" + in + "', a constant that is not a scalar";
      ++values;
    }
    if (values != 1) return "it joins two values (a residual join: every branch would have to lose the same channels)";
    return "";
  }
  return "it mixes channels or is not one hone follows";
}

// The 2-D window of Conv `node` with weight dims `w`; "" when it can be read, else why not.
std::string ReadWindow(const ::onnx::NodeProto& node, const ::onnx::TensorProto& w, ConvWindow* window) {
  if (w.dims_size() != 4) return "it is not a 2-D Conv";
  const ::onnx::AttributeProto* pad = FindAttr(node, "auto_pad");
  if (pad && pad->s() != "NOTSET" && pad->s() != "VALID") return "its auto_pad is " + pad->s();
  window->kernel_h = w.dims(2);
  window->kernel_w = w.dims(3);
  const auto strides = Ints(node, "strides"), dilations = Ints(node, "dilations"), pads = Ints(node, "pads");
  if (strides.size() == 2) window->stride_h = strides[0], window->stride_w = strides[1];
  if (dilations.size() == 2) window->dilation_h = dilations[0], window->dilation_w = dilations[1];
  if (pads.size() == 4 && !(pad && pad->s() == "VALID"))
    window->pads = {pads[0], pads[1], pads[2], pads[3]};
  return "";
}

// A depthwise Conv over `channels` channels (group = C, weight [C, 1, ...]): each output channel reads only its own
// input channel, so it is channelwise; its filters and bias entries go with the channel.
bool IsDepthwise(const ::onnx::NodeProto& node, const GraphIndex& index, int64_t channels) {
  if (!IsAiOnnx(node) || node.op_type() != "Conv" || node.input_size() < 2) return false;
  const ::onnx::TensorProto* w = index.Initializer(node.input(1));
  return w && w->data_type() == ::onnx::TensorProto::FLOAT && w->dims_size() >= 3 && w->dims(0) == channels &&
         w->dims(1) == 1 && IntAttr(node, "group", 1) == channels && channels > 1;
}

// A node that joins two values elementwise (a residual Add, a squeeze-and-excitation Mul): with both operands
// computed (not constants), each carries the same channels as the result.
bool IsJoin(const ::onnx::NodeProto& node, const GraphIndex& index) {
  static const std::set<std::string_view> kJoins = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
  if (!IsAiOnnx(node) || !kJoins.count(node.op_type()) || node.input_size() != 2) return false;
  return !index.Initializer(node.input(0)) && !index.Initializer(node.input(1));
}

// One channel group, grown from a Conv until every value that carries its channels has been followed to where they
// come from and to every node that reads them.
class GroupSearch {
 public:
  GroupSearch(const ::onnx::GraphProto& graph, const GraphIndex& index, ConvChannelBlock& block)
      : graph_(graph), index_(index), b_(block) {}

  // "" when the group can be pruned; "-" when `start` is not a Conv whose channels could go at all; else why not.
  std::string Run(int start) {
    const ::onnx::NodeProto& conv = graph_.node(start);
    const ::onnx::TensorProto* w = index_.Initializer(conv.input(1));
    if (!w || w->data_type() != ::onnx::TensorProto::FLOAT || w->dims_size() < 3) return "-";
    // A depthwise Conv's channels are its input's: it goes with the group that writes those.
    if (IsDepthwise(conv, index_, w->dims(0))) return "-";
    if (IntAttr(conv, "group", 1) != 1)
      return "group " + std::to_string(IntAttr(conv, "group", 1)) +
             ": a grouped or depthwise Conv's channels are tied to its input's";
    b_.channels = w->dims(0);
    if (b_.channels < 2) return "-";
    if (std::string why = AddWriter(start); !why.empty()) return why;
    while (!queue_.empty()) {
      const std::string v = queue_.back();
      queue_.pop_back();
      if (std::string why = Visit(v); !why.empty()) return why;
    }
    std::sort(b_.writers.begin(), b_.writers.end(), [](const auto& x, const auto& y) { return x.node < y.node; });
    std::sort(b_.readers.begin(), b_.readers.end(), [](const auto& x, const auto& y) { return x.node < y.node; });
    if (b_.readers.empty()) return "no layer reads its channels";
    return "";
  }

  const std::set<int>& writers() const { return writer_nodes_; }

 private:
  void Enqueue(const std::string& v) {
    if (values_.insert(v).second) queue_.push_back(v);
  }

  // A channelwise node on the way: its per-channel constants, once.
  std::string Through(int n) {
    std::vector<std::string> per_channel;
    if (std::string why = Channelwise(graph_.node(n), index_, b_.channels, &per_channel); !why.empty()) return why;
    if (channelwise_.insert(n).second) {
      b_.per_channel.insert(b_.per_channel.end(), per_channel.begin(), per_channel.end());
      if (graph_.node(n).op_type() == "Conv") b_.depthwise.push_back(n);
    }
    return "";
  }

  std::string AddWriter(int n) {
    if (writer_nodes_.count(n)) return "";
    const ::onnx::NodeProto& conv = graph_.node(n);
    const ::onnx::TensorProto* w = index_.Initializer(conv.input_size() > 1 ? conv.input(1) : "");
    if (!w || w->data_type() != ::onnx::TensorProto::FLOAT || w->dims_size() < 3 || w->dims(0) != b_.channels ||
        IntAttr(conv, "group", 1) != 1)
      return "its channels are also written by " + NodeLabel(conv) + ", which is not a group-1 Conv by a constant weight";
    ChannelWriter writer{n, conv.input(1), ""};
    if (conv.input_size() > 2 && !conv.input(2).empty()) {
      if (!IsChannelVector(index_, conv.input(2), b_.channels)) return NodeLabel(conv) + "'s bias is not a constant [C]";
      writer.bias = conv.input(2);
    }
    for (const std::string& name : {writer.weight, writer.bias})
      if (!name.empty() && !OwnedBy(index_, name)) return "weight '" + name + "' is shared with another node";
    writer_nodes_.insert(n);
    b_.writers.push_back(std::move(writer));
    Enqueue(conv.output(0));
    return "";
  }

  // Where `v` comes from, and every node that reads it.
  std::string Visit(const std::string& v) {
    if (index_.IsGraphOutput(v)) return "its channels reach the graph output '" + v + "'";
    const int p = index_.Producer(v);
    if (p < 0) return "its channels also come from the graph input '" + v + "' (joined with it)";
    const ::onnx::NodeProto& from = graph_.node(p);
    if (IsAiOnnx(from) && from.op_type() == "Conv" && !IsDepthwise(from, index_, b_.channels)) {
      if (std::string why = AddWriter(p); !why.empty()) return why;
    } else if (IsJoin(from, index_)) {
      Enqueue(from.input(0));
      Enqueue(from.input(1));
    } else {
      if (std::string why = Through(p); !why.empty())
        return "its channels come from " + NodeLabel(from) + ": " + why;
      for (const std::string& in : from.input())
        if (!in.empty() && !index_.Initializer(in)) Enqueue(in);
    }
    for (int u : index_.Consumers(v)) {
      const ::onnx::NodeProto& node = graph_.node(u);
      const std::string& op = node.op_type();
      if (IsAiOnnx(node) && op == "Conv" && !(node.input(0) == v && IsDepthwise(node, index_, b_.channels))) {
        if (writer_nodes_.count(u) && node.input(0) != v) continue;  // our own writer reading something else
        if (std::string why = AddConvReader(u, v); !why.empty()) return why;
      } else if (IsAiOnnx(node) && (op == "Flatten" || op == "Reshape") && node.input(0) == v) {
        if (std::string why = AddLinearReader(u, v); !why.empty()) return why;
      } else if (IsJoin(node, index_)) {
        Enqueue(node.output(0));
      } else {
        if (std::string why = Through(u); !why.empty()) return "its channels reach " + NodeLabel(node) + ": " + why;
        Enqueue(node.output(0));
      }
    }
    return "";
  }

  std::string AddConvReader(int u, const std::string& v) {
    const ::onnx::NodeProto& node = graph_.node(u);
    const ::onnx::TensorProto* nw = index_.Initializer(node.input_size() > 1 ? node.input(1) : "");
    if (node.input(0) != v || !nw || nw->data_type() != ::onnx::TensorProto::FLOAT)
      return "the next Conv " + NodeLabel(node) + " does not read the channels by a constant weight";
    if (IntAttr(node, "group", 1) != 1 || nw->dims_size() < 2 || nw->dims(1) != b_.channels)
      return "the next Conv " + NodeLabel(node) + " is grouped (its input channels are tied to its output's)";
    for (const auto& r : b_.readers)
      if (r.node == u) return "";
    ChannelReaderLayer r;
    r.kind = ChannelReader::kConv;
    r.node = u;
    r.value = v;
    r.weight = node.input(1);
    if (std::string why = ReadWindow(node, *nw, &r.window); !why.empty())
      return "the next Conv " + NodeLabel(node) + ": " + why;
    if (node.input_size() > 2 && !node.input(2).empty()) {
      if (!IsChannelVector(index_, node.input(2), nw->dims(0)))
        return "the next Conv " + NodeLabel(node) + "'s bias is not a constant [Cout]";
      r.bias = node.input(2);
    }
    for (const std::string& name : {r.weight, r.bias})
      if (!name.empty() && !OwnedBy(index_, name)) return "weight '" + name + "' is shared with another node";
    b_.readers.push_back(std::move(r));
    return "";
  }

  std::string AddLinearReader(int u, const std::string& v) {
    const ::onnx::NodeProto& node = graph_.node(u);
    const std::string& op = node.op_type();
    if (op == "Flatten" && IntAttr(node, "axis", 1) != 1) return NodeLabel(node) + " does not flatten from axis 1";
    const std::string& flat = node.output(0);
    const auto& readers = index_.Consumers(flat);
    if (readers.size() != 1 || index_.IsGraphOutput(flat))
      return "value '" + flat + "' after " + NodeLabel(node) + " is read by more than one layer";
    const auto linear = AsLinear(graph_, index_, readers[0]);
    if (!linear || graph_.node(readers[0]).input(0) != flat)
      return NodeLabel(graph_.node(readers[0])) + " after " + NodeLabel(node) + " is not a Gemm or MatMul by a weight";
    if (linear->in % b_.channels != 0)
      return NodeLabel(graph_.node(readers[0])) + " reads " + std::to_string(linear->in) +
             " columns, not a multiple of " + std::to_string(b_.channels) + " channels";
    if (op == "Reshape") {
      // Only a constant [N or 0 or -1, C x H x W] (x.view(-1, n) in torch): anything else may move channels.
      const ::onnx::TensorProto* shape = index_.Initializer(node.input(1));
      auto dims = shape ? ReadInt64Tensor(*shape) : Result<std::vector<int64_t>>(Status::InvalidArgument(""));
      if (!dims.ok() || dims->size() != 2 || !((*dims)[1] == linear->in || ((*dims)[1] == -1 && (*dims)[0] == 0)))
        return NodeLabel(node) + " does not reshape to [N, C x H x W] by a constant shape";
    }
    if (!OwnedBy(index_, linear->weight) || (!linear->bias.empty() && !OwnedBy(index_, linear->bias)))
      return "the weights of " + NodeLabel(graph_.node(readers[0])) + " are shared with another node";
    ChannelReaderLayer r;
    r.kind = ChannelReader::kFlattenLinear;
    r.node = readers[0];
    r.value = v;
    r.linear = *linear;
    r.spatial = linear->in / b_.channels;
    b_.readers.push_back(std::move(r));
    return "";
  }

  const ::onnx::GraphProto& graph_;
  const GraphIndex& index_;
  ConvChannelBlock& b_;
  std::set<std::string> values_;
  std::vector<std::string> queue_;
  std::set<int> writer_nodes_, channelwise_;
};

}  // namespace

ConvChannelSearch FindConvChannelBlocks(const ::onnx::GraphProto& graph, const GraphIndex& index) {
  ConvChannelSearch search;
  std::set<int> grouped;  // Convs already in a group (found or refused) as writers
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    if (node.op_type() != "Conv" || !IsAiOnnx(node) || node.input_size() < 2 || grouped.count(i)) continue;
    ConvChannelBlock block;
    GroupSearch group(graph, index, block);
    const std::string why = group.Run(i);
    grouped.insert(group.writers().begin(), group.writers().end());
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
