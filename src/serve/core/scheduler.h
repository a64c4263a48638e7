// The per-model-version scheduler: queues requests, forms batches with Triton's dynamic batcher semantics and runs
// them on the model's instances (one ModelInstance each: an ONNX Runtime session or a processing stage; one thread
// each).
//
// Batching rules (Triton's): with max_batch_size > 0 every input has a leading batch dimension; requests whose
// other dimensions match (per input) may share a batch up to max_batch_size rows. A batch is sent to a free
// instance when it reaches a preferred batch size, when the next queued request would not fit (or does not
// match), or, with Triton's timing, when its oldest request has waited max_queue_delay. With hone's default
// work-conserving timing a free instance never waits: it takes what is queued at once (serve/config/
// batch_timing.h), so batches form only from what arrives while every instance is busy. Without dynamic batching
// each request runs alone. With max_batch_size == 0 the model has no batch dimension and requests always run alone.
//
// Threads: one per instance. A request that can start at once (an instance idle, nothing queued before it, and
// the timing would not make it wait) runs on the thread that enqueued it when that thread allows it
// (InferenceRequest::may_run_on_caller): no hand-off to the instance's thread and back.
//
// Priorities: level 1 is the highest; a request with priority 0 gets default_priority_level. Higher levels are
// always taken first. Timeouts: a request still queued after its timeout (its own when allowed, else the level's
// default) is rejected (timeout_action REJECT, DeadlineExceeded) or moved behind its level (DELAY). A level whose
// queue holds max_queue_size requests rejects new ones at once with Unavailable.
//
// Batches are concatenated into buffers pooled per instance, so steady-state fixed-size traffic allocates nothing
// per request on the batching path. Outputs are split back per request as views sharing the batch's output.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/result.h"
#include "serve/core/model_instance.h"
#include "serve/core/inference.h"
#include "serve/core/model_stats.h"

namespace hone::serve {

struct QueuePolicy {
  enum class TimeoutAction { kReject, kDelay };
  TimeoutAction timeout_action = TimeoutAction::kReject;
  uint64_t default_timeout_us = 0;  // 0: no timeout
  bool allow_timeout_override = false;
  uint32_t max_queue_size = 0;  // 0: unbounded
};

struct DynamicBatchingPolicy {
  std::vector<int64_t> preferred_batch_sizes;  // sorted ascending, each <= max_batch_size
  std::chrono::microseconds max_queue_delay{0};
  // true: a free instance takes what is queued at once, max_queue_delay only bounds waiting (hone's default);
  // false: Triton's rule, a batch short of the largest preferred size waits out max_queue_delay.
  bool work_conserving = true;
  bool preserve_ordering = false;  // responses leave in arrival order
  uint32_t priority_levels = 0;    // 0: one level
  uint32_t default_priority_level = 0;
  QueuePolicy default_queue_policy;
  std::vector<std::pair<uint32_t, QueuePolicy>> priority_queue_policy;  // per level overrides
};

struct SchedulerOptions {
  std::string model_name;  // for errors and logs
  int64_t model_version = 1;
  int64_t max_batch_size = 0;  // 0: no batch dimension
  bool dynamic_batching = false;
  DynamicBatchingPolicy batching;  // used when dynamic_batching
};

class Scheduler {
 public:
  // Takes ownership of the instances (at least one; all the same model). `stats` outlives the scheduler.
  static Result<std::unique_ptr<Scheduler>> Create(SchedulerOptions options,
                                                    std::vector<std::unique_ptr<ModelInstance>> instances,
                                                    ModelStats* stats);
  virtual ~Scheduler() = default;

  // Validates the request against the model (input names, types, shapes, batch size, requested outputs: errors
  // name the input and what was expected) and queues it. `done` runs exactly once: with the error at once when the
  // request is invalid or the queue is full, else when its batch has run.
  virtual void Enqueue(InferenceRequest request, ResponseCallback done) = 0;

  // Requests queued or running now.
  virtual int64_t pending() const = 0;

  // Stops taking requests (new ones fail with Unavailable), lets queued and running ones finish until `deadline`,
  // fails what is still queued then with Unavailable, and joins the instance threads. Idempotent. Running
  // batches always finish (an ONNX Runtime run cannot be interrupted), so Stop may return after `deadline`. Must
  // not be called from a response callback: callbacks run on the instance threads that Stop joins.
  virtual void Stop(std::chrono::steady_clock::time_point deadline) = 0;
};

}  // namespace hone::serve
