// A service-level objective: a latency percentile bound at a load, as `hone tune --slo` takes it.
//
//   p99<=5ms@concurrency=8     the 99th percentile at most 5 ms with 8 requests always outstanding (closed loop)
//   p95<20ms@rate=2000         the 95th percentile under 20 ms with 2000 requests/s arriving (open loop, Poisson)
//
// Percentiles: p50, p90, p95, p99, p99.9 (any pNN between 0 and 100). Units: us, ms, s. An open-loop SLO is also
// missed when the target cannot keep up with the rate (achieved rate below 95% of it), since its latency then
// grows without bound however the percentile looks over a short window.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "bench/load.h"
#include "bench/results.h"

namespace hone::tune {

// Where an SLO holds: closed-loop concurrency or an open-loop rate (bench's one description of a load).
using bench::Load;

struct Slo {
  std::string text;         // as the user wrote it
  double percentile = 99;   // in (0, 100]
  bool strict = false;      // "<" rather than "<="
  double bound_ns = 0;
  Load load;
};

// InvalidArgument naming the text and what was expected: "--slo 'p99<=5@concurrency=8': the bound needs a unit
// (us, ms or s)".
Result<Slo> ParseSlo(std::string_view text);

// The figures of one measured load that an SLO is judged on.
struct LoadFigures {
  Load load;
  double throughput_sps = 0;  // samples/s
  double achieved_rate = 0;   // open loop: requests/s actually sent
  uint64_t p50_ns = 0, p95_ns = 0, p99_ns = 0;
  uint64_t percentile_ns = 0;  // at the SLO's percentile when it is not one of the above; 0: not asked
  double throughput_spread = 0;  // (max - min) / median over repeats; 0 with one repeat
  double p99_spread = 0;
  int repeats = 1;
  // The requests the percentiles rest on: completed in the measured windows (summed over repeats).
  uint64_t requests = 0;
  // hone's process CPU time per sample over the measured windows, in microseconds (served trials: the server and
  // the load generator share the process; the generator's part is the same for every candidate). Neighbours on a
  // shared machine move it far less than wall-clock throughput. 0: not measured.
  double cpu_us_per_sample = 0;
  uint64_t errors = 0;
  std::string first_error;
  bool stable = true;
  std::optional<double> cost_per_1000;
  uint64_t Percentile(double q) const;  // p50/p95/p99 from the fields, else percentile_ns
};

// The figures of a bench point (one repeat).
LoadFigures FiguresFromPoint(const bench::PointResult& point, const Load& load, double cost_per_hour,
                             double extra_percentile);

struct SloResult {
  const Slo* slo = nullptr;
  bool met = false;
  double measured_ns = 0;
  // (bound - measured) / bound: positive is headroom, negative a miss by that share of the bound.
  double margin = 0;
  std::string detail;  // "p99 2.10 ms at concurrency 8 (bound 5 ms): met with 58% to spare"
};

SloResult JudgeSlo(const Slo& slo, const LoadFigures& figures);
nlohmann::json SloJson(const Slo& slo);
nlohmann::json LoadJson(const Load& load);
nlohmann::json LoadFiguresJson(const LoadFigures& figures);

// "15m", "90s", "1h", "1h30m", "300" (seconds). InvalidArgument naming the text otherwise, or for 0.
Result<double> ParseBudgetSeconds(std::string_view text);

}  // namespace hone::tune
