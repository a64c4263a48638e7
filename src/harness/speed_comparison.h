// Is a variant faster or slower than its source? Both are measured in the same run, in alternating rounds
// (source, variant, variant, source, source, variant, ...: each pair in the other order from the last, so that
// a drift of the machine over the run, such as another job starting, weighs on both sides alike), and the verdict
// rests on the median of the per-round ratios beside the spread the source shows against itself. A single pair of
// measurements on a shared machine swings by tens of percent; this is what keeps noise from faking a speed-up or a
// slow-down.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/progress.h"
#include "base/result.h"
#include "bench/results.h"
#include "runtime/input_options.h"
#include "runtime/session_options.h"

namespace hone::harness {

struct SpeedComparisonSettings {
  std::string source_path, variant_path;
  runtime::InputOptions inputs;
  runtime::SessionOptions session;
  int rounds = 3;            // pairs of measurements; >= 1 (3 or more for a spread worth the name)
  int64_t batch = 0;         // samples per request; 0: the inputs' default
  double window_s = 0.25;    // each measurement is two windows of this length after a short warm-up
  // A throughput ratio below 1 - max(min_noise, the source's own spread) is slower; so is a p99 ratio above
  // 1 + max(min_p99_noise, the source's own p99 spread). Within those bands the two are not told apart.
  double min_noise = 0.03;
  double min_p99_noise = 0.10;
  // "round 2 of 3" as each pair of measurements finishes; null: quiet. Not owned; outlives CompareSpeed.
  Progress* progress = nullptr;

  Status Validate() const;
};

// One pair of measurements.
struct SpeedRound {
  bool variant_first = false;
  double source_sps = 0, variant_sps = 0;          // samples/s
  uint64_t source_p50_ns = 0, variant_p50_ns = 0;
  uint64_t source_p99_ns = 0, variant_p99_ns = 0;
  double throughput_ratio() const { return source_sps > 0 ? variant_sps / source_sps : 0; }
  double p99_ratio() const { return source_p99_ns > 0 ? double(variant_p99_ns) / double(source_p99_ns) : 0; }
};

enum class SpeedVerdict { kFaster, kNotDistinguishable, kSlower };

struct SpeedComparison {
  std::vector<SpeedRound> rounds;
  // The last round's full reports: the machine, the session options, the point.
  bench::BenchReport source_report, variant_report;
  // Medians over rounds, and the smallest and largest per-round value.
  double throughput_ratio = 0, throughput_ratio_min = 0, throughput_ratio_max = 0;
  double p50_ratio = 0, p99_ratio = 0, p99_ratio_min = 0, p99_ratio_max = 0;
  double source_sps = 0, variant_sps = 0;  // medians, samples/s
  uint64_t source_p50_ns = 0, variant_p50_ns = 0, source_p99_ns = 0, variant_p99_ns = 0;  // medians
  // How much the source disagrees with itself across rounds: (max - min) / median, throughput and p99.
  double source_throughput_spread = 0, source_p99_spread = 0;
  // Errors in any measurement (either side): the speed verdict then does not hold.
  uint64_t errors = 0;
  std::string first_error;
  SpeedVerdict verdict = SpeedVerdict::kNotDistinguishable;
  std::string verdict_detail;  // one sentence with the figures: why this verdict
};

// Runs the rounds. Errors: a model that does not load or inputs that do not fit (naming which).
Result<SpeedComparison> CompareSpeed(const SpeedComparisonSettings& settings);

// Judges measured rounds (pure; CompareSpeed calls it): fills the medians, spreads, verdict and detail.
void JudgeSpeed(const SpeedComparisonSettings& settings, SpeedComparison& comparison);

// The table rows of a comparison (p50, p99, throughput: the two sides and their ratio) and the line that says how it
// was measured, each indented by two spaces, for the column headers `source` and `variant` already printed by the
// caller ("source"/"variant", "reference"/"candidate").
std::string SpeedComparisonRows(const SpeedComparison& speed, std::string_view source, std::string_view variant);

// Median with the mean of the middle two for an even count; 0 for none.
double Median(std::vector<double> values);
// (max - min) / median: how much repeated measurements of one thing disagree; 0 for none or a median of 0.
double Spread(const std::vector<double>& values);

}  // namespace hone::harness
