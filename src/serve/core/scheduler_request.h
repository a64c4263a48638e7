// A request inside the scheduler, from the moment it is queued until its callback has run: the request, its
// callback, where it is queued, its timestamps and, once its batch has run, its result.
//
// Entries live in std::list nodes that the scheduler recycles (splicing them between its free list, the queues, a
// batch and the delivery list), so that queueing a request allocates nothing once the pool has grown to the
// number of requests in flight.
#pragma once

#include <chrono>
#include <cstdint>
#include <list>
#include <optional>

#include "base/result.h"
#include "serve/core/inference.h"

namespace hone::serve {

using SchedulerClock = std::chrono::steady_clock;

struct PendingRequest {
  InferenceRequest request;  // inputs in the model's input order (validation reorders them)
  ResponseCallback done;
  int64_t rows = 1;          // batch rows this request brings (1 without a batch dimension)
  uint32_t level = 0;        // index of its priority level's queue (0: the highest)
  uint64_t sequence = 0;     // arrival order among queued requests (for preserve_ordering)
  SchedulerClock::time_point deadline = SchedulerClock::time_point::max();  // queue timeout; max: none

  // Timestamps: arrival (Enqueue called), dequeue (taken into a batch), then its batch's compute phases.
  SchedulerClock::time_point arrival, dequeue, compute_start, input_done, infer_done, output_done;

  std::optional<Result<InferenceResponse>> result;  // set once the request is finished, before delivery

  // Forgets the request (releasing the client's buffers through keep_alive) so the node can be reused.
  void Reset() {
    request = InferenceRequest{};
    done = nullptr;
    result.reset();
    deadline = SchedulerClock::time_point::max();
  }
};

using PendingList = std::list<PendingRequest>;

}  // namespace hone::serve
