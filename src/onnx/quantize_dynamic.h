// Dynamic INT8 quantization: constant weights of MatMul, Gemm and Conv become INT8 initializers; activations are
// quantized at run time by DynamicQuantizeLinear from each batch's own range. No calibration data is needed.
#pragma once

#include "base/status.h"
#include "onnx/quantize_options.h"
#include "onnx/quantize_select.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

// Rewrites the selected nodes of `model` in the form options.dynamic_form names, those inside If, Loop and Scan
// bodies too (recursively; a body's weights may be its own initializers or the enclosing graph's). A node whose weight is not a
// constant FLOAT initializer of the expected rank, a Gemm with transA, or one whose input is itself a constant is
// left in float and listed in summary->skipped. Unimplemented when the model's ai.onnx opset is below 11
// (DynamicQuantizeLinear), or below 13 for the qdq form with per-channel weights (DequantizeLinear's axis);
// QuantizeModel upgrades older models first.
// Node order is not maintained: the caller sorts the graph afterwards (graph_io.h).
Status QuantizeDynamic(::onnx::ModelProto* model, const QuantizeOptions& options, QuantizeSummary* summary);

}  // namespace hone::onnx
