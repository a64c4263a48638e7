// The precision pass behind ConvertModel: decides which nodes compute in the low type, converts the initializers
// they read, retypes the values they write, and inserts one Cast per value and type wherever a producer's type and
// a reader's differ (graph inputs and outputs included when their types are kept).
#pragma once

#include <set>
#include <string>

#include "base/status.h"
#include "onnx/convert.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

// Converts `model` (after BeginRewrite) with `blocked_ops` (op types) and options.block_nodes kept FP32. Records
// counts and reasons in *summary; *inserted_casts receives the names of the Cast nodes it added, for FoldCasts.
Status ConvertPrecision(::onnx::ModelProto* model, const ConvertOptions& options,
                        const std::set<std::string>& blocked_ops, ConvertSummary* summary,
                        std::set<std::string>* inserted_casts);

// Removes what the inserted Casts make redundant: a Cast to the type its input already has, a round trip
// low -> FP32 -> low (exact, so the original low value serves), and a Cast whose input is another Cast read by
// nothing else (one Cast from the first input's type does). Returns how many Casts were removed.
int FoldCasts(::onnx::ModelProto* model, const std::set<std::string>& inserted_casts);

}  // namespace hone::onnx
