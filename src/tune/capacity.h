// What one replica of tune's final repository holds within each SLO, and how many replicas an expected load needs.
//
// An SLO says "p99 <= 20 ms at concurrency 8"; whether the final config meets it is the verdict. A team sizing a
// deployment asks the other question: up to what load does the bound hold on this machine, and so how many
// replicas does our traffic need? Neither Model Analyzer (one server's config) nor Olive (one model) answers it.
//
// The search, per SLO, on the served final repository: closed loop, concurrency 1, 2, 4, ... until the bound
// fails (or the ceiling), then halving the gap between the last load that held and the first that failed; open
// loop, the SLO's rate doubled or halved the same way, then narrowed to within 5%. The load found is measured
// again (repeats) for the spread of its percentile, and holds only when the median of those repeats does.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "tune/slo.h"

namespace hone::tune {

struct CapacityProbe {
  Load load;
  uint64_t percentile_ns = 0;  // at the SLO's percentile
  double throughput_sps = 0;
  double requests_per_s = 0;
  bool holds = false;
};

struct SloCapacity {
  Slo slo;
  // The largest load probed at which the bound held (its repeats' median), and the smallest at which it failed.
  std::optional<Load> holds_up_to;
  std::optional<Load> fails_at;
  bool at_ceiling = false;       // it still held at the largest load the search tries
  double throughput_sps = 0;     // at holds_up_to, the repeats' median
  double requests_per_s = 0;
  uint64_t percentile_ns = 0;    // at holds_up_to, the repeats' median
  double percentile_spread = 0;  // (max - min) / median over the repeats
  int repeats = 0;
  std::vector<CapacityProbe> probes;  // in the order measured
};

// The expected load `hone tune --expected-load` names, and the replicas it needs.
struct ReplicaPlan {
  Load expected;
  int replicas = 0;          // 0: no replica count holds the SLO (not even one request at a time meets it)
  std::string arithmetic;    // "concurrency 20 / 5 per replica -> 4 replicas (p99<=20ms@concurrency=8)"
};

// Measures `load` once on the served model; an error ends the search where it is.
using CapacityProbeFn = std::function<Result<LoadFigures>(const Load&)>;

struct CapacitySearch {
  int repeats = 3;          // measurements of the load found
  int max_probes = 12;      // the search's own probes, before the repeats
  int64_t max_concurrency = 256;
  double max_rate_factor = 16;  // open loop: up to this times the SLO's rate
  std::function<bool()> may_continue = [] { return true; };
};

SloCapacity FindCapacity(const Slo& slo, const CapacitySearch& search, const CapacityProbeFn& probe);

// "p99<=20ms: holds up to concurrency 5 on 2 cores (620 samples/s, p99 18.4 ms +-6%); at the SLO's concurrency 8
// it needs 2 replicas". `cores`: what the replica ran on.
std::string CapacitySentence(const SloCapacity& capacity, int cores);

// The replicas `expected` needs: the most over the SLOs. For an SLO of the same kind as `expected` (closed loop,
// or open loop) the load divides over replicas; across kinds through the throughput at capacity (a rate over the
// requests/s one replica completes at its capacity concurrency). InvalidArgument naming the problem when no SLO
// was measured.
Result<ReplicaPlan> ReplicasFor(const std::vector<SloCapacity>& capacities, const Load& expected);

// "rate=2000" or "concurrency=64" (what --expected-load takes); InvalidArgument naming the text.
Result<Load> ParseExpectedLoad(std::string_view text);

}  // namespace hone::tune
