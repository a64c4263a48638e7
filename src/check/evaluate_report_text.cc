#include <fmt/format.h>

#include "check/evaluate_report.h"
#include "check/report_format.h"

namespace hone::check {
namespace {

// The value alone, formatted for its unit (the unit goes in a column of its own).
std::string Value(double value, const std::string& unit) {
  if (unit == "count") return fmt::format("{:.0f}", value);
  if (unit == "ratio" || unit == "nats" || unit == "cosine") return fmt::format("{:.4f}", value);
  return fmt::format("{:.4g}", value);
}

void AppendMetrics(std::string& out, const EvaluateReport& r) {
  const bool with_reference = r.reference.has_value();
  const std::vector<Metric> reference = with_reference ? r.reference->metrics.Flat() : std::vector<Metric>{};
  out += fmt::format("\n{:<28}{:>12}{}  {}\n", "metric", "candidate",
                     with_reference ? fmt::format("{:>12}{:>12}", "reference", "worse by") : "", "unit");
  for (const Metric& m : r.candidate.metrics.Flat()) {
    std::string ref_columns;
    if (const Metric* ref = with_reference ? FindMetric(reference, m.name) : nullptr)
      ref_columns = fmt::format(
          "{:>12}{:>12}", Value(ref->value, m.unit),
          m.better == Better::kNeither ? "-" : Value(Worsening(m.better, ref->value, m.value), m.unit));
    out += fmt::format("  {:<26}{:>12}{}  {}\n", m.name, Value(m.value, m.unit), ref_columns, m.unit);
  }
  if (r.prediction_agreement)
    out += fmt::format("  {:<26}{:>12}  ratio of samples whose predicted class is the reference's\n",
                       "prediction_agreement", Value(*r.prediction_agreement, "ratio"));
}

void AppendClassification(std::string& out, const ClassificationMetrics& c) {
  out += fmt::format("\nper-class recall (ratio; samples with that label in brackets)\n");
  for (size_t k = 0; k < c.recall.size(); ++k)
    out += fmt::format("  class {:<3} {:>8} ({}){}", k, c.recall[k] ? fmt::format("{:.4f}", *c.recall[k]) : "-",
                       c.support[k], k % 4 == 3 || k + 1 == c.recall.size() ? "\n" : "   ");
  const Calibration& cal = c.calibration;
  out += fmt::format("\nreliability ({} equal-width confidence bins; ECE {:.4f}, largest gap {:.4f}; ratios)\n",
                     cal.bins, cal.ece, cal.max_gap);
  out += fmt::format("  {:<16}{:>9}{:>17}{:>11}{:>9}\n", "confidence", "samples", "mean confidence", "accuracy",
                     "gap");
  for (const ReliabilityBin& b : cal.reliability) {
    if (b.count == 0) continue;
    out += fmt::format("  ({:.3f}, {:.3f}]  {:>9}{:>17.4f}{:>11.4f}{:>9.4f}\n", b.lower, b.upper, b.count,
                       b.mean_confidence, b.accuracy, b.accuracy - b.mean_confidence);
  }
  out += "  (empty bins left out)\n";
  if (c.non_finite_rows)
    out += fmt::format("  {} samples with NaN or Inf scores: counted wrong, left out of NLL and ECE\n",
                       c.non_finite_rows);
}

void AppendSlices(std::string& out, const SliceReport& s) {
  const Metric& m = s.metric;
  const bool ref = s.reference_overall.has_value();
  out += fmt::format("\nslices by '{}' ({} per slice, {}; gap: how much worse than the whole, negative = better)\n",
                     s.key, m.name, m.unit);
  out += fmt::format("  {:<10}{:>9}{:>12}{:>10}{}\n", "slice", "samples", m.name, "gap",
                     ref ? fmt::format("{:>12}{:>10}", "reference", "drop") : "");
  for (const SliceResult& r : s.slices) {
    std::string ref_columns;
    if (r.reference_value)
      ref_columns = fmt::format("{:>12}{:>10}", Value(*r.reference_value, m.unit),
                                Value(Worsening(m.better, *r.reference_value, r.value), m.unit));
    out += fmt::format("  {:<10}{:>9}{:>12}{:>10}{}\n", r.id, r.samples, Value(r.value, m.unit),
                       Value(Worsening(m.better, m.value, r.value), m.unit), ref_columns);
  }
  out += fmt::format("  worst: slice {}, {} {} ({}), {} worse than the whole ({})\n", s.worst_id, m.name,
                     Value(s.worst_value, m.unit), m.unit, Value(s.worst_gap, m.unit), Value(m.value, m.unit));
  if (s.worst_drop)
    out += fmt::format("  largest drop from the reference: slice {}, {}\n", *s.worst_drop_id,
                       Value(*s.worst_drop, m.unit));
}

void AppendRobustness(std::string& out, const EvaluateReport& r) {
  const Metric primary = r.candidate.metrics.Primary();
  const bool ref = r.reference && !r.reference->perturbations.empty();
  out += fmt::format("\nrobustness ({}, {}; seed {}; perturbed inputs clamped to the dataset's range: {})\n",
                     primary.name, primary.unit, r.perturb_seed, r.input_bounds.empty() ? "none" : r.input_bounds);
  out += fmt::format("  {:<18}{:>12}{:>10}{}\n", "perturbation", primary.name, "drop",
                     ref ? fmt::format("{:>12}{:>10}", "reference", "drop") : "");
  out += fmt::format("  {:<18}{:>12}{:>10}{}\n", "none", Value(primary.value, primary.unit), "",
                     ref ? fmt::format("{:>12}", Value(r.reference->metrics.Primary().value, primary.unit)) : "");
  for (size_t i = 0; i < r.candidate.perturbations.size(); ++i) {
    const PerturbationResult& p = r.candidate.perturbations[i];
    std::string ref_columns;
    if (ref && i < r.reference->perturbations.size())
      ref_columns = fmt::format("{:>12}{:>10}", Value(r.reference->perturbations[i].primary, primary.unit),
                                Value(r.reference->perturbations[i].drop, primary.unit));
    out += fmt::format("  {:<18}{:>12}{:>10}{}\n", p.perturbation.Name(), Value(p.primary, primary.unit),
                       Value(p.drop, primary.unit), ref_columns);
  }
}

void AppendStability(std::string& out, const std::string& who, const StabilityReport& s, int64_t values) {
  out += fmt::format("\nnumerical stability ({})\n", who);
  out += fmt::format("  NaN / Inf        {} / {} of {} output values\n", s.non_finite.nan, s.non_finite.inf, values);
  out += fmt::format("  output range     [{:.4g}, {:.4g}] (output units)\n", s.min, s.max);
  out += fmt::format("  input noise      gaussian, standard deviation {:g} x each input's range\n", s.epsilon);
  out += fmt::format("  output change    max {} mean {} (output units); max is {} of the output range\n",
                     Sig(s.max_change), Sig(s.mean_change), Percent(s.max_change_ratio));
  if (s.argmax_flips)
    out += fmt::format("  argmax flips     {} of {} rows ({})\n", *s.argmax_flips, s.rows, Percent(s.flip_rate));
}

}  // namespace

std::string FormatMetricValue(double value, const std::string& unit) {
  return unit == "nats" ? Value(value, unit) + " nats" : fmt::format("{} ({})", Value(value, unit), unit);
}

std::string EvaluateReportToText(const EvaluateReport& r) {
  std::string out;
  out += fmt::format("model      {}\n", r.candidate.source);
  if (r.reference) out += fmt::format("reference  {}\n", r.reference->source);
  out += fmt::format("inputs     {}\nruntime    {}\n", r.inputs, r.runtime);
  if (!r.machine.empty()) out += fmt::format("machine    {}\n", r.machine);
  out += fmt::format("task       {}: output '{}' {} against {}\n", TaskName(r.task), r.output,
                     ShapeText(r.output_shape), r.truth);
  if (const auto& c = r.candidate.metrics.classification)
    out += fmt::format("           scores taken as {}; top-{}; ECE over {} bins\n", ScoreKindName(c->scores), c->k,
                       c->calibration.bins);
  if (const auto& e = r.candidate.metrics.embedding)
    out += fmt::format("           retrieval over the first {} samples, k = {}\n", e->retrieval_samples, e->k);
  AppendMetrics(out, r);
  if (const auto& c = r.candidate.metrics.classification) AppendClassification(out, *c);
  if (r.slices) AppendSlices(out, *r.slices);
  if (!r.candidate.perturbations.empty()) AppendRobustness(out, r);
  auto values = ElementCount(r.output_shape).value_or(0);
  if (r.candidate.stability) AppendStability(out, "model", *r.candidate.stability, values);
  if (r.reference && r.reference->stability) AppendStability(out, "reference", *r.reference->stability, values);
  if (!r.gates.empty()) {
    out += "\ngates\n";
    for (const GateResult& g : r.gates)
      out += fmt::format("  {:<36}{:>12}  {}\n", g.gate.ToString(), fmt::format("{:.6g}", g.value),
                         g.passed ? "pass" : "FAIL");
  }
  int failed = 0;
  for (const GateResult& g : r.gates) failed += !g.passed;
  out += r.gates.empty() ? "\nresult     measured (no --gate given)\n"
                         : fmt::format("\nresult     {}: {} of {} gates passed\n", r.passed() ? "PASS" : "FAIL",
                                       r.gates.size() - failed, r.gates.size());
  return out;
}

}  // namespace hone::check
