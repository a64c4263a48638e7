// DecideBatch with made-up times: every rule of the dynamic batcher, no threads.
#include "serve/core/scheduler_policy.h"

#include <gtest/gtest.h>

namespace hone::serve {
namespace {

using std::chrono::milliseconds;
const SchedulerClock::time_point t0 = SchedulerClock::time_point() + std::chrono::hours(1);

BatchingRules Rules(int64_t max_batch, std::vector<int64_t> preferred, milliseconds delay) {
  BatchingRules r;
  r.dynamic = true;
  r.max_batch_size = max_batch;
  r.preferred_batch_sizes = std::move(preferred);
  r.max_queue_delay = delay;
  r.work_conserving = false;  // Triton's rules; the WorkConserving tests switch it back on
  return r;
}

// Requests of the given rows, all matching, arriving at t0.
std::vector<BatchCandidate> Queue(std::vector<int64_t> rows) {
  std::vector<BatchCandidate> q;
  for (int64_t r : rows) q.push_back({r, true, t0});
  return q;
}

TEST(DecideBatchTest, EmptyQueueIdles) {
  BatchDecision d = DecideBatch(Rules(8, {}, milliseconds(5)), {}, t0, false);
  EXPECT_FALSE(d.dispatch());
  EXPECT_EQ(d.wait_until, SchedulerClock::time_point::max());
}

TEST(DecideBatchTest, WithoutDynamicBatchingEachRequestRunsAlone) {
  BatchingRules r = Rules(8, {}, milliseconds(100));
  r.dynamic = false;
  BatchDecision d = DecideBatch(r, Queue({3, 1, 1}), t0, false);
  EXPECT_EQ(d.requests, 1u);
  EXPECT_EQ(d.rows, 3);
}

TEST(DecideBatchTest, NoBatchDimensionRunsAlone) {
  BatchDecision d = DecideBatch(Rules(0, {}, milliseconds(0)), Queue({1, 1}), t0, false);
  EXPECT_EQ(d.requests, 1u);
}

TEST(DecideBatchTest, ZeroDelaySendsWhatIsQueuedAtOnce) {
  BatchDecision d = DecideBatch(Rules(8, {}, milliseconds(0)), Queue({1, 2}), t0, false);
  EXPECT_EQ(d.requests, 2u);
  EXPECT_EQ(d.rows, 3);
}

TEST(DecideBatchTest, WaitsForTheOldestRequestsDelay) {
  auto q = Queue({1, 1});
  q[0].arrival = t0 - milliseconds(3);
  BatchDecision d = DecideBatch(Rules(8, {}, milliseconds(10)), q, t0, false);
  EXPECT_FALSE(d.dispatch());
  EXPECT_EQ(d.wait_until, t0 + milliseconds(7));
}

TEST(DecideBatchTest, ExpiredDelaySendsThePartialBatch) {
  BatchDecision d = DecideBatch(Rules(8, {}, milliseconds(10)), Queue({1, 1}), t0 + milliseconds(10), false);
  EXPECT_EQ(d.requests, 2u);
  EXPECT_EQ(d.rows, 2);
}

TEST(DecideBatchTest, FullBatchGoesBeforeTheDelay) {
  BatchDecision d = DecideBatch(Rules(4, {}, milliseconds(10)), Queue({1, 1, 2, 1}), t0, false);
  EXPECT_EQ(d.requests, 3u);
  EXPECT_EQ(d.rows, 4);
}

TEST(DecideBatchTest, SendsTheLargestPreferredSizeReached) {
  // 5 queued, preferred 2 and 4: the batch of 4 goes now, the fifth stays.
  BatchDecision d = DecideBatch(Rules(8, {2, 4}, milliseconds(10)), Queue({1, 1, 1, 1, 1}), t0, false);
  EXPECT_EQ(d.requests, 4u);
  EXPECT_EQ(d.rows, 4);
}

TEST(DecideBatchTest, PreferredSizeAppliesWithoutDelayToo) {
  BatchDecision d = DecideBatch(Rules(8, {2, 4}, milliseconds(0)), Queue({1, 1, 1}), t0, false);
  EXPECT_EQ(d.requests, 2u);
}

TEST(DecideBatchTest, BelowEveryPreferredSizeWaits) {
  BatchDecision d = DecideBatch(Rules(8, {4}, milliseconds(10)), Queue({1, 2}), t0, false);
  EXPECT_FALSE(d.dispatch());
}

TEST(DecideBatchTest, ExpiredDelaySendsAllThatFitNotJustThePreferredSize) {
  BatchDecision d = DecideBatch(Rules(8, {2, 4}, milliseconds(10)), Queue({1, 1, 1, 1, 1}),
                                t0 + milliseconds(11), false);
  EXPECT_EQ(d.requests, 5u);
  EXPECT_EQ(d.rows, 5);
}

TEST(DecideBatchTest, GrowingPastTheLargestPreferredSizeSendsTheBatchSoFar) {
  // Preferred 4: 3 rows, then 3 more would make 6 (fits max 8, but past 4): the 3 go now.
  BatchDecision d = DecideBatch(Rules(8, {4}, milliseconds(10)), Queue({3, 3}), t0, false);
  EXPECT_EQ(d.requests, 1u);
  EXPECT_EQ(d.rows, 3);
}

TEST(DecideBatchTest, NextRequestThatDoesNotFitClosesTheBatch) {
  // max 4: 3 rows, then 2 would make 5. The 3 go now although the delay has not expired.
  BatchDecision d = DecideBatch(Rules(4, {}, milliseconds(10)), Queue({3, 2}), t0, false);
  EXPECT_EQ(d.requests, 1u);
  EXPECT_EQ(d.rows, 3);
}

TEST(DecideBatchTest, ShapeMismatchClosesTheBatch) {
  auto q = Queue({1, 1, 1});
  q[1].matches_first = false;
  BatchDecision d = DecideBatch(Rules(8, {}, milliseconds(10)), q, t0, false);
  EXPECT_EQ(d.requests, 1u);  // never skips the mismatched one to take the third
  EXPECT_EQ(d.rows, 1);
}

TEST(DecideBatchTest, ShapeMismatchAfterAPreferredSizeSendsThePreferredSize) {
  auto q = Queue({1, 1, 1, 1});
  q[3].matches_first = false;
  BatchDecision d = DecideBatch(Rules(8, {2}, milliseconds(10)), q, t0, false);
  EXPECT_EQ(d.requests, 2u);
}

TEST(DecideBatchTest, FlushSendsWithoutWaiting) {
  BatchDecision d = DecideBatch(Rules(8, {4}, milliseconds(10)), Queue({1, 1}), t0, true);
  EXPECT_EQ(d.requests, 2u);
}

TEST(DecideBatchTest, DelayCountsFromTheOldestRequestInTheBatch) {
  auto q = Queue({1, 1});
  q[0].arrival = t0;
  q[1].arrival = t0 - milliseconds(20);  // a delayed (DELAY policy) request behind a newer one
  BatchDecision d = DecideBatch(Rules(8, {}, milliseconds(10)), q, t0, false);
  EXPECT_EQ(d.requests, 2u);
}

TEST(DecideBatchTest, WorkConservingSendsALoneRequestAtOnceWhateverTheDelay) {
  BatchingRules r = Rules(8, {}, milliseconds(100));
  r.work_conserving = true;
  BatchDecision d = DecideBatch(r, Queue({1}), t0, false);
  EXPECT_EQ(d.requests, 1u);
  EXPECT_EQ(d.rows, 1);
}

TEST(DecideBatchTest, WorkConservingSendsEverythingThatFitsAndStillStopsAtThePreferredSize) {
  BatchingRules r = Rules(8, {2, 4}, milliseconds(100));
  r.work_conserving = true;
  BatchDecision d = DecideBatch(r, Queue({1, 1, 1, 1, 1}), t0, false);
  EXPECT_EQ(d.requests, 4u);  // the largest preferred size reached; the fifth forms the next batch
  EXPECT_EQ(d.rows, 4);
  d = DecideBatch(Rules(8, {}, milliseconds(100)), Queue({1, 2}), t0, false);
  EXPECT_FALSE(d.dispatch());  // Triton's timing waits for the delay with the same queue...
  r = Rules(8, {}, milliseconds(100));
  r.work_conserving = true;
  d = DecideBatch(r, Queue({1, 2}), t0, false);
  EXPECT_EQ(d.requests, 2u);  // ...work-conserving sends all that fit
  EXPECT_EQ(d.rows, 3);
}

}  // namespace
}  // namespace hone::serve
