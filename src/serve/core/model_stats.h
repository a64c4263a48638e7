// Statistics for one model version, fed by its scheduler, read by the statistics endpoint (Triton's statistics
// extension; the snapshot is the protocol's type, client/model_stats.h) and by /metrics. Recording is thread-safe
// and cheap (a short lock per request and per batch); a snapshot never holds a request or a batch half recorded
// (perf_analyzer checks that the compute counts agree), though requests and executions are read apart.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "client/model_stats.h"

namespace hone::serve {

class MetricsRegistry;  // metrics.h

class ModelStats {
 public:
  // `metrics` may be null (no Prometheus export); otherwise it outlives this object.
  ModelStats(std::string name, int64_t version, int64_t max_batch_size, MetricsRegistry* metrics);
  ~ModelStats();

  // One successful request: its total duration (arrival to response), its time queued, and the durations of its
  // batch's compute phases. As in Triton, every request in a batch records the batch's whole phase durations (the
  // time it waited for them), so per-request compute sums exceed execution time when batches hold several.
  void RecordSuccess(uint64_t request_ns, uint64_t queue_ns, uint64_t compute_input_ns, uint64_t compute_infer_ns,
                     uint64_t compute_output_ns, int64_t rows);
  // One failed request (invalid, rejected, timed out, failed to run or stopped): arrival to response.
  void RecordFailure(uint64_t request_ns);
  // One execution of a batch of `batch_size` rows.
  void RecordExecution(int64_t batch_size, uint64_t compute_input_ns, uint64_t compute_infer_ns,
                       uint64_t compute_output_ns);
  // Requests queued or running: +1 when one is queued, -1 when its response is delivered.
  void AddPending(int64_t delta);

  client::ModelStatsSnapshot Snapshot() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hone::serve
