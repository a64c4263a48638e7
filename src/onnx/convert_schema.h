// What an op's ONNX schema allows a node to compute in FP16 or BF16: for each input and output, whether its type
// constraint admits the low type. Ops whose output type an attribute decides (Cast, ConstantOfShape, the random
// generators, EyeLike) and ops of other domains are never converted.
#pragma once

#include <cstdint>
#include <vector>

#include "onnx/convert.h"

namespace onnx {
class NodeProto;
}  // namespace onnx

namespace hone::onnx {

struct LowTypeSlots {
  bool known = false;            // false: no schema (another domain, an unknown op): keep the node as it is
  std::vector<bool> inputs;      // per actual input: may be the low type
  std::vector<bool> outputs;     // per actual output
};

// The slots of `node` under the ai.onnx opset `opset`.
LowTypeSlots LowTypeSlotsOf(const ::onnx::NodeProto& node, int64_t opset, LowPrecision to);

}  // namespace hone::onnx
