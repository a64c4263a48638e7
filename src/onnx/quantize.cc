#include "onnx/quantize.h"

#include <fmt/format.h>

#include "onnx/graph_rewrite.h"
#include "onnx/onnx_pb.h"
#include "onnx/opset_convert.h"
#include "onnx/quantize_dynamic.h"
#include "onnx/quantize_static.h"
#include "onnx/quantize_weight_only.h"

namespace hone::onnx {
namespace {

std::string WeightRangeText(const QuantizeOptions& o) {
  std::string bits = WeightLimit(o) == kReducedWeightLimit ? "7-bit" : "8-bit";
  if (o.weight_range != QuantizeOptions::WeightRange::kAuto) return bits;
  return bits + (CpuAvoidsU8S8Saturation() ? "(auto: CPU has VNNI or is not x86)" : "(auto: x86 CPU without VNNI)");
}

// The ai.onnx opset the mode's output needs, and what for (0: any).
std::pair<int64_t, std::string> RequiredOpset(const QuantizeOptions& o) {
  switch (o.mode) {
    case QuantizeMode::kDynamic:
      if (o.dynamic_form == DynamicForm::kQdq && o.per_channel) return {13, "per-channel dynamic QDQ"};
      return {11, "DynamicQuantizeLinear"};
    case QuantizeMode::kStatic:
      if (o.per_channel) return {13, "per-channel QDQ"};
      return {10, "QDQ"};
    case QuantizeMode::kWeightOnly: break;
  }
  return {0, ""};
}

}  // namespace

std::string DescribeQuantization(const QuantizeOptions& o) {
  std::string d = fmt::format("mode={}", QuantizeModeName(o.mode));
  switch (o.mode) {
    case QuantizeMode::kDynamic:
      d += fmt::format(" form={} weights=int8 {} weight_range={}", DynamicFormName(o.dynamic_form),
                       o.per_channel ? "per-channel" : "per-tensor", WeightRangeText(o));
      break;
    case QuantizeMode::kStatic:
      d += fmt::format(" format=qdq weights=int8 {} weight_range={} activations={} calibrate={}",
                       o.per_channel ? "per-channel" : "per-tensor", WeightRangeText(o),
                       o.symmetric_activations ? "int8-symmetric" : "uint8-asymmetric",
                       CalibrationMethodName(o.calibration));
      if (o.calibration == CalibrationMethod::kPercentile) d += fmt::format(" percentile={}", o.percentile);
      break;
    case QuantizeMode::kWeightOnly:
      d += fmt::format(" op=MatMulNBits bits={} block_size={} {} accuracy_level={}", o.bits, o.block_size,
                       o.weight_only_symmetric ? "symmetric" : "asymmetric", o.accuracy_level);
      break;
  }
  return d;
}

Result<QuantizeSummary> QuantizeModel(::onnx::ModelProto* model, const QuantizeOptions& options) {
  HONE_RETURN_IF_ERROR(options.Validate());
  QuantizeSummary summary;
  if (auto [opset, why] = RequiredOpset(options); opset > 0) {
    HONE_ASSIGN_OR_RETURN(summary.opset_upgrade, UpgradeOpset(model, opset, why));
  }
  RewriteScope scope;
  HONE_RETURN_IF_ERROR(BeginRewrite(model, &scope));
  summary.warnings = NodeSelector(options).UnmatchedExclusions(model->graph());
  switch (options.mode) {
    case QuantizeMode::kDynamic:
      HONE_RETURN_IF_ERROR(QuantizeDynamic(model, options, &summary));
      break;
    case QuantizeMode::kStatic:
      HONE_RETURN_IF_ERROR(QuantizeStatic(model, options, &summary));
      break;
    case QuantizeMode::kWeightOnly:
      HONE_RETURN_IF_ERROR(QuantizeWeightOnly(model, options, &summary));
      break;
  }
  HONE_RETURN_IF_ERROR(FinishRewrite(model, scope, "hone.quantize", DescribeQuantization(options)));
  return summary;
}

Result<QuantizeSummary> QuantizeFile(const std::string& input_path, const std::string& output_path,
                                     const QuantizeOptions& options, const WriteOptions& write) {
  HONE_RETURN_IF_ERROR(options.Validate());
  ::onnx::ModelProto model;
  HONE_RETURN_IF_ERROR(LoadModelForRewrite(input_path, &model));
  HONE_ASSIGN_OR_RETURN(QuantizeSummary summary, QuantizeModel(&model, options));
  HONE_RETURN_IF_ERROR(SaveAndLoadCheck(model, output_path, write));
  return summary;
}

}  // namespace hone::onnx
