#include "check/regression.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hone::check {

Result<RegressionMetrics> ComputeRegression(std::span<const double> predictions, std::span<const double> targets) {
  if (predictions.size() != targets.size())
    return Status::InvalidArgument(
        fmt::format("regression: {} predicted values but {} targets", predictions.size(), targets.size()));
  RegressionMetrics m;
  m.elements = static_cast<int64_t>(predictions.size());
  double abs_sum = 0, sq_sum = 0;
  int64_t counted = 0;
  for (size_t i = 0; i < predictions.size(); ++i) {
    if (!std::isfinite(predictions[i]) || !std::isfinite(targets[i])) {
      ++m.non_finite;
      continue;
    }
    const double e = predictions[i] - targets[i];
    abs_sum += std::fabs(e);
    sq_sum += e * e;
    m.max_abs_error = std::max(m.max_abs_error, std::fabs(e));
    ++counted;
  }
  if (counted > 0) {
    m.mae = abs_sum / static_cast<double>(counted);
    m.rmse = std::sqrt(sq_sum / static_cast<double>(counted));
  }
  return m;
}

}  // namespace hone::check
