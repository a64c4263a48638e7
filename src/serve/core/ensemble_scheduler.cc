#include "serve/core/ensemble_scheduler.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "serve/core/scheduler_validate.h"

namespace hone::serve {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t NsSince(Clock::time_point start) {
  return static_cast<uint64_t>(
      std::max<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count(), 0));
}

// One request on its way through the steps. Shared by the callbacks of its steps; the last one standing frees it.
struct EnsembleRun {
  InferenceRequest request;  // its inputs (and keep_alive) stay alive until the run ends
  ResponseCallback done;
  Clock::time_point arrival;
  int64_t rows = 1;

  std::mutex mu;
  std::map<std::string, Tensor> tensors;  // ensemble tensors written so far
  std::vector<size_t> waiting;            // per step: steps it reads from that have not finished
  size_t unfinished = 0;
  bool ended = false;
};

// Shared with the callbacks of the steps in flight, which may outlive the Scheduler object that owns it; after
// Stop, no callback touches the statistics (which belong to the loaded version) or dispatches anything.
class EnsembleScheduler final : public std::enable_shared_from_this<EnsembleScheduler> {
 public:
  EnsembleScheduler(EnsembleOptions options, StepDispatch dispatch, ModelStats* stats)
      : options_(std::move(options)),
        label_("model '" + options_.model_name + "' version " + std::to_string(options_.model_version)),
        dispatch_(std::move(dispatch)),
        stats_(stats) {
    readers_.resize(options_.plan.steps.size());
    for (size_t i = 0; i < options_.plan.steps.size(); ++i)
      for (size_t dep : options_.plan.steps[i].after) readers_[dep].push_back(i);
  }

  void Enqueue(InferenceRequest request, ResponseCallback done) {
    const Clock::time_point arrival = Clock::now();
    Result<int64_t> rows = ValidateRequest(options_.metadata, options_.max_batch_size, request);
    if (!rows.ok()) return Reject(arrival, done, rows.status().WithContext(label_));
    auto run = std::make_shared<EnsembleRun>();
    bool stopping = false;
    {
      std::lock_guard lock(mu_);
      stopping = stopping_;
      if (!stopping) {
        ++in_flight_;
        live_[run.get()] = run;
      }
    }
    if (stopping) return Reject(arrival, done, Status::Unavailable(label_ + ": not taking requests (stopping)"));
    if (stats_) stats_->AddPending(1);
    run->arrival = arrival;
    run->rows = *rows;
    run->done = std::move(done);
    for (NamedTensor& in : request.inputs) run->tensors[in.name] = in.tensor;
    run->request = std::move(request);
    run->unfinished = options_.plan.steps.size();
    std::vector<size_t> ready;
    for (size_t i = 0; i < options_.plan.steps.size(); ++i) {
      run->waiting.push_back(options_.plan.steps[i].after.size());
      if (options_.plan.steps[i].after.empty()) ready.push_back(i);
    }
    // The front end's permission: its thread may run the first step as it may run a model.
    Launch(run, ready, run->request.may_run_on_caller);
  }

  int64_t pending() const { return in_flight_.load(std::memory_order_relaxed); }

  void Stop(Clock::time_point deadline) {
    std::vector<std::shared_ptr<EnsembleRun>> left;
    {
      std::unique_lock lock(mu_);
      stopping_ = true;
      // Runs end when their steps do; the steps' own schedulers finish or fail them.
      idle_cv_.wait_until(lock, deadline, [&] { return in_flight_.load() == 0; });
      for (auto& [key, weak] : live_)
        if (auto run = weak.lock()) left.push_back(std::move(run));
    }
    for (auto& run : left) End(run, Status::Unavailable(label_ + ": stopped before its steps finished"));
    // An End already under way on a step's thread finishes quickly (it only answers its client).
    std::unique_lock lock(mu_);
    idle_cv_.wait(lock, [&] { return in_flight_.load() == 0; });
  }

 private:
  void Reject(Clock::time_point arrival, ResponseCallback& done, Status status) {
    if (stats_) stats_->RecordFailure(NsSince(arrival));
    done(std::move(status));
  }

  // Sends each of `steps` (whose inputs all exist) to its model. Never called with run->mu held: a step may
  // answer before its dispatch returns. `on_caller`: this thread may run the last of them itself when its model
  // has an instance idle (InferenceRequest::may_run_on_caller): a step's thread goes on to the next step instead of
  // waking another thread for it, a hand-off less per step.
  void Launch(const std::shared_ptr<EnsembleRun>& run, const std::vector<size_t>& steps, bool on_caller) {
    for (size_t i : steps) {
      const EnsembleStep& step = options_.plan.steps[i];
      InferenceRequest r;
      r.model_name = step.model_name;
      r.model_version = step.model_version;
      r.id = run->request.id;
      r.priority = run->request.priority;
      r.timeout_us = run->request.timeout_us;
      {
        std::lock_guard lock(run->mu);
        if (run->ended) return;
        for (const auto& [model_input, tensor] : step.inputs) r.inputs.push_back({model_input, run->tensors[tensor]});
      }
      for (const auto& [model_output, tensor] : step.outputs) r.requested_outputs.push_back(model_output);
      r.keep_alive = run;  // the tensors a step reads may be views over the ensemble request's bytes
      r.may_run_on_caller = on_caller && i == steps.back();
      dispatch_(std::move(r), [self = shared_from_this(), run, i](Result<InferenceResponse> result) {
        self->StepDone(run, i, std::move(result));
      });
    }
  }

  void StepDone(const std::shared_ptr<EnsembleRun>& run, size_t i, Result<InferenceResponse> result) {
    const EnsembleStep& step = options_.plan.steps[i];
    if (!result.ok()) {
      return End(run, result.status().WithContext(label_ + ": step '" + step.model_name + "'"));
    }
    std::vector<size_t> ready;
    bool last = false;
    {
      std::lock_guard lock(run->mu);
      if (run->ended) return;
      for (NamedTensor& out : result->outputs) {
        for (const auto& [model_output, tensor] : step.outputs)
          if (model_output == out.name) run->tensors[tensor] = std::move(out.tensor);
      }
      for (size_t reader : readers_[i])
        if (--run->waiting[reader] == 0) ready.push_back(reader);
      last = --run->unfinished == 0;
    }
    if (last) return End(run, Status::Ok());
    // This thread has just finished a step (an instance thread, or a caller that could spare itself for one).
    Launch(run, ready, true);
  }

  // Ends `run` once: with `status` when it is an error, else with the ensemble's outputs.
  void End(const std::shared_ptr<EnsembleRun>& run, Status status) {
    InferenceResponse response;
    {
      std::lock_guard lock(run->mu);
      if (run->ended) return;
      run->ended = true;
      if (status.ok()) {
        response.model_name = options_.model_name;
        response.model_version = options_.model_version;
        response.id = run->request.id;
        // ValidateRequest checked the requested names; none requested means every output in config order.
        if (run->request.requested_outputs.empty()) {
          for (const auto& spec : options_.metadata.outputs)
            response.outputs.push_back({spec.name, run->tensors[spec.name]});
        } else {
          for (const std::string& name : run->request.requested_outputs)
            response.outputs.push_back({name, run->tensors[name]});
        }
      }
    }
    const uint64_t ns = NsSince(run->arrival);
    if (stats_) {
      if (status.ok()) {
        stats_->RecordSuccess(ns, 0, 0, ns, 0, run->rows);
      } else {
        stats_->RecordFailure(ns);
      }
      stats_->AddPending(-1);
    }
    ResponseCallback done = std::move(run->done);
    if (status.ok()) {
      done(std::move(response));
    } else {
      done(std::move(status));
    }
    std::lock_guard lock(mu_);
    live_.erase(run.get());
    if (--in_flight_ == 0) idle_cv_.notify_all();
  }

  const EnsembleOptions options_;
  const std::string label_;
  const StepDispatch dispatch_;
  ModelStats* const stats_;
  std::vector<std::vector<size_t>> readers_;  // per step: the steps that read its outputs

  std::mutex mu_;
  std::condition_variable idle_cv_;
  bool stopping_ = false;
  std::atomic<int64_t> in_flight_{0};
  std::map<EnsembleRun*, std::weak_ptr<EnsembleRun>> live_;  // runs not yet ended, for Stop
};

// The Scheduler the loaded version owns; stopping it (or destroying it) ends every run.
class EnsembleSchedulerHandle final : public Scheduler {
 public:
  explicit EnsembleSchedulerHandle(std::shared_ptr<EnsembleScheduler> impl) : impl_(std::move(impl)) {}
  ~EnsembleSchedulerHandle() override { impl_->Stop(Clock::now()); }
  void Enqueue(InferenceRequest request, ResponseCallback done) override {
    impl_->Enqueue(std::move(request), std::move(done));
  }
  int64_t pending() const override { return impl_->pending(); }
  void Stop(Clock::time_point deadline) override { impl_->Stop(deadline); }

 private:
  std::shared_ptr<EnsembleScheduler> impl_;
};

}  // namespace

std::unique_ptr<Scheduler> CreateEnsembleScheduler(EnsembleOptions options, StepDispatch dispatch,
                                                   ModelStats* stats) {
  return std::make_unique<EnsembleSchedulerHandle>(
      std::make_shared<EnsembleScheduler>(std::move(options), std::move(dispatch), stats));
}

}  // namespace hone::serve
