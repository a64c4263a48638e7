#include "serve/core/scheduler_queue.h"

#include <algorithm>

namespace hone::serve {

RequestQueue::RequestQueue() : levels_(1) {}

RequestQueue::RequestQueue(const DynamicBatchingPolicy& policy)
    : levels_(std::max<uint32_t>(policy.priority_levels, 1)) {
  for (Level& level : levels_) level.policy = policy.default_queue_policy;
  for (const auto& [priority, queue_policy] : policy.priority_queue_policy)
    if (priority >= 1 && priority <= levels_.size()) levels_[priority - 1].policy = queue_policy;
  if (policy.priority_levels > 0 && policy.default_priority_level >= 1)
    default_level_ = std::min<uint32_t>(policy.default_priority_level, policy.priority_levels) - 1;
}

uint32_t RequestQueue::LevelFor(uint32_t priority) const {
  if (priority == 0 || priority > levels_.size()) return default_level_;
  return priority - 1;
}

bool RequestQueue::HasRoom(uint32_t level) const {
  const Level& l = levels_[level];
  return l.policy.max_queue_size == 0 || l.size() < l.policy.max_queue_size;
}

SchedulerClock::time_point RequestQueue::DeadlineFor(uint32_t level, uint64_t timeout_us,
                                                     SchedulerClock::time_point now) const {
  const QueuePolicy& policy = levels_[level].policy;
  uint64_t us = policy.default_timeout_us;
  // A request may shorten its level's timeout, never lengthen it (Triton's allow_timeout_override).
  if (policy.allow_timeout_override && timeout_us != 0 && (us == 0 || timeout_us < us)) us = timeout_us;
  if (us == 0) return SchedulerClock::time_point::max();
  // Timeouts beyond a century are as good as none, and would overflow the clock.
  constexpr uint64_t kCenturyUs = uint64_t{100} * 365 * 24 * 3600 * 1000000;
  if (us > kCenturyUs) return SchedulerClock::time_point::max();
  return now + std::chrono::microseconds(us);
}

void RequestQueue::Push(PendingList& from, PendingList::iterator node) {
  Level& level = levels_[node->level];
  level.next_deadline = std::min(level.next_deadline, node->deadline);
  level.waiting.splice(level.waiting.end(), from, node);
  ++size_;
}

void RequestQueue::ExpireTimeouts(SchedulerClock::time_point now, PendingList& rejected) {
  for (Level& level : levels_) {
    if (level.next_deadline > now) continue;
    // Scans the whole level: with per-request timeouts deadlines are not in arrival order. This runs only when
    // some deadline has passed, and each scan retires at least that request.
    level.next_deadline = SchedulerClock::time_point::max();
    for (auto it = level.waiting.begin(); it != level.waiting.end();) {
      auto next = std::next(it);
      if (it->deadline <= now) {
        if (level.policy.timeout_action == QueuePolicy::TimeoutAction::kReject) {
          rejected.splice(rejected.end(), level.waiting, it);
          --size_;
        } else {
          it->deadline = SchedulerClock::time_point::max();
          level.delayed.splice(level.delayed.end(), level.waiting, it);
        }
      } else {
        level.next_deadline = std::min(level.next_deadline, it->deadline);
      }
      it = next;
    }
  }
}

SchedulerClock::time_point RequestQueue::NextDeadline() const {
  SchedulerClock::time_point next = SchedulerClock::time_point::max();
  for (const Level& level : levels_) next = std::min(next, level.next_deadline);
  return next;
}

void RequestQueue::PopFront(size_t n, PendingList& out) {
  for (Level& level : levels_) {
    for (PendingList* list : {&level.waiting, &level.delayed}) {
      while (n > 0 && !list->empty()) {
        out.splice(out.end(), *list, list->begin());
        --size_;
        --n;
      }
    }
    // Deadlines that left with the popped requests may leave next_deadline early; an early value only costs one
    // scan that finds nothing to expire, which resets it.
    if (level.waiting.empty()) level.next_deadline = SchedulerClock::time_point::max();
  }
}

void RequestQueue::TakeAll(PendingList& out) { PopFront(size_, out); }

}  // namespace hone::serve
