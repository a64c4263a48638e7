// How much faster (or cheaper) one candidate is than another, from measurements taken in pairs: each round measures
// both, one right after the other, so that what the shared machine does during a round (another job, a frequency
// change) weighs on both sides alike and largely cancels in their ratio. The rounds' ratios give a point estimate
// and an interval; only an interval that excludes 1 tells the two apart. The noise is thus measured in the same run
// as the decision, never borrowed from earlier measurements.
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace hone::tune {

struct PairedRatio {
  double ratio = 0;            // geometric mean of the rounds' ratios; 0: no round
  double low = 0, high = 0;    // its 95% interval (Student's t over the logarithms); equal to ratio with one round
  int rounds = 0;

  bool measured() const { return rounds > 0 && ratio > 0; }
  // Two or more rounds: an interval worth the name.
  bool has_interval() const { return rounds >= 2; }
  // The interval lies above 1: better beyond the noise.
  bool above_one() const { return has_interval() && low > 1; }
  bool below_one() const { return has_interval() && high < 1; }
  // The interval lies within 1 +- margin: the two are the same within what matters, however many more rounds ran.
  bool within(double margin) const { return has_interval() && low >= 1 - margin && high <= 1 + margin; }
  // Half the interval's width on a log scale, as a share: "+-6%" (the interval is ratio / (1 + noise) to ratio * (1 + noise)).
  double noise() const { return has_interval() && low > 0 ? std::sqrt(high / low) - 1 : 0; }
};

// "1.12x (95% interval 1.05-1.19x, 4 paired rounds)"
std::string PairText(const PairedRatio& pair);

// From the rounds' ratios (a over b, each > 0; others are ignored).
PairedRatio PairedRatioOf(const std::vector<double>& ratios);

// Student's t quantile for a two-sided 95% interval with `dof` degrees of freedom (>= 1).
double StudentT95(int dof);

}  // namespace hone::tune
