#include "serve/core/model_stats.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace hone::serve {
namespace {

TEST(ModelStatsTest, StartsEmpty) {
  ModelStats stats("m", 3, 8, nullptr);
  client::ModelStatsSnapshot s = stats.Snapshot();
  EXPECT_EQ(s.name, "m");
  EXPECT_EQ(s.version, 3);
  EXPECT_EQ(s.last_inference_ms, 0u);
  EXPECT_EQ(s.success.count, 0u);
  EXPECT_TRUE(s.batch_stats.empty());
  EXPECT_EQ(s.pending, 0);
}

TEST(ModelStatsTest, RecordsRequestsExecutionsAndPending) {
  ModelStats stats("m", 1, 8, nullptr);
  stats.AddPending(2);
  stats.RecordExecution(3, 10, 100, 1000);
  stats.RecordSuccess(5000, 400, 10, 100, 1000, 2);
  stats.RecordSuccess(6000, 500, 10, 100, 1000, 1);
  stats.RecordFailure(700);
  stats.AddPending(-2);
  client::ModelStatsSnapshot s = stats.Snapshot();
  EXPECT_EQ(s.success.count, 2u);
  EXPECT_EQ(s.success.ns, 11000u);
  EXPECT_EQ(s.queue.ns, 900u);
  EXPECT_EQ(s.compute_infer.count, 2u);
  EXPECT_EQ(s.compute_infer.ns, 200u);
  EXPECT_EQ(s.fail.count, 1u);
  EXPECT_EQ(s.fail.ns, 700u);
  EXPECT_EQ(s.inference_count, 3u);
  EXPECT_EQ(s.execution_count, 1u);
  EXPECT_EQ(s.pending, 0);
  EXPECT_GT(s.last_inference_ms, 1600000000000u);  // ms since the epoch, after 2020
}

TEST(ModelStatsTest, BatchStatsPerExecutedSizeAscending) {
  ModelStats stats("m", 1, 4, nullptr);
  stats.RecordExecution(4, 1, 2, 3);
  stats.RecordExecution(1, 1, 2, 3);
  stats.RecordExecution(4, 1, 2, 3);
  stats.RecordExecution(9, 1, 2, 3);  // beyond max_batch_size: still counted
  client::ModelStatsSnapshot s = stats.Snapshot();
  ASSERT_EQ(s.batch_stats.size(), 3u);
  EXPECT_EQ(s.batch_stats[0].batch_size, 1);
  EXPECT_EQ(s.batch_stats[1].batch_size, 4);
  EXPECT_EQ(s.batch_stats[1].compute_infer.count, 2u);
  EXPECT_EQ(s.batch_stats[1].compute_output.ns, 6u);
  EXPECT_EQ(s.batch_stats[2].batch_size, 9);
  EXPECT_EQ(s.execution_count, 4u);
}

TEST(ModelStatsTest, ConcurrentRecordingLosesNothing) {
  ModelStats stats("m", 1, 8, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10000; ++i) {
        stats.AddPending(1);
        stats.RecordExecution(1 + (t + i) % 8, 1, 1, 1);
        stats.RecordSuccess(2, 1, 1, 1, 1, 1);
        stats.AddPending(-1);
      }
    });
  for (auto& t : threads) t.join();
  client::ModelStatsSnapshot s = stats.Snapshot();
  EXPECT_EQ(s.success.count, 40000u);
  EXPECT_EQ(s.success.ns, 80000u);
  EXPECT_EQ(s.execution_count, 40000u);
  uint64_t executions = 0;
  for (const auto& b : s.batch_stats) executions += b.compute_input.count;
  EXPECT_EQ(executions, 40000u);
  EXPECT_EQ(s.pending, 0);
}

TEST(ModelStatsTest, SnapshotsNeverShowARequestOrABatchHalfRecorded) {
  // perf_analyzer aborts when the compute counts of two snapshots' difference disagree; record from two threads
  // while a third reads.
  ModelStats stats("m", 1, 4, nullptr);
  std::atomic<bool> done{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t) {
    writers.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        stats.RecordExecution(1 + i % 4, 1, 2, 3);
        stats.RecordSuccess(10, 1, 1, 2, 3, 1);
      }
    });
  }
  int torn = 0;
  std::thread reader([&] {
    while (!done.load()) {
      client::ModelStatsSnapshot s = stats.Snapshot();
      if (s.compute_input.count != s.compute_infer.count || s.compute_infer.count != s.compute_output.count ||
          s.success.count != s.compute_input.count || s.queue.count != s.success.count)
        ++torn;
      for (const client::BatchSizeStats& b : s.batch_stats)
        if (b.compute_input.count != b.compute_infer.count || b.compute_infer.count != b.compute_output.count) ++torn;
    }
  });
  for (auto& w : writers) w.join();
  done = true;
  reader.join();
  EXPECT_EQ(torn, 0);
  client::ModelStatsSnapshot s = stats.Snapshot();
  EXPECT_EQ(s.compute_infer.count, 40000u);
  EXPECT_EQ(s.execution_count, 40000u);
}

}  // namespace
}  // namespace hone::serve
