// Request and option validation, against the real test models' metadata, plus the at-once rejection path.
#include "serve/core/scheduler_validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "serve/core/scheduler_test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;
using test::AffineRequest;
using test::Make;
using test::OpenInstances;
using test::TwoInputsRequest;

class ValidateRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    affine_ = std::move(OpenInstances("affine").front());
    two_ = std::move(OpenInstances("two_inputs").front());
  }
  // The error message for `r` against `session` with max_batch_size `max`, or "ok".
  Status Check(InferenceRequest r, const ModelInstance& session, int64_t max = 8) {
    auto rows = ValidateRequest(session.metadata(), max, r);
    return rows.status();
  }
  std::unique_ptr<ModelInstance> affine_, two_;
};

TEST_F(ValidateRequestTest, AcceptsAndReordersInputsIntoModelOrder) {
  InferenceRequest r = TwoInputsRequest(3, 2, 0);
  std::swap(r.inputs[0], r.inputs[1]);  // mask first
  auto rows = ValidateRequest(two_->metadata(), 8, r);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, 3);
  EXPECT_EQ(r.inputs[0].name, "ids");
  EXPECT_EQ(r.inputs[1].name, "mask");
}

TEST_F(ValidateRequestTest, WithoutBatchDimensionTheBatchIsOne) {
  auto r = AffineRequest(5, 0);
  auto rows = ValidateRequest(affine_->metadata(), 0, r);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, 1);
}

// A malformed request, not a missing resource: Triton answers INVALID_ARGUMENT over gRPC (400 over HTTP).
TEST_F(ValidateRequestTest, UnknownInputIsInvalidArgument) {
  auto r = AffineRequest(1, 0);
  r.inputs.push_back({"z", Make<float>({1, 4}, {0, 0, 0, 0})});
  Status s = Check(std::move(r), *affine_);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input 'z'"));
  EXPECT_THAT(s.message(), HasSubstr("expected x"));
}

TEST_F(ValidateRequestTest, InputGivenTwice) {
  auto r = AffineRequest(1, 0);
  r.inputs.push_back(r.inputs[0]);
  Status s = Check(std::move(r), *affine_);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input 'x': given more than once"));
}

TEST_F(ValidateRequestTest, MissingInput) {
  auto r = TwoInputsRequest(1, 2, 0);
  r.inputs.pop_back();
  Status s = Check(std::move(r), *two_);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input 'mask': missing"));
}

TEST_F(ValidateRequestTest, WrongType) {
  InferenceRequest r;
  r.inputs.push_back({"x", Make<int64_t>({1, 4}, {0, 1, 2, 3})});
  Status s = Check(std::move(r), *affine_);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input 'x': expected FP32, got INT64"));
}

TEST_F(ValidateRequestTest, WrongRank) {
  InferenceRequest r;
  r.inputs.push_back({"x", Make<float>({4}, {0, 1, 2, 3})});
  Status s = Check(std::move(r), *affine_);
  EXPECT_THAT(s.message(), HasSubstr("input 'x': expected rank 2"));
  EXPECT_THAT(s.message(), HasSubstr("got shape 4"));
}

TEST_F(ValidateRequestTest, WrongFixedDimension) {
  InferenceRequest r;
  r.inputs.push_back({"x", Make<float>({1, 3}, {0, 1, 2})});
  Status s = Check(std::move(r), *affine_);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input 'x': dimension 1 must be 4"));
  EXPECT_THAT(s.message(), HasSubstr("got shape 1x3"));
}

TEST_F(ValidateRequestTest, BatchSizeOutOfRange) {
  Status zero = Check(AffineRequest(0, 0), *affine_);
  EXPECT_EQ(zero.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(zero.message(), HasSubstr("input 'x': batch size 0, expected 1 to 8"));
  Status big = Check(AffineRequest(9, 0), *affine_);
  EXPECT_THAT(big.message(), HasSubstr("batch size 9, expected 1 to 8 (max_batch_size)"));
}

TEST_F(ValidateRequestTest, InputsDisagreeOnBatchSize) {
  auto r = TwoInputsRequest(2, 3, 0);
  r.inputs[1].tensor = Make<int64_t>({1, 3}, {1, 1, 1});
  Status s = Check(std::move(r), *two_);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input 'mask': batch size 1, expected 2 (the batch size of input 'ids')"));
}

TEST_F(ValidateRequestTest, UnknownOrRepeatedRequestedOutput) {
  auto r = TwoInputsRequest(1, 2, 0);
  r.requested_outputs = {"count", "nope"};
  Status unknown = Check(std::move(r), *two_);
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.message(), HasSubstr("output 'nope'"));
  auto r2 = TwoInputsRequest(1, 2, 0);
  r2.requested_outputs = {"sum", "sum"};
  Status twice = Check(std::move(r2), *two_);
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(twice.message(), HasSubstr("output 'sum': requested more than once"));
}

TEST(ValidateOptionsTest, RejectsBadOptions) {
  auto affine = OpenInstances("affine");
  SchedulerOptions o = test::Options("affine", 4);
  EXPECT_TRUE(ValidateSchedulerOptions(o, affine).ok());
  EXPECT_THAT(ValidateSchedulerOptions(o, {}).message(), HasSubstr("at least one instance"));

  SchedulerOptions preferred = o;
  preferred.batching.preferred_batch_sizes = {2, 8};
  EXPECT_THAT(ValidateSchedulerOptions(preferred, affine).message(), HasSubstr("preferred batch size 8"));

  SchedulerOptions levels = o;
  levels.batching.priority_levels = 2;
  levels.batching.default_priority_level = 3;
  EXPECT_THAT(ValidateSchedulerOptions(levels, affine).message(), HasSubstr("default_priority_level 3"));
  levels.batching.default_priority_level = 1;
  levels.batching.priority_queue_policy.push_back({5, {}});
  EXPECT_THAT(ValidateSchedulerOptions(levels, affine).message(), HasSubstr("level 5"));

  SchedulerOptions no_batch = o;
  no_batch.max_batch_size = 0;
  EXPECT_THAT(ValidateSchedulerOptions(no_batch, affine).message(), HasSubstr("needs max_batch_size > 0"));

  auto mixed = OpenInstances("affine");
  mixed.push_back(std::move(OpenInstances("two_inputs").front()));
  EXPECT_THAT(ValidateSchedulerOptions(o, mixed).message(), HasSubstr("same inputs and outputs"));
}

TEST(SchedulerRejectTest, InvalidRequestFailsAtOnceWithTheModelNamed) {
  test::Harness h(test::Options("affine", 4), "affine");
  ASSERT_NE(h.scheduler, nullptr);
  InferenceRequest r;
  r.inputs.push_back({"x", Make<int64_t>({1, 4}, {0, 1, 2, 3})});
  h.Send(std::move(r), "bad");
  ASSERT_EQ(h.out.size(), 1u);  // the callback ran inside Enqueue
  Status s = h.out.Get("bad").result.status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("model 'affine' version 1: input 'x': expected FP32, got INT64"));
  EXPECT_EQ(h.stats.Snapshot().fail.count, 1u);
  EXPECT_EQ(h.scheduler->pending(), 0);
}

TEST(SchedulerRejectTest, CreateRejectsInvalidOptions) {
  SchedulerOptions o = test::Options("affine", 4);
  o.batching.preferred_batch_sizes = {5};
  auto created = Scheduler::Create(o, OpenInstances("affine"), nullptr);
  ASSERT_FALSE(created.ok());
  EXPECT_THAT(created.status().message(), HasSubstr("model 'affine' version 1: preferred batch size 5"));
}

}  // namespace
}  // namespace hone::serve
