#include "check/calibration.h"

#include <algorithm>
#include <cmath>

namespace hone::check {

Calibration ComputeCalibration(std::span<const double> confidence, std::span<const uint8_t> correct, int bins) {
  Calibration c;
  c.bins = std::max(bins, 1);
  c.samples = static_cast<int64_t>(confidence.size());
  c.reliability.resize(static_cast<size_t>(c.bins));
  std::vector<double> confidence_sum(c.reliability.size(), 0), correct_sum(c.reliability.size(), 0);
  for (int b = 0; b < c.bins; ++b) {
    c.reliability[b].lower = static_cast<double>(b) / c.bins;
    c.reliability[b].upper = static_cast<double>(b + 1) / c.bins;
  }
  for (size_t i = 0; i < confidence.size(); ++i) {
    const double p = std::clamp(confidence[i], 0.0, 1.0);
    // Bin (lower, upper]: ceil(p * bins) - 1, with 0 going to the first bin.
    const int b = std::clamp(static_cast<int>(std::ceil(p * c.bins)) - 1, 0, c.bins - 1);
    ++c.reliability[b].count;
    confidence_sum[b] += p;
    correct_sum[b] += correct[i] ? 1 : 0;
  }
  for (size_t b = 0; b < c.reliability.size(); ++b) {
    ReliabilityBin& bin = c.reliability[b];
    if (bin.count == 0) continue;
    bin.mean_confidence = confidence_sum[b] / static_cast<double>(bin.count);
    bin.accuracy = correct_sum[b] / static_cast<double>(bin.count);
    const double gap = std::fabs(bin.accuracy - bin.mean_confidence);
    c.ece += static_cast<double>(bin.count) / static_cast<double>(c.samples) * gap;
    c.max_gap = std::max(c.max_gap, gap);
  }
  return c;
}

}  // namespace hone::check
