// How far a candidate's values are from the reference's: absolute and relative error statistics, cosine
// similarity, and NaN/Inf counts on each side. Pure functions of two equally long arrays.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace hone::check {

struct NonFiniteCounts {
  int64_t nan = 0;
  int64_t inf = 0;
  int64_t total() const { return nan + inf; }
};

NonFiniteCounts CountNonFinite(std::span<const double> values);

struct ErrorStats {
  int64_t elements = 0;
  // Elements where both sides are finite; every error statistic below is over these (0 when there are none).
  int64_t finite_pairs = 0;
  // Absolute error |c - r|, in the output's own units.
  double max_abs = 0, mean_abs = 0, p99_abs = 0;
  // Relative error |c - r| / |r|, a ratio: 0 where both are 0, +inf where only the reference is 0.
  double max_rel = 0, mean_rel = 0, p99_rel = 0;
  // Both errors at the caller's quantile (ComputeErrorStats's `quantile`), for a quantile check statistic.
  double quantile = 0.99, quantile_abs = 0, quantile_rel = 0;
  // Cosine similarity of the two arrays over the finite pairs: 1 when both are all zeros, 0 when only one is.
  double cosine_similarity = 1;
  // The finite pair with the largest absolute error (the first such), or -1.
  int64_t worst_index = -1;
  // The range of the reference's finite values (0, 0 when it has none): the scale of the similarity rule.
  double reference_min = 0, reference_max = 0;
  // Elements where the candidate is NaN or Inf and the reference is finite: what the statistics above cannot see.
  int64_t new_non_finite = 0;
  NonFiniteCounts reference, candidate;
};

// Statistics of `candidate` against `reference` (same length; the caller checks).
ErrorStats ComputeErrorStats(std::span<const double> reference, std::span<const double> candidate,
                             double quantile = 0.99);

// The q-quantile (0 <= q <= 1) with linear interpolation between order statistics, as numpy.quantile's default;
// 0 for an empty array. Takes a copy to sort.
double Quantile(std::vector<double> values, double q);

}  // namespace hone::check
