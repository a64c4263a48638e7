#include "cli/tolerance_flags.h"

namespace hone::cli {

void AddToleranceFlags(CLI::App& app, ToleranceFlags& f) {
  app.add_option("--min-cosine", f.min_cosine,
                 "default rule: the least cosine similarity of each floating-point output to the reference's")
      ->capture_default_str();
  app.add_option("--max-range-error", f.max_range_error,
                 "default rule: the largest |candidate - reference| of an element, as a ratio of the reference "
                 "output's range (max - min)")
      ->capture_default_str();
  app.add_option("--atol", f.atol,
                 "judge elementwise instead, with this absolute tolerance in the output's units: NUMBER for every "
                 "output, OUTPUT:NUMBER for one (e.g. --atol 1e-5,logits:1e-3); the unset one of atol/rtol is 1e-5")
      ->delimiter(',');
  app.add_option("--rtol", f.rtol, "relative tolerance (a ratio to |reference|), as --atol")->delimiter(',');
  app.add_option("--error-stat", f.error_stat,
                 "what --atol/--rtol apply to: elementwise (every element), max, mean or quantile:Q of the errors; "
                 "OUTPUT:STAT for one output")
      ->delimiter(',');
}

Status ApplyToleranceFlags(const ToleranceFlags& f, check::Tolerances& t) {
  HONE_RETURN_IF_ERROR(t.SetSimilarity(f.min_cosine, f.max_range_error));
  for (const auto& a : f.atol) HONE_RETURN_IF_ERROR(t.ParseAtol(a));
  for (const auto& r : f.rtol) HONE_RETURN_IF_ERROR(t.ParseRtol(r));
  for (const auto& s : f.error_stat) HONE_RETURN_IF_ERROR(t.ParseStatistic(s));
  return Status::Ok();
}

}  // namespace hone::cli
