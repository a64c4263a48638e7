#include "onnx/prune_conv_channels.h"

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

// Fills the block from the producer Conv on, or says why not ("-": not a Conv whose channels could go at all).
std::string Follow(const ::onnx::GraphProto& graph, const GraphIndex& index, int producer, ConvChannelBlock& b) {
  const ::onnx::NodeProto& conv = graph.node(producer);
  const ::onnx::TensorProto* w = index.Initializer(conv.input(1));
  if (!w || w->data_type() != ::onnx::TensorProto::FLOAT || w->dims_size() < 3) return "-";
  if (IntAttr(conv, "group", 1) != 1)
    return "group " + std::to_string(IntAttr(conv, "group", 1)) +
           ": a grouped or depthwise Conv's channels are tied to its input's";
  b.producer = producer;
  b.weight = conv.input(1);
  b.channels = w->dims(0);
  if (b.channels < 2) return "-";
  if (conv.input_size() > 2 && !conv.input(2).empty()) {
    if (!IsChannelVector(index, conv.input(2), b.channels)) return "its bias is not a constant [C]";
    b.bias = conv.input(2);
  }
  for (const std::string& name : {b.weight, b.bias})
    if (!name.empty() && !OwnedBy(index, name)) return "weight '" + name + "' is shared with another node";
  std::string v = conv.output(0);
  for (;;) {
    if (index.IsGraphOutput(v)) return "its channels reach the graph output '" + v + "'";
    const auto& users = index.Consumers(v);
    if (users.size() != 1)
      return "value '" + v + "' is read by " + std::to_string(users.size()) + " nodes; only one layer may read the channels";
    const int u = users[0];
    const ::onnx::NodeProto& node = graph.node(u);
    const std::string& op = node.op_type();
    if (IsAiOnnx(node) && op == "Conv") {
      const ::onnx::TensorProto* nw = index.Initializer(node.input_size() > 1 ? node.input(1) : "");
      if (node.input(0) != v || !nw || nw->data_type() != ::onnx::TensorProto::FLOAT)
        return "the next Conv " + NodeLabel(node) + " does not read the channels by a constant weight";
      if (IntAttr(node, "group", 1) != 1 || nw->dims_size() < 2 || nw->dims(1) != b.channels)
        return "the next Conv " + NodeLabel(node) + " is grouped (its input channels are tied to its output's)";
      if (std::string why = ReadWindow(node, *nw, &b.window); !why.empty())
        return "the next Conv " + NodeLabel(node) + ": " + why;
      b.reader = ChannelReader::kConv;
      b.next = u;
      b.next_weight = node.input(1);
      if (node.input_size() > 2 && !node.input(2).empty()) {
        if (!IsChannelVector(index, node.input(2), nw->dims(0)))
          return "the next Conv " + NodeLabel(node) + "'s bias is not a constant [Cout]";
        b.next_bias = node.input(2);
      }
      break;
    }
    if (IsAiOnnx(node) && (op == "Flatten" || op == "Reshape") && node.input(0) == v) {
      if (op == "Flatten" && IntAttr(node, "axis", 1) != 1) return NodeLabel(node) + " does not flatten from axis 1";
      const std::string& flat = node.output(0);
      const auto& readers = index.Consumers(flat);
      if (readers.size() != 1 || index.IsGraphOutput(flat))
        return "value '" + flat + "' after " + NodeLabel(node) + " is read by more than one layer";
      const auto linear = AsLinear(graph, index, readers[0]);
      if (!linear || graph.node(readers[0]).input(0) != flat)
        return NodeLabel(graph.node(readers[0])) + " after " + NodeLabel(node) + " is not a Gemm or MatMul by a weight";
      if (linear->in % b.channels != 0)
        return NodeLabel(graph.node(readers[0])) + " reads " + std::to_string(linear->in) + " columns, not a multiple of " +
               std::to_string(b.channels) + " channels";
      if (op == "Reshape") {
        // Only a constant [N or 0 or -1, C x H x W] (x.view(-1, n) in torch): anything else may move channels.
        const ::onnx::TensorProto* shape = index.Initializer(node.input(1));
        auto dims = shape ? ReadInt64Tensor(*shape) : Result<std::vector<int64_t>>(Status::InvalidArgument(""));
        if (!dims.ok() || dims->size() != 2 || !((*dims)[1] == linear->in || ((*dims)[1] == -1 && (*dims)[0] == 0)))
          return NodeLabel(node) + " does not reshape to [N, C x H x W] by a constant shape";
      }
      if (!OwnedBy(index, linear->weight) || (!linear->bias.empty() && !OwnedBy(index, linear->bias)))
        return "the weights of " + NodeLabel(graph.node(readers[0])) + " are shared with another node";
      b.reader = ChannelReader::kFlattenLinear;
      b.next = readers[0];
      b.linear = *linear;
      b.spatial = linear->in / b.channels;
      break;
    }
    std::vector<std::string> per_channel;
    if (std::string why = Channelwise(node, index, b.channels, &per_channel); !why.empty())
      return "its channels reach " + NodeLabel(node) + ": " + why;
    b.per_channel.insert(b.per_channel.end(), per_channel.begin(), per_channel.end());
    v = node.output(0);
  }
  b.value = v;
  for (const std::string& name : {b.next_weight, b.next_bias})
    if (!name.empty() && !OwnedBy(index, name)) return "weight '" + name + "' is shared with another node";
  return "";
}

}  // namespace

ConvChannelSearch FindConvChannelBlocks(const ::onnx::GraphProto& graph, const GraphIndex& index) {
  ConvChannelSearch search;
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    if (node.op_type() != "Conv" || !IsAiOnnx(node) || node.input_size() < 2) continue;
    ConvChannelBlock block;
    const std::string why = Follow(graph, index, i, block);
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
