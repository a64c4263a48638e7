// Finding the feed-forward blocks of a transformer in an ONNX graph, as torch.onnx and hone's own exporters write
// them: MatMul by a weight [D, F], an optional Add of a bias [F], an activation made of elementwise nodes whose
// other operands are scalar constants (Gelu's Div/Erf/Add/Mul/Mul, Relu, Sigmoid*x, ...), then MatMul by a weight
// [F, D'] and an optional Add of a bias [D']. Either MatMul may be a Gemm (a classifier's hidden layer: Gemm, Relu,
// Gemm), its bias its C input and its weight stored [out, in] with transB (prune_linear.h). Removing a neuron j removes column j of the first weight, entry j of
// its bias and row j of the second weight; everything between is elementwise, so nothing else changes shape.
#pragma once

#include <string>
#include <vector>

#include "onnx/graph_index.h"

namespace onnx {
class GraphProto;
}  // namespace onnx

namespace hone::onnx {

struct FfnBlock {
  int up = -1, down = -1;     // node indices of the two MatMuls
  std::string up_weight;      // [D, F] ([F, D] when up_transposed)
  std::string up_bias;        // [F]; empty when the first MatMul has no bias Add
  std::string hidden;         // the value the second MatMul reads: the activation's output, [..., F]
  std::string down_weight;    // [F, D'] ([D', F] when down_transposed)
  std::string down_bias;      // [D']; empty when none
  int64_t width = 0;          // F
  bool up_transposed = false, down_transposed = false;  // a Gemm with transB = 1
};

struct FfnSearch {
  std::vector<FfnBlock> blocks;
  // Blocks that look like a feed-forward block (a MatMul by a weight reading an activation) but cannot be pruned
  // safely, each naming the node and why.
  std::vector<std::string> refused;
};

// Searches the main graph (not subgraphs). `index` must be built on `graph` after BeginRewrite (constants as
// initializers, element types known).
FfnSearch FindFfnBlocks(const ::onnx::GraphProto& graph, const GraphIndex& index);

}  // namespace hone::onnx
