#include <fmt/format.h>

#include "check/compare_report.h"
#include "check/report_format.h"

namespace hone::check {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

// Near 1, the distance from 1 is what matters: "1 - 2.57e-08".
std::string Cosine(double c) {
  if (c > 0.99 && c < 1) return fmt::format("1 - {:.3g}", 1 - c);
  return fmt::format("{:.10f}", c);
}

void AppendOutput(std::string& out, const OutputComparison& o) {
  const std::string name = o.reference_name == o.candidate_name
                               ? "'" + o.reference_name + "'"
                               : fmt::format("'{}' vs '{}'", o.reference_name, o.candidate_name);
  out += fmt::format("\noutput {}: reference {} {}, candidate {} {}, shapes {}\n", name,
                     DataTypeName(o.reference_type), ShapeText(o.reference_shape), DataTypeName(o.candidate_type),
                     ShapeText(o.candidate_shape), o.shapes_match ? "match" : "DIFFER");
  const Tolerance& t = o.tolerance;
  out += fmt::format("  {:<19}{}\n", "tolerance", t.Describe());
  out += fmt::format("  {:<19}reference {} / {}, candidate {} / {}\n", "NaN / Inf", o.reference_non_finite.nan,
                     o.reference_non_finite.inf, o.candidate_non_finite.nan, o.candidate_non_finite.inf);
  if (o.shapes_match) {
    const ErrorStats& e = o.errors;
    const MatchResult& m = o.match;
    // Shown before the statistics: those are over the finite pairs and cannot see these elements.
    if (m.non_finite_mismatches > 0)
      out += fmt::format("  {:<19}{} of {} elements ({}) disagree on NaN or Inf; the errors below are over the {} "
                         "elements where both are finite\n",
                         "NaN/Inf MISMATCH", m.non_finite_mismatches, e.elements,
                         Percent(static_cast<double>(m.non_finite_mismatches) / static_cast<double>(e.elements)),
                         e.finite_pairs);
    out += fmt::format("  {:<19}max {:<11} mean {:<11} p99 {}\n", "absolute error", Sig(e.max_abs), Sig(e.mean_abs),
                       Sig(e.p99_abs));
    out += fmt::format("  {:<19}max {:<11} mean {:<11} p99 {}\n", "relative error", Sig(e.max_rel), Sig(e.mean_rel),
                       Sig(e.p99_rel));
    out += fmt::format("  {:<19}{}\n", "cosine similarity", Cosine(e.cosine_similarity));
    if (t.rule == ToleranceRule::kSimilarity)
      out += fmt::format("  {:<19}{} ({}% of the reference's range [{}, {}])\n", "largest |error|", Sig(e.max_abs),
                         Sig(100 * m.range_error), Sig(e.reference_min), Sig(e.reference_max));
    else
      out += fmt::format("  {:<19}{} of {} elements ({}){}\n", "mismatched", m.mismatched, e.elements,
                         Percent(e.elements ? static_cast<double>(m.mismatched) / static_cast<double>(e.elements) : 0),
                         m.unjudged ? fmt::format("; {} not judged (NaN in the reference)", m.unjudged) : "");
    if (t.rule == ToleranceRule::kAtolRtol && t.statistic.kind != ErrorStatistic::kElementwise)
      out += fmt::format("  {:<19}absolute {} (atol {:g}), relative {} (rtol {:g})\n", t.statistic.Name(),
                         Sig(m.statistic_abs), t.atol, Sig(m.statistic_rel), t.rtol);
    if (t.rule != ToleranceRule::kExact)
      out += fmt::format("  {:<19}atol >= {} (at rtol {:g}), or rtol >= {} (at atol {:g})\n",
                         t.rule == ToleranceRule::kSimilarity ? "elementwise needs" : "would pass with",
                         Sig(m.min_atol), t.rtol, Sig(m.min_rtol), t.atol);
    if (e.worst_index >= 0)
      out += fmt::format("  {:<19}{}: reference {:.9g}, candidate {:.9g}\n", "largest error at",
                         ElementIndex(e.worst_index, o.reference_shape), o.worst_reference, o.worst_candidate);
    if (const auto& c = o.classifier)
      out += fmt::format("  {:<19}{} of {} rows ({}), top-{} overlap {}\n", "argmax agreement", c->argmax_agreements,
                         c->rows, Percent(c->argmax_agreement), c->k, Percent(c->topk_overlap));
  }
  out += fmt::format("  {:<19}{}\n", "result", o.passed ? "pass" : "FAIL: " + o.failure);
}

}  // namespace

std::string CompareReportToText(const CompareReport& r) {
  std::string out;
  out += fmt::format("reference  {}\ncandidate  {}\n", r.reference, r.candidate);
  if (!r.inputs.empty()) out += fmt::format("inputs     {}\n", r.inputs);
  if (!r.runtime.empty()) out += fmt::format("runtime    {}\n", r.runtime);
  if (!r.machine.empty()) out += fmt::format("machine    {}\n", r.machine);
  out += fmt::format("rule       {}\n", kCompareRule);
  out += "units      absolute errors in the output's own units; relative errors, cosine and agreement are ratios\n";
  for (const OutputComparison& o : r.outputs) AppendOutput(out, o);
  if (!r.reference_only.empty() || !r.candidate_only.empty()) {
    out += "\nnot compared (no partner; pair with --map REFERENCE=CANDIDATE):";
    if (!r.reference_only.empty()) out += " reference only: " + Join(r.reference_only) + ";";
    if (!r.candidate_only.empty()) out += " candidate only: " + Join(r.candidate_only) + ";";
    out += "\n";
  }
  if (r.validate)
    out += r.validation_failures.empty() ? "\nvalidate   no NaN or Inf in any output\n"
                                         : "\nvalidate   FAIL: " + Join(r.validation_failures) + "\n";
  int failed = 0;
  for (const auto& o : r.outputs) failed += !o.passed;
  out += fmt::format("\nresult     {}: {} of {} outputs matched{}\n", r.passed() ? "PASS" : "FAIL",
                     static_cast<int>(r.outputs.size()) - failed, r.outputs.size(),
                     r.validation_failures.empty() ? "" : "; NaN or Inf found");
  return out;
}

}  // namespace hone::check
