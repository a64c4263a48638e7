// The compression stage: skipped, saying why, where pruning has nothing to work on or the profile says it would
// not pay; on a model with feed-forward blocks, pruned variants made from the user's model, verified against it and
// searched against the incumbent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/prune_test_models.h"
#include "tune/tune_state.h"
#include "tune/variant_stage_test_util.h"

namespace hone::tune {
namespace {

using ::testing::HasSubstr;
using TuneCompressionTest = testing::VariantStageTest;

TEST_F(TuneCompressionTest, SkippedWhenTheProfileSaysMatMulIsNotTheCost) {
  Prepare(onnx::testing::FfnModel(64), false, {6, 4});
  state_.ledger.compute_first = false;
  RunCompressionStage(state_);
  const StageRecord& r = state_.ledger.stages.back();
  EXPECT_EQ(r.name, "compression");
  EXPECT_EQ(r.index, 7);
  EXPECT_EQ(r.status, StageStatus::kSkipped);
  EXPECT_THAT(r.reason, HasSubstr("MatMul/Gemm"));
}

TEST_F(TuneCompressionTest, SkippedWhenTheModelHasNoFeedForwardBlock) {
  Prepare(onnx::testing::MatMulModel(), false);
  state_.ledger.compute_first = true;
  RunCompressionStage(state_);
  EXPECT_EQ(state_.ledger.stages.back().status, StageStatus::kSkipped);
  EXPECT_THAT(state_.ledger.stages.back().reason, HasSubstr("no feed-forward block (MatMul, elementwise activation, MatMul) or Conv"));
}

// Half of the block's neurons repeat the other half (FfnModel's duplicate_half): pruning a quarter or a half loses
// nothing once refitted, so both variants match the source under the default tolerances.
TEST_F(TuneCompressionTest, PrunedVariantsAreMadeFromTheSourceAndVerifiedAgainstIt) {
  Prepare(onnx::testing::FfnModel(64, false, true), false, {6, 4});
  state_.ledger.compute_first = true;
  RunCompressionStage(state_);
  const StageRecord& r = state_.ledger.stages.back();
  EXPECT_EQ(r.name, "compression");
  ASSERT_EQ(r.variant_checks.size(), 2u) << r.reason;
  EXPECT_EQ(r.variant_checks[0].variant, "prune-ffn-25");
  EXPECT_EQ(r.variant_checks[1].variant, "prune-ffn-50");
  for (const VariantCheckRecord& c : r.variant_checks) {
    ASSERT_FALSE(c.outcome.compare.outputs.empty()) << c.variant;
    EXPECT_TRUE(c.outcome.compare.outputs[0].passed) << c.variant << ": " << c.outcome.compare.outputs[0].failure;
    EXPECT_GT(c.outcome.source_bytes, c.outcome.variant_bytes) << c.variant;
  }
  // A variant that passed competes as a candidate with what it changed said.
  for (const Entry& e : r.entries) {
    if (e.candidate.id == "prune-ffn-25") {
      EXPECT_EQ(e.candidate.compression, "prune-ffn-25");
      EXPECT_EQ(e.candidate.precision, "fp32");
      EXPECT_THAT(e.candidate.Describe(), HasSubstr("fp32, prune-ffn-25"));
    }
  }
}

}  // namespace
}  // namespace hone::tune
