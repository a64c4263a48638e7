// The scheduler's queue: one FIFO per priority level (level 0 here is Triton's priority 1, the highest), each with
// its queue policy (max_queue_size, default timeout, REJECT or DELAY). Requests leave in dequeue order: the
// highest level first; within a level, requests that have not timed out in arrival order, then the ones that
// timed out under DELAY, in the order they timed out.
//
// Not thread-safe: the scheduler calls it under its lock. Time is passed in, never read. Nodes move between lists
// by splicing, so nothing here allocates.
#pragma once

#include <cstdint>
#include <vector>

#include "serve/core/scheduler.h"
#include "serve/core/scheduler_request.h"

namespace hone::serve {

class RequestQueue {
 public:
  // One unbounded level without timeouts (no dynamic batching: queue policies do not apply).
  RequestQueue();
  // The levels `policy` configures (checked by the scheduler: default_priority_level in [1, priority_levels]
  // when there are levels; every priority_queue_policy level in [1, priority_levels]).
  explicit RequestQueue(const DynamicBatchingPolicy& policy);

  // The level index a request with `priority` goes to: 0 (the model's default) and priorities beyond the
  // configured levels go to the default level, as in Triton.
  uint32_t LevelFor(uint32_t priority) const;
  // Whether `level` has room for one more request (its max_queue_size counts delayed requests too).
  bool HasRoom(uint32_t level) const;
  // The queue deadline of a request arriving at `now` on `level`: the level's default timeout, or the request's
  // own (`timeout_us`, 0: none) when the policy allows overrides and it is shorter. max: no deadline.
  SchedulerClock::time_point DeadlineFor(uint32_t level, uint64_t timeout_us, SchedulerClock::time_point now) const;

  // Moves `node` (its level and deadline set) from `from` to the back of its level.
  void Push(PendingList& from, PendingList::iterator node);

  // Requests whose deadline is at or before `now`: under REJECT moved to the back of `rejected`, under DELAY
  // moved behind their level (and no longer timed).
  void ExpireTimeouts(SchedulerClock::time_point now, PendingList& rejected);
  // The earliest deadline of a queued request; max: none.
  SchedulerClock::time_point NextDeadline() const;

  // Calls visit(const PendingRequest&) on queued requests in dequeue order while it returns true.
  template <typename Visitor>
  void Visit(Visitor&& visit) const {
    for (const Level& level : levels_) {
      for (const PendingRequest& p : level.waiting)
        if (!visit(p)) return;
      for (const PendingRequest& p : level.delayed)
        if (!visit(p)) return;
    }
  }
  // Moves the first `n` requests in dequeue order to the back of `out`.
  void PopFront(size_t n, PendingList& out);
  // Moves every queued request to the back of `out`, in dequeue order.
  void TakeAll(PendingList& out);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Level {
    QueuePolicy policy;
    PendingList waiting;  // arrival order
    PendingList delayed;  // timed out under DELAY, in the order they timed out
    SchedulerClock::time_point next_deadline = SchedulerClock::time_point::max();  // earliest in `waiting`
    size_t size() const { return waiting.size() + delayed.size(); }
  };

  std::vector<Level> levels_;
  uint32_t default_level_ = 0;
  size_t size_ = 0;
};

}  // namespace hone::serve
