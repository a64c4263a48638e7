// Turning what a tensor held during calibration into the range its quantization covers. The histogram methods
// work on magnitudes and return a clipping threshold, one for each sign: the positive values' histogram over
// [0, max] gives T+, the negative values' (negated) over [0, -min] gives T-, and the range is [-T-, T+] within the
// observed [min, max]. Each side is judged on its own because asymmetric UINT8 ranges need not be symmetric: a
// normalized image's background is one spike of negative values, and pooled with the bright positive pixels it
// would pull one shared threshold down to the spike and clip every bright pixel.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace hone::onnx {

// Smallest and largest finite value seen (NaN and infinities are ignored; nothing seen: both 0).
struct MinMax {
  float min = 0, max = 0;
  bool seen = false;
  void Add(std::span<const float> values);
  float max_abs() const;
};

// Counts of |x| in `bins` equal bins over [0, limit]; values above limit count in the last bin. Exact zeros are
// counted apart: zero is exact under every range (it is the zero point), and after a ReLU half of all values are
// zero, a spike in bin 0 that would otherwise dominate the entropy method's divergence and make it clip hard.
class AbsHistogram {
 public:
  // side > 0 counts only positive values (and zeros), side < 0 only negative ones (and zeros), 0 all of them.
  AbsHistogram(int bins, float limit, int side = 0);
  void Add(std::span<const float> values);
  const std::vector<double>& counts() const { return counts_; }  // nonzero values only
  double zeros() const { return zeros_; }
  // Width of one bin (limit / bins; 0 for a limit of 0).
  double bin_width() const { return width_; }

 private:
  std::vector<double> counts_;
  double zeros_ = 0;
  double width_ = 0;
  int side_ = 0;
};

// The upper edge of the first bin at which the cumulative count (starting from `zeros` exact zeros) reaches
// `percentile` percent of the total: the threshold that keeps that share of |x| inside the range. 0 for an empty
// histogram.
double PercentileThreshold(const std::vector<double>& counts, double bin_width, double percentile,
                           double zeros = 0);

// The KL-divergence method (as TensorRT introduced it for INT8): for each candidate i from `levels` to
// counts.size(), the reference P is the first i bins with everything beyond folded into bin i-1 (what clipping at
// i does), the candidate Q is those i bins merged into `levels` groups and spread back evenly over each group's
// non-empty bins (what quantizing to `levels` values does). Returns i * bin_width for the i with the smallest
// KL(P || Q): the threshold that best trades clipping error for rounding error. levels is 128 for 8 bits (one
// sign of |x|). 0 for an empty histogram; the whole range when it has at most `levels` bins.
double EntropyThreshold(const std::vector<double>& counts, double bin_width, int levels = 128);

// KL(P || Q) as EntropyThreshold computes it for candidate i, exposed for tests.
double EntropyDivergence(const std::vector<double>& counts, int i, int levels);

}  // namespace hone::onnx
