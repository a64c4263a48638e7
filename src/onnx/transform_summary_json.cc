#include "onnx/transform_summary_json.h"

#include <string>

namespace hone::onnx {

nlohmann::json OpsetUpgradeToJson(const OpsetUpgrade& u) {
  if (!u.upgraded()) return nullptr;
  return {{"from", u.from}, {"to", u.to}, {"reason", u.reason}};
}

nlohmann::json QuantizeSummaryToJson(const QuantizeOptions& options, const QuantizeSummary& s) {
  return {{"description", DescribeQuantization(options)},
          {"quantized_nodes", s.quantized.size()},
          {"quantized", s.quantized},
          {"subgraph_nodes_quantized", s.subgraph_nodes_quantized},
          {"kept_float", s.skipped},
          {"warnings", s.warnings},
          {"calibration", s.calibration},
          {"opset_upgrade", OpsetUpgradeToJson(s.opset_upgrade)}};
}

nlohmann::json ConvertSummaryToJson(const ConvertOptions& options, const ConvertSummary& s) {
  return {{"description", DescribeConversion(options, s)},
          {"target", std::string(LowPrecisionName(options.to))},
          {"converted_nodes", s.converted_nodes},
          {"converted_initializers", s.converted_initializers},
          {"kept_float", s.kept_float},
          {"no_kernel_ops", s.no_kernel_ops},
          {"casts_inserted", s.casts_inserted},
          {"casts_folded", s.casts_folded},
          {"opset_upgrade", OpsetUpgradeToJson(s.opset_upgrade)}};
}

}  // namespace hone::onnx
