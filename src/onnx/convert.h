// `hone convert` as a library call: a float model's weights and compute moved to FP16 or BF16, with inputs and
// outputs kept FP32 by default, numerically sensitive ops kept FP32 behind Casts, and every op type that ONNX
// Runtime's CPU provider has no kernel for in the target type kept FP32 too (for BF16 an allow-list,
// convert_cpu_kernels.h; then, as a safety net, found by loading the result and asking), so that what is written
// always runs. Nodes inside If/Loop/Scan bodies are converted too. The inserted Casts are named after the user's node
// they serve ("<node>/cast_to_bf16") and folded where they can be.
//
//   ConvertOptions options;
//   options.to = LowPrecision::kFp16;
//   HONE_ASSIGN_OR_RETURN(ConvertSummary summary, ConvertFile("model.onnx", "model.fp16.onnx", options));
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "onnx/opset_convert.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

enum class LowPrecision { kFp16, kBf16 };
std::string_view LowPrecisionName(LowPrecision p);                 // "fp16", "bf16"
std::optional<LowPrecision> ParseLowPrecision(std::string_view text);

struct ConvertOptions {
  LowPrecision to = LowPrecision::kFp16;
  // Graph inputs and outputs stay FP32 (Casts at the edges), so that callers and datasets need not change.
  bool keep_io_types = true;
  // Op types that stay FP32; empty: DefaultBlockedOps(). Node names that stay FP32.
  std::vector<std::string> block_ops;
  std::vector<std::string> block_nodes;
  // Keep FP32 the op types ONNX Runtime's CPU provider cannot run in the target type (load, read the error, block
  // that op type, repeat). Off only for tests of the pass itself.
  bool check_kernels = true;
};

// Softmax and LogSoftmax, the normalizations (LayerNormalization, BatchNormalization, InstanceNormalization,
// GroupNormalization) and reductions (ReduceMean, ReduceSum, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp, ReduceProd), Exp, Log, Pow, Sqrt, Reciprocal, CumSum and Range: their sums and
// exponentials overflow or lose all precision in 16 bits long before FP32 does.
std::vector<std::string> DefaultBlockedOps();

struct ConvertSummary {
  // Nodes that compute in the target type, subgraph nodes (If branches, Loop and Scan bodies) included; 0 exactly
  // when the model's compute did not change (nothing FP32 to convert, everything blocked or without a kernel).
  int64_t converted_nodes = 0;
  std::vector<std::string> kept_float;       // "softmax_3 (Softmax): blocked op type"
  std::vector<std::string> no_kernel_ops;    // op types kept FP32 because the CPU provider has no kernel for them
  int64_t casts_inserted = 0, casts_folded = 0;
  int64_t converted_initializers = 0;
  OpsetUpgrade opset_upgrade;                // BF16: the ai.onnx opset raised to 13 first when it was older
};

// Converts `model` in place (checked by the ONNX checker; with check_kernels, also loaded in ONNX Runtime), nodes
// inside If, Loop and Scan bodies included (recursively; the bodies keep FP32 inputs and outputs). To BF16, a model
// below opset 13 is upgraded first (UpgradeOpset's errors), and with check_kernels only the ops of CpuBf16Ops
// (convert_cpu_kernels.h) are converted. InvalidArgument from shape inference for a graph that contradicts itself.
// Weights must be inline.
Result<ConvertSummary> ConvertModel(::onnx::ModelProto* model, const ConvertOptions& options);

// Reads `input_path` (ReadModelProto's errors; external data loaded), converts, writes `output_path` and loads it
// in ONNX Runtime (Internal naming the file when it does not load).
Result<ConvertSummary> ConvertFile(const std::string& input_path, const std::string& output_path,
                                   const ConvertOptions& options);

// "to=bf16 keep_io_types=on blocked=Softmax,... opset=11->13(BF16 type constraints)" as recorded in
// metadata_props["hone.convert"] (the opset part only when the model was upgraded).
std::string DescribeConversion(const ConvertOptions& options, const ConvertSummary& summary);

}  // namespace hone::onnx
