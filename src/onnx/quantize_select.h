// Which nodes a quantization pass rewrites, and what it tells the user about the rest: the op types asked for
// minus the op types and node names excluded; an exclusion that matches nothing is a warning (a typo, or a model
// without that op), never an error.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "onnx/quantize_options.h"

namespace onnx {
class GraphProto;
class NodeProto;
}  // namespace onnx

namespace hone::onnx {

// What a pass did, for the report: every entry names the node and its op type.
struct QuantizeSummary {
  std::vector<std::string> quantized;  // "conv1 (Conv)"
  std::vector<std::string> skipped;    // "gemm3 (Gemm): transA=1 is not supported"
  std::vector<std::string> warnings;   // "--exclude-ops 'LSTM': the model has no LSTM node"
  std::string calibration;             // static: what calibration ran on and how
};

// Gives every unnamed node of the main graph a unique name "<op type>_<n>", so that exclusions, reports and errors
// can name it. Returns how many were named.
int NameNodes(::onnx::GraphProto* graph);

class NodeSelector {
 public:
  explicit NodeSelector(const QuantizeOptions& options);
  // Whether `node` (of the default domain) is of an op type to quantize and not excluded.
  bool Selected(const ::onnx::NodeProto& node) const;
  // Warnings for exclusions that match no node of `graph`.
  std::vector<std::string> UnmatchedExclusions(const ::onnx::GraphProto& graph) const;

 private:
  std::set<std::string> op_types_, excluded_ops_, excluded_nodes_;
};

}  // namespace hone::onnx
