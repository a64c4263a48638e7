#include "bench/stability.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <vector>

#include "base/units.h"

namespace hone::bench {
namespace {

__attribute__((format(printf, 1, 2))) std::string Format(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return buffer;
}

// How far a metric strays from its mean over the windows.
struct Spread {
  double mean = 0;
  double min = 0;
  double max = 0;
  double relative = 0;  // max |x - mean| / mean; 0 when mean is 0
  bool within = false;  // mean > 0 and every |x - mean| <= tolerance * mean
};

template <typename Get>
Spread Measure(std::span<const WindowSummary> windows, double tolerance, Get get) {
  Spread s;
  if (windows.empty()) return s;
  double total = 0;
  s.min = s.max = get(windows.front());
  for (const WindowSummary& w : windows) {
    const double x = get(w);
    total += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  s.mean = total / static_cast<double>(windows.size());
  const double largest_deviation = std::max(s.max - s.mean, s.mean - s.min);
  if (s.mean > 0) s.relative = largest_deviation / s.mean;
  // Written so that NaN in any value or in the tolerance fails the check instead of passing it.
  s.within = s.mean > 0 && largest_deviation <= tolerance * s.mean;
  return s;
}

double TotalDuration(std::span<const WindowSummary> windows) {
  double total = 0;
  for (const WindowSummary& w : windows) total += w.duration_s;
  return total;
}

uint64_t TotalRequests(std::span<const WindowSummary> windows) {
  uint64_t total = 0;
  for (const WindowSummary& w : windows) total += w.requests;
  return total;
}

std::span<const WindowSummary> LastWindows(std::span<const WindowSummary> all, int n) {
  const size_t keep = std::min(all.size(), static_cast<size_t>(std::max(n, 1)));
  return all.last(keep);
}

// The windows in which no request completed: they measured no throughput or latency to compare.
std::vector<WindowSummary> EmptyWindows(std::span<const WindowSummary> windows) {
  std::vector<WindowSummary> empty;
  for (const WindowSummary& w : windows)
    if (w.requests == 0) empty.push_back(w);
  return empty;
}

// Why no request completed in the `empty` windows (not empty), and what to do.
std::string NothingCompleted(std::span<const WindowSummary> empty) {
  uint64_t errors = 0, in_flight = 0;
  for (const WindowSummary& w : empty) {
    errors += w.errors;
    in_flight = std::max(in_flight, w.in_flight);
  }
  if (errors > 0)
    return Format("no request completed in those windows: %llu failed; see the first error",
                  static_cast<unsigned long long>(errors));
  if (in_flight > 0)
    return Format("no request completed within a window of %.2f s while %llu were in flight: the target takes "
                  "about as long as a window or longer; raise --max-window-ms (and --warmup-s) above its latency",
                  empty.back().duration_s, static_cast<unsigned long long>(in_flight));
  return "no requests completed: check that the target is serving and the load is on";
}

// "in the last 3 windows (3.00 s)" when all are empty, else "in 1 of the last 3 windows".
std::string WhichWindows(std::span<const WindowSummary> all, size_t empty) {
  if (empty == all.size()) return Format("in the last %zu windows (%.2f s)", all.size(), TotalDuration(all));
  return Format("in %zu of the last %zu windows", empty, all.size());
}

}  // namespace

Status StabilitySettings::Validate() const {
  if (windows < 1) return Status::InvalidArgument(Format("stability windows: expected >= 1, got %d", windows));
  if (max_windows < windows) {
    return Status::InvalidArgument(
        Format("stability max_windows: expected >= windows (%d), got %d", windows, max_windows));
  }
  if (!(tolerance > 0 && tolerance <= 1)) {
    return Status::InvalidArgument(Format("stability tolerance: expected a fraction in (0, 1], got %g", tolerance));
  }
  if (!(std::isfinite(min_duration_s) && min_duration_s >= 0)) {
    return Status::InvalidArgument(
        Format("stability min_duration_s: expected a finite number of seconds >= 0, got %g", min_duration_s));
  }
  return Status::Ok();
}

Verdict ThroughputStable(std::span<const WindowSummary> last_windows, double tolerance) {
  const Spread s = Measure(last_windows, tolerance, [](const WindowSummary& w) { return w.throughput_per_s; });
  Verdict v;
  v.met = s.within;
  // A window without a completion measured nothing: never compare it as 0 req/s.
  if (const auto empty = EmptyWindows(last_windows); !empty.empty()) {
    v.met = false;
    v.detail = "throughput: no request completed " + WhichWindows(last_windows, empty.size());
    v.recommendation = NothingCompleted(empty);
    return v;
  }
  v.detail = Format("throughput: spread ±%.1f%% around a mean of %.1f req/s over the last %zu windows "
                    "(min %.1f, max %.1f req/s; tolerance ±%.1f%%)",
                    100 * s.relative, s.mean, last_windows.size(), s.min, s.max, 100 * tolerance);
  if (!v.met) {
    v.recommendation = s.mean > 0 ? Format("throughput varies by more than ±%.1f%% between windows: lengthen the "
                                           "windows (--window-ms), allow more of them (--max-windows), or quiet "
                                           "the machine (other load, CPU frequency scaling)",
                                           100 * tolerance)
                                  : "no requests completed: check that the target is serving and the load is on";
  }
  return v;
}

Verdict LatencyStable(std::span<const WindowSummary> last_windows, double tolerance) {
  const Spread s =
      Measure(last_windows, tolerance, [](const WindowSummary& w) { return static_cast<double>(w.p99_ns); });
  Verdict v;
  v.met = s.within;
  // Nor as a p99 of 0 ns.
  if (const auto empty = EmptyWindows(last_windows); !empty.empty()) {
    v.met = false;
    v.detail = "p99 latency: not measured " + WhichWindows(last_windows, empty.size()) + ": no request completed";
    v.recommendation = "a latency needs a completed request: see throughput";
    return v;
  }
  v.detail = Format("p99 latency: spread ±%.1f%% around a mean of %s over the last %zu windows "
                    "(min %s, max %s; tolerance ±%.1f%%)",
                    100 * s.relative, FormatDuration(s.mean).c_str(), last_windows.size(), FormatDuration(s.min).c_str(),
                    FormatDuration(s.max).c_str(), 100 * tolerance);
  if (!v.met) {
    v.recommendation = s.mean > 0 ? Format("p99 varies by more than ±%.1f%% between windows: lengthen the windows "
                                           "(--window-ms) so each holds more tail samples, allow more of them "
                                           "(--max-windows), or quiet the machine",
                                           100 * tolerance)
                                  : "no latency recorded: check that requests complete";
  }
  return v;
}

Verdict MinDurationMet(std::span<const WindowSummary> last_windows, double min_duration_s) {
  const double total = TotalDuration(last_windows);
  Verdict v;
  v.met = total >= min_duration_s;
  v.detail = Format("duration: the last %zu windows cover %.2f s (need at least %.2f s)", last_windows.size(), total,
                    min_duration_s);
  if (!v.met) {
    v.recommendation = Format("measure longer: raise --window-ms so that %zu windows cover at least %.2f s",
                              last_windows.size(), min_duration_s);
  }
  return v;
}

Verdict MinRequestsMet(std::span<const WindowSummary> last_windows, uint64_t min_requests) {
  const uint64_t total = TotalRequests(last_windows);
  Verdict v;
  v.met = total >= min_requests;
  v.detail = Format("requests: the last %zu windows hold %llu requests (need at least %llu)", last_windows.size(),
                    static_cast<unsigned long long>(total), static_cast<unsigned long long>(min_requests));
  if (!v.met) {
    v.recommendation = Format("raise --window-ms, or the load (concurrency or request rate), so that %zu windows "
                              "hold at least %llu requests",
                              last_windows.size(), static_cast<unsigned long long>(min_requests));
  }
  return v;
}

std::vector<Verdict> CheckWindows(std::span<const WindowSummary> all_windows, const StabilitySettings& settings) {
  const std::span<const WindowSummary> last = LastWindows(all_windows, settings.windows);
  return {ThroughputStable(last, settings.tolerance), LatencyStable(last, settings.tolerance),
          MinDurationMet(last, settings.min_duration_s), MinRequestsMet(last, settings.min_requests)};
}

Decision Decide(std::span<const WindowSummary> all_windows, const StabilitySettings& settings) {
  if (all_windows.size() < static_cast<size_t>(std::max(settings.windows, 1))) return Decision::kContinue;
  const std::vector<Verdict> verdicts = CheckWindows(all_windows, settings);
  if (std::all_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return v.met; })) return Decision::kStable;
  if (all_windows.size() >= static_cast<size_t>(settings.max_windows)) return Decision::kUnstable;
  return Decision::kContinue;
}

}  // namespace hone::bench
