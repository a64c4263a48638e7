// `hone convert` as a library call: a float model's weights and compute moved to FP16 or BF16, with inputs and
// outputs kept FP32 by default, numerically sensitive ops kept FP32 behind Casts, and every op type that ONNX
// Runtime's CPU provider has no kernel for in the target type kept FP32 too (found by loading the result and
// asking), so that what is written always runs. The inserted Casts are folded where they can be.
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
  int64_t converted_nodes = 0;               // nodes that compute in the target type
  std::vector<std::string> kept_float;       // "softmax_3 (Softmax): blocked op type"
  std::vector<std::string> no_kernel_ops;    // op types kept FP32 because the CPU provider has no kernel for them
  int64_t casts_inserted = 0, casts_folded = 0;
  int64_t converted_initializers = 0;
};

// Converts `model` in place (checked by the ONNX checker; with check_kernels, also loaded in ONNX Runtime).
// Unimplemented for models with control flow (If, Loop, Scan); InvalidArgument from shape inference for a graph
// that contradicts itself. Weights must be inline.
Result<ConvertSummary> ConvertModel(::onnx::ModelProto* model, const ConvertOptions& options);

// Reads `input_path` (ReadModelProto's errors; external data loaded), converts, writes `output_path` and loads it
// in ONNX Runtime (Internal naming the file when it does not load).
Result<ConvertSummary> ConvertFile(const std::string& input_path, const std::string& output_path,
                                   const ConvertOptions& options);

// "to=fp16 keep_io_types=on blocked=Softmax,..." as recorded in metadata_props["hone.convert"].
std::string DescribeConversion(const ConvertOptions& options, const ConvertSummary& summary);

}  // namespace hone::onnx
