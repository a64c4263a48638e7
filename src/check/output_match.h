// The verdict for one output: does the candidate match the reference under a Tolerance (see tolerance.h for the
// rule), and what tolerance would have passed.
#pragma once

#include <cstdint>
#include <span>

#include "check/error_stats.h"
#include "check/tolerance.h"

namespace hone::check {

struct MatchResult {
  bool passed = false;
  // Elements that fail the elementwise rule, whatever the statistic (NaN and Inf disagreements included).
  int64_t mismatched = 0;
  // Of those, NaN or Inf disagreements: these fail every statistic.
  int64_t non_finite_mismatches = 0;
  // Elements not judged: the reference is NaN and the candidate is not.
  int64_t unjudged = 0;
  // The statistic's absolute (output units) and relative (ratio) values; elementwise: the largest over elements.
  double statistic_abs = 0, statistic_rel = 0;
  // The smallest atol that passes with the given rtol, and the smallest rtol that passes with the given atol;
  // +inf when no tolerance would (a NaN or Inf disagreement).
  double min_atol = 0, min_rtol = 0;
  // kSimilarity: the largest absolute error as a ratio to the reference's range (+inf when the range is 0 and
  // the error is not), and which of the rule's three conditions failed.
  double range_error = 0;
  bool new_non_finite_failed = false, cosine_failed = false, range_error_failed = false;
};

// Judges `candidate` against `reference` (same length) under `tolerance`; `stats` must be ComputeErrorStats of
// the same arrays at tolerance.statistic.quantile.
MatchResult MatchElements(std::span<const double> reference, std::span<const double> candidate,
                          const Tolerance& tolerance, const ErrorStats& stats);

}  // namespace hone::check
