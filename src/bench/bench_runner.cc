#include "bench/bench_runner.h"

#include <algorithm>
#include <optional>
#include <thread>

#include "bench/resource_usage.h"
#include "bench/sweep_progress.h"
#include "report/system_info.h"
#include "runtime/input_pool.h"
#include "runtime/session.h"

namespace hone::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Distinct requests cycled through during a run: enough that caches do not see one input over and over, few
// enough that preparing them is quick.
constexpr int64_t kMaxDistinctRequests = 64;

std::string_view ArrivalName(ArrivalProcess p) { return p == ArrivalProcess::kPoisson ? "poisson" : "constant"; }

}  // namespace

Result<RequestSet> MakeRequests(const runtime::InputPool& pool, int64_t batch) {
  HONE_RETURN_IF_ERROR(pool.CheckBatch(batch));
  int64_t distinct = std::clamp<int64_t>((pool.sample_count() + batch - 1) / batch, 1, kMaxDistinctRequests);
  RequestSet requests;
  requests.reserve(static_cast<size_t>(distinct));
  for (int64_t i = 0; i < distinct; ++i) {
    HONE_ASSIGN_OR_RETURN(auto inputs, pool.MakeBatch(i * batch, batch));
    requests.push_back(std::move(inputs));
  }
  return requests;
}

uint64_t RequestBytes(const RequestSet& requests) {
  uint64_t total = 0;
  for (const auto& request : requests)
    for (const Tensor& t : request) total += t.byte_size();
  return total;
}

Result<std::vector<int64_t>> ResolveBatches(const runtime::InputPool& pool, const std::vector<int64_t>& asked) {
  if (asked.empty()) return std::vector<int64_t>{pool.default_batch()};
  for (int64_t b : asked) {
    if (!pool.batched() && b != 1)
      return Status::InvalidArgument("--batch " + std::to_string(b) + ": the model has no shared batch dimension (" +
                                     pool.batch_axis().reason +
                                     "), so each request is one sample of whole tensors: drop --batch");
    if (Status s = pool.CheckBatch(b); !s.ok()) return s.WithContext("--batch " + std::to_string(b));
  }
  return asked;
}

void DescribeInputs(const runtime::InputPool& pool, BenchReport& report) {
  report.input_source = pool.description();
  report.inputs_batched = pool.batched();
  report.input_mode = pool.mode_description();
  report.input_pool_bytes = pool.byte_size();
}

Result<BenchReport> RunBench(const BenchSettings& settings, const RunnerHooks& hooks) {
  HONE_RETURN_IF_ERROR(settings.Validate());
  auto say = [&](const std::string& s) {
    if (hooks.status) hooks.status(s);
  };

  BenchReport report;
  report.model_path = settings.model_path;
  report.run = settings.run;
  report.cost_per_hour = settings.cost_per_hour;
  report.target = "in-process ONNX Runtime session";
  if (settings.mode == LoadMode::kOpenLoop) report.arrival = ArrivalName(settings.arrival);

  LoadOptions load;
  load.arrival = settings.arrival;
  load.arrival_seed = settings.arrival_seed;
  load.open_loop_workers = settings.open_loop_workers > 0 ? settings.open_loop_workers : 64;
  load.stop = hooks.stop;

  std::vector<runtime::SessionOptions> configs = settings.runtime.Expand();
  std::vector<std::string> session_labels;
  for (const auto& c : configs) session_labels.push_back(c.ToString());
  std::optional<runtime::InputPool> pool;
  std::vector<int64_t> batches = settings.batch_sizes;
  std::optional<SweepProgress> sweep;  // once the batch sizes, and so the points, are known
  size_t next = 0;                     // the sweep's next point
  for (size_t s = 0; s < configs.size(); ++s) {
    if (sweep && sweep->stopped()) {  // Ctrl-C between points: do not load another session
      sweep->Interrupted(next, report);
      break;
    }
    say("loading " + settings.model_path + " (" + configs[s].ToString() + ")");
    SessionRecord record;
    record.options = configs[s];
    uint64_t rss_before = CurrentRssBytes();
    Clock::time_point t0 = Clock::now();
    HONE_ASSIGN_OR_RETURN(auto session, runtime::Session::Open(settings.model_path, configs[s]));
    record.load_time = Clock::now() - t0;
    record.load_rss_delta_bytes = static_cast<int64_t>(CurrentRssBytes()) - static_cast<int64_t>(rss_before);
    if (s == 0) {
      report.cold_start.to_session_ready = TimeSinceProcessStart();
      report.cold_start.resolution = ProcessStartResolution();
      for (const auto& in : session->metadata().inputs) report.model_inputs.push_back(in.ToString());
      for (const auto& out : session->metadata().outputs) report.model_outputs.push_back(out.ToString());
      report.model_metadata = session->metadata();
      HONE_ASSIGN_OR_RETURN(auto p, runtime::InputPool::Create(session->metadata(), settings.inputs));
      pool.emplace(std::move(p));
      DescribeInputs(*pool, report);
      HONE_ASSIGN_OR_RETURN(batches, ResolveBatches(*pool, settings.batch_sizes));
      sweep.emplace(hooks.progress, hooks.stop, ExpandPoints(settings, configs.size(), batches), session_labels);
    }

    // The first request after load is often much slower (allocations, lazy kernel selection): time it apart.
    HONE_ASSIGN_OR_RETURN(auto first_inputs, pool->MakeBatch(0, batches.front()));
    Clock::time_point t1 = Clock::now();
    auto first = session->Run(first_inputs);
    record.first_run_time = Clock::now() - t1;
    if (!first.ok()) return first.status().WithContext("first request");
    // Cold start to the first result counts the model's first run, not the benchmark's own dataset loading.
    if (s == 0) report.cold_start.to_first_result = report.cold_start.to_session_ready + record.first_run_time;
    record.process_threads = ProcessThreadCount();
    report.sessions.push_back(record);

    SessionTarget target(*session);
    std::vector<BenchPoint> points = ExpandPoints(settings, 1, batches);
    for (BenchPoint& point : points) {
      point.session_index = s;
      if (sweep->stopped()) break;
      HONE_ASSIGN_OR_RETURN(RequestSet requests, MakeRequests(*pool, point.batch));
      say("measuring " + point.Label() + " (" + configs[s].ToString() + ")");
      const size_t index = next;
      ProgressFn on_window = [&](const WindowProgress& w) {
        sweep->Window(index, w);
        if (hooks.window_done) hooks.window_done(w);
      };
      Result<PointResult> result = MeasurePoint(target, requests, point, settings.run, load, on_window);
      if (result.status().code() == StatusCode::kCancelled) break;
      HONE_RETURN_IF_ERROR(result.status());
      result->request_bytes = RequestBytes(requests);
      report.points.push_back(std::move(*result));
      sweep->Done(next++);
    }
    if (sweep->stopped()) {
      sweep->Interrupted(next, report);
      break;
    }
  }
  report.system = report::ReadSystemInfo();
  return report;
}

}  // namespace hone::bench
