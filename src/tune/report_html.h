// report.html of `hone tune`: one self-contained page (inline CSS and SVG; no script, font or URL) rendered from the
// very JSON written to report.json, so that the page can never disagree with it. In order: the title with the model
// and the date; the verdict (SLO met or not, by how much, cost per 1,000 predictions against the baseline); the
// baseline's and the final figures; a latency-throughput curve per finalist; throughput against quality (Pareto);
// the profile; every stage with its delta against the baseline and the previous stage, its trials folded in
// <details>; every rejected candidate with its reason; what was skipped; the repository and the commands that
// reproduce the result; the machine and the command line.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hone::tune {

// The page for `report`, the whole envelope (tool, started_at, command, system, model, and the body under "tune";
// see report_envelope.h and tune_runner.h). Any field may be absent, null or of an unexpected type (a tune
// interrupted by Ctrl-C writes a partial report): the page then says "not measured" where the figure would be.
// Never throws for any JSON value; every string from the report is escaped.
std::string TuneReportToHtml(const nlohmann::json& report);

}  // namespace hone::tune
