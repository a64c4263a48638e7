// Measures one point: puts the point's load on a target, warms up, then measures windows until the stopping rule
// says stable or gives up (unstable). Threads and locks live here; the stopping rule (stability.h) and the
// arrival times (arrival_schedule.h) are pure and tested on their own.
#pragma once

#include <functional>
#include <vector>

#include "base/result.h"
#include "bench/results.h"
#include "bench/settings.h"
#include "bench/target.h"

namespace hone::bench {

// Ready-made requests (each a full set of input tensors at the point's batch size), sent round-robin so the
// timed loop never allocates or copies inputs.
using RequestSet = std::vector<std::vector<Tensor>>;

struct LoadOptions {
  ArrivalProcess arrival = ArrivalProcess::kPoisson;
  uint64_t arrival_seed = 1;
  int open_loop_workers = 64;
};

struct WindowProgress {
  const BenchPoint* point;
  size_t window_index;  // 0-based, warm-up excluded
  WindowSummary window;
};
using ProgressFn = std::function<void(const WindowProgress&)>;

// Runs `point` against `target` with `requests` (not empty). Errors from the target are counted in the result;
// only a misuse (no requests) is an error.
Result<PointResult> MeasurePoint(Target& target, const RequestSet& requests, const BenchPoint& point,
                                 const RunLength& run, const LoadOptions& load, const ProgressFn& progress = {});

}  // namespace hone::bench
