#include "tune/paired_ratio.h"

#include <fmt/format.h>

#include <cmath>

namespace hone::tune {

double StudentT95(int dof) {
  // The 0.975 quantile; beyond 30 degrees of freedom the normal's 1.96 is within 4%.
  static constexpr double kTable[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                                      2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return kTable[1];
  return dof <= 30 ? kTable[dof] : 1.96;
}

PairedRatio PairedRatioOf(const std::vector<double>& ratios) {
  std::vector<double> logs;
  for (double r : ratios) {
    if (r > 0 && std::isfinite(r)) logs.push_back(std::log(r));
  }
  PairedRatio p;
  p.rounds = static_cast<int>(logs.size());
  if (logs.empty()) return p;
  double mean = 0;
  for (double l : logs) mean += l;
  mean /= static_cast<double>(logs.size());
  p.ratio = p.low = p.high = std::exp(mean);
  if (logs.size() < 2) return p;
  double ss = 0;
  for (double l : logs) ss += (l - mean) * (l - mean);
  const double n = static_cast<double>(logs.size());
  const double half = StudentT95(p.rounds - 1) * std::sqrt(ss / (n - 1)) / std::sqrt(n);
  p.low = std::exp(mean - half);
  p.high = std::exp(mean + half);
  return p;
}

std::string PairText(const PairedRatio& p) {
  if (!p.measured()) return "not measured in pairs";
  if (!p.has_interval()) return fmt::format("{:.2f}x in 1 paired round (no interval)", p.ratio);
  return fmt::format("{:.2f}x (95% interval {:.2f}-{:.2f}x, {} paired rounds)", p.ratio, p.low, p.high, p.rounds);
}

}  // namespace hone::tune
