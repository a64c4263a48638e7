#include "serve/core/model_stats.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <chrono>
#include <map>
#include <mutex>

#include "serve/core/metrics.h"

namespace hone::serve {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

struct Duration {
  uint64_t count = 0;
  uint64_t ns = 0;

  void Add(uint64_t duration_ns) {
    ++count;
    ns += duration_ns;
  }
  client::DurationStat Load() const { return {count, ns}; }
};

struct BatchSlot {
  Duration input, infer, output;
};

uint64_t NowUnixMs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

double Us(uint64_t ns) { return static_cast<double>(ns) / 1e3; }
double Seconds(uint64_t ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace

struct ModelStats::Impl {
  std::string name;
  int64_t version = 0;
  // Requests and executions are each recorded and read under their own lock, so that a snapshot never holds a
  // request or a batch half recorded: perf_analyzer differences two snapshots and aborts ("Server side statistics
  // compute counts must be the same") when compute_input, compute_infer and compute_output counts disagree, which
  // torn reads of separate atomics made happen now and then. A lock per request and per batch, rarely contended.
  mutable std::mutex requests_mu;
  uint64_t last_inference_ms = 0;                              // guarded by requests_mu
  uint64_t inference_count = 0;                                // guarded by requests_mu
  Duration success, fail, queue, compute_input, compute_infer, compute_output;  // guarded by requests_mu
  mutable std::mutex executions_mu;
  uint64_t execution_count = 0;  // guarded by executions_mu
  std::map<int64_t, BatchSlot> by_batch_size;  // guarded by executions_mu; ascending, as the protocol lists them
  std::atomic<int64_t> pending{0};
  std::shared_ptr<ModelMetrics> metrics;  // null without a registry
};

ModelStats::ModelStats(std::string name, int64_t version, int64_t max_batch_size, MetricsRegistry* metrics)
    : impl_(std::make_unique<Impl>()) {
  impl_->name = std::move(name);
  impl_->version = version;
  if (metrics) impl_->metrics = metrics->ForModel(impl_->name, version, max_batch_size);
}

// Releases the metrics handle: the model version's series leave /metrics when nothing else holds them.
ModelStats::~ModelStats() = default;

void ModelStats::RecordSuccess(uint64_t request_ns, uint64_t queue_ns, uint64_t compute_input_ns,
                               uint64_t compute_infer_ns, uint64_t compute_output_ns, int64_t rows) {
  Impl& s = *impl_;
  const uint64_t now_ms = NowUnixMs();
  {
    std::lock_guard lock(s.requests_mu);
    s.success.Add(request_ns);
    s.queue.Add(queue_ns);
    s.compute_input.Add(compute_input_ns);
    s.compute_infer.Add(compute_infer_ns);
    s.compute_output.Add(compute_output_ns);
    s.inference_count += static_cast<uint64_t>(rows);
    s.last_inference_ms = now_ms;
  }
  if (ModelMetrics* m = s.metrics.get()) {
    m->request_success.Increment();
    m->inference_count.Increment(static_cast<double>(rows));
    m->request_duration_us.Increment(Us(request_ns));
    m->queue_duration_us.Increment(Us(queue_ns));
    m->compute_input_duration_us.Increment(Us(compute_input_ns));
    m->compute_infer_duration_us.Increment(Us(compute_infer_ns));
    m->compute_output_duration_us.Increment(Us(compute_output_ns));
    m->request_seconds.Observe(Seconds(request_ns));
    m->queue_seconds.Observe(Seconds(queue_ns));
    m->compute_seconds.Observe(Seconds(compute_input_ns + compute_infer_ns + compute_output_ns));
  }
}

void ModelStats::RecordFailure(uint64_t request_ns) {
  const uint64_t now_ms = NowUnixMs();
  {
    std::lock_guard lock(impl_->requests_mu);
    impl_->fail.Add(request_ns);
    impl_->last_inference_ms = now_ms;
  }
  if (ModelMetrics* m = impl_->metrics.get()) m->request_failure.Increment();
}

void ModelStats::RecordExecution(int64_t batch_size, uint64_t compute_input_ns, uint64_t compute_infer_ns,
                                 uint64_t compute_output_ns) {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.executions_mu);
    ++s.execution_count;
    BatchSlot& slot = s.by_batch_size[batch_size];
    slot.input.Add(compute_input_ns);
    slot.infer.Add(compute_infer_ns);
    slot.output.Add(compute_output_ns);
  }
  if (ModelMetrics* m = s.metrics.get()) {
    m->execution_count.Increment();
    m->batch_size.Observe(static_cast<double>(batch_size));
  }
}

void ModelStats::AddPending(int64_t delta) {
  impl_->pending.fetch_add(delta, kRelaxed);
  if (ModelMetrics* m = impl_->metrics.get()) m->pending_requests.Increment(static_cast<double>(delta));
}

client::ModelStatsSnapshot ModelStats::Snapshot() const {
  const Impl& s = *impl_;
  client::ModelStatsSnapshot snap;
  snap.name = s.name;
  snap.version = s.version;
  {
    std::lock_guard lock(s.requests_mu);
    snap.last_inference_ms = s.last_inference_ms;
    snap.inference_count = s.inference_count;
    snap.success = s.success.Load();
    snap.fail = s.fail.Load();
    snap.queue = s.queue.Load();
    snap.compute_input = s.compute_input.Load();
    snap.compute_infer = s.compute_infer.Load();
    snap.compute_output = s.compute_output.Load();
  }
  snap.pending = s.pending.load(kRelaxed);
  {
    std::lock_guard lock(s.executions_mu);
    snap.execution_count = s.execution_count;
    for (const auto& [size, slot] : s.by_batch_size)
      snap.batch_stats.push_back({size, slot.input.Load(), slot.infer.Load(), slot.output.Load()});
  }
  return snap;
}

}  // namespace hone::serve
