// Calibration of a classifier's confidence: expected calibration error (ECE) over equal-width confidence bins and
// the reliability-diagram data behind it (Guo et al., "On Calibration of Modern Neural Networks", 2017).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace hone::check {

struct ReliabilityBin {
  double lower = 0, upper = 0;  // confidence range (lower, upper]; the first bin also takes confidence 0
  int64_t count = 0;            // predictions whose confidence falls in the bin
  double mean_confidence = 0;   // 0 when the bin is empty
  double accuracy = 0;          // ratio of correct predictions; 0 when empty
};

struct Calibration {
  int bins = 15;
  int64_t samples = 0;
  // sum over bins of count / samples * |accuracy - mean_confidence|, a ratio in [0, 1]; 0 for no samples.
  double ece = 0;
  // the largest |accuracy - mean_confidence| over non-empty bins, a ratio.
  double max_gap = 0;
  std::vector<ReliabilityBin> reliability;
};

// `confidence[i]` in [0, 1] (the probability of the predicted class), `correct[i]` (0 or 1) whether that prediction was
// right. Bins split [0, 1] into `bins` equal parts (>= 1).
Calibration ComputeCalibration(std::span<const double> confidence, std::span<const uint8_t> correct, int bins = 15);

}  // namespace hone::check
