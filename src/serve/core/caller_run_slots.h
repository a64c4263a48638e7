// How many of a front end's threads may run inference themselves at once (InferenceRequest::may_run_on_caller).
//
// A front end takes a slot around Server::Infer and gives it back when Infer returns (after the inline run, if
// there was one), so that no more than `slots` of its threads are ever busy with a model at the same time and the
// rest stay free for health checks and other clients.
//
//   CallerRunSlots::Held slot(slots_);            // may be empty
//   request.may_run_on_caller = slot.held();
//   server.Infer(std::move(request), ...);
#pragma once

#include <algorithm>
#include <atomic>

namespace hone::serve {

class CallerRunSlots {
 public:
  explicit CallerRunSlots(int slots) : left_(std::max(slots, 0)) {}

  // A slot taken for the life of this object, or none when all are taken.
  class Held {
   public:
    explicit Held(CallerRunSlots& slots) : slots_(slots.TryTake() ? &slots : nullptr) {}
    ~Held() {
      if (slots_) slots_->left_.fetch_add(1, std::memory_order_release);
    }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    bool held() const { return slots_ != nullptr; }

   private:
    CallerRunSlots* slots_;
  };

 private:
  bool TryTake() {
    int left = left_.load(std::memory_order_relaxed);
    while (left > 0 && !left_.compare_exchange_weak(left, left - 1, std::memory_order_acquire)) {
    }
    return left > 0;
  }

  std::atomic<int> left_;
};

}  // namespace hone::serve
