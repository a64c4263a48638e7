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

nlohmann::json PruneSummaryToJson(const PruneOptions& options, const PruneSummary& s) {
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : s.blocks)
    blocks.push_back({{"unit", b.unit == PrunedUnit::kNeuron ? "neurons"
                               : b.unit == PrunedUnit::kHead ? "heads"
                                                             : "channels"},
                      {"up_node", b.up_node},
                      {"down_node", b.down_node},
                      {"width", b.width},
                      {"kept", b.kept},
                      {"relative_error", b.relative_error},
                      {"relative_error_unrepaired", b.relative_error_unrepaired}});
  return {{"description", DescribePruning(options, s)},
          {"ratio", options.ratio},
          {"head_ratio", options.head_ratio},
          {"channel_multiple", options.ChannelMultiple()},
          {"blocks", blocks},
          {"refused", s.refused},
          {"warnings", s.warnings},
          {"calibration", s.calibration},
          {"calibration_rows", s.calibration_rows},
          {"row_mask", s.row_mask.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.row_mask)},
          {"weights_before", s.weights_before},
          {"weights_after", s.weights_after}};
}

}  // namespace hone::onnx
