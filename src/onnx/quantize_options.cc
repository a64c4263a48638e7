#include "onnx/quantize_options.h"

#include <cmath>

namespace hone::onnx {

std::string_view QuantizeModeName(QuantizeMode mode) {
  switch (mode) {
    case QuantizeMode::kDynamic: return "dynamic";
    case QuantizeMode::kStatic: return "static";
    case QuantizeMode::kWeightOnly: return "weight-only";
  }
  return "?";
}

std::optional<QuantizeMode> ParseQuantizeMode(std::string_view text) {
  for (QuantizeMode m : {QuantizeMode::kDynamic, QuantizeMode::kStatic, QuantizeMode::kWeightOnly})
    if (text == QuantizeModeName(m)) return m;
  return std::nullopt;
}

std::string_view CalibrationMethodName(CalibrationMethod method) {
  switch (method) {
    case CalibrationMethod::kMinMax: return "minmax";
    case CalibrationMethod::kPercentile: return "percentile";
    case CalibrationMethod::kEntropy: return "entropy";
  }
  return "?";
}

std::optional<CalibrationMethod> ParseCalibrationMethod(std::string_view text) {
  for (CalibrationMethod m : {CalibrationMethod::kMinMax, CalibrationMethod::kPercentile, CalibrationMethod::kEntropy})
    if (text == CalibrationMethodName(m)) return m;
  return std::nullopt;
}

std::string_view DynamicFormName(DynamicForm form) { return form == DynamicForm::kInteger ? "integer" : "qdq"; }

std::optional<DynamicForm> ParseDynamicForm(std::string_view text) {
  if (text == "integer") return DynamicForm::kInteger;
  if (text == "qdq") return DynamicForm::kQdq;
  return std::nullopt;
}

bool CpuAvoidsU8S8Saturation() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512vnni") || __builtin_cpu_supports("avxvnni");
#else
  return true;
#endif
}

int32_t WeightLimit(const QuantizeOptions& options) {
  switch (options.weight_range) {
    case QuantizeOptions::WeightRange::kFull: return kFullWeightLimit;
    case QuantizeOptions::WeightRange::kReduced: return kReducedWeightLimit;
    case QuantizeOptions::WeightRange::kAuto: break;
  }
  return CpuAvoidsU8S8Saturation() ? kFullWeightLimit : kReducedWeightLimit;
}

std::vector<std::string> DefaultOpTypes(QuantizeMode mode) {
  switch (mode) {
    case QuantizeMode::kDynamic: return {"MatMul", "Gemm", "Conv"};
    case QuantizeMode::kStatic: return {"Conv", "MatMul", "Gemm"};
    case QuantizeMode::kWeightOnly: return {"MatMul"};
  }
  return {};
}

std::vector<std::string> SupportedOpTypes(QuantizeMode mode) {
  // Weight-only also takes an embedding table (a Gather on a constant), when asked for: not by default, because an
  // encoder's embeddings may not bear 4 bits.
  if (mode == QuantizeMode::kWeightOnly) return {"MatMul", "Gather"};
  return DefaultOpTypes(mode);
}

Status QuantizeOptions::Validate() const {
  for (const auto& op : op_types) {
    bool known = false;
    for (const auto& d : SupportedOpTypes(mode)) known = known || d == op;
    if (!known) {
      std::string list;
      for (const auto& d : SupportedOpTypes(mode)) list += (list.empty() ? "" : ", ") + d;
      return Status::InvalidArgument("--op-types '" + op + "': " + std::string(QuantizeModeName(mode)) +
                                     " quantization handles " + list);
    }
  }
  if (mode == QuantizeMode::kStatic) {
    if (calibration_inputs.data_path.empty())
      return Status::InvalidArgument("static quantization needs --calibration-data (a dataset, as in bench)");
    if (!(percentile > 0 && percentile <= 100))
      return Status::InvalidArgument("--percentile " + std::to_string(percentile) + ": expected in (0, 100]");
    if (histogram_bins < 128 || histogram_bins > (1 << 20))
      return Status::InvalidArgument("--histogram-bins " + std::to_string(histogram_bins) +
                                     ": expected 128 to 1048576");
    if (calibration_samples < 0)
      return Status::InvalidArgument("--calibration-samples " + std::to_string(calibration_samples) +
                                     ": expected >= 0 (0: all)");
    if (calibration_batch < 1)
      return Status::InvalidArgument("--calibration-batch " + std::to_string(calibration_batch) + ": expected >= 1");
  }
  if (mode == QuantizeMode::kWeightOnly) {
    if (bits != 4 && bits != 8) return Status::InvalidArgument("--bits " + std::to_string(bits) + ": expected 4 or 8");
    if (block_size != 32 && block_size != 64 && block_size != 128)
      return Status::InvalidArgument("--block-size " + std::to_string(block_size) + ": expected 32, 64 or 128");
    if (weight_only_block_offset && !weight_only_symmetric)
      return Status::InvalidArgument("--block-offset and --asymmetric: give one (both store each block's minimum)");
    if (accuracy_level < 0 || accuracy_level > 4)
      return Status::InvalidArgument("--accuracy-level " + std::to_string(accuracy_level) + ": expected 0 to 4");
  }
  return Status::Ok();
}

}  // namespace hone::onnx
