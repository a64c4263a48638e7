// Runs finished requests' callbacks: at once, or in arrival order when the model preserves ordering.
//
// With ordering, a finished request is held until every request queued before it (a lower sequence number) has
// been delivered; whichever thread fills the gap delivers what became ready. One thread delivers at a time, so
// callbacks run in order even when batches finish on several instances at once. Every sequence number the
// scheduler hands out must be finished exactly once, or the requests behind it wait for ever.
//
// Thread-safe. Callbacks run with no lock held (they may enqueue more requests).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>

#include "serve/core/scheduler_request.h"

namespace hone::serve {

class ResponseDelivery {
 public:
  // `deliver` records the request and runs its callback; it must not throw.
  using DeliverFn = std::function<void(PendingRequest&)>;
  ResponseDelivery(bool preserve_ordering, DeliverFn deliver);

  // Takes every request out of `finished` (each has its result) and delivers it now or once its turn comes.
  // The requests this call delivered (its own, and with ordering possibly others' that were waiting on them) are
  // moved to the back of `delivered`, for the caller to recycle.
  void Deliver(PendingList& finished, PendingList& delivered);

 private:
  const bool ordered_;
  const DeliverFn deliver_;
  std::mutex mu_;
  PendingList held_;         // guarded by mu_: finished, not yet delivered, ascending sequence
  uint64_t next_ = 0;        // guarded by mu_: the sequence number to deliver next
  bool delivering_ = false;  // guarded by mu_: a thread is running callbacks for the ready prefix of held_
};

}  // namespace hone::serve
