#include "bench/window_sizing.h"

#include <algorithm>
#include <cmath>

namespace hone::bench {

uint64_t RequestsWanted(const RunLength& run) {
  const uint64_t windows = static_cast<uint64_t>(std::max(run.stability.windows, 1));
  return std::max(kMinRequestsPerWindow, (run.stability.min_requests + windows - 1) / windows);
}

double ExpectedRate(const BenchPoint& point, int open_loop_workers, double mean_latency_s) {
  if (!(mean_latency_s > 0) || !std::isfinite(mean_latency_s)) return 0;
  if (point.load.mode == LoadMode::kOpenLoop)
    return std::min(point.load.rate, static_cast<double>(std::max(open_loop_workers, 1)) / mean_latency_s);
  return static_cast<double>(std::max<int64_t>(point.load.concurrency, 1)) / mean_latency_s;
}

double WindowSeconds(const RunLength& run, double expected_rate) {
  const double longest = std::max(run.window_s, run.max_window_s);
  if (!(expected_rate > 0) || !std::isfinite(expected_rate)) return longest;
  const double wanted = static_cast<double>(RequestsWanted(run)) / expected_rate;
  return std::clamp(wanted, run.window_s, longest);
}

double WarmupLimitSeconds(const RunLength& run) { return std::max(run.warmup_s, run.max_window_s); }

}  // namespace hone::bench
