// The dense layers pruning edits, whichever way the exporter wrote them, and the edits themselves. torch.onnx writes
// nn.Linear as MatMul by a weight [in, out] with an Add of the bias after it (inside a transformer), or as one Gemm
// with the weight [out, in] and transB = 1 (a plain classifier head); both are y = x W + b to pruning. The edits keep
// or drop entries of an initializer along one axis and rewrite it under its name; they read the initializer as it is
// now, so edits of two blocks that share a layer (a Gemm that is both the next layer of a Conv's channels and the
// first layer of a feed-forward block) compose.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "onnx/graph_index.h"

namespace onnx {
class GraphProto;
class NodeProto;
}  // namespace onnx

namespace hone::onnx {

struct LinearLayer {
  int node = -1;            // the MatMul or Gemm
  std::string weight;       // FLOAT [in, out], or [out, in] when `transposed`
  std::string bias;         // FLOAT [out] or [1, out]; empty when none
  int bias_add = -1;        // a MatMul's bias Add node; -1 for a Gemm (its C input) or no bias
  bool transposed = false;  // Gemm's transB = 1
  int64_t in = 0, out = 0;
};

// Node `node` as y = x W + b: a MatMul whose second input is a FLOAT initializer of rank 2 (its bias: an Add of a
// vector of `out` right after it, the MatMul's only reader), or a Gemm with alpha = beta = 1 and transA = 0 whose B
// is such an initializer (its bias: C, a vector of `out`). nullopt for anything else, a Gemm scaling or transposing
// its input included.
std::optional<LinearLayer> AsLinear(const ::onnx::GraphProto& graph, const GraphIndex& index, int node);

// A FLOAT initializer holding `n` values in a shape that broadcasts along the last axis only ([n] or [1, n]).
bool IsVector(const GraphIndex& index, const std::string& name, int64_t n);
// An initializer of one element (any shape, any type).
bool IsScalarConstant(const GraphIndex& index, const std::string& name);
// Only one node reads the initializer: a weight shared with another node cannot lose entries for one of them.
bool OwnedBy(const GraphIndex& index, const std::string& name);
// The node is an operator of ONNX's default domain.
bool IsAiOnnx(const ::onnx::NodeProto& node);

// The layer's weight as it is now, [in, out] row-major whatever its layout; `in` and `out` as they are now.
struct InOutWeight {
  std::vector<float> values;
  int64_t in = 0, out = 0;
};
Result<InOutWeight> ReadInOut(const GraphIndex& index, const LinearLayer& layer);
// Writes `values` ([in, out] row-major) as the layer's weight, in its layout, under its name.
void WriteInOut(::onnx::GraphProto* graph, const LinearLayer& layer, std::span<const float> values, int64_t in,
                int64_t out);

// Replaces the FLOAT initializer `name` by one of `dims` holding `values`, keeping its name (and its place, so
// that a GraphIndex built before still finds it).
void ReplaceInitializer(::onnx::GraphProto* graph, const std::string& name, const std::vector<int64_t>& dims,
                        std::span<const float> values);
// Keeps the entries `kept` (ascending) of the FLOAT initializer `name` along `axis` (negative: from the end),
// dropping the others; reads it as the graph holds it now (one an earlier edit added included).
Status KeepAlongAxis(::onnx::GraphProto* graph, const std::string& name, int axis, const std::vector<int64_t>& kept);

}  // namespace hone::onnx
