#include "check/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "check/numeric_values.h"
#include "check/report_format.h"

namespace hone::check {
namespace {

std::string Names(const std::vector<NamedTensor>& tensors) {
  std::string s;
  for (const auto& t : tensors) s += (s.empty() ? "" : ", ") + t.name;
  return s.empty() ? "none" : s;
}

const NamedTensor* Find(const std::vector<NamedTensor>& tensors, const std::string& name) {
  auto it = std::find_if(tensors.begin(), tensors.end(), [&](const NamedTensor& t) { return t.name == name; });
  return it == tensors.end() ? nullptr : &*it;
}

std::string Counts(const NonFiniteCounts& c) { return fmt::format("{} NaN, {} Inf", c.nan, c.inf); }

std::string FailureReason(const OutputComparison& o) {
  const MatchResult& m = o.match;
  if (o.tolerance.rule == ToleranceRule::kSimilarity) {
    // The NaN/Inf count comes first: with it, the error statistics (over finite pairs) can look perfect.
    std::vector<std::string> why;
    if (m.new_non_finite_failed)
      why.push_back(fmt::format("{} of {} elements are NaN or Inf where the reference disagrees "
                                "({} NaN, {} Inf in the candidate)",
                                m.non_finite_mismatches, o.errors.elements, o.candidate_non_finite.nan,
                                o.candidate_non_finite.inf));
    if (m.cosine_failed)
      why.push_back(fmt::format("cosine similarity {:.6f} < {:g}", o.errors.cosine_similarity, o.tolerance.min_cosine));
    if (m.range_error_failed)
      why.push_back(fmt::format("max |error| {:.4g} is {:.3g}% of the reference's range [{:.4g}, {:.4g}] (at most "
                                "{:g}%)",
                                o.errors.max_abs, 100 * m.range_error, o.errors.reference_min,
                                o.errors.reference_max, 100 * o.tolerance.max_range_error));
    std::string s;
    for (const auto& w : why) s += (s.empty() ? "" : "; ") + w;
    return s;
  }
  if (m.non_finite_mismatches > 0 && o.tolerance.statistic.kind != ErrorStatistic::kElementwise)
    return fmt::format("{} elements disagree on NaN or Inf", m.non_finite_mismatches);
  if (o.tolerance.statistic.kind == ErrorStatistic::kElementwise)
    return fmt::format("{} of {} elements beyond atol {:g} and rtol {:g}", m.mismatched, o.errors.elements,
                       o.tolerance.atol, o.tolerance.rtol);
  return fmt::format("{} absolute error {:.3g} > atol {:g} and relative error {:.3g} > rtol {:g}",
                     o.tolerance.statistic.Name(), m.statistic_abs, o.tolerance.atol, m.statistic_rel,
                     o.tolerance.rtol);
}

Result<OutputComparison> ComparePair(const NamedTensor& ref, const NamedTensor& cand, const CompareSettings& settings) {
  OutputComparison o;
  o.reference_name = ref.name;
  o.candidate_name = cand.name;
  o.reference_type = ref.tensor.type();
  o.candidate_type = cand.tensor.type();
  o.reference_shape = ref.tensor.shape();
  o.candidate_shape = cand.tensor.shape();
  o.shapes_match = o.reference_shape == o.candidate_shape;
  o.tolerance = settings.tolerances.For(ref.name);
  // Integers, booleans and strings have no rounding to forgive: under the default rule they must be equal.
  if (o.tolerance.rule == ToleranceRule::kSimilarity && !IsFloatingPoint(ref.tensor.type())) {
    o.tolerance.rule = ToleranceRule::kExact;
    o.tolerance.atol = o.tolerance.rtol = 0;
    o.tolerance.statistic = CheckStatistic{};
  }
  HONE_ASSIGN_OR_RETURN(std::vector<double> r, ToDoubles(ref.tensor, "reference output '" + ref.name + "'"));
  HONE_ASSIGN_OR_RETURN(std::vector<double> c, ToDoubles(cand.tensor, "candidate output '" + cand.name + "'"));
  o.reference_non_finite = CountNonFinite(r);
  o.candidate_non_finite = CountNonFinite(c);
  if (!o.shapes_match) {
    o.failure = fmt::format("shapes differ: reference {}, candidate {}", ShapeText(o.reference_shape),
                            ShapeText(o.candidate_shape));
    return o;
  }
  o.errors = ComputeErrorStats(r, c, o.tolerance.statistic.quantile);
  o.match = MatchElements(r, c, o.tolerance, o.errors);
  if (o.errors.worst_index >= 0) {
    o.worst_reference = r[static_cast<size_t>(o.errors.worst_index)];
    o.worst_candidate = c[static_cast<size_t>(o.errors.worst_index)];
  }
  o.classifier = CompareClassifierOutputs(r, c, o.reference_shape, settings.top_k);
  o.passed = o.match.passed;
  if (!o.passed) o.failure = FailureReason(o);
  return o;
}

}  // namespace

bool CompareReport::passed() const {
  if (outputs.empty() || !validation_failures.empty()) return false;
  return std::all_of(outputs.begin(), outputs.end(), [](const OutputComparison& o) { return o.passed; });
}

Result<CompareReport> CompareOutputs(const std::vector<NamedTensor>& reference,
                                     const std::vector<NamedTensor>& candidate, const CompareSettings& settings) {
  for (const auto& [ref_name, cand_name] : settings.output_map) {
    if (!Find(reference, ref_name))
      return Status::InvalidArgument(fmt::format("--map {}={}: the reference has no output '{}' (outputs: {})",
                                                 ref_name, cand_name, ref_name, Names(reference)));
    if (!Find(candidate, cand_name))
      return Status::InvalidArgument(fmt::format("--map {}={}: the candidate has no output '{}' (outputs: {})",
                                                 ref_name, cand_name, cand_name, Names(candidate)));
  }
  CompareReport report;
  report.validate = settings.validate;
  std::set<std::string> paired_candidates;
  for (const NamedTensor& ref : reference) {
    auto mapped = settings.output_map.find(ref.name);
    const NamedTensor* cand = Find(candidate, mapped != settings.output_map.end() ? mapped->second : ref.name);
    if (!cand) {
      report.reference_only.push_back(ref.name);
      continue;
    }
    paired_candidates.insert(cand->name);
    HONE_ASSIGN_OR_RETURN(OutputComparison o, ComparePair(ref, *cand, settings));
    report.outputs.push_back(std::move(o));
  }
  for (const NamedTensor& cand : candidate)
    if (!paired_candidates.count(cand.name)) report.candidate_only.push_back(cand.name);
  if (report.outputs.empty())
    return Status::InvalidArgument(fmt::format(
        "no output to compare: the reference has {}; the candidate has {}: pair them with --map REFERENCE=CANDIDATE",
        Names(reference), Names(candidate)));
  for (const std::string& name : settings.tolerances.NamedOutputs())
    if (std::none_of(report.outputs.begin(), report.outputs.end(),
                     [&](const OutputComparison& o) { return o.reference_name == name; }))
      return Status::InvalidArgument(fmt::format(
          "a tolerance (--atol, --rtol or --error-stat) names output '{}', which is not compared (compared: {})",
          name, [&] {
            std::string s;
            for (const auto& o : report.outputs) s += (s.empty() ? "" : ", ") + o.reference_name;
            return s;
          }()));
  if (settings.validate) {
    auto check = [&](const char* side, const std::vector<NamedTensor>& tensors) -> Status {
      for (const NamedTensor& t : tensors) {
        HONE_ASSIGN_OR_RETURN(std::vector<double> v, ToDoubles(t.tensor, fmt::format("{} output '{}'", side, t.name)));
        NonFiniteCounts c = CountNonFinite(v);
        if (c.total() > 0)
          report.validation_failures.push_back(fmt::format("{} output '{}': {}", side, t.name, Counts(c)));
      }
      return Status::Ok();
    };
    HONE_RETURN_IF_ERROR(check("reference", reference));
    HONE_RETURN_IF_ERROR(check("candidate", candidate));
  }
  return report;
}

}  // namespace hone::check
