// ArrivalSchedule: when an open-loop generator should send each request. The schedule is fixed in advance by the
// rate and the seed, never by how fast the target answers; latency is then measured from these intended times, so a
// slow target cannot hide its queueing delay (no coordinated omission).
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

#include "base/result.h"

namespace hone::bench {

enum class ArrivalProcess {
  // Independent arrivals at a mean rate: exponential gaps, so counts per interval are Poisson distributed (variance
  // equals mean). Models many independent clients; the realistic choice for a server's latency under load.
  kPoisson,
  // One arrival exactly every 1/rate seconds. Reproducible and bursty-free; useful for pinning a precise load, but
  // it understates queueing compared with real traffic.
  kConstant,
};

// Produces the intended send time of each request, as an offset from the start of the schedule. The k-th call to
// Next() (k = 1, 2, ...) returns the k-th arrival: for kConstant exactly round(k / rate) seconds, in whole
// nanoseconds, computed from k directly so that no rounding accumulates; for kPoisson the sum of k exponential gaps
// with mean 1 / rate. Times never decrease. The sequence depends only on (rate, process, seed): the same arguments
// give the same sequence on every platform.
//
// Copyable; not thread-safe (one generator thread owns it).
class ArrivalSchedule {
 public:
  // Checks the arguments: rate_per_second must be finite and > 0, else InvalidArgument naming the rate.
  static Result<ArrivalSchedule> Create(double rate_per_second, ArrivalProcess process, uint64_t seed);

  // Precondition: rate_per_second is finite and > 0 (asserted in debug builds). In release builds an invalid rate
  // gives a schedule whose every arrival is at nanoseconds::max(), i.e. never. Prefer Create for user input.
  // seed seeds this schedule's own generator; give each random dimension of a run its own seed.
  ArrivalSchedule(double rate_per_second, ArrivalProcess process, uint64_t seed);

  // The next intended send time, as an offset from the schedule's start; >= every earlier return value. Times too
  // large to represent saturate at nanoseconds::max().
  std::chrono::nanoseconds Next();

  double rate_per_second() const { return rate_; }
  ArrivalProcess process() const { return process_; }
  // How many times Next() has been called.
  uint64_t arrivals() const { return arrivals_; }

 private:
  double rate_;
  ArrivalProcess process_;
  bool valid_;
  std::mt19937_64 rng_;   // Poisson only; mt19937_64's output is fixed by the standard, hence portable
  double elapsed_s_ = 0;  // Poisson: the sum of the gaps so far, in seconds
  uint64_t arrivals_ = 0;
};

}  // namespace hone::bench
