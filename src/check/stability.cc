#include "check/stability.h"

#include <algorithm>
#include <cmath>

#include "check/classifier_agreement.h"

namespace hone::check {

StabilityReport MeasureStability(std::span<const double> clean, std::span<const double> perturbed, const Shape& shape,
                                 double epsilon) {
  StabilityReport s;
  s.epsilon = epsilon;
  s.non_finite = CountNonFinite(clean);
  bool any = false;
  for (double v : clean) {
    if (!std::isfinite(v)) continue;
    s.min = any ? std::min(s.min, v) : v;
    s.max = any ? std::max(s.max, v) : v;
    any = true;
  }
  ErrorStats moved = ComputeErrorStats(clean, perturbed);
  s.max_change = moved.max_abs;
  s.mean_change = moved.mean_abs;
  if (s.max > s.min) s.max_change_ratio = s.max_change / (s.max - s.min);
  if (auto agreement = CompareClassifierOutputs(clean, perturbed, shape, 1)) {
    s.argmax_flips = agreement->rows - agreement->argmax_agreements;
    s.rows = agreement->rows;
    s.flip_rate = agreement->rows ? static_cast<double>(*s.argmax_flips) / static_cast<double>(agreement->rows) : 0;
  }
  return s;
}

}  // namespace hone::check
