// Numerical stability of one output: NaN and Inf counts, the range of its finite values, and how far it moves
// when the inputs move by a tiny amount (the caller runs the model twice; this compares the two runs).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "check/error_stats.h"
#include "tensor/shape.h"

namespace hone::check {

struct StabilityReport {
  NonFiniteCounts non_finite;  // in the clean output
  double min = 0, max = 0;     // of the finite clean values, output units (0 when none are finite)
  // The probe: gaussian noise with standard deviation epsilon * (each input's range in the dataset).
  double epsilon = 0;
  double max_change = 0, mean_change = 0;  // |perturbed - clean| over finite pairs, output units
  double max_change_ratio = 0;             // max_change / (max - min), a ratio (0 when the range is 0)
  // Classifier-like outputs (rank >= 2, last axis >= 2): rows whose argmax changed, and their share.
  std::optional<int64_t> argmax_flips;
  int64_t rows = 0;  // rows compared for flips
  double flip_rate = 0;
};

// `clean` and `perturbed`: the same output from the two runs, `shape` its shape.
StabilityReport MeasureStability(std::span<const double> clean, std::span<const double> perturbed, const Shape& shape,
                                 double epsilon);

}  // namespace hone::check
