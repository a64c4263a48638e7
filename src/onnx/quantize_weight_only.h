// Weight-only quantization: each selected MatMul with a constant [K, N] FLOAT weight becomes ONNX Runtime's
// com.microsoft.MatMulNBits with the weight in 4 or 8 bits, block-quantized along K (see QuantizeBlocks).
// Activations stay float, so no calibration is needed and the error is the weights' alone.
// Selected Gather nodes on a constant [rows, cols] FLOAT table along axis 0 (an embedding) become
// com.microsoft.GatherBlockQuantized with the same blocks along each row: a Q8_0 table comes back exactly, at a
// quarter of its float size.
#pragma once

#include "base/status.h"
#include "onnx/quantize_options.h"
#include "onnx/quantize_select.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

// Rewrites the selected MatMul nodes, those inside If, Loop and Scan bodies too (recursively); those whose weight is not a constant 2-D FLOAT initializer, or whose input is
// itself a constant, are listed in summary->skipped. Imports com.microsoft opset 1 when it rewrote any.
Status QuantizeWeightOnly(::onnx::ModelProto* model, const QuantizeOptions& options, QuantizeSummary* summary);

}  // namespace hone::onnx
