// Weights as the quantization passes need them: read from an initializer into floats, and written back quantized
// as initializers (codes, scales, zero points) with the DequantizeLinear node that restores them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "onnx/graph_builder.h"
#include "onnx/quantize_math.h"

namespace hone::onnx {

struct FloatWeight {
  std::string name;
  std::vector<int64_t> dims;
  std::vector<float> values;
};

// The FLOAT initializer named `name`. NotFound when `name` is not an initializer (an activation, or a weight
// computed at run time); InvalidArgument when it is not FLOAT or its data does not match its dims.
Result<FloatWeight> ReadWeight(const GraphIndex& index, const std::string& name);

// A [rows, cols] row-major matrix transposed to [cols, rows].
std::vector<float> Transpose2D(const std::vector<float>& values, int64_t rows, int64_t cols);

// A quantized weight in the graph: initializers for the codes (INT8/UINT8, the weight's dims), the scales and the
// zero points (shape [channels] along `axis`, or scalars per tensor).
struct QdqWeight {
  std::string codes, scale, zero_point;
  int axis = -1;  // -1: per tensor
  QuantizedTensor quantized;
};

// Quantizes `weight` (per channel along `axis`, or per tensor when axis < 0) and adds its initializers.
QdqWeight AddQuantizedWeight(GraphBuilder& builder, const FloatWeight& weight, int axis, QuantType type,
                             bool symmetric, int32_t symmetric_limit = kFullWeightLimit);

// Adds DequantizeLinear(codes, scale, zero_point[, axis]) and returns its output: the float weight as the model
// will see it.
std::string AddWeightDequantize(GraphBuilder& builder, const QdqWeight& weight, const std::string& base);

std::vector<float> Scales(const std::vector<QuantParams>& params);
std::vector<int32_t> ZeroPoints(const std::vector<QuantParams>& params);

}  // namespace hone::onnx
