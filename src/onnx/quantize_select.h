// Which nodes a quantization pass rewrites, and what it tells the user about the rest: the op types asked for
// minus the op types and node names excluded; an exclusion that matches nothing is a warning (a typo, or a model
// without that op), never an error.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "onnx/opset_convert.h"
#include "onnx/quantize_options.h"

namespace onnx {
class GraphProto;
class NodeProto;
}  // namespace onnx

namespace hone::onnx {

// What a pass did, for the report: every entry names the node and its op type. quantized.size() is the number of
// nodes rewritten, subgraph nodes (If branches, Loop and Scan bodies) included; 0 exactly when the pass changed no
// node (an opset upgrade alone does not count).
struct QuantizeSummary {
  std::vector<std::string> quantized;  // "conv1 (Conv)"; inside a subgraph "mm (MatMul) in if_0/then_branch"
  std::vector<std::string> skipped;    // "gemm3 (Gemm): transA=1 is not supported"
  std::vector<std::string> warnings;   // "--exclude-ops 'LSTM': the model has no LSTM node"
  std::string calibration;             // static: what calibration ran on and how
  int64_t subgraph_nodes_quantized = 0;  // how many of `quantized` sit inside If/Loop/Scan subgraphs
  OpsetUpgrade opset_upgrade;          // the ai.onnx opset raised first when the mode needs a newer one
};

// Gives every unnamed node a unique name "<op type>_<n>", subgraph nodes included, so that exclusions, reports and
// errors can name it. Returns how many were named.
int NameNodes(::onnx::GraphProto* graph);

class NodeSelector {
 public:
  explicit NodeSelector(const QuantizeOptions& options);
  // Whether `node` (of the default domain) is of an op type to quantize and not excluded.
  bool Selected(const ::onnx::NodeProto& node) const;
  // Warnings for exclusions (and --nodes names) that match no node of `graph` or of its subgraphs.
  std::vector<std::string> UnmatchedExclusions(const ::onnx::GraphProto& graph) const;

 private:
  std::set<std::string> op_types_, excluded_ops_, excluded_nodes_, only_nodes_;
};

}  // namespace hone::onnx
