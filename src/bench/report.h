// A BenchReport as a terminal table, JSON and CSV. Every figure has its unit; every report says what was measured,
// on what, and whether it was stable.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "base/units.h"
#include "bench/results.h"

namespace hone::bench {

std::string ReportToText(const BenchReport& report);
nlohmann::json ReportToJson(const BenchReport& report);
// One row per point. Column names follow perf_analyzer's CSV where a column means the same thing
// ("Concurrency", "Inferences/Second", "p50 latency" ... in microseconds); hone's extra columns follow.
std::string ReportToCsv(const BenchReport& report);

// Writes text to path; the error names the path.
Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace hone::bench
