// Measures one point: puts the point's load on a target, warms up, then measures windows until the stopping rule
// says stable or gives up (unstable). Threads and locks live here; the stopping rule (stability.h) and the
// arrival times (arrival_schedule.h) are pure and tested on their own.
#pragma once

#include <atomic>
#include <functional>
#include <string>
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
  // When set (may be null), the point stops early: checked during warm-up and every 50 ms of a window
  // (interrupt.h). MeasurePoint then returns Cancelled and the point's measurements are dropped.
  const std::atomic<bool>* stop = nullptr;
};

struct WindowProgress {
  const BenchPoint* point;
  size_t window_index;  // 0-based, warm-up excluded
  WindowSummary window;
};
using ProgressFn = std::function<void(const WindowProgress&)>;
// "window 2: 812.4 req/s, p99 1.23 ms", or "window 2: no request completed in 1.0 s (1 in flight)".
std::string DescribeWindow(const WindowProgress& progress);

// Runs `point` against `target` with `requests` (not empty). Errors from the target are counted in the result;
// only a misuse (no requests) is an error, and Cancelled when load.stop was set before the point finished.
Result<PointResult> MeasurePoint(Target& target, const RequestSet& requests, const BenchPoint& point,
                                 const RunLength& run, const LoadOptions& load, const ProgressFn& progress = {});

}  // namespace hone::bench
