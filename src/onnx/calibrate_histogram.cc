#include "onnx/calibrate_histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hone::onnx {

void MinMax::Add(std::span<const float> values) {
  for (float v : values) {
    if (!std::isfinite(v)) continue;
    if (!seen) {
      min = max = v;
      seen = true;
    } else {
      min = std::min(min, v);
      max = std::max(max, v);
    }
  }
}

float MinMax::max_abs() const { return std::max(std::fabs(min), std::fabs(max)); }

AbsHistogram::AbsHistogram(int bins, float limit, int side)
    : counts_(static_cast<size_t>(std::max(bins, 1)), 0.0), width_(limit > 0 ? double(limit) / bins : 0.0),
      side_(side) {}

void AbsHistogram::Add(std::span<const float> values) {
  const size_t last = counts_.size() - 1;
  for (float v : values) {
    if (!std::isfinite(v)) continue;
    if (v == 0) {
      zeros_ += 1;
      continue;
    }
    if ((side_ > 0 && v < 0) || (side_ < 0 && v > 0)) continue;
    double a = std::fabs(static_cast<double>(v));
    size_t bin = width_ > 0 ? static_cast<size_t>(std::min(a / width_, double(last))) : 0;
    counts_[bin] += 1;
  }
}

double PercentileThreshold(const std::vector<double>& counts, double bin_width, double percentile, double zeros) {
  double total = zeros;
  for (double c : counts) total += c;
  if (total <= 0) return 0;
  const double target = total * percentile / 100.0;
  double cumulative = zeros;
  for (size_t i = 0; i < counts.size(); ++i) {
    cumulative += counts[i];
    // A relative slack absorbs rounding in the sum, so that 100% stops at the last non-empty bin.
    if (cumulative >= target * (1 - 1e-12)) return static_cast<double>(i + 1) * bin_width;
  }
  return static_cast<double>(counts.size()) * bin_width;
}

double EntropyDivergence(const std::vector<double>& counts, int i, int levels) {
  const size_t n = static_cast<size_t>(i);
  std::vector<double> p(counts.begin(), counts.begin() + i);
  double outliers = 0;
  for (size_t k = n; k < counts.size(); ++k) outliers += counts[k];
  p[n - 1] += outliers;
  // Q: group j covers bins [floor(j*i/levels), floor((j+1)*i/levels)); its mass (without the outliers) is spread
  // evenly over the group's non-empty bins, since an empty bin stays empty after quantization.
  std::vector<double> q(n, 0.0);
  for (int j = 0; j < levels; ++j) {
    size_t begin = static_cast<size_t>(int64_t{j} * i / levels), end = static_cast<size_t>(int64_t{j + 1} * i / levels);
    double mass = 0;
    int nonempty = 0;
    for (size_t k = begin; k < end; ++k) {
      mass += counts[k];
      if (counts[k] > 0) ++nonempty;
    }
    for (size_t k = begin; k < end; ++k)
      if (counts[k] > 0) q[k] = mass / nonempty;
  }
  double p_total = 0, q_total = 0;
  for (size_t k = 0; k < n; ++k) {
    p_total += p[k];
    q_total += q[k];
  }
  if (p_total <= 0 || q_total <= 0) return std::numeric_limits<double>::infinity();
  // Bins P has and Q lacks (clipped mass landing in an empty last bin) get a tiny probability, so that the
  // divergence is large but finite and candidates still compare.
  constexpr double kFloor = 1e-12;
  double kl = 0;
  for (size_t k = 0; k < n; ++k) {
    if (p[k] <= 0) continue;
    double pk = p[k] / p_total, qk = std::max(q[k] / q_total, kFloor);
    kl += pk * std::log(pk / qk);
  }
  return kl;
}

double EntropyThreshold(const std::vector<double>& counts, double bin_width, int levels) {
  double total = 0;
  for (double c : counts) total += c;
  if (total <= 0) return 0;
  const int bins = static_cast<int>(counts.size());
  if (bins <= levels) return bins * bin_width;
  int best = bins;
  double best_kl = std::numeric_limits<double>::infinity();
  for (int i = levels; i <= bins; ++i) {
    double kl = EntropyDivergence(counts, i, levels);
    if (kl < best_kl) {
      best_kl = kl;
      best = i;
    }
  }
  return best * bin_width;
}

}  // namespace hone::onnx
