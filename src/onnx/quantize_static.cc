// ApplyStatic and QuantizeStatic (PlanStatic is in quantize_static_plan.cc).
#include "onnx/quantize_static.h"

#include <algorithm>

#include "onnx/graph_builder.h"
#include "onnx/graph_index.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize_weights.h"

namespace hone::onnx {
namespace {

struct ActivationQuant {
  QuantParams params;
  std::string scale, zero_point;  // initializers shared by the Q and the DQ (and by tensors that share params)
};

class StaticRewriter {
 public:
  StaticRewriter(::onnx::ModelProto* model, const StaticPlan& plan, const QuantizeOptions& options)
      : model_(model), plan_(plan), options_(options), index_(model->graph()), builder_(model) {}

  Status Run(const std::map<std::string, TensorRange>& ranges) {
    const QuantType type = options_.symmetric_activations ? QuantType::kInt8 : QuantType::kUint8;
    for (const auto& name : plan_.Calibrated()) {
      auto it = ranges.find(name);
      if (it == ranges.end()) return Status::InvalidArgument("tensor '" + name + "': no calibrated range");
      ActivationQuant q;
      q.params = ChooseQuantParams(it->second.min, it->second.max, type, options_.symmetric_activations);
      std::vector<float> scale{q.params.scale};
      std::vector<int32_t> zp{q.params.zero_point};
      q.scale = builder_.AddInitializer(MakeFloatTensor(name + "_scale", {}, scale));
      q.zero_point = builder_.AddInitializer(MakeByteTensor(name + "_zero_point", {}, zp, type == QuantType::kInt8));
      quant_[name] = q;
    }
    for (const auto& [tensor, _] : plan_.shares) quant_[tensor] = quant_.at(Root(tensor));

    // Folded ReLUs first: the compute node writes the ReLU's output, whose pair then clamps at zero.
    std::vector<int> removed;
    for (const auto& [compute, relu] : plan_.folded_relu) {
      model_->mutable_graph()->mutable_node(compute)->set_output(0, model_->graph().node(relu).output(0));
      removed.push_back(relu);
    }
    for (const auto& c : plan_.compute) HONE_RETURN_IF_ERROR(QuantizeNodeWeights(c));
    for (const auto& name : plan_.activations) InsertPair(name);
    std::sort(removed.begin(), removed.end());
    for (auto it = removed.rbegin(); it != removed.rend(); ++it)
      model_->mutable_graph()->mutable_node()->DeleteSubrange(*it, 1);
    return Status::Ok();
  }

 private:
  std::string Root(const std::string& name) const {
    std::string r = name;
    for (auto it = plan_.shares.find(r); it != plan_.shares.end(); it = plan_.shares.find(r)) r = it->second;
    return r;
  }

  // Every reader of `name` reads DequantizeLinear(QuantizeLinear(name)) instead; graph outputs keep `name`.
  void InsertPair(const std::string& name) {
    const ActivationQuant& q = quant_.at(name);
    std::string codes = builder_.Fresh(name + "_quantized"), restored = builder_.Fresh(name + "_dequantized");
    RenameInputs(model_->mutable_graph(), name, restored);
    builder_.AddNode("QuantizeLinear", {name, q.scale, q.zero_point}, {codes}, name + "_QuantizeLinear");
    builder_.AddNode("DequantizeLinear", {codes, q.scale, q.zero_point}, {restored}, name + "_DequantizeLinear");
  }

  Status QuantizeNodeWeights(const StaticPlan::Compute& c) {
    if (!c.constant_weight) return Status::Ok();
    const ::onnx::NodeProto& node = model_->graph().node(c.node);
    HONE_ASSIGN_OR_RETURN(FloatWeight w, ReadWeight(index_, node.input(1)));
    QdqWeight qw = AddQuantizedWeight(builder_, w, c.weight_axis, QuantType::kInt8, true, WeightLimit(options_));
    std::string w_restored = AddWeightDequantize(builder_, qw, w.name);
    std::string bias_restored;
    if (c.quantize_bias) {
      HONE_ASSIGN_OR_RETURN(FloatWeight b, ReadWeight(index_, node.input(2)));
      bias_restored = QuantizeBiasInput(b, quant_.at(node.input(0)).params.scale, qw);
    }
    auto* mutable_node = model_->mutable_graph()->mutable_node(c.node);
    mutable_node->set_input(1, w_restored);
    if (!bias_restored.empty()) mutable_node->set_input(2, bias_restored);
    return Status::Ok();
  }

  // INT32 codes with scale input_scale * weight_scale (per channel when the weight is), zero point 0.
  std::string QuantizeBiasInput(const FloatWeight& b, float input_scale, const QdqWeight& w) {
    std::vector<int32_t> codes = QuantizeBias(b.values, input_scale, w.quantized.params);
    std::string codes_name = builder_.AddInitializer(MakeInt32Tensor(b.name + "_quantized", b.dims, codes));
    std::vector<float> scales;
    for (const auto& p : w.quantized.params) scales.push_back(input_scale * p.scale);
    std::vector<int64_t> dims;
    if (w.axis >= 0) dims.push_back(static_cast<int64_t>(scales.size()));
    std::vector<int32_t> zeros(scales.size(), 0);
    std::string scale = builder_.AddInitializer(MakeFloatTensor(b.name + "_scale", dims, scales));
    std::string zp = builder_.AddInitializer(MakeInt32Tensor(b.name + "_zero_point", dims, zeros));
    std::string out = builder_.Fresh(b.name + "_dequantized");
    auto* dq = builder_.AddNode("DequantizeLinear", {codes_name, scale, zp}, {out}, b.name + "_DequantizeLinear");
    if (w.axis >= 0) SetIntAttr(dq, "axis", 0);
    return out;
  }

  ::onnx::ModelProto* model_;
  const StaticPlan& plan_;
  const QuantizeOptions& options_;
  GraphIndex index_;
  GraphBuilder builder_;
  std::map<std::string, ActivationQuant> quant_;
};

}  // namespace

Status ApplyStatic(::onnx::ModelProto* model, const StaticPlan& plan, const std::map<std::string, TensorRange>& ranges,
                   const QuantizeOptions& options) {
  return StaticRewriter(model, plan, options).Run(ranges);
}

Status QuantizeStatic(::onnx::ModelProto* model, const QuantizeOptions& options, QuantizeSummary* summary) {
  int64_t opset = OpsetVersion(*model, "");
  if (opset < 10)
    return Status::Unimplemented("the model imports ai.onnx opset " + std::to_string(opset) +
                                 "; QDQ quantization needs 10 or later");
  if (options.per_channel && opset < 13)
    return Status::Unimplemented("the model imports ai.onnx opset " + std::to_string(opset) +
                                 "; per-channel DequantizeLinear needs 13 or later (or use --per-tensor)");
  StaticPlan plan = PlanStatic(*model, options, summary);
  if (plan.compute.empty()) return Status::Ok();
  HONE_ASSIGN_OR_RETURN(Calibration calibration, Calibrate(*model, plan.Calibrated(), options));
  summary->calibration = calibration.description;
  return ApplyStatic(model, plan, calibration.ranges, options);
}

}  // namespace hone::onnx
