// A BenchReport as a terminal table, JSON and CSV. Every figure has its unit; every report says what was measured,
// on what, and whether it was stable.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "bench/results.h"

namespace hone::bench {

std::string ReportToText(const BenchReport& report);
nlohmann::json ReportToJson(const BenchReport& report);
// One row per point. Column names follow perf_analyzer's CSV where a column means the same thing
// ("Concurrency", "Inferences/Second", "p50 latency" ... in microseconds); hone's extra columns follow.
std::string ReportToCsv(const BenchReport& report);

// Writes text to path; the error names the path.
Status WriteTextFile(const std::string& path, const std::string& text);

// "845 us", "1.23 ms", "2.5 s".
std::string FormatDuration(double ns);
// "1.5 MiB".
std::string FormatBytes(double bytes);

}  // namespace hone::bench
