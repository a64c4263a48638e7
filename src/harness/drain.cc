#include "harness/drain.h"

#include <algorithm>

namespace hone::harness {

std::string_view DrainEndName(DrainEnd end) {
  switch (end) {
    case DrainEnd::kQuiet: return "no request for the quiet period";
    case DrainEnd::kGraceOver: return "grace period over";
    case DrainEnd::kInterrupted: return "interrupted";
  }
  return "?";
}

DrainResult DrainTraffic(serve::Server& server, const DrainPlan& plan,
                         const std::function<bool(std::chrono::milliseconds)>& wait) {
  using std::chrono::milliseconds;
  using Clock = std::chrono::steady_clock;
  const uint64_t before = server.RequestsReceived();
  server.BeginDrain();
  const Clock::time_point start = Clock::now(), grace_end = start + plan.grace;
  Clock::time_point last_seen = start;  // the signal counts as the last sign of traffic
  uint64_t seen = before;
  DrainResult result;
  result.end = DrainEnd::kGraceOver;
  // Look often enough that the quiet period is measured to within a tenth of itself (and 50 ms at most).
  const milliseconds step = std::clamp(plan.quiet / 10, milliseconds(1), milliseconds(50));
  while (Clock::now() < grace_end) {
    const Clock::time_point now = Clock::now();
    if (const uint64_t n = server.RequestsReceived(); n != seen) {
      seen = n;
      last_seen = now;
    } else if (now - last_seen >= plan.quiet) {
      result.end = DrainEnd::kQuiet;
      break;
    }
    const auto left = std::chrono::duration_cast<milliseconds>(grace_end - now);
    if (wait(std::min(step, std::max(left, milliseconds(1))))) {
      result.end = DrainEnd::kInterrupted;
      break;
    }
  }
  result.waited = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  result.requests = server.RequestsReceived() - before;
  return result;
}

}  // namespace hone::harness
