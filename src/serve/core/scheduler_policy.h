// The dynamic batcher's decision as a pure function of (the queue, the batching rules, now): dispatch the first n
// queued requests, or wait until a time, or idle. No threads, no clock: the scheduler calls it under its lock with
// the real clock, tests call it with made-up times.
//
// Triton's rules, applied to the requests in dequeue order (highest priority level first, arrival order within):
//  * Requests join the forming batch in order. The first one that would take the batch past max_batch_size, or
//    whose non-batch shapes differ from the batch's, ends the batch ("the next does not fit"): the batch is sent
//    now, whatever its size; requests are never skipped to fill a batch.
//  * Reaching a preferred batch size marks that size; the largest marked size is sent at once (before
//    max_queue_delay) even if more requests are queued behind it. No preferred sizes means max_batch_size is
//    the only preferred size. When the next request would take the batch past the largest preferred size before
//    any preferred size was reached, the batch so far is marked as if it were preferred.
//  * A batch that reached the largest preferred size (or max_batch_size) is sent at once.
//  * Otherwise, with max_queue_delay 0 whatever is queued is sent at once; with a delay the batch waits until its
//    oldest request has waited max_queue_delay, then is sent as it is (all that fit, not just a marked size).
//  * Work-conserving timing (hone's default) is the delay-0 rule whatever max_queue_delay says: the decision is
//    asked for by a free instance, and a free instance never waits while work is queued.
//  * `flush` (the scheduler is stopping) acts as if the delay had expired.
// Without dynamic batching (or without a batch dimension) each request is a batch of its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "serve/core/scheduler_request.h"

namespace hone::serve {

struct BatchingRules {
  bool dynamic = false;        // false: one request a batch
  int64_t max_batch_size = 0;  // 0: no batch dimension (one request a batch)
  std::vector<int64_t> preferred_batch_sizes;  // ascending, each in [1, max_batch_size]
  std::chrono::nanoseconds max_queue_delay{0};
  bool work_conserving = true;  // false: Triton's fixed wait for max_queue_delay
};

// One queued request as the policy sees it.
struct BatchCandidate {
  int64_t rows = 1;
  bool matches_first = true;  // its non-batch shapes equal those of the first candidate
  SchedulerClock::time_point arrival;
};

struct BatchDecision {
  size_t requests = 0;  // dispatch this many from the front of the queue; 0: do not dispatch now
  int64_t rows = 0;     // their rows together
  // When requests == 0: when to decide again (the delay of the forming batch expires); max: wait for a change.
  SchedulerClock::time_point wait_until = SchedulerClock::time_point::max();

  bool dispatch() const { return requests > 0; }
};

// `queue` is the front of the queue in dequeue order; it may stop right after the first candidate that cannot
// join the batch (that one is needed to know the batch is closed), since nothing behind it can change the answer.
BatchDecision DecideBatch(const BatchingRules& rules, std::span<const BatchCandidate> queue,
                          SchedulerClock::time_point now, bool flush);

}  // namespace hone::serve
