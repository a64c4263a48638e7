// Raising a model's ai.onnx opset with libonnx's version converter, for the passes that need a newer operator set
// than the exporter wrote (per-axis DequantizeLinear is 13, DynamicQuantizeLinear 11, most BF16 type constraints
// 13). ONNX Runtime's own quantizer upgrades old models the same way instead of refusing them.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

// What UpgradeOpset did; from == to when the model already imported `target` or later (nothing done).
struct OpsetUpgrade {
  int64_t from = 0, to = 0;
  std::string reason;  // what needed it: "per-channel QDQ"
  bool upgraded() const { return to > from; }
  // "upgraded opset 9 -> 13 for per-channel QDQ", or "" when nothing was done.
  std::string Describe() const;
};

// Converts `model` in place to ai.onnx opset `target` when it imports an older one (Constant nodes, subgraphs and
// initializers are carried through by the converter). Does nothing when the model's opset is `target` or later.
// InvalidArgument naming both versions and the converter's message when an op has no adapter for the step (the model
// is left as it was); InvalidArgument when the model imports no ai.onnx opset at all.
Result<OpsetUpgrade> UpgradeOpset(::onnx::ModelProto* model, int64_t target, const std::string& reason);

}  // namespace hone::onnx
