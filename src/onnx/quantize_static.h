// Static INT8 quantization in QDQ form: QuantizeLinear -> DequantizeLinear pairs on activations, with ranges from
// calibration, and INT8 weights (INT32 biases) behind DequantizeLinear. ONNX Runtime's QDQ transformers fuse the
// DequantizeLinear -> Conv/MatMul/Gemm -> QuantizeLinear patterns into QLinearConv, QLinearMatMul and QGemm.
//
// What gets a Q/DQ pair (the plan):
//   - the float activation inputs of each quantized Conv, MatMul and Gemm, and their outputs unless the output is
//     a graph output (graph outputs stay float);
//   - with asymmetric activations, a ReLU that alone follows a quantized node is folded into it: the pair goes on
//     the ReLU's output, whose range starts at 0, so QuantizeLinear's clamp at the zero point does the ReLU's work;
//   - the output of a data-movement node (MaxPool, Flatten, Reshape, Transpose, Squeeze, Unsqueeze) whose input has
//     a pair gets one with the same scale and zero point (its values are a subset of the input's), which lets ONNX
//     Runtime drop both pairs and move the integer data as it is.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "onnx/calibrate_collect.h"
#include "onnx/quantize_options.h"
#include "onnx/quantize_select.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

struct StaticPlan {
  struct Compute {
    int node = -1;
    int weight_axis = -1;       // the channel axis of a constant weight (input 1); -1: per tensor
    bool constant_weight = false;
    bool quantize_bias = false;  // input 2 becomes INT32 behind DequantizeLinear
  };
  std::vector<Compute> compute;
  std::vector<std::string> activations;        // every tensor that gets a Q/DQ pair, in plan order
  std::map<std::string, std::string> shares;   // tensor -> the tensor whose parameters it reuses (a chain ends
                                               // at a calibrated one)
  std::map<int, int> folded_relu;              // compute node -> the Relu node it absorbs

  // The activations whose ranges calibration must measure (those that share nothing).
  std::vector<std::string> Calibrated() const;
};

// Decides what to quantize; nodes that cannot be (a weight that is not constant, a non-FLOAT input, a node inside an
// If/Loop/Scan subgraph, whose tensors calibration cannot read) are listed in summary->skipped, and subgraph nodes
// left float add one warning. `model` must have been through BeginRewrite (graph_rewrite.h).
StaticPlan PlanStatic(const ::onnx::ModelProto& model, const QuantizeOptions& options, QuantizeSummary* summary);

// Rewrites `model` as `plan` says with the calibrated `ranges` (one per plan.Calibrated() tensor; InvalidArgument
// naming a missing one).
Status ApplyStatic(::onnx::ModelProto* model, const StaticPlan& plan, const std::map<std::string, TensorRange>& ranges,
                   const QuantizeOptions& options);

// PlanStatic, Calibrate (calibrate_collect.h) and ApplyStatic. Unimplemented when the model's ai.onnx opset is
// below 13 (per-axis DequantizeLinear) with per-channel weights, or below 10 at all (QuantizeModel upgrades older
// models first).
Status QuantizeStatic(::onnx::ModelProto* model, const QuantizeOptions& options, QuantizeSummary* summary);

}  // namespace hone::onnx
