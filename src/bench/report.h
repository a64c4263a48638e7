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
// The body of `hone bench --json` (the envelope around it, with the machine and the model, is tune's): input_source,
// inputs, target, arrival, run, cold_start, cost_per_hour, sessions, points, interrupted, points_not_run, all_stable,
// total_errors.
nlohmann::json ReportToJson(const BenchReport& report);
// One row per point, readable by whatever reads perf_analyzer's CSV (Model Analyzer, scripts): first perf_analyzer's
// columns exactly as `perf_analyzer -f FILE --verbose-csv` names and orders them (CsvHeader), in whole
// microseconds per request, then hone's own (batch, errors, CPU, memory, cost, stability ...). Client Send and
// Client Recv come from targets that time their client-side phases (RequestPhases); Network+Server Send/Recv is
// the client's wait less the server's queue and compute, as perf_analyzer computes it. A cell hone could not
// measure (an in-process target has no server columns) is empty, never 0.
std::string ReportToCsv(const BenchReport& report);
// The CSV's header line without its newline: "Concurrency,Inferences/Second,Client Send,..." ("Request Rate,..."
// for an open-loop report).
std::string CsvHeader(bool open_loop);

}  // namespace hone::bench
