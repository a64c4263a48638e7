// The dynamic batcher on real models: how batches form, and that each request gets its own rows back.
//
// Timing-free by construction: the Gate holds the only instance busy while a test queues requests behind it, so
// what the batcher sees when the instance frees is fixed; delays are long (so only the rule under test can send
// a batch early) or asserted only as lower bounds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "serve/core/scheduler_test_util.h"
#include "tensor/npy.h"
#include "tensor/npz.h"

namespace hone::serve {
namespace {

using ::testing::ElementsAre;
using test::AffineRequest;
using test::Harness;
using test::IsAffineAnswer;
using test::Options;
using test::TwoInputsRequest;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(SchedulerBatchingTest, RunsOneRequestOnItsOwnTensors) {
  Harness h(Options("affine", 8), "affine");
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(2, 0.5f, "id-7"), "a");
  ASSERT_TRUE(h.out.WaitFor(1));
  auto a = h.out.Get("a");
  EXPECT_TRUE(IsAffineAnswer(a.result, 2, 0.5f));
  EXPECT_EQ(a.result->id, "id-7");
  EXPECT_EQ(a.result->model_name, "affine");
  EXPECT_EQ(a.result->model_version, 1);
}

TEST(SchedulerBatchingTest, FormsTheLargestPreferredBatchThenWaitsForTheNext) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.preferred_batch_sizes = {2, 4};
  o.batching.max_queue_delay = seconds(30);  // only a preferred size can send a batch in this test
  o.batching.work_conserving = false;  // Triton's timing: the delay holds the batch
  Harness h(o, "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(4, 0, "hold"), "hold");  // a preferred size: runs at once, held in the gate
  ASSERT_TRUE(h.gate.WaitEntered(1));
  for (int i = 0; i < 5; ++i) h.Send(AffineRequest(1, 10.0f * i), test::Key("r", i));
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(5));  // the held batch and a batch of 4; the fifth waits for company
  EXPECT_EQ(h.out.Get("r4").result.status().code(), StatusCode::kNotFound);  // not answered yet
  h.Send(AffineRequest(1, 50), "r5");  // makes 2, a preferred size
  ASSERT_TRUE(h.out.WaitFor(7));
  EXPECT_THAT(h.gate.batches(), ElementsAre(4, 4, 2));
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(IsAffineAnswer(h.out.Get(test::Key("r", i)).result, 1, 10.0f * i));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("r5").result, 1, 50));
}

TEST(SchedulerBatchingTest, MaxQueueDelaySendsAPartialBatch) {
  SchedulerOptions o = Options("affine", 8);
  o.batching.max_queue_delay = milliseconds(200);
  o.batching.work_conserving = false;  // Triton's timing: the delay holds the batch
  Harness h(o, "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(8, 0, "full"), "full");  // a full batch goes at once
  ASSERT_TRUE(h.gate.WaitEntered(1));
  const auto sent = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i) h.Send(AffineRequest(1, 4.0f * i), test::Key("p", i));
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(4));
  EXPECT_THAT(h.gate.batches(), ElementsAre(8, 3));
  // Nothing but the delay could send 3 rows of a possible 8, so they waited at least that long.
  EXPECT_GE(h.out.Get("p0").at - sent, milliseconds(200));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(IsAffineAnswer(h.out.Get(test::Key("p", i)).result, 1, 4.0f * i));
}

TEST(SchedulerBatchingTest, ARequestThatDoesNotFitStartsTheNextBatch) {
  SchedulerOptions o = Options("affine", 4);
  o.batching.max_queue_delay = seconds(30);
  o.batching.work_conserving = false;  // Triton's timing: the delay holds the batch
  Harness h(o, "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(4, 0), "hold");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  h.Send(AffineRequest(3, 100), "three");
  h.Send(AffineRequest(2, 200), "two-a");
  h.Send(AffineRequest(2, 300), "two-b");
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(4));
  EXPECT_THAT(h.gate.batches(), ElementsAre(4, 3, 4));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("three").result, 3, 100));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("two-a").result, 2, 200));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("two-b").result, 2, 300));
}

// two_inputs.onnx: sum = ids + mask, count = row sums of mask.
::testing::AssertionResult IsTwoInputsAnswer(const Result<InferenceResponse>& r, int64_t rows, int64_t seq,
                                             int64_t start) {
  if (!r.ok()) return ::testing::AssertionFailure() << r.status().ToString();
  if (r->outputs.size() != 2) return ::testing::AssertionFailure() << r->outputs.size() << " outputs";
  const Tensor& sum = r->outputs[0].tensor;
  const Tensor& count = r->outputs[1].tensor;
  if (sum.shape() != Shape{rows, seq} || count.shape() != Shape{rows})
    return ::testing::AssertionFailure() << "shapes " << ShapeToString(sum.shape()) << ", "
                                         << ShapeToString(count.shape());
  for (int64_t i = 0; i < rows * seq; ++i)
    if (sum.values<int64_t>()[i] != start + i + 1) return ::testing::AssertionFailure() << "sum[" << i << "]";
  for (int64_t i = 0; i < rows; ++i)
    if (count.values<int64_t>()[i] != seq) return ::testing::AssertionFailure() << "count[" << i << "]";
  return ::testing::AssertionSuccess();
}

TEST(SchedulerBatchingTest, DifferentNonBatchShapesGoInSeparateBatches) {
  SchedulerOptions o = Options("two_inputs", 8);
  o.batching.max_queue_delay = seconds(30);
  o.batching.work_conserving = false;  // Triton's timing: the delay holds the batch
  Harness h(o, "two_inputs", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(TwoInputsRequest(8, 2, 0), "hold");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  h.Send(TwoInputsRequest(1, 3, 100), "seq3");
  h.Send(TwoInputsRequest(2, 5, 200), "seq5");
  h.Send(TwoInputsRequest(1, 3, 300), "seq3-again");  // not pulled forward past seq5
  h.Send(TwoInputsRequest(7, 3, 400), "seq3-fill");   // with seq3-again: a full batch of 8
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(5));
  EXPECT_THAT(h.gate.batches(), ElementsAre(8, 1, 2, 8));
  EXPECT_TRUE(IsTwoInputsAnswer(h.out.Get("seq3").result, 1, 3, 100));
  EXPECT_TRUE(IsTwoInputsAnswer(h.out.Get("seq5").result, 2, 5, 200));
  EXPECT_TRUE(IsTwoInputsAnswer(h.out.Get("seq3-again").result, 1, 3, 300));
  EXPECT_TRUE(IsTwoInputsAnswer(h.out.Get("seq3-fill").result, 7, 3, 400));
}

TEST(SchedulerBatchingTest, RequestedOutputsAreFilteredAndOrderedPerRequest) {
  SchedulerOptions o = Options("two_inputs", 8);
  o.batching.max_queue_delay = seconds(30);
  o.batching.work_conserving = false;  // Triton's timing: the delay holds the batch
  Harness h(o, "two_inputs", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(TwoInputsRequest(8, 2, 0), "hold");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  auto a = TwoInputsRequest(3, 2, 10);
  a.requested_outputs = {"count", "sum"};
  auto b = TwoInputsRequest(5, 2, 20);
  b.requested_outputs = {"count"};
  std::swap(b.inputs[0], b.inputs[1]);  // inputs in any order
  h.Send(std::move(a), "a");
  h.Send(std::move(b), "b");
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(3));
  EXPECT_THAT(h.gate.batches(), ElementsAre(8, 8));
  auto ra = h.out.Get("a").result;
  ASSERT_TRUE(ra.ok()) << ra.status().ToString();
  ASSERT_EQ(ra->outputs.size(), 2u);
  EXPECT_EQ(ra->outputs[0].name, "count");
  EXPECT_EQ(ra->outputs[0].tensor.shape(), Shape{3});
  EXPECT_EQ(ra->outputs[1].name, "sum");
  EXPECT_EQ(ra->outputs[1].tensor.values<int64_t>()[0], 11);
  auto rb = h.out.Get("b").result;
  ASSERT_TRUE(rb.ok()) << rb.status().ToString();
  ASSERT_EQ(rb->outputs.size(), 1u);
  EXPECT_EQ(rb->outputs[0].name, "count");
  EXPECT_EQ(rb->outputs[0].tensor.shape(), Shape{5});
  EXPECT_EQ(rb->outputs[0].tensor.values<int64_t>()[4], 2);
}

TEST(SchedulerBatchingTest, SplitLogitsMatchTheReferenceForEveryImage) {
  auto images = ReadNpz(std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz");
  ASSERT_TRUE(images.ok()) << images.status().ToString();
  auto reference = ReadNpy(std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/reference_logits.npy");
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  const Tensor& all = (*images)[0].name == "image" ? (*images)[0].tensor : (*images)[1].tensor;

  // No delay: with everything queued behind the held batch, batches are filled greedily and the last goes too.
  Harness h(Options("fashion_mnist", 16), "fashion_mnist", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  auto request = [&](int64_t begin, int64_t rows) {
    InferenceRequest r;
    r.inputs.push_back({"image", *all.SliceRows(begin, rows)});  // views into the dataset: no copies
    return r;
  };
  h.Send(request(0, 16), "hold");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  // 1 + 2 + 3 + ... rows: batches of 16 made of requests of different sizes.
  std::vector<std::pair<int64_t, int64_t>> spans;
  int64_t begin = 16;
  for (int64_t rows = 1; begin + rows <= 16 + 48; rows = rows % 5 + 1) {
    spans.push_back({begin, rows});
    h.Send(request(begin, rows), std::to_string(begin));
    begin += rows;
  }
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(spans.size() + 1));
  for (auto [first, rows] : spans) {
    auto r = h.out.Get(std::to_string(first)).result;
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const Tensor& logits = r->outputs[0].tensor;
    ASSERT_EQ(logits.shape(), (Shape{rows, 10}));
    for (int64_t i = 0; i < rows * 10; ++i)
      ASSERT_NEAR(logits.values<float>()[i], reference->values<float>()[first * 10 + i], 1e-4)
          << "image " << first + i / 10;
  }
  for (int64_t rows : h.gate.batches()) EXPECT_LE(rows, 16);
}

TEST(SchedulerBatchingTest, WithoutDynamicBatchingEachRequestRunsAlone) {
  Harness h(Options("affine", 8, /*dynamic=*/false), "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(1, 0), "hold");
  ASSERT_TRUE(h.gate.WaitEntered(1));
  h.Send(AffineRequest(2, 1), "a");
  h.Send(AffineRequest(3, 2), "b");
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(3));
  EXPECT_THAT(h.gate.batches(), ElementsAre(1, 2, 3));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("b").result, 3, 2));
}

TEST(SchedulerBatchingTest, ModelWithoutBatchDimensionRunsRequestsWhole) {
  Harness h(Options("affine", 0, /*dynamic=*/false), "affine");
  ASSERT_NE(h.scheduler, nullptr);
  h.Send(AffineRequest(12, 3), "a");  // no batch dimension: 12 is just a dimension, not capped
  ASSERT_TRUE(h.out.WaitFor(1));
  EXPECT_TRUE(IsAffineAnswer(h.out.Get("a").result, 12, 3));
  EXPECT_THAT(h.gate.batches(), ElementsAre(1));
  auto snap = h.stats.Snapshot();
  EXPECT_EQ(snap.inference_count, 1u);
  ASSERT_EQ(snap.batch_stats.size(), 1u);
  EXPECT_EQ(snap.batch_stats[0].batch_size, 1);
}

TEST(SchedulerBatchingTest, RuntimeErrorFailsTheBatchWithTheSessionsStatus) {
  Harness h(Options("two_inputs", 8), "two_inputs");
  ASSERT_NE(h.scheduler, nullptr);
  auto r = TwoInputsRequest(1, 3, 0);
  r.inputs[1].tensor = test::Make<int64_t>({1, 5}, {1, 1, 1, 1, 1});  // valid shapes, but Add cannot broadcast
  h.Send(std::move(r), "bad");
  ASSERT_TRUE(h.out.WaitFor(1));
  Status s = h.out.Get("bad").result.status();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.code(), StatusCode::kUnavailable);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("model 'two_inputs' version 1"));
  auto snap = h.stats.Snapshot();
  EXPECT_EQ(snap.fail.count, 1u);
  EXPECT_EQ(snap.execution_count, 0u);
  EXPECT_EQ(h.scheduler->pending(), 0);
}

}  // namespace
}  // namespace hone::serve
