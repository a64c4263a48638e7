// The scheduler behind Scheduler::Create: one queue, one thread per instance, the batching policy in between.
//
// Each instance thread, when free, takes the lock, retires timed-out requests, asks DecideBatch what to do with
// the queue and either waits (for a request, for the forming batch's delay to expire, or for the next queue
// deadline) or takes a batch off the queue, lets go of the lock, assembles, runs and splits it, and delivers the
// responses. Callbacks never run under the scheduler's lock.
//
// Each instance has its own condition variable, and a new request wakes exactly one idle instance's thread (none
// when every instance is busy: the first to finish looks at the queue anyway), so no thread wakes for nothing.
// A request that may run on its caller (InferenceRequest::may_run_on_caller) and finds an instance idle with
// nothing queued claims that instance and runs there and then, on the caller's thread; the instance's own thread
// stays asleep, and any requests that queued meanwhile wake it when the caller gives the instance back.
//
// Internal header: the server uses Scheduler::Create; tests use CreateScheduler for its hooks.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serve/core/scheduler.h"
#include "serve/core/scheduler_batch.h"
#include "serve/core/scheduler_delivery.h"
#include "serve/core/scheduler_policy.h"
#include "serve/core/scheduler_queue.h"

namespace hone::serve {

// Test seams.
struct SchedulerHooks {
  // Runs on the instance thread just before a batch of `rows` rows runs on instance `instance`, with no lock
  // held: a test can block here to hold an instance busy while it queues requests behind it.
  std::function<void(size_t instance, int64_t rows)> before_run;
};

// Scheduler::Create with hooks.
Result<std::unique_ptr<Scheduler>> CreateScheduler(SchedulerOptions options,
                                                   std::vector<std::unique_ptr<ModelInstance>> instances,
                                                   ModelStats* stats, SchedulerHooks hooks);

class SchedulerImpl final : public Scheduler {
 public:
  // Options and instances already validated. Threads start in Start().
  SchedulerImpl(SchedulerOptions options, std::vector<std::unique_ptr<ModelInstance>> instances,
                ModelStats* stats, SchedulerHooks hooks);
  ~SchedulerImpl() override;  // Stop(now) unless stopped

  void Start();
  void Enqueue(InferenceRequest request, ResponseCallback done) override;
  int64_t pending() const override { return pending_.load(std::memory_order_relaxed); }
  void Stop(std::chrono::steady_clock::time_point deadline) override;

 private:
  struct Instance {
    explicit Instance(BatchAssembler a) : assembler(std::move(a)) {}
    std::unique_ptr<ModelInstance> session;
    BatchAssembler assembler;
    PendingList batch;  // the batch this instance is running; touched only by the thread running it
    std::thread thread;
    std::condition_variable wake;  // its thread waits here for something to do
    bool busy = false;     // guarded by mu_: running a batch, on its own thread or on a caller's
    bool waiting = false;  // guarded by mu_: its thread waits on `wake` and nobody has woken it since
  };

  void InstanceLoop(size_t index);
  // Runs `node`'s request on an idle instance on the calling thread, when it can start at once; false (and
  // nothing done) otherwise. Requires mu_ and releases it when it returns true.
  bool TryRunOnCaller(std::unique_lock<std::mutex>& lock, PendingList::iterator node);
  // The thread of an idle instance waiting for work, marked woken (so the next call picks another); null when
  // every instance is busy or already woken. Requires mu_; notify its `wake` after letting go of mu_.
  Instance* TakeIdleWaiter();
  void WakeAll();  // requires mu_
  BatchDecision Decide(SchedulerClock::time_point now);  // requires mu_
  void RunBatch(Instance& instance, size_t index, int64_t rows);
  // Sets `status` as the result of every request in `list`, then Finish.
  void FinishWith(PendingList& list, const Status& status);
  // Delivers finished requests (results set) and recycles their nodes.
  void Finish(PendingList& finished);
  // Records and runs the callback of one finished request (ResponseDelivery's DeliverFn).
  void DeliverOne(PendingRequest& p);
  // Fails a request that was never queued.
  void RejectNow(SchedulerClock::time_point arrival, ResponseCallback& done, Status status);

  const SchedulerOptions options_;
  const std::string label_;  // "model 'm' version 1"
  const BatchingRules rules_;
  ModelStats* const stats_;  // may be null
  const SchedulerHooks hooks_;
  std::vector<std::unique_ptr<Instance>> instances_;
  const runtime::ModelMetadata& metadata_;  // the first instance's; the instances live as long as this
  ResponseDelivery delivery_;
  std::atomic<int64_t> pending_{0};

  std::mutex mu_;
  std::condition_variable drained_cv_;  // Stop waits here for the queue to empty and callers' runs to end
  RequestQueue queue_;                  // guarded by mu_
  PendingList free_;                    // guarded by mu_: recycled nodes
  std::vector<BatchCandidate> candidates_;  // guarded by mu_: DecideBatch's input, reused
  uint64_t next_sequence_ = 0;          // guarded by mu_
  int running_on_callers_ = 0;          // guarded by mu_: batches running on callers' threads now
  // Requests already in flight when a request arrives, smoothed over the last ~20 arrivals (guarded by mu_). A
  // request runs on its caller's thread only while this is under kCallerRunLoad per instance: one at a time, the
  // hand-offs are most of a request's overhead; at 32 at once, running one on a front-end thread (measured) cut
  // throughput by a third, since that thread stops reading the requests that would fill the next batch.
  double in_flight_at_arrival_ = 0;
  static constexpr double kInFlightSmoothing = 0.05;
  static constexpr double kCallerRunLoad = 0.5;
  bool stopping_ = false;               // guarded by mu_: Enqueue refuses, batches flush without delay
  bool exit_ = false;                   // guarded by mu_: instance threads return once idle

  std::mutex stop_mu_;   // serializes Stop
  bool stopped_ = false;  // guarded by stop_mu_
};

}  // namespace hone::serve
