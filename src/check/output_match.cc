#include "check/output_match.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hone::check {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The statistic's (absolute, relative) values from the precomputed error statistics.
std::pair<double, double> StatisticValues(const CheckStatistic& statistic, const ErrorStats& stats) {
  switch (statistic.kind) {
    case ErrorStatistic::kMean: return {stats.mean_abs, stats.mean_rel};
    case ErrorStatistic::kQuantile: return {stats.quantile_abs, stats.quantile_rel};
    case ErrorStatistic::kElementwise:
    case ErrorStatistic::kMax: break;
  }
  return {stats.max_abs, stats.max_rel};
}

}  // namespace

MatchResult MatchElements(std::span<const double> reference, std::span<const double> candidate,
                          const Tolerance& given, const ErrorStats& stats) {
  MatchResult m;
  // kExact is the element rule with no tolerance at all.
  Tolerance tolerance = given;
  if (tolerance.rule == ToleranceRule::kExact) {
    tolerance.atol = tolerance.rtol = 0;
    tolerance.statistic = CheckStatistic{};
  }
  // Elementwise: the tolerance that would pass is the worst error among elements the other tolerance misses.
  double need_atol = 0, need_rtol = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    const double r = reference[i], c = candidate[i];
    switch (JudgeElement(r, c, tolerance.atol, tolerance.rtol)) {
      case ElementVerdict::kUnjudged: ++m.unjudged; continue;
      case ElementVerdict::kMismatch: ++m.mismatched; break;
      case ElementVerdict::kMatch: break;
    }
    if (!std::isfinite(r) || !std::isfinite(c)) {
      if (!(std::isnan(r) && std::isnan(c)) && r != c) ++m.non_finite_mismatches;
      continue;
    }
    const double abs_error = std::fabs(c - r);
    const double rel_error = r != 0 ? abs_error / std::fabs(r) : (abs_error == 0 ? 0 : kInf);
    if (abs_error > tolerance.rtol * std::fabs(r)) need_atol = std::max(need_atol, abs_error);
    if (abs_error > tolerance.atol) need_rtol = std::max(need_rtol, rel_error);
  }
  auto [stat_abs, stat_rel] = StatisticValues(tolerance.statistic, stats);
  m.statistic_abs = stat_abs;
  m.statistic_rel = stat_rel;
  if (tolerance.rule == ToleranceRule::kSimilarity) {
    const double range = stats.reference_max - stats.reference_min;
    m.range_error = range > 0 ? stats.max_abs / range : (stats.max_abs > 0 ? kInf : 0);
    m.new_non_finite_failed = m.non_finite_mismatches > 0;
    m.cosine_failed = !(stats.cosine_similarity >= tolerance.min_cosine);
    m.range_error_failed = !(m.range_error <= tolerance.max_range_error);
    m.passed = !m.new_non_finite_failed && !m.cosine_failed && !m.range_error_failed;
    m.min_atol = need_atol;
    m.min_rtol = need_rtol;
  } else if (tolerance.statistic.kind == ErrorStatistic::kElementwise) {
    m.passed = m.mismatched == 0;
    m.min_atol = need_atol;
    m.min_rtol = need_rtol;
  } else {
    m.passed = m.non_finite_mismatches == 0 && (stat_abs <= tolerance.atol || stat_rel <= tolerance.rtol);
    m.min_atol = stat_rel <= tolerance.rtol ? 0 : stat_abs;
    m.min_rtol = stat_abs <= tolerance.atol ? 0 : stat_rel;
  }
  if (m.non_finite_mismatches > 0) m.min_atol = m.min_rtol = kInf;
  return m;
}

}  // namespace hone::check
