#include "onnx/quantize_weights.h"

#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx {

Result<FloatWeight> ReadWeight(const GraphIndex& index, const std::string& name) {
  const ::onnx::TensorProto* t = index.Initializer(name);
  if (t == nullptr) return Status::NotFound("'" + name + "' is not an initializer");
  FloatWeight w;
  w.name = name;
  w.dims.assign(t->dims().begin(), t->dims().end());
  HONE_ASSIGN_OR_RETURN(w.values, ReadFloatTensor(*t));
  return w;
}

std::vector<float> Transpose2D(const std::vector<float>& values, int64_t rows, int64_t cols) {
  std::vector<float> out(values.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = values[r * cols + c];
  return out;
}

std::vector<float> Scales(const std::vector<QuantParams>& params) {
  std::vector<float> s;
  for (const auto& p : params) s.push_back(p.scale);
  return s;
}

std::vector<int32_t> ZeroPoints(const std::vector<QuantParams>& params) {
  std::vector<int32_t> z;
  for (const auto& p : params) z.push_back(p.zero_point);
  return z;
}

QdqWeight AddQuantizedWeight(GraphBuilder& builder, const FloatWeight& weight, int axis, QuantType type,
                             bool symmetric, int32_t symmetric_limit) {
  QdqWeight q;
  q.axis = axis;
  q.quantized = QuantizeWeights(weight.values, weight.dims, axis, type, symmetric, symmetric_limit);
  const bool is_signed = type == QuantType::kInt8;
  q.codes = builder.AddInitializer(MakeByteTensor(weight.name + "_quantized", weight.dims, q.quantized.values,
                                                  is_signed));
  std::vector<int64_t> param_dims;
  if (axis >= 0) param_dims.push_back(static_cast<int64_t>(q.quantized.params.size()));
  q.scale = builder.AddInitializer(MakeFloatTensor(weight.name + "_scale", param_dims, Scales(q.quantized.params)));
  q.zero_point = builder.AddInitializer(
      MakeByteTensor(weight.name + "_zero_point", param_dims, ZeroPoints(q.quantized.params), is_signed));
  return q;
}

std::string AddWeightDequantize(GraphBuilder& builder, const QdqWeight& weight, const std::string& base) {
  std::string out = builder.Fresh(base + "_dequantized");
  auto* node = builder.AddNode("DequantizeLinear", {weight.codes, weight.scale, weight.zero_point}, {out},
                               base + "_DequantizeLinear");
  if (weight.axis >= 0) SetIntAttr(node, "axis", weight.axis);
  return out;
}

}  // namespace hone::onnx
