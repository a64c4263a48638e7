#include "bench/load_generator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "base/units.h"
#include "bench/resource_usage.h"
#include "bench/window_sizing.h"

namespace hone::bench {
namespace {

using Clock = std::chrono::steady_clock;

// What one sending thread has recorded since the last Take(). One per thread, so the lock is uncontended
// except for the moment the measuring thread takes a window's worth.
class Recorder {
 public:
  struct Snapshot {
    LatencyHistogram latency;
    uint64_t ok = 0, errors = 0, started = 0;
    std::string first_error;
    // Client-side phases of the successful requests whose target timed them (RequestPhases).
    uint64_t timed = 0;
    std::chrono::nanoseconds send{0}, recv{0};
  };

  void Started() {
    std::lock_guard lock(mu_);
    ++current_.started;
  }
  void Finished(Clock::duration latency, const Status& status, const RequestPhases& phases) {
    std::lock_guard lock(mu_);
    if (status.ok()) {
      current_.latency.Record(static_cast<uint64_t>(std::chrono::nanoseconds(latency).count()));
      ++current_.ok;
      if (phases.timed) {
        ++current_.timed;
        current_.send += phases.send;
        current_.recv += phases.recv;
      }
    } else {
      if (current_.errors++ == 0) current_.first_error = status.ToString();
    }
  }
  // Moves out what was recorded and starts afresh.
  void TakeInto(Snapshot& into) {
    std::lock_guard lock(mu_);
    // An idle thread has nothing to hand over: skip merging and clearing its 37 KiB of buckets.
    if (current_.started == 0 && current_.ok == 0 && current_.errors == 0) return;
    into.latency.Merge(current_.latency);
    into.ok += current_.ok;
    into.errors += current_.errors;
    into.started += current_.started;
    into.timed += current_.timed;
    into.send += current_.send;
    into.recv += current_.recv;
    if (into.first_error.empty()) into.first_error = current_.first_error;
    current_.latency.Reset();
    current_.ok = current_.errors = current_.started = current_.timed = 0;
    current_.send = current_.recv = std::chrono::nanoseconds(0);
    current_.first_error.clear();
  }

 private:
  std::mutex mu_;
  Snapshot current_;  // guarded by mu_
};

// The sending side of one point: threads that put the load on the target and record into recorders.
class LoadRun {
 public:
  LoadRun(Target& target, const RequestSet& requests, const BenchPoint& point, const LoadOptions& options)
      : target_(target), requests_(requests), point_(point), options_(options) {}
  ~LoadRun() { Stop(); }

  void Start() {
    int threads = point_.load.mode == LoadMode::kOpenLoop ? std::max(1, options_.open_loop_workers)
                                                     : static_cast<int>(point_.load.concurrency);
    recorders_ = std::vector<Recorder>(threads);
    for (int i = 0; i < threads; ++i) {
      if (point_.load.mode == LoadMode::kOpenLoop)
        threads_.emplace_back([this, i] { OpenLoopWorker(recorders_[i]); });
      else
        threads_.emplace_back([this, i] { ClosedLoopWorker(i, recorders_[i]); });
    }
    if (point_.load.mode == LoadMode::kOpenLoop) threads_.emplace_back([this] { Generate(); });
  }

  void Stop() {
    stop_flag_.store(true, std::memory_order_relaxed);
    {
      std::lock_guard lock(queue_mu_);
      stop_ = true;
    }
    queue_cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  uint64_t completed() const { return completed_.load(std::memory_order_relaxed); }
  uint64_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }

  Recorder::Snapshot Take() {
    Recorder::Snapshot s;
    for (auto& r : recorders_) r.TakeInto(s);
    return s;
  }

 private:
  void Send(Recorder& recorder, size_t request_index, Clock::time_point counted_from) {
    recorder.Started();
    in_flight_.fetch_add(1, std::memory_order_relaxed);
    RequestPhases phases;
    Status status = target_.InferTimed(requests_[request_index % requests_.size()], phases);
    recorder.Finished(Clock::now() - counted_from, status, phases);
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
    completed_.fetch_add(1, std::memory_order_relaxed);
  }

  // N of these keep N requests outstanding.
  void ClosedLoopWorker(int index, Recorder& recorder) {
    for (size_t i = static_cast<size_t>(index); !stop_flag_.load(std::memory_order_relaxed);
         i += static_cast<size_t>(point_.load.concurrency))
      Send(recorder, i, Clock::now());
  }

  // Puts intended send times on the queue on schedule, however far behind the workers are.
  void Generate() {
    ArrivalSchedule schedule(point_.load.rate, options_.arrival, options_.arrival_seed);
    Clock::time_point start = Clock::now();
    while (true) {
      auto offset = schedule.Next();
      // An arrival beyond the clock's range (a rate near zero) never comes: wait for the stop instead of wrapping.
      if (offset > Clock::time_point::max() - start) {
        std::unique_lock lock(queue_mu_);
        queue_cv_.wait(lock, [this] { return stop_; });
        return;
      }
      Clock::time_point intended = start + std::chrono::duration_cast<Clock::duration>(offset);
      std::unique_lock lock(queue_mu_);
      if (queue_cv_.wait_until(lock, intended, [this] { return stop_; })) return;
      queue_.push_back(intended);
      lock.unlock();
      queue_cv_.notify_one();
    }
  }

  void OpenLoopWorker(Recorder& recorder) {
    while (true) {
      Clock::time_point intended;
      {
        std::unique_lock lock(queue_mu_);
        queue_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        intended = queue_.front();
        queue_.pop_front();
      }
      // Latency counts from when the request should have gone, not from when a worker got to it.
      Send(recorder, next_request_.fetch_add(1, std::memory_order_relaxed), intended);
    }
  }

  Target& target_;
  const RequestSet& requests_;
  const BenchPoint& point_;
  const LoadOptions& options_;
  std::vector<Recorder> recorders_;
  std::vector<std::thread> threads_;
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> in_flight_{0};
  std::atomic<size_t> next_request_{0};
  std::atomic<bool> stop_flag_{false};  // closed-loop workers poll this between requests
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<Clock::time_point> queue_;  // guarded by queue_mu_: open-loop requests due, oldest first
  bool stop_ = false;                    // guarded by queue_mu_
};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Enough for any real load from one process; beyond it thread creation itself fails.
constexpr int64_t kMaxThreads = 4096;

Verdict RateKeptUp(double achieved, double target, double tolerance) {
  Verdict v;
  v.met = achieved >= target * (1 - tolerance);
  char detail[160];
  std::snprintf(detail, sizeof detail, "open loop: sent %.1f of %.1f requests/s scheduled (tolerance -%.1f%%)",
                achieved, target, tolerance * 100);
  v.detail = detail;
  if (!v.met)
    v.recommendation = "the target cannot keep up with this rate: its backlog, and so its latency, grows with the "
                       "run's length; lower --rate, or raise --workers if the target has idle capacity";
  return v;
}

bool Stopped(const LoadOptions& options) {
  return options.stop != nullptr && options.stop->load(std::memory_order_relaxed);
}

// How often a window's wait looks at the stop flag: short enough that Ctrl-C feels immediate, long enough to cost
// nothing.
constexpr auto kStopPoll = std::chrono::milliseconds(50);

}  // namespace

std::string DescribeWindow(const WindowProgress& p) {
  if (p.window.requests == 0)  // nothing measured: say so rather than print 0 req/s and 0 ns
    return fmt::format("window {}: no request completed in {:.1f} s ({} in flight)", p.window_index + 1,
                       p.window.duration_s, p.window.in_flight);
  return fmt::format("window {}: {:.1f} req/s, p99 {}", p.window_index + 1, p.window.throughput_per_s,
                     FormatDuration(static_cast<double>(p.window.p99_ns)));
}

Result<PointResult> MeasurePoint(Target& target, const RequestSet& requests, const BenchPoint& point,
                                 const RunLength& run, const LoadOptions& load_options, const ProgressFn& progress) {
  if (requests.empty()) return Status::InvalidArgument("no requests to send");
  HONE_RETURN_IF_ERROR(run.Validate());
  if (point.load.mode == LoadMode::kOpenLoop) {
    HONE_RETURN_IF_ERROR(ArrivalSchedule::Create(point.load.rate, load_options.arrival, 0).status());
    if (load_options.open_loop_workers < 1 || load_options.open_loop_workers > kMaxThreads)
      return Status::InvalidArgument("open-loop workers: expected 1.." + std::to_string(kMaxThreads));
  } else if (point.load.concurrency < 1 || point.load.concurrency > kMaxThreads) {
    return Status::InvalidArgument("concurrency " + std::to_string(point.load.concurrency) + ": expected 1.." +
                                   std::to_string(kMaxThreads));
  }
  // Peak RSS is reported per point: start each point's high-water mark afresh.
  ResetPeakRss();

  LoadRun load(target, requests, point, load_options);
  Clock::time_point warmup_start = Clock::now();
  load.Start();

  // Warm-up: until both the request count and the time are reached, or, for a target too slow to complete its
  // requests soon, until WarmupLimitSeconds. Not measured, except for its latency, which sizes the windows.
  auto warmup_time = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(run.warmup_s));
  auto warmup_limit =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(WarmupLimitSeconds(run)));
  // In open loop the schedule sets the pace: do not wait for more warm-up requests than it sends in warmup_s.
  uint64_t warmup_requests = static_cast<uint64_t>(run.warmup_requests);
  if (point.load.mode == LoadMode::kOpenLoop)
    warmup_requests = std::min<uint64_t>(warmup_requests, static_cast<uint64_t>(std::ceil(point.load.rate * run.warmup_s)));
  while ((load.completed() < warmup_requests || Clock::now() - warmup_start < warmup_time) &&
         Clock::now() - warmup_start < warmup_limit && !Stopped(load_options))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const Status interrupted(StatusCode::kCancelled, "interrupted during '" + point.Label() + "'");
  if (Stopped(load_options)) return interrupted;
  PointResult result;
  result.point = point;
  // Errors anywhere in the point count towards the exit code, warm-up included; the table's error rate is the
  // reported windows'.
  auto count_errors = [&result](const Recorder::Snapshot& s) {
    result.errors_anywhere += s.errors;
    if (result.first_error_anywhere.empty()) result.first_error_anywhere = s.first_error;
  };
  const Recorder::Snapshot warmup = load.Take();
  count_errors(warmup);
  result.warmup_completed = warmup.ok;
  result.warmup_mean_latency_ns = warmup.latency.mean();
  // Failures carry no latency; a target that only fails still finishes requests at a rate that sizes the windows.
  const double expected_rate =
      warmup.ok > 0 ? ExpectedRate(point, load_options.open_loop_workers, result.warmup_mean_latency_ns / 1e9)
                    : static_cast<double>(warmup.errors) / Seconds(Clock::now() - warmup_start);
  result.window_s = WindowSeconds(run, expected_rate);

  struct Window {
    Recorder::Snapshot data;
    std::chrono::nanoseconds cpu;
    double duration_s;
  };
  std::deque<Window> recent;  // the last stability.windows windows, the ones that will be reported
  auto window_length = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(result.window_s));
  Clock::time_point window_start = Clock::now();
  auto cpu_start = ProcessCpuTime();
  do {
    for (Clock::time_point end = window_start + window_length; Clock::now() < end;) {
      if (Stopped(load_options)) return interrupted;  // Load's destructor stops the senders
      std::this_thread::sleep_until(std::min(end, Clock::now() + kStopPoll));
    }
    Window w;
    w.data = load.Take();
    count_errors(w.data);
    Clock::time_point window_end = Clock::now();
    auto cpu_end = ProcessCpuTime();
    w.cpu = cpu_end - cpu_start;
    w.duration_s = Seconds(window_end - window_start);
    window_start = window_end;
    cpu_start = cpu_end;

    WindowSummary summary;
    summary.duration_s = w.duration_s;
    summary.requests = w.data.ok;
    summary.throughput_per_s = w.data.ok / w.duration_s;
    summary.p99_ns = w.data.latency.Percentile(99);
    summary.errors = w.data.errors;
    summary.in_flight = load.in_flight();
    result.windows.push_back(summary);
    recent.push_back(std::move(w));
    if (recent.size() > static_cast<size_t>(run.stability.windows)) recent.pop_front();
    if (progress) progress({&point, result.windows.size() - 1, summary});
    result.decision = Decide(result.windows, run.stability);
  } while (result.decision == Decision::kContinue);
  load.Stop();

  uint64_t timed = 0;
  std::chrono::nanoseconds send{0}, recv{0};
  for (const Window& w : recent) {
    timed += w.data.timed;
    send += w.data.send;
    recv += w.data.recv;
    result.latency.Merge(w.data.latency);
    result.requests += w.data.ok;
    result.errors += w.data.errors;
    result.started += w.data.started;
    if (result.first_error.empty()) result.first_error = w.data.first_error;
    result.cpu_time += w.cpu;
    result.duration_s += w.duration_s;
  }
  if (timed > 0) {
    result.client = ClientBreakdown{timed, static_cast<double>(send.count()) / 1e3 / static_cast<double>(timed),
                                    static_cast<double>(recv.count()) / 1e3 / static_cast<double>(timed)};
  }
  result.verdicts = CheckWindows(result.windows, run.stability);
  if (point.load.mode == LoadMode::kOpenLoop) {
    // Throughput can look steady while an overloaded target's backlog (and so its latency) grows without end:
    // a point whose sends fell behind the schedule is not a valid measurement of that rate.
    Verdict kept_up = RateKeptUp(result.achieved_rate(), point.load.rate, run.stability.tolerance);
    if (!kept_up.met) result.decision = Decision::kUnstable;
    result.verdicts.push_back(std::move(kept_up));
  }
  result.peak_rss_bytes = PeakRssBytes();
  return result;
}

}  // namespace hone::bench
