// Work-conserving timing and runs on the caller's thread, on a real model.
//
// Timing-free like the batching tests: the Gate holds instances busy while a test queues requests behind them;
// a 30 s max_queue_delay stands for "would wait", so a request that completes at all did not wait for it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "serve/core/scheduler_test_util.h"

namespace hone::serve {
namespace {

using ::testing::ElementsAre;
using test::AffineRequest;
using test::Harness;
using test::IsAffineAnswer;
using test::Options;
using std::chrono::seconds;

InferenceRequest OnCaller(InferenceRequest r) {
  r.may_run_on_caller = true;
  return r;
}

TEST(SchedulerWorkConservingTest, ALoneRequestDoesNotWaitForTheDelay) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.max_queue_delay = seconds(30);  // Triton would hold this request for 30 s
  Harness h(o, "affine");
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 3), "a");
  ASSERT_TRUE(h.out.WaitFor(1));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("a").result, 1, 3));
}

TEST(SchedulerWorkConservingTest, RequestsThatArriveWhileTheInstanceIsBusyFormTheNextBatch) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.max_queue_delay = seconds(30);
  Harness h(o, "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "first");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  for (int i = 0; i < 3; ++i) h.Send(AffineRequest(2, 10.0f * i), test::Key("r", i));
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(4));
  EXPECT_THAT(h.gate.batches(), ElementsAre(1, 6));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(IsAffineAnswer(h.out.Get(test::Key("r", i)).result, 2, 10.0f * i));
}

TEST(SchedulerWorkConservingTest, PreferredSizesStillCapTheBatch) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.preferred_batch_sizes = {2};
  o.batching.max_queue_delay = seconds(30);
  Harness h(o, "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "first");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  for (int i = 0; i < 3; ++i) h.Send(AffineRequest(1, 10.0f * i), test::Key("r", i));
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(4));
  EXPECT_THAT(h.gate.batches(), ElementsAre(1, 2, 1));
}

TEST(SchedulerCallerRunTest, RunsOnTheCallingThreadBeforeEnqueueReturns) {
  Harness h(Options("affine", 8), "affine");
  ASSERT_NE(h.scheduler, nullptr);
  std::thread::id ran_on;
  h.scheduler->Enqueue(OnCaller(AffineRequest(2, 1)), [&](Result<InferenceResponse> r) {
    ran_on = std::this_thread::get_id();
    EXPECT_TRUE(IsAffineAnswer(r, 2, 1));
  });
  EXPECT_EQ(ran_on, std::this_thread::get_id());  // set before Enqueue returned, on this thread
  client::ModelStatsSnapshot s = h.stats.Snapshot();
  EXPECT_EQ(s.success.count, 1u);
  EXPECT_EQ(s.queue.ns, 0u);  // never queued
}

TEST(SchedulerCallerRunTest, WithoutPermissionTheInstanceThreadRunsIt) {
  Harness h(Options("affine", 8), "affine");
  ASSERT_NE(h.scheduler, nullptr);
  std::promise<std::thread::id> ran_on;
  h.scheduler->Enqueue(AffineRequest(1, 1), [&](Result<InferenceResponse>) {
    ran_on.set_value(std::this_thread::get_id());
  });
  auto f = ran_on.get_future();
  ASSERT_EQ(f.wait_for(test::kWaitLimit), std::future_status::ready);
  EXPECT_NE(f.get(), std::this_thread::get_id());
}

TEST(SchedulerCallerRunTest, QueuesBehindABusyInstanceInsteadOfRunning) {
  Harness h(Options("affine", 8), "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "held");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  h.Send(OnCaller(AffineRequest(1, 5)), "caller");  // returns at once: queued, the instance is busy
  EXPECT_EQ(h.out.size(), 0u);
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(2));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("caller").result, 1, 5));
}

TEST(SchedulerCallerRunTest, UsesAnotherIdleInstanceWhileOneIsBusy) {
  Harness h(Options("affine", 8), "affine", /*instances=*/2, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "held");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  std::thread::id ran_on;
  h.scheduler->Enqueue(OnCaller(AffineRequest(1, 7)), [&](Result<InferenceResponse> r) {
    ran_on = std::this_thread::get_id();
    EXPECT_TRUE(IsAffineAnswer(r, 1, 7));
  });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(1));
}

TEST(SchedulerCallerRunTest, TritonTimingWithADelayNeverRunsOnTheCaller) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.max_queue_delay = seconds(30);
  o.batching.work_conserving = false;
  Harness h(o, "affine");
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(OnCaller(AffineRequest(1, 0)), "waits");
  EXPECT_EQ(h.out.size(), 0u);  // waiting for company, as Triton would
  h.scheduler->Stop(std::chrono::steady_clock::time_point::max());  // stopping flushes the partial batch
  ASSERT_TRUE(h.out.WaitFor(1));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("waits").result, 1, 0));
}

TEST(SchedulerCallerRunTest, RequestsQueuedDuringACallerRunAreServedAfterIt) {
  // The caller's run holds the only instance; what queues behind it must wake the instance's thread afterwards.
  Harness h(Options("affine", 8), "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  std::thread caller([&] { h.Send(OnCaller(AffineRequest(1, 0)), "caller"); });
  ASSERT_TRUE(h.gate.WaitEntered(1));
  for (int i = 0; i < 3; ++i) h.Send(AffineRequest(1, 10.0f * (i + 1)), test::Key("r", i));
  h.gate.Open();
  caller.join();
  ASSERT_TRUE(h.out.WaitFor(4));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(IsAffineAnswer(h.out.Get(test::Key("r", i)).result, 1, 10.0f * (i + 1)));
  EXPECT_THAT(h.gate.batches(), ElementsAre(1, 3));
}

TEST(SchedulerCallerRunTest, UnderLoadTheCallerHandsOffUntilTheLoadHasPassed) {
  Harness h(Options("affine", 8), "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "held");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  for (int i = 0; i < 40; ++i) h.Send(AffineRequest(1, static_cast<float>(i)), test::Key("r", i));  // a burst
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(41));
  auto ran_on_caller = [&] {
    // The instance's thread marks the instance free just after delivering; let it, so that only the load decides.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::promise<bool> on_caller;
    const std::thread::id me = std::this_thread::get_id();
    h.scheduler->Enqueue(OnCaller(AffineRequest(1, 1)), [&](Result<InferenceResponse> r) {
      EXPECT_TRUE(IsAffineAnswer(r, 1, 1));
      on_caller.set_value(std::this_thread::get_id() == me);
    });
    auto f = on_caller.get_future();
    EXPECT_EQ(f.wait_for(test::kWaitLimit), std::future_status::ready);
    return f.get();
  };
  // Idle now, but the burst is recent: the first lone requests still go to the instance's thread...
  EXPECT_FALSE(ran_on_caller());
  // ...and once the requests in flight at arrival have averaged down, they run on the caller again.
  bool on_caller = false;
  for (int i = 0; i < 200 && !on_caller; ++i) on_caller = ran_on_caller();
  EXPECT_TRUE(on_caller);
}

TEST(SchedulerCallerRunTest, StopWaitsForARunOnACallersThread) {
  Harness h(Options("affine", 8), "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  std::thread caller([&] { h.Send(OnCaller(AffineRequest(1, 0)), "caller"); });
  ASSERT_TRUE(h.gate.WaitEntered(1));
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    h.scheduler->Stop(std::chrono::steady_clock::now());
    stopped = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(stopped.load());  // the run on the caller's thread is still going
  h.gate.Open();
  stopper.join();
  caller.join();
  EXPECT_TRUE(stopped.load());
  ASSERT_EQ(h.out.size(), 1u);
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("caller").result, 1, 0));
}

TEST(SchedulerCallerRunTest, PreservesOrderingAcrossCallerAndInstanceRuns) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.preserve_ordering = true;
  Harness h(o, "affine", /*instances=*/2, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "first");  // held on one instance
  ASSERT_TRUE(h.gate.WaitEntered(1));
  h.Send(OnCaller(AffineRequest(1, 1)), "second");  // runs on this thread, on the other instance...
  EXPECT_EQ(h.out.size(), 0u);                     // ...but waits for "first" to leave
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(2));
  EXPECT_THAT(h.out.keys(), ElementsAre("first", "second"));
}

}  // namespace
}  // namespace hone::serve
