#include "serve/core/thread_split.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hone::serve {
namespace {

using ::testing::HasSubstr;

// Every intra-op thread the split starts, over all instances of all models.
int64_t TotalThreads(const std::map<std::string, ThreadShare>& split, const std::vector<ThreadDemand>& demands) {
  int64_t total = 0;
  for (const ThreadDemand& d : demands) total += int64_t{d.instances} * split.at(d.model).threads_per_instance;
  return total;
}

TEST(ThreadSplitTest, TwoModelsShareTheCoresInsteadOfEachTakingThemAll) {
  std::vector<ThreadDemand> demands = {{"a", 1, std::nullopt}, {"b", 1, std::nullopt}};
  auto split = SplitThreads(2, demands);
  EXPECT_EQ(split.at("a").threads_per_instance, 1);
  EXPECT_EQ(split.at("b").threads_per_instance, 1);
  EXPECT_EQ(TotalThreads(split, demands), 2);
  EXPECT_EQ(split.at("a").why, "2 core(s) split over 2 instance(s) of 2 model(s)");
}

TEST(ThreadSplitTest, EveryInstanceOfEveryModelCounts) {
  std::vector<ThreadDemand> demands = {{"a", 2, std::nullopt}, {"b", 1, std::nullopt}, {"c", 1, std::nullopt}};
  auto split = SplitThreads(16, demands);
  EXPECT_EQ(split.at("a").threads_per_instance, 4);
  EXPECT_EQ(split.at("b").threads_per_instance, 4);
  EXPECT_EQ(split.at("c").threads_per_instance, 4);
  EXPECT_EQ(TotalThreads(split, demands), 16);
}

TEST(ThreadSplitTest, LeftoverCoresGoOneMorePerInstanceInNameOrder) {
  std::vector<ThreadDemand> demands = {{"b", 2, std::nullopt}, {"a", 1, std::nullopt}};
  auto split = SplitThreads(8, demands);  // 8 / 3 instances = 2, 2 left over
  EXPECT_EQ(split.at("a").threads_per_instance, 3);  // takes one of the two
  EXPECT_EQ(split.at("b").threads_per_instance, 2);  // needs two for its two instances: one is left
  EXPECT_LE(TotalThreads(split, demands), 8);
  EXPECT_GE(TotalThreads(split, demands), 7);
}

TEST(ThreadSplitTest, MoreInstancesThanCoresGetOneEach) {
  std::vector<ThreadDemand> demands = {{"a", 3, std::nullopt}, {"b", 2, std::nullopt}};
  auto split = SplitThreads(2, demands);
  EXPECT_EQ(split.at("a").threads_per_instance, 1);
  EXPECT_EQ(split.at("b").threads_per_instance, 1);
  EXPECT_THAT(split.at("a").why, HasSubstr("oversubscribed"));
}

TEST(ThreadSplitTest, ExplicitThreadsAreKeptAndComeOffTheCoresFirst) {
  std::vector<ThreadDemand> demands = {{"pinned", 2, 2}, {"a", 1, std::nullopt}, {"b", 1, std::nullopt}};
  auto split = SplitThreads(8, demands);
  EXPECT_EQ(split.at("pinned").threads_per_instance, 2);
  EXPECT_EQ(split.at("pinned").why, "intra_op_thread_count set in its config");
  EXPECT_EQ(split.at("a").threads_per_instance, 2);  // (8 - 4) / 2
  EXPECT_EQ(split.at("b").threads_per_instance, 2);
  EXPECT_EQ(split.at("a").why, "4 core(s) (of 8, after 4 thread(s) that configs set) split over 2 instance(s) of "
                               "2 model(s)");
  EXPECT_EQ(TotalThreads(split, demands), 8);
}

TEST(ThreadSplitTest, OneModelAloneGetsEveryCore) {
  auto split = SplitThreads(4, {{"a", 1, std::nullopt}});
  EXPECT_EQ(split.at("a").threads_per_instance, 4);
  split = SplitThreads(0, {{"a", 1, std::nullopt}});  // no cores known: still one thread
  EXPECT_EQ(split.at("a").threads_per_instance, 1);
}

}  // namespace
}  // namespace hone::serve
