// An EvaluateReport as terminal text and as JSON. Each figure carries its unit or is marked a ratio; each metric
// appears under the name gates use.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "check/evaluate.h"

namespace hone::check {

std::string EvaluateReportToText(const EvaluateReport& report);
nlohmann::json EvaluateReportToJson(const EvaluateReport& report);

// "0.9025 (ratio)", "0.2761 nats", "1.23 (output units)", "3 (count)": a metric's value with its unit.
std::string FormatMetricValue(double value, const std::string& unit);

}  // namespace hone::check
