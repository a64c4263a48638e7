#include "onnx/quantize_weight_only.h"

#include <set>

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
// [rows, cols] row-major -> [cols, rows].
std::vector<float> Transposed(const std::vector<float>& m, int64_t rows, int64_t cols) {
  std::vector<float> t(m.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t[static_cast<size_t>(c * rows + r)] = m[static_cast<size_t>(r * cols + c)];
  return t;
}

int64_t RewriteGraph(::onnx::ModelProto* model, ::onnx::GraphProto* graph, const GraphIndex* outer,
                     const std::string& path, const QuantizeOptions& options, QuantizeSummary* summary) {
  std::set<std::string> block_sums;  // the block-sum matrices this graph has (one per K)
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
    BlockQuantized q = options.weight_only_block_offset
                           ? QuantizeBlocksWithOffsets(w.values, k, n, options.bits, options.block_size)
                           : QuantizeBlocks(w.values, k, n, options.bits, options.block_size,
                                            options.weight_only_symmetric);
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
    // With block offsets MatMulNBits gives x . (scale * (code - mid)); the offsets come back as
    // (x . blocks) . offsets, where `blocks` [K, blocks] sums the input over each block (shared by every weight of
    // that K): two float MatMuls, 1/block_size of the weight's multiplies.
    const std::string nbits_out = q.offsets.empty() ? node.output(0) : node.output(0) + "_nbits";
    auto* nbits = builder.AddNode("MatMulNBits", inputs, {nbits_out}, node.name() + "_MatMulNBits",
                                  kMicrosoftDomain);
    if (!q.offsets.empty()) {
      // Named for the graph it is in, so that subgraphs never share a name with their parent or a sibling.
      const std::string sums = "hone_block_sums_k" + std::to_string(k) + "_b" + std::to_string(options.block_size) +
                               (path.empty() ? "" : "_" + std::to_string(std::hash<std::string>{}(path) % 1000000));
      if (!block_sums.contains(sums)) {
        std::vector<float> ones(static_cast<size_t>(k * q.blocks), 0.0f);
        for (int64_t r = 0; r < k; ++r) ones[static_cast<size_t>(r * q.blocks + r / options.block_size)] = 1.0f;
        builder.AddInitializer(MakeFloatTensor(sums, {k, q.blocks}, ones));
        block_sums.insert(sums);
      }
      const std::string offsets = builder.AddInitializer(MakeFloatTensor(w.name + "_offsets", {q.blocks, n},
                                                                         Transposed(q.offsets, n, q.blocks)));
      const std::string summed = node.output(0) + "_block_sums";
      const std::string offset_out = node.output(0) + "_offsets";
      builder.AddNode("MatMul", {node.input(0), sums}, {summed}, node.name() + "_BlockSums");
      builder.AddNode("MatMul", {summed, offsets}, {offset_out}, node.name() + "_BlockOffsets");
      builder.AddNode("Add", {nbits_out, offset_out}, {node.output(0)}, node.name() + "_AddOffsets");
    }
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
