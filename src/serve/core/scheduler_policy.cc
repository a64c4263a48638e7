#include "serve/core/scheduler_policy.h"

#include <algorithm>

namespace hone::serve {

BatchDecision DecideBatch(const BatchingRules& rules, std::span<const BatchCandidate> queue,
                          SchedulerClock::time_point now, bool flush) {
  BatchDecision decision;
  if (queue.empty()) return decision;
  if (!rules.dynamic || rules.max_batch_size <= 0) {
    decision.requests = 1;
    decision.rows = queue.front().rows;
    return decision;
  }

  // No preferred sizes: max_batch_size is the one preferred size (as Triton completes the config).
  const std::vector<int64_t>& preferred = rules.preferred_batch_sizes;
  const int64_t largest_preferred = preferred.empty() ? rules.max_batch_size : preferred.back();
  auto is_preferred = [&](int64_t rows) {
    return preferred.empty() ? rows == rules.max_batch_size
                             : std::binary_search(preferred.begin(), preferred.end(), rows);
  };

  size_t count = 0;
  int64_t rows = 0;
  size_t marked_count = 0;  // the batch as of the largest preferred size reached so far
  int64_t marked_rows = 0;
  bool closed = false;      // the next request cannot join: nothing can make this batch larger
  SchedulerClock::time_point oldest = SchedulerClock::time_point::max();
  for (const BatchCandidate& c : queue) {
    if (count > 0) {
      // Growing past every preferred size without having met one: the batch so far is as good as it gets.
      if (marked_count == 0 && rows + c.rows > largest_preferred) {
        marked_count = count;
        marked_rows = rows;
      }
      if (rows + c.rows > rules.max_batch_size || !c.matches_first) {
        closed = true;
        break;
      }
    }
    rows += c.rows;
    ++count;
    oldest = std::min(oldest, c.arrival);
    if (is_preferred(rows)) {
      marked_count = count;
      marked_rows = rows;
    }
  }

  const auto delay = rules.work_conserving ? std::chrono::nanoseconds(0) : rules.max_queue_delay;
  const bool delay_expired = flush || (delay.count() > 0 && now - oldest >= delay);
  if (marked_count > 0 && !delay_expired) {
    decision.requests = marked_count;
    decision.rows = marked_rows;
    return decision;
  }
  if (closed || rows >= largest_preferred || delay_expired || delay.count() == 0) {
    decision.requests = count;
    decision.rows = rows;
    return decision;
  }
  decision.wait_until = oldest + std::chrono::duration_cast<SchedulerClock::duration>(delay);
  return decision;
}

}  // namespace hone::serve
