// CollectMetrics: the flat, named view of an EvaluateReport that gates and deltas use.
#include <fmt/format.h>

#include "check/evaluate.h"

namespace hone::check {

std::vector<Metric> CollectMetrics(const EvaluateReport& report) {
  const ModelEvaluation& candidate = report.candidate;
  std::vector<Metric> out = candidate.metrics.Flat();
  const Metric primary = candidate.metrics.Primary();
  const std::string suffix(WorseningSuffix(primary.better));
  for (const PerturbationResult& p : candidate.perturbations) {
    const std::string at = fmt::format("@{}", p.perturbation.Name());
    out.push_back({primary.name + at, p.primary, primary.better, primary.unit});
    out.push_back({primary.name + suffix + at, p.drop, Better::kLower, primary.unit});
  }
  if (const auto& slices = report.slices) {
    out.push_back({"worst_slice_" + primary.name, slices->worst_value, primary.better, primary.unit});
    out.push_back({"worst_slice_gap", slices->worst_gap, Better::kLower, primary.unit});
    if (slices->worst_drop) out.push_back({"worst_slice" + suffix, *slices->worst_drop, Better::kLower, primary.unit});
  }
  out.push_back({"nan_inf_outputs", static_cast<double>(report.nan_inf_outputs), Better::kLower, "count"});
  if (report.new_nan_inf_outputs)
    out.push_back({"new_nan_inf_outputs", static_cast<double>(*report.new_nan_inf_outputs), Better::kLower, "count"});
  if (const auto& s = candidate.stability) {
    out.push_back({"non_finite_outputs", static_cast<double>(s->non_finite.total()), Better::kLower, "count"});
    out.push_back({"stability_max_change", s->max_change, Better::kLower, "output units"});
    if (s->argmax_flips) out.push_back({"stability_flip_rate", s->flip_rate, Better::kLower, "ratio"});
  }
  if (const auto& reference = report.reference) {
    const std::vector<Metric> reference_metrics = reference->metrics.Flat();
    for (const Metric& m : candidate.metrics.Flat()) {
      if (m.better == Better::kNeither) continue;
      const Metric* ref = FindMetric(reference_metrics, m.name);
      if (!ref) continue;
      out.push_back({m.name + std::string(WorseningSuffix(m.better)), Worsening(m.better, ref->value, m.value),
                     Better::kLower, m.unit});
    }
    if (report.prediction_agreement)
      out.push_back({"prediction_agreement", *report.prediction_agreement, Better::kHigher, "ratio"});
  }
  return out;
}

}  // namespace hone::check
