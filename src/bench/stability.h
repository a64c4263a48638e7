// Measurement windows and the stopping rule. A run is cut into windows of equal length; after each one the driver
// asks Decide() whether the last few windows agree well enough to report, in the way perf_analyzer does. The rule is
// a set of small named predicates, each returning a Verdict that reports print as they are, so a user can see which
// condition held a run back and what to change. Everything here is pure: no clock, no threads, no I/O.
//
// "Agree within ±tolerance" means: over the last N windows (N = StabilitySettings::windows), with m the mean of a
// metric over those windows, every window's value x satisfies |x - m| <= tolerance * m, and m > 0. The metric is
// checked separately for throughput and for p99 latency. The reported spread is max |x - m| / m.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace hone::bench {

// What one measurement window saw.
struct WindowSummary {
  double throughput_per_s = 0;  // completed requests per second of the window
  uint64_t p99_ns = 0;          // 99th percentile latency of the requests completed in the window
  uint64_t requests = 0;        // requests completed in the window
  double duration_s = 0;        // the window's length in seconds
  uint64_t errors = 0;          // requests that failed in the window
  uint64_t in_flight = 0;       // requests sent but not finished when the window ended
};

// When to stop measuring. Validate() checks the cross-field rules.
struct StabilitySettings {
  // How many consecutive windows must agree; these windows are the ones reported. More makes a false "stable"
  // rarer and a run longer.
  int windows = 3;
  // Allowed relative deviation from the mean, in (0, 1]. 0.10 is perf_analyzer's default; tighter tolerances need
  // longer windows on a noisy machine.
  double tolerance = 0.10;
  // Give up (kUnstable) once this many windows have been measured without agreement. Bounds the run time.
  int max_windows = 10;
  // The reported windows together must cover at least this many seconds, so that a short burst of luck is not
  // reported, and slow drifts (thermal, caches, background jobs) have a chance to show up.
  double min_duration_s = 1.0;
  // The reported windows together must hold at least this many requests. At 100, the nearest-rank p99 is the
  // second-largest sample rather than the maximum; raise it for tail percentiles that rest on more samples.
  uint64_t min_requests = 100;

  // InvalidArgument naming the field unless windows >= 1, max_windows >= windows, tolerance is in (0, 1] and
  // min_duration_s is finite and >= 0.
  Status Validate() const;
};

// One condition's outcome, printed in every report.
struct Verdict {
  bool met = false;
  std::string detail;          // what was measured, with units: "throughput spread ±4.2% around 1234.5 req/s ..."
  std::string recommendation;  // what to change when not met; empty when met
};

// Throughput of every window in last_windows agrees within ±tolerance (see the file comment). Not met for an empty
// span, or when any window completed no request: such a window measured nothing, so the detail says that no
// request completed there (never "0 req/s"), and the recommendation tells a target slower than a window (requests
// in flight) from one whose requests fail or that gets no load.
Verdict ThroughputStable(std::span<const WindowSummary> last_windows, double tolerance);
// The same rule applied to p99_ns; a window that completed nothing has no p99 (never "0 ns"): not met.
Verdict LatencyStable(std::span<const WindowSummary> last_windows, double tolerance);
// The windows' durations add up to at least min_duration_s.
Verdict MinDurationMet(std::span<const WindowSummary> last_windows, double min_duration_s);
// The windows' request counts add up to at least min_requests.
Verdict MinRequestsMet(std::span<const WindowSummary> last_windows, uint64_t min_requests);

// All four verdicts above for the last settings.windows windows of all_windows (all of them if fewer), in the
// order throughput, latency, duration, requests. For reports.
std::vector<Verdict> CheckWindows(std::span<const WindowSummary> all_windows, const StabilitySettings& settings);

enum class Decision {
  kContinue,  // measure another window
  kStable,    // the last settings.windows windows meet every condition; report them
  kUnstable,  // max_windows reached without that; report the last windows marked unstable, with the verdicts
};

// The stopping rule, given every window measured so far (oldest first) and valid settings:
// fewer than settings.windows windows -> kContinue; every verdict of CheckWindows met -> kStable;
// otherwise kUnstable once all_windows.size() >= settings.max_windows, else kContinue.
Decision Decide(std::span<const WindowSummary> all_windows, const StabilitySettings& settings);

}  // namespace hone::bench
