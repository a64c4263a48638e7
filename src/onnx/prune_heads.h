// Finding the self-attention blocks of a transformer in an ONNX graph as torch.onnx writes them, for pruning whole
// heads: three projections Q, K, V (MatMul by a weight [D, H*dh], optional bias Add) each reshaped to [B, T, H, dh]
// by a shape that carries H and dh as constants, transposed; Softmax(Q K^T, scaled and masked elementwise) V;
// transposed back to [B, T, H, dh], reshaped to [B, T, H*dh] by a shape that carries H*dh; the output projection
// MatMul by a weight [H*dh, D'] with an optional bias. Removing head h removes columns h*dh .. h*dh+dh-1 of the three
// projections and their biases, rows h*dh .. of the output projection, and H becomes H - 1 in the constants; each
// remaining head computes exactly what it did.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "onnx/graph_index.h"

namespace onnx {
class GraphProto;
}  // namespace onnx

namespace hone::onnx {

// A shape constant to rewrite when heads go: input `input` of node `node` (a Concat's one-element piece, or a
// Reshape's whole shape), where element `element` holds `value` (H, or H*dh).
struct ShapeConstant {
  int node = -1, input = -1;
  int64_t element = 0;
  bool per_head = false;  // true: the value is H*dh (the context's width); false: H
};

struct AttentionBlock {
  int out = -1;                       // the output projection MatMul
  std::string context;                // what it reads: [.., H*dh]
  std::string out_weight, out_bias;   // [H*dh, D'], [D'] or empty
  std::string weights[3], biases[3];  // Q, K, V: [D, H*dh] and [H*dh] or empty
  std::vector<ShapeConstant> shapes;  // every H and H*dh the block's reshapes carry
  int64_t heads = 0, head_size = 0;
};

struct AttentionSearch {
  std::vector<AttentionBlock> blocks;
  // Output projections that read an attention the search could follow only part of the way, each naming the node
  // and why it cannot prune that block's heads.
  std::vector<std::string> refused;
};

// Searches the main graph. `index` must be built on `graph` after BeginRewrite (constants as initializers).
AttentionSearch FindAttentionBlocks(const ::onnx::GraphProto& graph, const GraphIndex& index);

}  // namespace hone::onnx
