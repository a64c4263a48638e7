#include "onnx/quantize_weight_only.h"

#include "onnx/graph_builder.h"
#include "onnx/graph_index.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize_math.h"
#include "onnx/quantize_weights.h"

namespace hone::onnx {
namespace {

constexpr char kMicrosoftDomain[] = "com.microsoft";

// Why `node` stays float, or "" when it can be rewritten; fills *weight.
std::string Check(const GraphIndex& index, const ::onnx::NodeProto& node, FloatWeight* weight) {
  if (node.input_size() != 2) return "expected 2 inputs";
  if (index.Initializer(node.input(0))) return "its input '" + node.input(0) + "' is a constant";
  if (int32_t t = index.ElemType(node.input(0)); t != 0 && t != ::onnx::TensorProto::FLOAT)
    return "its input '" + node.input(0) + "' is not FLOAT";
  auto w = ReadWeight(index, node.input(1));
  if (!w.ok()) return "weight " + w.status().message();
  if (w->dims.size() != 2) return "weight '" + w->name + "' is not 2-D";
  *weight = std::move(*w);
  return "";
}

// Rewrites the selected MatMuls of `graph` (weights found there or, through `outer`, in an enclosing graph), then
// those of its subgraphs. Returns how many it replaced.
int64_t RewriteGraph(::onnx::ModelProto* model, ::onnx::GraphProto* graph, const GraphIndex* outer,
                     const std::string& path, const QuantizeOptions& options, QuantizeSummary* summary) {
  GraphIndex index(*graph, outer);
  GraphBuilder builder(model, graph);
  NodeSelector selector(options);
  std::vector<int> replaced;
  const int original_nodes = graph->node_size();
  for (int i = 0; i < original_nodes; ++i) {
    const ::onnx::NodeProto node = graph->node(i);
    if (!selector.Selected(node)) continue;
    const std::string label = node.name() + " (" + node.op_type() + ")" + (path.empty() ? "" : " in " + path);
    FloatWeight w;
    if (std::string why = Check(index, node, &w); !why.empty()) {
      summary->skipped.push_back(label + ": " + why);
      continue;
    }
    const int64_t k = w.dims[0], n = w.dims[1];
    BlockQuantized q = QuantizeBlocks(w.values, k, n, options.bits, options.block_size, options.weight_only_symmetric);
    std::vector<std::string> inputs{node.input(0)};
    inputs.push_back(builder.AddInitializer(
        MakeRawTensor(w.name + "_q" + std::to_string(options.bits), ::onnx::TensorProto::UINT8,
                      {n, q.blocks, q.blob_bytes}, q.packed)));
    inputs.push_back(builder.AddInitializer(MakeFloatTensor(w.name + "_scales", {n, q.blocks}, q.scales)));
    if (!q.zero_points.empty()) {
      const int64_t zp_bytes = static_cast<int64_t>(q.zero_points.size()) / n;
      inputs.push_back(builder.AddInitializer(
          MakeRawTensor(w.name + "_zero_points", ::onnx::TensorProto::UINT8, {n, zp_bytes}, q.zero_points)));
    }
    auto* nbits = builder.AddNode("MatMulNBits", inputs, {node.output(0)}, node.name() + "_MatMulNBits",
                                  kMicrosoftDomain);
    SetIntAttr(nbits, "K", k);
    SetIntAttr(nbits, "N", n);
    SetIntAttr(nbits, "bits", options.bits);
    SetIntAttr(nbits, "block_size", options.block_size);
    if (options.accuracy_level > 0) SetIntAttr(nbits, "accuracy_level", options.accuracy_level);
    replaced.push_back(i);
    summary->quantized.push_back(label);
    if (!path.empty()) ++summary->subgraph_nodes_quantized;
  }
  for (auto it = replaced.rbegin(); it != replaced.rend(); ++it) graph->mutable_node()->DeleteSubrange(*it, 1);
  int64_t count = static_cast<int64_t>(replaced.size());
  GraphIndex now(*graph, outer);
  for (const Subgraph& sub : DirectSubgraphs(graph, path))
    count += RewriteGraph(model, sub.graph, &now, sub.path, options, summary);
  return count;
}

}  // namespace

Status QuantizeWeightOnly(::onnx::ModelProto* model, const QuantizeOptions& options, QuantizeSummary* summary) {
  if (RewriteGraph(model, model->mutable_graph(), nullptr, "", options, summary) > 0)
    EnsureOpsetImport(model, kMicrosoftDomain, 1);
  return Status::Ok();
}

}  // namespace hone::onnx
