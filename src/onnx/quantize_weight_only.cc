#include "onnx/quantize_weight_only.h"

#include <set>

#include "onnx/graph_builder.h"
#include "onnx/graph_index.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize_math.h"
#include "onnx/quantize_weights.h"
#include "runtime/custom_ops.h"

namespace hone::onnx {
namespace {

constexpr char kMicrosoftDomain[] = "com.microsoft";

// A model that already needs hone's own operators (build_decoder.py --layout paged) runs only in hone, so it gets
// the block-offset correction as one ai.hone.AddBlockOffsets node; any other model keeps the portable form.
bool UsesHoneOps(const ::onnx::ModelProto& model) {
  for (const auto& op : model.opset_import())
    if (op.domain() == runtime::kHoneOpDomain) return true;
  return false;
}

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

// Why the Gather `node` stays float, or "" when it can be rewritten; fills *table.
std::string CheckGather(const GraphIndex& index, const ::onnx::NodeProto& node, const QuantizeOptions& options,
                        FloatWeight* table) {
  if (node.input_size() != 2) return "expected 2 inputs";
  if (IntAttr(node, "axis", 0) != 0) return "it gathers along axis " + std::to_string(IntAttr(node, "axis", 0)) +
                                            ", not 0 (rows of an embedding table)";
  if (index.Initializer(node.input(1))) return "its indices '" + node.input(1) + "' are a constant";
  auto t = ReadWeight(index, node.input(0));
  if (!t.ok()) return "table " + t.status().message();
  if (t->dims.size() != 2) return "table '" + t->name + "' is not 2-D";
  if (t->dims[1] % options.block_size != 0)
    return "rows of " + std::to_string(t->dims[1]) + " values are not a multiple of the block (" +
           std::to_string(options.block_size) + ")";
  if (options.weight_only_block_offset) return "--block-offset applies to MatMul only";
  *table = std::move(*t);
  return "";
}

// A Gather's [rows, cols] table quantized as MatMulNBits would quantize its transpose ([cols, rows]: blocks along
// each row), which is GatherBlockQuantized's layout byte for byte: data [rows, cols * bits / 8], scales
// [rows, cols / block], zero points (asymmetric only) [rows, ceil(blocks * bits / 8)], the default 2^(bits-1).
void RewriteGather(GraphBuilder& builder, const ::onnx::NodeProto& node, const FloatWeight& table,
                   const QuantizeOptions& options) {
  const int64_t rows = table.dims[0], cols = table.dims[1];
  BlockQuantized q = QuantizeBlocks(Transposed(table.values, rows, cols), cols, rows, options.bits, options.block_size,
                                    options.weight_only_symmetric);
  std::vector<std::string> inputs{
      builder.AddInitializer(MakeRawTensor(table.name + "_q" + std::to_string(options.bits),
                                           ::onnx::TensorProto::UINT8, {rows, q.blocks * q.blob_bytes}, q.packed)),
      node.input(1), builder.AddInitializer(MakeFloatTensor(table.name + "_scales", {rows, q.blocks}, q.scales))};
  if (!q.zero_points.empty())
    inputs.push_back(builder.AddInitializer(
        MakeRawTensor(table.name + "_zero_points", ::onnx::TensorProto::UINT8,
                      {rows, static_cast<int64_t>(q.zero_points.size()) / rows}, q.zero_points)));
  auto* gather = builder.AddNode("GatherBlockQuantized", inputs, {node.output(0)}, node.name() + "_GatherBlockQuantized",
                                 kMicrosoftDomain);
  SetIntAttr(gather, "gather_axis", 0);
  SetIntAttr(gather, "quantize_axis", 1);
  SetIntAttr(gather, "block_size", options.block_size);
  SetIntAttr(gather, "bits", options.bits);
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
    if (node.op_type() == "Gather") {
      FloatWeight table;
      if (std::string why = CheckGather(index, node, options, &table); !why.empty()) {
        summary->skipped.push_back(label + ": " + why);
        continue;
      }
      RewriteGather(builder, node, table, options);
      replaced.push_back(i);
      summary->quantized.push_back(label);
      if (!path.empty()) ++summary->subgraph_nodes_quantized;
      continue;
    }
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
    // that K): two float MatMuls, 1/block_size of the weight's multiplies. In a model of hone's own layout, one
    // ai.hone.AddBlockOffsets node does the same (runtime/block_offsets.h).
    const std::string nbits_out = q.offsets.empty() ? node.output(0) : node.output(0) + "_nbits";
    auto* nbits = builder.AddNode("MatMulNBits", inputs, {nbits_out}, node.name() + "_MatMulNBits",
                                  kMicrosoftDomain);
    if (!q.offsets.empty() && UsesHoneOps(*model)) {
      const std::string offsets = builder.AddInitializer(MakeFloatTensor(w.name + "_offsets", {q.blocks, n},
                                                                         Transposed(q.offsets, n, q.blocks)));
      auto* add = builder.AddNode("AddBlockOffsets", {nbits_out, node.input(0), offsets}, {node.output(0)},
                                  node.name() + "_AddBlockOffsets", runtime::kHoneOpDomain);
      SetIntAttr(add, "block_size", options.block_size);
    } else if (!q.offsets.empty()) {
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
