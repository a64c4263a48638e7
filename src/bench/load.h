// One load a measurement holds, the one description of a load that bench and tune share: requests kept
// outstanding (closed loop), requests arriving at a rate whatever the target does (open loop), or batches back to
// back (offline). A sweep (settings.h) lists several; a point (BenchPoint), an SLO (tune/slo.h) and a trial's
// figures each hold one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hone::bench {

//   closed loop: N requests always outstanding (N workers, each sends its next when the last returns).
//   open loop:   requests arrive at R/s (Poisson or constant) whatever the target does; latency from each request's
//                intended send time, so queueing behind a slow target counts; the achieved rate beside R.
//   offline:     batches of B back to back (N outstanding, default 1); the maximum throughput in samples/s.
enum class LoadMode { kClosedLoop, kOpenLoop, kOffline };
std::string_view LoadModeName(LoadMode mode);

struct Load {
  LoadMode mode = LoadMode::kClosedLoop;
  int64_t concurrency = 1;  // closed loop and offline: requests outstanding
  double rate = 0;          // open loop: requests/s

  static Load Closed(int64_t concurrency) { return Load{LoadMode::kClosedLoop, concurrency, 0}; }
  static Load Open(double rate) { return Load{LoadMode::kOpenLoop, 1, rate}; }
  bool open_loop() const { return mode == LoadMode::kOpenLoop; }
  // "concurrency 8" / "rate 2000/s" / "offline, 2 outstanding"
  std::string Label() const;
  bool operator==(const Load& other) const = default;
};

}  // namespace hone::bench
