// What quantize and convert did to a graph, for programs: the "transform" of their reports.
#pragma once

#include <nlohmann/json.hpp>

#include "onnx/convert.h"
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

}  // namespace hone::onnx
