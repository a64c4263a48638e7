// Priorities, queue policies (timeouts, max_queue_size), preserve_ordering and Stop, on the affine model.
// Timing-free by construction: see scheduler_batching_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "serve/core/scheduler_test_util.h"

namespace hone::serve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AffineRequest;
using test::Harness;
using test::IsAffineAnswer;
using test::Options;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Strings = std::vector<std::string>;

InferenceRequest WithPriority(InferenceRequest r, uint32_t priority) {
  r.priority = priority;
  return r;
}

InferenceRequest WithTimeout(InferenceRequest r, uint64_t us) {
  r.timeout_us = us;
  return r;
}

// Waits until `stats` has counted `n` executions (a batch has run, whether or not it was delivered).
bool WaitForExecutions(const ModelStats& stats, uint64_t n) {
  const auto limit = std::chrono::steady_clock::now() + test::kWaitLimit;
  while (stats.Snapshot().execution_count < n) {
    if (std::chrono::steady_clock::now() > limit) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

TEST(SchedulerQueueingTest, HigherPriorityLevelsRunFirst) {
  SchedulerOptions o = Options("affine", 1);
  o.batching.priority_levels = 3;
  o.batching.default_priority_level = 2;
  Harness h(o, "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "hold");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  h.Send(WithPriority(AffineRequest(1, 1), 3), "low");
  h.Send(WithPriority(AffineRequest(1, 2), 0), "default");
  h.Send(WithPriority(AffineRequest(1, 3), 1), "high");
  h.Send(WithPriority(AffineRequest(1, 4), 9), "beyond-levels");  // treated as the default level
  h.Send(WithPriority(AffineRequest(1, 5), 1), "high-2");
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(6));
  EXPECT_THAT(h.out.keys(), ElementsAre("hold", "high", "high-2", "default", "beyond-levels", "low"));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("low").result, 1, 1));
}

TEST(SchedulerQueueingTest, HighPriorityRequestsFillTheBatchFirst) {
  SchedulerOptions o = Options("affine", 2);
  o.batching.priority_levels = 2;
  o.batching.default_priority_level = 2;
  Harness h(o, "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(2, 0), "hold");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  h.Send(AffineRequest(1, 1), "low-1");
  h.Send(AffineRequest(1, 2), "low-2");
  h.Send(WithPriority(AffineRequest(1, 3), 1), "high");
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(4));
  EXPECT_THAT(h.gate.batches(), ElementsAre(2, 2, 1));
  EXPECT_THAT(h.out.keys(), ElementsAre("hold", "high", "low-1", "low-2"));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("low-1").result, 1, 1));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("high").result, 1, 3));
}

TEST(SchedulerQueueingTest, RejectTimeoutFailsWithDeadlineExceededWhileOthersWait) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.max_queue_delay = seconds(30);  // nothing sends this batch early: only the timeout acts
  o.batching.work_conserving = false;  // Triton's timing: the delay holds the batch
  o.batching.default_queue_policy.allow_timeout_override = true;
  Harness h(o, "affine");
  ASSERT_NE(h.scheduler, nullptr);
  const auto sent = std::chrono::steady_clock::now();
  h.Send(WithTimeout(AffineRequest(1, 0), 50000), "timed");
  h.Send(AffineRequest(1, 1), "patient");
  ASSERT_TRUE(h.out.WaitFor(1));
  auto timed = h.out.Get("timed");
  EXPECT_EQ(timed.result.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(timed.result.status().message(), HasSubstr("model 'affine' version 1"));
  EXPECT_GE(timed.at - sent, milliseconds(50));
  EXPECT_EQ(h.scheduler->pending(), 1);
  h.scheduler->Stop(std::chrono::steady_clock::now() + test::kWaitLimit);  // flushes the waiting batch
  ASSERT_EQ(h.out.size(), 2u);
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("patient").result, 1, 1));
  EXPECT_EQ(h.stats.Snapshot().fail.count, 1u);
}

// One instance, batches of one; "late" times out while the instance is held, "on-time" has no timeout.
Harness& QueueLateAndOnTime(Harness& h) {
  h.Send(AffineRequest(1, 0), "hold");
  EXPECT_TRUE(h.gate.WaitEntered(1));
  h.Send(WithTimeout(AffineRequest(1, 1), 20000), "late");
  h.Send(AffineRequest(1, 2), "on-time");
  std::this_thread::sleep_for(milliseconds(100));  // past late's 20 ms deadline (a lower bound, never a race)
  h.gate.Open();
  EXPECT_TRUE(h.out.WaitFor(3));
  return h;
}

TEST(SchedulerQueueingTest, DelayTimeoutMovesTheRequestBehindItsLevel) {
  SchedulerOptions o = Options("affine", 1);
  o.batching.default_queue_policy.timeout_action = QueuePolicy::TimeoutAction::kDelay;
  o.batching.default_queue_policy.allow_timeout_override = true;
  Harness h(o, "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  QueueLateAndOnTime(h);
  EXPECT_THAT(h.out.keys(), ElementsAre("hold", "on-time", "late"));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("late").result, 1, 1));  // delayed, not failed
}

TEST(SchedulerQueueingTest, RejectTimeoutWhileTheInstanceIsBusy) {
  SchedulerOptions o = Options("affine", 1);
  o.batching.default_queue_policy.allow_timeout_override = true;
  Harness h(o, "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  QueueLateAndOnTime(h);
  EXPECT_EQ(h.out.Get("late").result.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("on-time").result, 1, 2));
  EXPECT_THAT(h.gate.batches(), ElementsAre(1, 1));  // the late one never ran
}

TEST(SchedulerQueueingTest, FullQueueRejectsAtOnceWithUnavailable) {
  SchedulerOptions o = Options("affine", 1);
  o.batching.default_queue_policy.max_queue_size = 2;
  Harness h(o, "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "hold");  // running, not queued
  ASSERT_TRUE(h.gate.WaitEntered(1));
  h.Send(AffineRequest(1, 1), "a");
  h.Send(AffineRequest(1, 2), "b");
  h.Send(AffineRequest(1, 3), "c");
  ASSERT_EQ(h.out.size(), 1u);  // c's callback ran inside Enqueue
  Status full = h.out.Get("c").result.status();
  EXPECT_EQ(full.code(), StatusCode::kUnavailable);
  EXPECT_THAT(full.message(), HasSubstr("queue full"));
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(4));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("b").result, 1, 2));
  h.Send(AffineRequest(1, 4), "d");  // room again
  ASSERT_TRUE(h.out.WaitFor(5));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("d").result, 1, 4));
}

TEST(SchedulerQueueingTest, PreserveOrderingHoldsALaterResponseUntilEarlierOnesLeave) {
  SchedulerOptions o = Options("affine", 1);
  o.batching.preserve_ordering = true;
  Harness h(o, "affine", /*instances=*/2, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "first");  // held on one instance
  ASSERT_TRUE(h.gate.WaitEntered(1));
  h.Send(AffineRequest(1, 1), "second");  // runs on the other
  ASSERT_TRUE(WaitForExecutions(h.stats, 1));
  EXPECT_EQ(h.out.size(), 0u);  // done, but waits for "first"
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(2));
  EXPECT_THAT(h.out.keys(), ElementsAre("first", "second"));
}

TEST(SchedulerQueueingTest, PreserveOrderingAcrossManyBatchesAndInstances) {
  SchedulerOptions o = Options("affine", 4);
  o.batching.preserve_ordering = true;
  Harness h(o, "affine", /*instances=*/2);
  ASSERT_NE(h.scheduler, nullptr);
  Strings sent;
  for (int i = 0; i < 300; ++i) {
    sent.push_back(std::to_string(i));
    h.Send(AffineRequest(1 + i % 3, static_cast<float>(i)), sent.back());
  }
  ASSERT_TRUE(h.out.WaitFor(sent.size()));
  EXPECT_EQ(h.out.keys(), sent);
  for (int i = 0; i < 300; ++i)
    ASSERT_TRUE(IsAffineAnswer(h.out.Get(std::to_string(i)).result, 1 + i % 3, static_cast<float>(i)));
}

TEST(SchedulerQueueingTest, StopFailsQueuedRequestsAndFinishesRunningOnes) {
  Harness h(Options("affine", 1), "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "running");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  for (std::string key : {"q1", "q2", "q3"}) h.Send(AffineRequest(1, 1), key);
  std::thread stopper([&] { h.scheduler->Stop(std::chrono::steady_clock::now()); });
  ASSERT_TRUE(h.out.WaitFor(3));  // the queued ones fail while the running one is still held
  for (std::string key : {"q1", "q2", "q3"}) {
    EXPECT_EQ(h.out.Get(key).result.status().code(), StatusCode::kUnavailable);
    EXPECT_THAT(h.out.Get(key).result.status().message(), HasSubstr("stopped"));
  }
  h.gate.Open();
  stopper.join();  // Stop returns once the running batch has delivered
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("running").result, 1, 0));
  h.Send(AffineRequest(1, 2), "after");
  EXPECT_EQ(h.out.Get("after").result.status().code(), StatusCode::kUnavailable);
  h.scheduler->Stop(std::chrono::steady_clock::now());  // idempotent
  for (const auto& [key, calls] : h.out.calls()) EXPECT_EQ(calls, 1) << key;
  EXPECT_EQ(h.out.size(), 5u);
  EXPECT_EQ(h.scheduler->pending(), 0);
  EXPECT_EQ(h.stats.Snapshot().pending, 0);
}

TEST(SchedulerQueueingTest, StopWithAGracePeriodRunsWaitingBatchesAtOnce) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.max_queue_delay = seconds(600);
  o.batching.work_conserving = false;  // Triton's timing: the delay holds the batch
  o.batching.preserve_ordering = true;
  Harness h(o, "affine", 2);
  ASSERT_NE(h.scheduler, nullptr);
  for (int i = 0; i < 5; ++i) h.Send(AffineRequest(1, static_cast<float>(i)), std::to_string(i));
  h.scheduler->Stop(std::chrono::steady_clock::now() + test::kWaitLimit);
  ASSERT_EQ(h.out.size(), 5u);
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(IsAffineAnswer(h.out.Get(std::to_string(i)).result, 1, static_cast<float>(i)));
}

TEST(SchedulerQueueingTest, DestroyingTheSchedulerAnswersEveryQueuedRequestOnce) {
  Harness h(Options("affine", 1), "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "running");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  for (int i = 0; i < 20; ++i) h.Send(AffineRequest(1, 1), test::Key("q", i));
  std::thread opener([&] {
    h.out.WaitFor(20);  // the destructor fails the queued ones first, then waits for the held one
    h.gate.Open();
  });
  h.scheduler.reset();
  opener.join();
  ASSERT_EQ(h.out.size(), 21u);
  for (const auto& [key, calls] : h.out.calls()) EXPECT_EQ(calls, 1) << key;
}

}  // namespace
}  // namespace hone::serve
