// One model version's statistics as Triton's statistics extension carries them (HTTP GET .../stats, gRPC
// ModelStatistics): cumulative counts and durations. serve fills them (serve/core/model_stats.h); the clients parse
// them back, and bench subtracts two snapshots for a window's server-side breakdown.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hone::client {

struct DurationStat {
  uint64_t count = 0;
  uint64_t ns = 0;
};

struct BatchSizeStats {
  int64_t batch_size = 0;
  DurationStat compute_input, compute_infer, compute_output;
};

struct ModelStatsSnapshot {
  std::string name;
  int64_t version = 0;
  uint64_t last_inference_ms = 0;  // ms since the Unix epoch of the last completed request; 0: none yet
  uint64_t inference_count = 0;    // successful inferences, counting each batch row (Triton's inference_count)
  uint64_t execution_count = 0;    // model executions (batches)
  DurationStat success;            // request duration, from arrival to response, of successful requests
  DurationStat fail;               // the same for failed ones
  DurationStat queue;              // time spent queued (successful requests)
  DurationStat compute_input, compute_infer, compute_output;  // per request, successful ones
  std::vector<BatchSizeStats> batch_stats;  // per executed batch size, ascending
  int64_t pending = 0;  // queued or running now (hone's own; not in the protocol, so 0 when read from the wire)
};

}  // namespace hone::client
