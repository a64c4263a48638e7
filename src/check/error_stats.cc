#include "check/error_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hone::check {

NonFiniteCounts CountNonFinite(std::span<const double> values) {
  NonFiniteCounts counts;
  for (double v : values) {
    if (std::isnan(v)) ++counts.nan;
    else if (std::isinf(v)) ++counts.inf;
  }
  return counts;
}

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(below);
  if (fraction == 0 || values[above] == values[below]) return values[below];  // also keeps +inf from inf - inf
  return values[below] + fraction * (values[above] - values[below]);
}

ErrorStats ComputeErrorStats(std::span<const double> reference, std::span<const double> candidate, double quantile) {
  ErrorStats s;
  s.elements = static_cast<int64_t>(reference.size());
  s.quantile = quantile;
  s.reference = CountNonFinite(reference);
  s.candidate = CountNonFinite(candidate);
  std::vector<double> abs_errors, rel_errors;
  abs_errors.reserve(reference.size());
  rel_errors.reserve(reference.size());
  double sum_abs = 0, sum_rel = 0, dot = 0, ref_norm = 0, cand_norm = 0;
  bool any_finite_reference = false;
  for (size_t i = 0; i < reference.size(); ++i) {
    const double r = reference[i], c = candidate[i];
    if (std::isfinite(r)) {
      s.reference_min = any_finite_reference ? std::min(s.reference_min, r) : r;
      s.reference_max = any_finite_reference ? std::max(s.reference_max, r) : r;
      any_finite_reference = true;
      if (!std::isfinite(c)) ++s.new_non_finite;
    }
    if (!std::isfinite(r) || !std::isfinite(c)) continue;
    const double abs_error = std::fabs(c - r);
    const double rel_error = r != 0 ? abs_error / std::fabs(r)
                                    : (abs_error == 0 ? 0 : std::numeric_limits<double>::infinity());
    if (abs_error > s.max_abs || s.worst_index < 0) {
      s.max_abs = abs_error;
      s.worst_index = static_cast<int64_t>(i);
    }
    s.max_rel = std::max(s.max_rel, rel_error);
    sum_abs += abs_error;
    sum_rel += rel_error;
    dot += r * c;
    ref_norm += r * r;
    cand_norm += c * c;
    abs_errors.push_back(abs_error);
    rel_errors.push_back(rel_error);
  }
  s.finite_pairs = static_cast<int64_t>(abs_errors.size());
  if (s.finite_pairs > 0) {
    s.mean_abs = sum_abs / static_cast<double>(s.finite_pairs);
    s.mean_rel = sum_rel / static_cast<double>(s.finite_pairs);
  }
  s.p99_abs = Quantile(abs_errors, 0.99);
  s.p99_rel = Quantile(rel_errors, 0.99);
  s.quantile_abs = Quantile(std::move(abs_errors), quantile);
  s.quantile_rel = Quantile(std::move(rel_errors), quantile);
  if (ref_norm == 0 && cand_norm == 0)
    s.cosine_similarity = 1;
  else if (ref_norm == 0 || cand_norm == 0)
    s.cosine_similarity = 0;
  else
    s.cosine_similarity = std::clamp(dot / (std::sqrt(ref_norm) * std::sqrt(cand_norm)), -1.0, 1.0);
  return s;
}

}  // namespace hone::check
