#include "serve/core/scheduler_impl.h"

#include <algorithm>

#include "base/log.h"
#include "serve/core/scheduler_validate.h"

namespace hone::serve {
namespace {

using Clock = SchedulerClock;

BatchingRules RulesFrom(const SchedulerOptions& o) {
  BatchingRules rules;
  rules.dynamic = o.dynamic_batching && o.max_batch_size > 0;
  rules.max_batch_size = o.max_batch_size;
  if (rules.dynamic) {
    rules.preferred_batch_sizes = o.batching.preferred_batch_sizes;
    std::sort(rules.preferred_batch_sizes.begin(), rules.preferred_batch_sizes.end());
    rules.preferred_batch_sizes.erase(
        std::unique(rules.preferred_batch_sizes.begin(), rules.preferred_batch_sizes.end()),
        rules.preferred_batch_sizes.end());
    rules.max_queue_delay = o.batching.max_queue_delay;
    rules.work_conserving = o.batching.work_conserving;
  }
  return rules;
}

// Whether two validated requests (inputs in model order) may share a batch: equal shapes but for the batch.
bool SameNonBatchShapes(const PendingRequest& a, const PendingRequest& b) {
  const auto& x = a.request.inputs;
  const auto& y = b.request.inputs;
  for (size_t k = 0; k < x.size(); ++k) {
    const Shape& s = x[k].tensor.shape();
    const Shape& t = y[k].tensor.shape();
    if (s.size() != t.size() || !std::equal(s.begin() + 1, s.end(), t.begin() + 1)) return false;
  }
  return true;
}

uint64_t Ns(Clock::duration d) {
  return static_cast<uint64_t>(std::max<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(), 0));
}

}  // namespace

Result<std::unique_ptr<Scheduler>> Scheduler::Create(SchedulerOptions options,
                                                     std::vector<std::unique_ptr<ModelInstance>> instances,
                                                     ModelStats* stats) {
  return CreateScheduler(std::move(options), std::move(instances), stats, {});
}

Result<std::unique_ptr<Scheduler>> CreateScheduler(SchedulerOptions options,
                                                   std::vector<std::unique_ptr<ModelInstance>> instances,
                                                   ModelStats* stats, SchedulerHooks hooks) {
  HONE_RETURN_IF_ERROR(ValidateSchedulerOptions(options, instances).WithContext(ModelLabel(options)));
  auto scheduler =
      std::make_unique<SchedulerImpl>(std::move(options), std::move(instances), stats, std::move(hooks));
  scheduler->Start();
  return std::unique_ptr<Scheduler>(std::move(scheduler));
}

SchedulerImpl::SchedulerImpl(SchedulerOptions options, std::vector<std::unique_ptr<ModelInstance>> instances,
                             ModelStats* stats, SchedulerHooks hooks)
    : options_(std::move(options)),
      label_(ModelLabel(options_)),
      rules_(RulesFrom(options_)),
      stats_(stats),
      hooks_(std::move(hooks)),
      instances_([&] {
        std::vector<std::unique_ptr<Instance>> v;
        for (auto& session : instances) {
          const runtime::ModelMetadata& model = session->metadata();
          auto instance = std::make_unique<Instance>(BatchAssembler(model));
          instance->session = std::move(session);
          v.push_back(std::move(instance));
        }
        return v;
      }()),
      metadata_(instances_.front()->session->metadata()),
      delivery_(rules_.dynamic && options_.batching.preserve_ordering,
                [this](PendingRequest& p) { DeliverOne(p); }),
      queue_(rules_.dynamic ? RequestQueue(options_.batching) : RequestQueue()) {
  // Each candidate brings at least one row, and DecideBatch never needs more than one past a full batch, so
  // this never grows for batches up to 1024 rows (and grows once, to its high-water mark, for larger ones).
  candidates_.reserve(static_cast<size_t>(std::clamp<int64_t>(options_.max_batch_size, 1, 1024)) + 1);
}

SchedulerImpl::~SchedulerImpl() { Stop(Clock::now()); }

void SchedulerImpl::Start() {
  for (size_t i = 0; i < instances_.size(); ++i)
    instances_[i]->thread = std::thread([this, i] { InstanceLoop(i); });
}

void SchedulerImpl::Enqueue(InferenceRequest request, ResponseCallback done) {
  const Clock::time_point arrival = Clock::now();
  Result<int64_t> rows = ValidateRequest(metadata_, options_.max_batch_size, request);
  if (!rows.ok()) return RejectNow(arrival, done, rows.status().WithContext(label_));

  std::unique_lock lock(mu_);
  if (stopping_) {
    lock.unlock();
    return RejectNow(arrival, done, Status::Unavailable(label_ + ": not taking requests (stopping)"));
  }
  const uint32_t level = queue_.LevelFor(request.priority);
  if (!queue_.HasRoom(level)) {
    lock.unlock();
    return RejectNow(arrival, done,
                     Status::Unavailable(label_ + ": queue full (priority level " + std::to_string(level + 1) +
                                         " holds its max_queue_size of requests); retry later"));
  }
  // The node pool grows to the most requests ever in flight at once, then recycles: no allocation here after.
  if (free_.empty()) free_.emplace_back();
  auto node = free_.begin();
  node->request = std::move(request);
  node->done = std::move(done);
  node->rows = *rows;
  node->level = level;
  node->sequence = next_sequence_++;
  node->arrival = arrival;
  node->deadline = queue_.DeadlineFor(level, node->request.timeout_us, arrival);
  in_flight_at_arrival_ += kInFlightSmoothing * (static_cast<double>(pending_.load(std::memory_order_relaxed)) -
                                                 in_flight_at_arrival_);
  // Counted under the lock so that the request cannot be delivered (and uncounted) before it is counted.
  pending_.fetch_add(1, std::memory_order_relaxed);
  if (stats_) stats_->AddPending(1);
  if (node->request.may_run_on_caller && TryRunOnCaller(lock, node)) return;
  queue_.Push(free_, node);
  Instance* waiter = TakeIdleWaiter();
  lock.unlock();
  if (waiter) waiter->wake.notify_one();
}

bool SchedulerImpl::TryRunOnCaller(std::unique_lock<std::mutex>& lock, PendingList::iterator node) {
  // Only under light load (see in_flight_at_arrival_): under load the caller's thread is a front-end thread that
  // had better go back to reading requests, so that the next batch fills while this one runs.
  if (in_flight_at_arrival_ >= kCallerRunLoad * static_cast<double>(instances_.size())) return false;
  // Only what the batcher would start now anyway: nothing queued ahead, and the timing does not make it wait.
  if (!queue_.empty()) return false;
  candidates_.clear();
  candidates_.push_back({node->rows, true, node->arrival});
  const BatchDecision decision = DecideBatch(rules_, candidates_, node->arrival, stopping_);
  if (!decision.dispatch()) return false;
  size_t index = 0;
  while (index < instances_.size() && instances_[index]->busy) ++index;
  if (index == instances_.size()) return false;

  Instance& instance = *instances_[index];
  instance.busy = true;
  ++running_on_callers_;
  const int64_t rows = node->rows;
  node->dequeue = node->arrival;  // never queued
  instance.batch.splice(instance.batch.end(), free_, node);
  lock.unlock();
  RunBatch(instance, index, rows);
  Finish(instance.batch);

  lock.lock();
  instance.busy = false;
  --running_on_callers_;
  // Requests that queued while this ran were waiting for an instance to free; this one just did.
  Instance* waiter = queue_.empty() ? nullptr : TakeIdleWaiter();
  if (stopping_) drained_cv_.notify_all();
  lock.unlock();
  if (waiter) waiter->wake.notify_one();
  return true;
}

SchedulerImpl::Instance* SchedulerImpl::TakeIdleWaiter() {
  for (auto& instance : instances_) {
    if (instance->waiting && !instance->busy) {
      instance->waiting = false;
      return instance.get();
    }
  }
  return nullptr;
}

void SchedulerImpl::WakeAll() {
  for (auto& instance : instances_) {
    instance->waiting = false;
    instance->wake.notify_all();
  }
}

void SchedulerImpl::Stop(Clock::time_point deadline) {
  std::lock_guard stop_lock(stop_mu_);
  if (stopped_) return;
  PendingList leftover;
  {
    std::unique_lock lock(mu_);
    stopping_ = true;
    WakeAll();  // partial batches waiting out their delay go now
    auto drained = [&] { return queue_.empty(); };
    if (deadline == Clock::time_point::max())
      drained_cv_.wait(lock, drained);
    else
      drained_cv_.wait_until(lock, deadline, drained);
    queue_.TakeAll(leftover);
    exit_ = true;
    WakeAll();
  }
  FinishWith(leftover, Status::Unavailable(label_ + ": stopped before the request ran"));
  // Running batches finish (an ONNX Runtime run cannot be interrupted) and deliver before their threads end...
  for (auto& instance : instances_)
    if (instance->thread.joinable()) instance->thread.join();
  // ...and so do those running on callers' threads, which use this scheduler until they give their instance back.
  {
    std::unique_lock lock(mu_);
    drained_cv_.wait(lock, [&] { return running_on_callers_ == 0; });
  }
  stopped_ = true;
}

BatchDecision SchedulerImpl::Decide(Clock::time_point now) {
  candidates_.clear();
  const PendingRequest* first = nullptr;
  int64_t rows = 0;
  queue_.Visit([&](const PendingRequest& p) {
    const bool matches = first == nullptr || SameNonBatchShapes(*first, p);
    if (first == nullptr) first = &p;
    candidates_.push_back({p.rows, matches, p.arrival});
    rows += p.rows;
    // Past the first request that cannot join, nothing changes the decision.
    return rules_.dynamic && matches && rows <= rules_.max_batch_size;
  });
  return DecideBatch(rules_, candidates_, now, stopping_);
}

void SchedulerImpl::InstanceLoop(size_t index) {
  Instance& instance = *instances_[index];
  PendingList expired;
  std::unique_lock lock(mu_);
  auto wait = [&](Clock::time_point until) {
    instance.waiting = true;
    if (until == Clock::time_point::max())
      instance.wake.wait(lock);
    else
      instance.wake.wait_until(lock, until);
    instance.waiting = false;
  };
  while (true) {
    const Clock::time_point now = Clock::now();
    queue_.ExpireTimeouts(now, expired);
    if (!expired.empty()) {
      lock.unlock();
      FinishWith(expired, Status(StatusCode::kDeadlineExceeded,
                                 label_ + ": the request's queue timeout expired before it ran"));
      lock.lock();
      continue;
    }
    // A caller's thread may be running a batch on this instance (TryRunOnCaller); it wakes this one when done.
    if (queue_.empty() || instance.busy) {
      if (stopping_ && queue_.empty()) drained_cv_.notify_all();
      if (exit_) return;
      wait(Clock::time_point::max());
      continue;
    }
    const BatchDecision decision = Decide(now);
    if (!decision.dispatch()) {
      wait(std::min(decision.wait_until, queue_.NextDeadline()));
      continue;
    }
    queue_.PopFront(decision.requests, instance.batch);
    instance.busy = true;
    for (PendingRequest& p : instance.batch) p.dequeue = now;
    Instance* waiter = nullptr;
    if (!queue_.empty())
      waiter = TakeIdleWaiter();  // another free instance may form the next batch
    else if (stopping_)
      drained_cv_.notify_all();
    lock.unlock();
    if (waiter) waiter->wake.notify_one();
    RunBatch(instance, index, decision.rows);
    Finish(instance.batch);
    lock.lock();
    instance.busy = false;
  }
}

void SchedulerImpl::RunBatch(Instance& instance, size_t index, int64_t rows) {
  if (hooks_.before_run) hooks_.before_run(index, rows);
  const Clock::time_point compute_start = Clock::now();
  Result<std::span<const Tensor>> inputs = instance.assembler.Assemble(instance.batch, rows);
  const Clock::time_point input_done = Clock::now();
  Result<std::vector<Tensor>> outputs =
      inputs.ok() ? instance.session->Run(*inputs) : Result<std::vector<Tensor>>(inputs.status());
  instance.assembler.Release();
  const Clock::time_point infer_done = Clock::now();
  if (outputs.ok()) {
    SplitOutputs(metadata_, options_.model_name, options_.model_version, rules_.max_batch_size > 0, *outputs,
                 rows, instance.batch);
  } else {
    const Status failed = outputs.status().WithContext(label_);
    for (PendingRequest& p : instance.batch) p.result.emplace(failed);
  }
  const Clock::time_point output_done = Clock::now();
  for (PendingRequest& p : instance.batch) {
    p.compute_start = compute_start;
    p.input_done = input_done;
    p.infer_done = infer_done;
    p.output_done = output_done;
  }
  if (stats_ && outputs.ok())
    stats_->RecordExecution(rows, Ns(input_done - compute_start), Ns(infer_done - input_done),
                            Ns(output_done - infer_done));
}

void SchedulerImpl::FinishWith(PendingList& list, const Status& status) {
  for (PendingRequest& p : list) p.result.emplace(status);
  Finish(list);
}

void SchedulerImpl::Finish(PendingList& finished) {
  PendingList delivered;
  delivery_.Deliver(finished, delivered);
  if (delivered.empty()) return;
  std::lock_guard lock(mu_);
  free_.splice(free_.end(), delivered);
}

namespace {

// ResourceExhausted when `response` has more output bytes than the front end can send (see inference.h).
Status CheckResponseSize(const InferenceResponse& response, uint64_t limit) {
  if (limit == 0) return Status::Ok();
  uint64_t bytes = 0;
  for (const NamedTensor& out : response.outputs) bytes += out.tensor.byte_size();
  if (bytes <= limit) return Status::Ok();
  return Status::ResourceExhausted(fmt::format(
      "the response's outputs hold {} bytes ({:.1f} MiB), more than the {} bytes ({:.1f} MiB) this front end may "
      "send (raise hone serve --grpc-max-message-bytes, or use HTTP)",
      bytes, static_cast<double>(bytes) / (1 << 20), limit, static_cast<double>(limit) / (1 << 20)));
}

}  // namespace

void SchedulerImpl::DeliverOne(PendingRequest& p) {
  const Clock::time_point now = Clock::now();
  Result<InferenceResponse>& result = *p.result;
  if (result.ok()) {
    if (Status too_big = CheckResponseSize(*result, p.request.max_response_bytes); !too_big.ok()) {
      too_big = too_big.WithContext(label_);
      LogWarning("request '{}' failed: {}", p.request.id, too_big.message());
      result = std::move(too_big);
    }
  }
  if (stats_) {
    if (result.ok())
      stats_->RecordSuccess(Ns(now - p.arrival), Ns(p.dequeue - p.arrival), Ns(p.input_done - p.compute_start),
                            Ns(p.infer_done - p.input_done), Ns(p.output_done - p.infer_done), p.rows);
    else
      stats_->RecordFailure(Ns(now - p.arrival));
    stats_->AddPending(-1);
  }
  pending_.fetch_sub(1, std::memory_order_relaxed);
  ResponseCallback done = std::move(p.done);
  done(std::move(result));
  p.Reset();  // releases keep_alive (the client's buffers) after the callback, as inference.h promises
}

void SchedulerImpl::RejectNow(Clock::time_point arrival, ResponseCallback& done, Status status) {
  if (stats_) stats_->RecordFailure(Ns(Clock::now() - arrival));
  done(std::move(status));
}

}  // namespace hone::serve
