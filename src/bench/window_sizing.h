// How long warm-up and each measurement window last, adapted to the target's latency so that a slow model (seconds
// per request) still gets windows that hold enough requests to mean something. Pure: no clock, no threads.
//
// The rule: warm-up measures the mean latency L of the requests it completed. From it, the expected completion
// rate R is concurrency / L (closed loop and offline: that many requests always outstanding), or min(rate,
// workers / L) in open loop. A window lasts run.window_s, lengthened to RequestsWanted(run) / R when that is
// longer, and never beyond max(run.window_s, run.max_window_s). When warm-up completed nothing, R is unknown and
// windows take the longest length allowed.
#pragma once

#include <cstdint>

#include "bench/settings.h"

namespace hone::bench {

// The fewest requests a window should hold: below a handful, a window's throughput and p99 are noise.
inline constexpr uint64_t kMinRequestsPerWindow = 5;

// Requests one window should hold: the stopping rule's min_requests spread over its windows, at least
// kMinRequestsPerWindow.
uint64_t RequestsWanted(const RunLength& run);

// Expected completions per second at `point`, from the warm-up's mean latency in seconds (see the file comment);
// 0 when mean_latency_s is not > 0 (nothing completed).
double ExpectedRate(const BenchPoint& point, int open_loop_workers, double mean_latency_s);

// The length of every measurement window in seconds, for an expected completion rate (0: unknown).
double WindowSeconds(const RunLength& run, double expected_rate);

// How long warm-up waits for its warmup_requests before measuring anyway: max(warmup_s, max_window_s). A target
// slower than that starts measuring with what warm-up saw.
double WarmupLimitSeconds(const RunLength& run);

}  // namespace hone::bench
