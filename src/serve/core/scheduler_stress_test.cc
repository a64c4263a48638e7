// Many client threads against one scheduler: every request answered exactly once with its own rows, and the
// statistics add up. Run under ThreadSanitizer too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "serve/core/scheduler_test_util.h"

namespace hone::serve {
namespace {

using test::AffineRequest;
using test::Harness;
using test::IsAffineAnswer;
using test::Options;

constexpr int kThreads = 6;
constexpr int kPerThread = 150;

struct Sent {
  std::atomic<int64_t> valid{0}, invalid{0}, rows{0};
};

// Client `t` sends kPerThread requests (every 25th invalid), checking each answer in its callback.
void Client(Scheduler& scheduler, int t, Sent& sent, std::atomic<int>& wrong, std::atomic<int>& callbacks,
            bool tolerate_unavailable) {
  for (int i = 0; i < kPerThread; ++i) {
    const int64_t rows = 1 + (t + i) % 3;
    const float start = static_cast<float>(t * 100000 + i * 16);
    InferenceRequest r = AffineRequest(rows, start);
    r.priority = static_cast<uint32_t>(i % 3);
    const bool invalid = i % 25 == 24;
    if (invalid) r.inputs[0].name = "wrong";
    (invalid ? sent.invalid : sent.valid).fetch_add(1);
    if (!invalid) sent.rows.fetch_add(rows);
    scheduler.Enqueue(std::move(r), [=, &wrong, &callbacks](Result<InferenceResponse> response) {
      callbacks.fetch_add(1);
      if (invalid) {
        if (response.status().code() != StatusCode::kInvalidArgument) wrong.fetch_add(1);
      } else if (tolerate_unavailable && response.status().code() == StatusCode::kUnavailable) {
        // stopped before it ran
      } else if (!IsAffineAnswer(response, rows, start)) {
        wrong.fetch_add(1);
      }
    });
  }
}

bool WaitForCount(const std::atomic<int>& n, int want) {
  const auto limit = std::chrono::steady_clock::now() + test::kWaitLimit;
  while (n.load() < want) {
    if (std::chrono::steady_clock::now() > limit) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

TEST(SchedulerStressTest, ManyClientsEachGetTheirOwnRowsAndStatsAddUp) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.preferred_batch_sizes = {4, 8};
  o.batching.max_queue_delay = std::chrono::milliseconds(2);
  o.batching.priority_levels = 2;
  o.batching.default_priority_level = 2;
  Harness h(o, "affine", /*instances=*/2);
  ASSERT_NE(h.scheduler, nullptr);
  Sent sent;
  std::atomic<int> wrong{0}, callbacks{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t)
    clients.emplace_back([&, t] { Client(*h.scheduler, t, sent, wrong, callbacks, false); });
  for (auto& c : clients) c.join();
  ASSERT_TRUE(WaitForCount(callbacks, kThreads * kPerThread));
  h.scheduler->Stop(std::chrono::steady_clock::now());
  EXPECT_EQ(callbacks.load(), kThreads * kPerThread);  // and no more after Stop
  EXPECT_EQ(wrong.load(), 0);

  client::ModelStatsSnapshot s = h.stats.Snapshot();
  EXPECT_EQ(s.success.count, static_cast<uint64_t>(sent.valid.load()));
  EXPECT_EQ(s.fail.count, static_cast<uint64_t>(sent.invalid.load()));
  EXPECT_EQ(s.queue.count, s.success.count);
  EXPECT_EQ(s.compute_infer.count, s.success.count);
  EXPECT_EQ(s.inference_count, static_cast<uint64_t>(sent.rows.load()));
  EXPECT_EQ(s.pending, 0);
  uint64_t executions = 0, rows = 0;
  for (const client::BatchSizeStats& b : s.batch_stats) {
    EXPECT_GE(b.batch_size, 1);
    EXPECT_LE(b.batch_size, 8);
    executions += b.compute_infer.count;
    rows += b.compute_infer.count * static_cast<uint64_t>(b.batch_size);
  }
  EXPECT_EQ(executions, s.execution_count);
  EXPECT_EQ(rows, s.inference_count);
  EXPECT_GT(s.last_inference_ms, 0u);
}

TEST(SchedulerStressTest, StopWhileClientsSendAnswersEveryRequestOnce) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.max_queue_delay = std::chrono::milliseconds(1);
  o.batching.preserve_ordering = true;
  o.batching.priority_levels = 3;
  o.batching.default_priority_level = 1;
  Harness h(o, "affine", /*instances=*/2);
  ASSERT_NE(h.scheduler, nullptr);
  Sent sent;
  std::atomic<int> wrong{0}, callbacks{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t)
    clients.emplace_back([&, t] { Client(*h.scheduler, t, sent, wrong, callbacks, true); });
  WaitForCount(callbacks, kPerThread);  // some traffic first (not required for correctness)
  h.scheduler->Stop(std::chrono::steady_clock::now());
  for (auto& c : clients) c.join();
  ASSERT_TRUE(WaitForCount(callbacks, kThreads * kPerThread));
  EXPECT_EQ(callbacks.load(), kThreads * kPerThread);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(h.scheduler->pending(), 0);
  client::ModelStatsSnapshot s = h.stats.Snapshot();
  EXPECT_EQ(s.success.count + s.fail.count, static_cast<uint64_t>(kThreads * kPerThread));
  EXPECT_EQ(s.pending, 0);
}

}  // namespace
}  // namespace hone::serve
