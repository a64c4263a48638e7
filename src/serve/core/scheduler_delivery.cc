#include "serve/core/scheduler_delivery.h"

#include <utility>

namespace hone::serve {

ResponseDelivery::ResponseDelivery(bool preserve_ordering, DeliverFn deliver)
    : ordered_(preserve_ordering), deliver_(std::move(deliver)) {}

void ResponseDelivery::Deliver(PendingList& finished, PendingList& delivered) {
  if (!ordered_) {
    for (PendingRequest& p : finished) deliver_(p);
    delivered.splice(delivered.end(), finished);
    return;
  }
  {
    std::lock_guard lock(mu_);
    // Insert each by sequence; searching from the back, since finished requests are usually the newest.
    while (!finished.empty()) {
      auto node = finished.begin();
      auto pos = held_.end();
      while (pos != held_.begin() && std::prev(pos)->sequence > node->sequence) --pos;
      held_.splice(pos, finished, node);
    }
    if (delivering_) return;  // the delivering thread will pick these up before it stops
    delivering_ = true;
  }
  while (true) {
    PendingList ready;
    {
      std::lock_guard lock(mu_);
      while (!held_.empty() && held_.front().sequence == next_) {
        ready.splice(ready.end(), held_, held_.begin());
        ++next_;
      }
      if (ready.empty()) {
        delivering_ = false;
        return;
      }
    }
    for (PendingRequest& p : ready) deliver_(p);
    delivered.splice(delivered.end(), ready);
  }
}

}  // namespace hone::serve
