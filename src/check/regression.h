// Regression quality: errors of predictions against targets, in the output's own units.
#pragma once

#include <cstdint>
#include <span>

#include "base/result.h"

namespace hone::check {

struct RegressionMetrics {
  int64_t elements = 0;        // predicted values compared (all of every sample's)
  int64_t non_finite = 0;      // predictions or targets that are NaN or Inf: left out of the errors below
  double mae = 0;              // mean |prediction - target|
  double rmse = 0;             // sqrt(mean (prediction - target)^2)
  double max_abs_error = 0;
};

// InvalidArgument unless both hold the same number of values.
Result<RegressionMetrics> ComputeRegression(std::span<const double> predictions, std::span<const double> targets);

}  // namespace hone::check
