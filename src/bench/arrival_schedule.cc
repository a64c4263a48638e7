#include "bench/arrival_schedule.h"

#include <cassert>
#include <cmath>
#include <string>

namespace hone::bench {
namespace {

bool ValidRate(double rate) { return std::isfinite(rate) && rate > 0.0; }

// Rounds a non-negative time in nanoseconds to the nearest whole nanosecond, saturating instead of overflowing
// (a tiny rate can push arrivals past 292 years, the range of int64 nanoseconds).
std::chrono::nanoseconds RoundToNs(double ns) {
  constexpr double kLimit = 0x1p63;  // first double past INT64_MAX
  if (!(ns < kLimit)) return std::chrono::nanoseconds::max();
  return std::chrono::nanoseconds(std::llround(ns));
}

// A uniform real in [0, 1) from the top 53 bits of one draw. Done by hand rather than with
// std::uniform_real_distribution because (a) its algorithm is left to the library, so sequences would differ
// between platforms, and (b) some libraries can round it up to 1.0, where -log(1 - u) is infinite.
double UniformUnit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

}  // namespace

Result<ArrivalSchedule> ArrivalSchedule::Create(double rate_per_second, ArrivalProcess process, uint64_t seed) {
  if (!ValidRate(rate_per_second)) {
    return Status::InvalidArgument("arrival rate: expected a finite number of requests per second > 0, got " +
                                   std::to_string(rate_per_second));
  }
  return ArrivalSchedule(rate_per_second, process, seed);
}

ArrivalSchedule::ArrivalSchedule(double rate_per_second, ArrivalProcess process, uint64_t seed)
    : rate_(rate_per_second), process_(process), valid_(ValidRate(rate_per_second)), rng_(seed) {
  assert(valid_ && "ArrivalSchedule: rate_per_second must be finite and > 0; use Create for user input");
}

std::chrono::nanoseconds ArrivalSchedule::Next() {
  ++arrivals_;
  if (!valid_) return std::chrono::nanoseconds::max();
  switch (process_) {
    case ArrivalProcess::kConstant:
      // From the arrival number directly, so error does not build up with k: the k-th arrival is at k / rate
      // seconds give or take one rounding, however long the run.
      return RoundToNs(static_cast<double>(arrivals_) * 1e9 / rate_);
    case ArrivalProcess::kPoisson:
      // Inverse-CDF sampling of the exponential distribution: gap = -ln(1 - u) / rate. log1p(-u) is ln(1 - u)
      // without the cancellation for small u; u < 1, so the gap is finite.
      elapsed_s_ += -std::log1p(-UniformUnit(rng_)) / rate_;
      return RoundToNs(elapsed_s_ * 1e9);
  }
  return std::chrono::nanoseconds::max();  // unreachable for a valid enum
}

}  // namespace hone::bench
