// Choosing `hone prune`'s share from a speed goal (--target-speedup): the shares are tried gentlest first, each
// pruned model measured against its source side by side (speed_comparison.h: alternating rounds, medians), and the
// first whose median throughput ratio reaches the goal is the answer. Pruning loses quality with every share, so the
// gentlest share that is fast enough is the one to verify; a share whose rounding keeps the same counts as the one
// before makes the same model and is not measured again.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/result.h"
#include "onnx/prune_options.h"
#include "runtime/input_options.h"
#include "runtime/session_options.h"

namespace hone::harness {

struct PruneSearchSettings {
  std::string source_path;
  onnx::PruneOptions prune;  // everything but the share, which the search sets
  double target_speedup = 1.5;
  std::vector<double> ratios = {0.125, 0.25, 0.375, 0.5, 0.625, 0.75};  // ascending
  runtime::InputOptions inputs;  // what the speed is measured on
  runtime::SessionOptions session;
  int rounds = 3;
  double window_s = 0.25;
  int64_t batch = 0;  // 0: the inputs' default
  // "share 0.25: 1.18x (1.12x-1.21x)" as each share is measured; null: quiet. Not owned.
  Progress* progress = nullptr;

  // InvalidArgument naming the flag: a goal not above 1, no shares, a share outside (0, 1).
  Status Validate() const;
};

struct PruneSearchStep {
  double ratio = 0;
  std::string kept;  // what the share keeps: "channels 16/32, neurons 32/64"
  bool pruned = false;  // false: nothing could be pruned at this share
  bool measured = false;  // false: the same model as the step before (or nothing pruned)
  double speedup = 0, speedup_min = 0, speedup_max = 0;  // throughput ratio, median and range over the rounds
  std::string note;  // why not measured, or the speed verdict's sentence
};

struct PruneSearchResult {
  std::vector<PruneSearchStep> steps;
  std::optional<double> chosen;  // the gentlest share that reached the goal; nullopt: none did
};

// Prunes the source at each share into a private temporary directory (removed after) and measures each against the
// source. Errors: the options (PruneOptions::Validate), the pruning (PruneFile's), a model or data that does not
// load (CompareSpeed's).
Result<PruneSearchResult> SearchPruneRatio(const PruneSearchSettings& settings);

}  // namespace hone::harness
