// SearchPruneRatio on the small CNN of the pruning tests: which shares it measures and which it passes over, and its
// refusals. Which share reaches a real goal depends on the machine's speed, so the goals here are out of reach
// (every distinct share measured, none chosen); the choice itself is the first step at or above the goal.
#include "harness/prune_search.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/graph_io.h"
#include "onnx/prune_test_models.h"
#include "tensor/npz.h"

namespace hone::harness {
namespace {

using ::testing::HasSubstr;

class PruneSearchTest : public ::testing::Test {
 protected:
  PruneSearchSettings Settings(double target) {
    const std::string model = dir_.WriteModel("cnn.onnx", onnx::testing::CnnModel(8, 8));
    const std::string data = dir_.File("images.npz");
    std::vector<NamedTensor> arrays{{"x", onnx::testing::RandomTensor({192, 1, 8, 8}, 9, -1, 1)}};
    EXPECT_TRUE(WriteNpz(data, arrays, false).ok());
    PruneSearchSettings s;
    s.source_path = model;
    s.prune.calibration_inputs.data_path = data;
    s.prune.channel_multiple = 2;
    s.prune.keep_multiple = 2;
    s.prune.calibration_threads = 1;
    s.inputs.data_path = data;
    s.target_speedup = target;
    s.rounds = 1;
    s.window_s = 0.01;
    return s;
  }
  onnx::testing::TempDir dir_;
};

TEST_F(PruneSearchTest, MeasuresEachDistinctShareGentlestFirstAndSaysWhenNoneReachesTheGoal) {
  PruneSearchSettings s = Settings(1000);
  s.ratios = {0.25, 0.3, 0.5};  // 0.3 keeps what 0.25 keeps (6 of 8 channels in multiples of 2)
  auto r = SearchPruneRatio(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->chosen.has_value());
  ASSERT_EQ(r->steps.size(), 3u);
  EXPECT_TRUE(r->steps[0].measured);
  EXPECT_EQ(r->steps[0].kept, "channels 12/16");
  EXPECT_GT(r->steps[0].speedup, 0);
  EXPECT_LE(r->steps[0].speedup_min, r->steps[0].speedup_max);
  EXPECT_FALSE(r->steps[1].measured);
  EXPECT_THAT(r->steps[1].note, HasSubstr("the same model"));
  EXPECT_TRUE(r->steps[2].measured);
  EXPECT_EQ(r->steps[2].kept, "channels 8/16");
}

TEST_F(PruneSearchTest, StopsAtTheFirstShareThatReachesTheGoal) {
  PruneSearchSettings s = Settings(1.0000001);
  s.ratios = {0.5, 0.75};
  s.target_speedup = 1e-9;  // below any speed: Validate refuses it
  EXPECT_THAT(SearchPruneRatio(s).status().message(), HasSubstr("--target-speedup"));
  s.target_speedup = 1.0000001;
  s.window_s = 0.05;
  auto r = SearchPruneRatio(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Either share may or may not measure above 1 on a shared machine; whichever is chosen is the first that did.
  for (size_t i = 0; i < r->steps.size(); ++i) {
    const bool reached = r->steps[i].measured && r->steps[i].speedup >= s.target_speedup;
    if (reached) {
      ASSERT_TRUE(r->chosen.has_value());
      EXPECT_EQ(*r->chosen, r->steps[i].ratio);
      EXPECT_EQ(i + 1, r->steps.size()) << "the search goes on after a share that reached the goal";
    }
  }
  if (!r->chosen) EXPECT_EQ(r->steps.size(), 2u);
}

TEST_F(PruneSearchTest, RefusesSharesOutsideTheUnitInterval) {
  PruneSearchSettings s = Settings(1.5);
  s.ratios = {0.5, 1.0};
  EXPECT_THAT(SearchPruneRatio(s).status().message(), HasSubstr("share 1"));
  s.ratios.clear();
  EXPECT_THAT(SearchPruneRatio(s).status().message(), HasSubstr("no shares"));
}

}  // namespace
}  // namespace hone::harness
