// The ensemble scheduler on its own, with steps answered by other threads (as models' instance threads answer
// them): a diamond of steps, many requests at once, each answered exactly once with its own result; a failing step
// ends its request naming the step; Stop ends what is still in flight. Built without config text, so that it runs
// under ThreadSanitizer too (Debian's libprotobuf is not built with it, and parsing a config's maps there crashes).
#include "serve/core/ensemble_scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "serve/core/scheduler_test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;

runtime::IoSpec Spec(const std::string& name) { return {name, DataType::kFp32, "FP32", {-1, 2}, {"batch", ""}}; }

// x -> double -> d; x -> add1 -> a; (d, a) -> sum -> out: out = 2x + (x + 1) = 3x + 1.
EnsembleOptions Diamond() {
  EnsembleOptions o;
  o.model_name = "diamond";
  o.max_batch_size = 8;
  o.metadata.inputs = {Spec("x")};
  o.metadata.outputs = {Spec("out")};
  o.plan.steps = {
      {"double", 0, {{"in", "x"}}, {{"out", "d"}}, {}},
      {"add1", 0, {{"in", "x"}}, {{"out", "a"}}, {}},
      {"sum", 0, {{"a", "d"}, {"b", "a"}}, {{"out", "out"}}, {0, 1}},
  };
  return o;
}

// Answers each step on a thread of its own, after `delay`, as another model's scheduler would.
class FakeModels {
 public:
  explicit FakeModels(std::chrono::microseconds delay = std::chrono::microseconds(0)) : delay_(delay) {}
  // Joins every step's thread, under the lock that dispatching takes: a step still running may dispatch the next.
  ~FakeModels() {
    for (;;) {
      std::vector<std::thread> threads;
      {
        std::lock_guard lock(mu_);
        threads.swap(threads_);
      }
      if (threads.empty()) break;
      for (auto& t : threads) t.join();
    }
  }

  StepDispatch Dispatch() {
    return [this](InferenceRequest r, ResponseCallback done) {
      std::lock_guard lock(mu_);
      ++dispatched_;
      threads_.emplace_back([this, r = std::move(r), done = std::move(done)]() mutable {
        std::this_thread::sleep_for(delay_);
        done(Run(r));
      });
    };
  }
  int dispatched() {
    std::lock_guard lock(mu_);
    return dispatched_;
  }
  std::atomic<bool> fail_sum{false};

 private:
  Result<InferenceResponse> Run(const InferenceRequest& r) {
    if (r.model_name == "sum" && fail_sum) return Status::Internal("sum broke");
    const Tensor& first = r.inputs[0].tensor;
    Tensor out = first.Clone();
    auto v = out.mutable_values<float>();
    for (size_t i = 0; i < v.size(); ++i) {
      if (r.model_name == "double") v[i] *= 2;
      if (r.model_name == "add1") v[i] += 1;
      if (r.model_name == "sum") v[i] += r.inputs[1].tensor.values<float>()[i];
    }
    InferenceResponse response;
    response.model_name = r.model_name;
    response.outputs.push_back({"out", std::move(out)});
    return response;
  }

  std::chrono::microseconds delay_;
  std::mutex mu_;
  int dispatched_ = 0;
  std::vector<std::thread> threads_;
};

InferenceRequest Request(float start) {
  InferenceRequest r;
  r.model_name = "diamond";
  r.inputs.push_back({"x", test::Make<float>({1, 2}, {start, start + 1})});
  return r;
}

TEST(EnsembleSchedulerTest, ManyRequestsEachGetTheirOwnAnswerOnce) {
  FakeModels models;
  ModelStats stats("diamond", 1, 8, nullptr);
  {
    auto scheduler = CreateEnsembleScheduler(Diamond(), models.Dispatch(), &stats);
    constexpr int kRequests = 50;
    std::vector<std::promise<Result<InferenceResponse>>> answers(kRequests);
    std::atomic<int> calls{0};
    for (int i = 0; i < kRequests; ++i)
      scheduler->Enqueue(Request(static_cast<float>(i)), [&, i](Result<InferenceResponse> r) {
        ++calls;
        answers[static_cast<size_t>(i)].set_value(std::move(r));
      });
    for (int i = 0; i < kRequests; ++i) {
      auto r = answers[static_cast<size_t>(i)].get_future().get();
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      auto v = r->outputs[0].tensor.values<float>();
      EXPECT_EQ(v[0], 3.0f * static_cast<float>(i) + 1);
      EXPECT_EQ(v[1], 3.0f * static_cast<float>(i + 1) + 1);
      EXPECT_EQ(r->model_name, "diamond");
    }
    EXPECT_EQ(calls.load(), kRequests);
    EXPECT_EQ(models.dispatched(), 3 * kRequests);
    // A request counts as pending until its answer's callback has returned: Stop waits for the last one.
    scheduler->Stop(std::chrono::steady_clock::now() + std::chrono::seconds(5));
    EXPECT_EQ(scheduler->pending(), 0);
  }
  EXPECT_EQ(stats.Snapshot().success.count, 50u);
}

TEST(EnsembleSchedulerTest, AFailingStepEndsTheRequestNamingIt) {
  FakeModels models;
  models.fail_sum = true;
  ModelStats stats("diamond", 1, 8, nullptr);
  auto scheduler = CreateEnsembleScheduler(Diamond(), models.Dispatch(), &stats);
  std::promise<Result<InferenceResponse>> answer;
  scheduler->Enqueue(Request(1), [&](Result<InferenceResponse> r) { answer.set_value(std::move(r)); });
  auto r = answer.get_future().get();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("step 'sum'"));
  EXPECT_THAT(r.status().message(), HasSubstr("sum broke"));
  scheduler->Stop(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  EXPECT_EQ(stats.Snapshot().fail.count, 1u);
}

TEST(EnsembleSchedulerTest, BadRequestsAreRefusedBeforeAnyStep) {
  FakeModels models;
  auto scheduler = CreateEnsembleScheduler(Diamond(), models.Dispatch(), nullptr);
  InferenceRequest r = Request(0);
  r.inputs[0].name = "y";
  std::promise<Status> answer;
  scheduler->Enqueue(std::move(r), [&](Result<InferenceResponse> result) { answer.set_value(result.status()); });
  Status s = answer.get_future().get();
  EXPECT_THAT(s.message(), HasSubstr("model 'diamond' version 1"));
  EXPECT_EQ(models.dispatched(), 0);
}

TEST(EnsembleSchedulerTest, StopEndsWhatIsInFlightAndRefusesMore) {
  FakeModels models(std::chrono::milliseconds(300));
  ModelStats stats("diamond", 1, 8, nullptr);
  auto scheduler = CreateEnsembleScheduler(Diamond(), models.Dispatch(), &stats);
  std::promise<Result<InferenceResponse>> answer;
  scheduler->Enqueue(Request(1), [&](Result<InferenceResponse> r) { answer.set_value(std::move(r)); });
  scheduler->Stop(std::chrono::steady_clock::now());  // the steps take 300 ms: the request is still in flight
  auto r = answer.get_future().get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  std::promise<Status> late;
  scheduler->Enqueue(Request(2), [&](Result<InferenceResponse> result) { late.set_value(result.status()); });
  EXPECT_EQ(late.get_future().get().code(), StatusCode::kUnavailable);
  scheduler.reset();  // the steps still answer afterwards; nothing they touch is gone
}

}  // namespace
}  // namespace hone::serve
