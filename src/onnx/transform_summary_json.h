// What quantize, convert and prune did to a graph, for programs: the "transform" of their reports.
#pragma once

#include <nlohmann/json.hpp>

#include "onnx/convert.h"
#include "onnx/prune.h"
#include "onnx/quantize.h"

namespace hone::onnx {

// {from, to, reason}, or null when the opset was not changed.
nlohmann::json OpsetUpgradeToJson(const OpsetUpgrade& upgrade);

// {description, quantized_nodes, quantized [...], subgraph_nodes_quantized, kept_float [...], warnings [...],
//  calibration, opset_upgrade}
nlohmann::json QuantizeSummaryToJson(const QuantizeOptions& options, const QuantizeSummary& summary);

// {description, target, converted_nodes, converted_initializers, kept_float [...], no_kernel_ops [...],
//  casts_inserted, casts_folded, opset_upgrade}
nlohmann::json ConvertSummaryToJson(const ConvertOptions& options, const ConvertSummary& summary);

// {description, ratio, head_ratio, channel_multiple, blocks [{unit ("neurons", "heads" or "channels"), up_node, down_node, width, kept, relative_error, relative_error_unrepaired}],
//  refused [...], warnings [...], calibration, calibration_rows, row_mask, weights_before, weights_after}
nlohmann::json PruneSummaryToJson(const PruneOptions& options, const PruneSummary& summary);

}  // namespace hone::onnx
