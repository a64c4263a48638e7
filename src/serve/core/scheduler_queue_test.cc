// RequestQueue: priority levels, queue policies and timeouts, with made-up times.
#include "serve/core/scheduler_queue.h"

#include <gtest/gtest.h>

namespace hone::serve {
namespace {

using std::chrono::milliseconds;
const SchedulerClock::time_point t0 = SchedulerClock::time_point() + std::chrono::hours(1);

DynamicBatchingPolicy ThreeLevels() {
  DynamicBatchingPolicy p;
  p.priority_levels = 3;
  p.default_priority_level = 2;
  return p;
}

// Pushes a request with `id` at `level` with `deadline` into `q`.
void Push(RequestQueue& q, const std::string& id, uint32_t level,
          SchedulerClock::time_point deadline = SchedulerClock::time_point::max()) {
  PendingList staging;
  staging.emplace_back();
  staging.front().request.id = id;
  staging.front().level = level;
  staging.front().deadline = deadline;
  q.Push(staging, staging.begin());
}

std::vector<std::string> Order(const RequestQueue& q) {
  std::vector<std::string> ids;
  q.Visit([&](const PendingRequest& p) {
    ids.push_back(p.request.id);
    return true;
  });
  return ids;
}

std::vector<std::string> Ids(const PendingList& list) {
  std::vector<std::string> ids;
  for (const auto& p : list) ids.push_back(p.request.id);
  return ids;
}

TEST(RequestQueueTest, PriorityZeroAndOutOfRangeGoToTheDefaultLevel) {
  RequestQueue q(ThreeLevels());
  EXPECT_EQ(q.LevelFor(0), 1u);
  EXPECT_EQ(q.LevelFor(1), 0u);
  EXPECT_EQ(q.LevelFor(3), 2u);
  EXPECT_EQ(q.LevelFor(4), 1u);
  RequestQueue single;
  EXPECT_EQ(single.LevelFor(0), 0u);
  EXPECT_EQ(single.LevelFor(7), 0u);
}

TEST(RequestQueueTest, HigherLevelsLeaveFirstArrivalOrderWithin) {
  RequestQueue q(ThreeLevels());
  Push(q, "low", 2);
  Push(q, "mid1", 1);
  Push(q, "high", 0);
  Push(q, "mid2", 1);
  EXPECT_EQ(Order(q), (std::vector<std::string>{"high", "mid1", "mid2", "low"}));
  PendingList out;
  q.PopFront(3, out);
  EXPECT_EQ(Ids(out), (std::vector<std::string>{"high", "mid1", "mid2"}));
  EXPECT_EQ(q.size(), 1u);
}

TEST(RequestQueueTest, MaxQueueSizeIsPerLevel) {
  DynamicBatchingPolicy p = ThreeLevels();
  p.default_queue_policy.max_queue_size = 2;
  QueuePolicy roomy;
  p.priority_queue_policy.push_back({1, roomy});
  RequestQueue q(p);
  Push(q, "a", 1);
  EXPECT_TRUE(q.HasRoom(1));
  Push(q, "b", 1);
  EXPECT_FALSE(q.HasRoom(1));
  EXPECT_TRUE(q.HasRoom(2));
  for (int i = 0; i < 10; ++i) Push(q, "h", 0);
  EXPECT_TRUE(q.HasRoom(0));  // level 1's own policy: unbounded
}

TEST(RequestQueueTest, RequestTimeoutOnlyShortensTheDefaultWhenAllowed) {
  DynamicBatchingPolicy p;
  p.default_queue_policy.default_timeout_us = 10000;
  RequestQueue fixed(p);
  EXPECT_EQ(fixed.DeadlineFor(0, 1000, t0), t0 + milliseconds(10));  // override not allowed
  EXPECT_EQ(fixed.DeadlineFor(0, 0, t0), t0 + milliseconds(10));
  p.default_queue_policy.allow_timeout_override = true;
  RequestQueue overridable(p);
  EXPECT_EQ(overridable.DeadlineFor(0, 1000, t0), t0 + milliseconds(1));
  EXPECT_EQ(overridable.DeadlineFor(0, 50000, t0), t0 + milliseconds(10));  // never longer
  p.default_queue_policy.default_timeout_us = 0;
  RequestQueue no_default(p);
  EXPECT_EQ(no_default.DeadlineFor(0, 0, t0), SchedulerClock::time_point::max());
  EXPECT_EQ(no_default.DeadlineFor(0, 2000, t0), t0 + milliseconds(2));
}

TEST(RequestQueueTest, RejectTimeoutsLeaveTheQueue) {
  RequestQueue q;  // policy irrelevant to ExpireTimeouts but for the action: REJECT by default
  Push(q, "a", 0, t0 + milliseconds(5));
  Push(q, "b", 0);
  Push(q, "c", 0, t0 + milliseconds(1));
  EXPECT_EQ(q.NextDeadline(), t0 + milliseconds(1));
  PendingList rejected;
  q.ExpireTimeouts(t0, rejected);
  EXPECT_TRUE(rejected.empty());
  q.ExpireTimeouts(t0 + milliseconds(1), rejected);
  EXPECT_EQ(Ids(rejected), (std::vector<std::string>{"c"}));
  EXPECT_EQ(q.NextDeadline(), t0 + milliseconds(5));
  q.ExpireTimeouts(t0 + milliseconds(9), rejected);
  EXPECT_EQ(Ids(rejected), (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(Order(q), (std::vector<std::string>{"b"}));
  EXPECT_EQ(q.NextDeadline(), SchedulerClock::time_point::max());
}

TEST(RequestQueueTest, DelayTimeoutsMoveBehindTheirLevelOnly) {
  DynamicBatchingPolicy p;
  p.priority_levels = 2;
  p.default_priority_level = 1;
  p.default_queue_policy.timeout_action = QueuePolicy::TimeoutAction::kDelay;
  RequestQueue q(p);
  Push(q, "a", 0, t0 + milliseconds(1));
  Push(q, "b", 0);
  Push(q, "c", 0);
  Push(q, "low", 1);
  PendingList rejected;
  q.ExpireTimeouts(t0 + milliseconds(2), rejected);
  EXPECT_TRUE(rejected.empty());
  EXPECT_EQ(q.size(), 4u);
  // Behind its level's waiting requests, ahead of lower levels.
  EXPECT_EQ(Order(q), (std::vector<std::string>{"b", "c", "a", "low"}));
  EXPECT_EQ(q.NextDeadline(), SchedulerClock::time_point::max());  // delayed requests are no longer timed
  Push(q, "d", 0);
  EXPECT_EQ(Order(q), (std::vector<std::string>{"b", "c", "d", "a", "low"}));
}

TEST(RequestQueueTest, TakeAllEmptiesEveryLevel) {
  RequestQueue q(ThreeLevels());
  Push(q, "x", 2);
  Push(q, "y", 0);
  PendingList out;
  q.TakeAll(out);
  EXPECT_EQ(Ids(out), (std::vector<std::string>{"y", "x"}));
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace hone::serve
