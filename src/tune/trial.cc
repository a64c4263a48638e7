#include "tune/trial.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>

#include "bench/bench_runner.h"
#include "bench/remote_runner.h"
#include "harness/served_model.h"
#include "harness/speed_comparison.h"

namespace hone::tune {
// Moved to harness (issue 28): a served trial, and the median its repeats are summed up with.
using harness::Median;
using harness::Spread;
using harness::ServedModel;
namespace fs = std::filesystem;
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Short trials: a quarter-second window, warm-up as long, three windows that agree within 20%. A trial that is
// not stable by then is reported so (its figures carry stable: false) rather than measured for longer: the search
// repeats the candidates that matter. The windows together hold at least kTrialMinRequests requests (trial.h).
bench::RunLength TrialRunLength(double window_s) {
  bench::RunLength run;
  run.warmup_requests = 20;
  run.warmup_s = window_s;
  run.window_s = window_s;
  run.max_window_s = std::max(2.0, 8 * window_s);
  run.stability.windows = kTrialWindows;
  run.stability.tolerance = 0.20;
  run.stability.max_windows = 6;
  run.stability.min_duration_s = 3 * window_s;
  run.stability.min_requests = kTrialMinRequests;
  return run;
}

// Bench points back to the plan's loads, in the plan's order.
void CollectFigures(const bench::BenchReport& report, const TrialPlan& plan, TrialResult& result) {
  for (const bench::PointResult& point : report.points) {
    if (!result.first_point) result.first_point = point;
    result.loads.push_back(FiguresFromPoint(point, point.point.load, plan.cost_per_hour, plan.extra_percentile));
  }
  if (report.interrupted) result.interrupted = true;
  std::vector<LoadFigures> ordered;
  for (const Load& load : plan.loads) {
    for (const LoadFigures& f : result.loads) {
      if (f.load == load) {
        ordered.push_back(f);
        break;
      }
    }
  }
  result.loads = std::move(ordered);
}

std::vector<bench::BenchSettings> SettingsFor(const TrialPlan& plan) {
  bench::BenchSettings base;
  base.inputs = plan.inputs;
  base.run = TrialRunLength(plan.window_s);
  base.cost_per_hour = plan.cost_per_hour;
  return bench::SettingsForLoads(base, plan.loads);
}

}  // namespace

Result<TrialResult> MeasureServed(const Candidate& candidate, const TrialPlan& plan) {
  static std::atomic<int> counter{0};
  auto started = std::chrono::steady_clock::now();
  TrialResult result;
  result.candidate_id = candidate.id;
  std::string repository =
      (fs::path(plan.work_dir) / fmt::format("trial-{}-{}", counter.fetch_add(1), candidate.id)).string();
  HONE_RETURN_IF_ERROR(WriteRepository(candidate, plan.model_name, plan.metadata, repository));
  {
    HONE_ASSIGN_OR_RETURN(std::unique_ptr<ServedModel> served,
                          ServedModel::Start(repository, plan.model_name, plan.protocol));
    result.ready_s = served->ready_s();
    bench::RunnerHooks hooks;
    hooks.stop = plan.stop;
    for (const bench::BenchSettings& settings : SettingsFor(plan)) {
      HONE_ASSIGN_OR_RETURN(bench::BenchReport report, bench::RunRemoteBench(settings, served->Remote(), hooks));
      CollectFigures(report, plan, result);
      if (result.interrupted) break;
    }
  }
  std::error_code ec;
  fs::remove_all(repository, ec);  // the chosen candidate's repository is written again into OUT
  result.wall_s = Seconds(started);
  return result;
}

Result<TrialResult> MeasureInProcess(const Candidate& candidate, const TrialPlan& plan) {
  auto started = std::chrono::steady_clock::now();
  TrialResult result;
  result.candidate_id = candidate.id;
  bench::RunnerHooks hooks;
  hooks.stop = plan.stop;
  for (bench::BenchSettings settings : SettingsFor(plan)) {
    settings.model_path = candidate.model_path;
    runtime::SessionOptions session = candidate.session;
    settings.runtime.intra_op_threads = {session.intra_op_threads};
    settings.runtime.graph_optimizations = {session.graph_optimization};
    settings.runtime.spinning = {session.allow_spinning};
    HONE_ASSIGN_OR_RETURN(bench::BenchReport report, bench::RunBench(settings, hooks));
    CollectFigures(report, plan, result);
    if (result.interrupted) break;
  }
  result.wall_s = Seconds(started);
  return result;
}

TrialResult MergeRepeats(const std::vector<TrialResult>& repeats) {
  if (repeats.empty()) return {};
  // The repeat with the most loads gives the order; each load is matched by what it is, never by position (an
  // interrupted repeat may lack one).
  TrialResult merged = *std::max_element(repeats.begin(), repeats.end(), [](const TrialResult& a, const TrialResult& b) {
    return a.loads.size() < b.loads.size();
  });
  merged.wall_s = 0;
  for (const TrialResult& r : repeats) merged.wall_s += r.wall_s;
  for (LoadFigures& m : merged.loads) {
    std::vector<double> sps, p50, p95, p99, px, rate, cpu;
    m.errors = 0;
    m.requests = 0;
    m.stable = true;
    for (const TrialResult& r : repeats) {
      auto it = std::find_if(r.loads.begin(), r.loads.end(), [&](const LoadFigures& f) { return f.load == m.load; });
      if (it == r.loads.end()) continue;
      const LoadFigures& f = *it;
      rate.push_back(f.achieved_rate);
      sps.push_back(f.throughput_sps);
      p50.push_back(double(f.p50_ns));
      p95.push_back(double(f.p95_ns));
      p99.push_back(double(f.p99_ns));
      px.push_back(double(f.percentile_ns));
      if (f.cpu_us_per_sample > 0) cpu.push_back(f.cpu_us_per_sample);
      m.requests += f.requests;
      m.errors += f.errors;
      m.stable = m.stable && f.stable;
      if (m.first_error.empty()) m.first_error = f.first_error;
    }
    m.repeats = static_cast<int>(sps.size());
    m.throughput_spread = Spread(sps);
    m.p99_spread = Spread(p99);
    double ratio = m.throughput_sps > 0 ? Median(sps) / m.throughput_sps : 1;
    m.throughput_sps = Median(sps);
    m.p50_ns = static_cast<uint64_t>(Median(p50));
    m.p95_ns = static_cast<uint64_t>(Median(p95));
    m.p99_ns = static_cast<uint64_t>(Median(p99));
    m.percentile_ns = static_cast<uint64_t>(Median(px));
    m.cpu_us_per_sample = Median(cpu);
    m.achieved_rate = Median(rate);  // an open-loop SLO's "kept up" rests on every repeat, not the first
    if (m.cost_per_1000 && ratio > 0) *m.cost_per_1000 /= ratio;
  }
  return merged;
}

}  // namespace hone::tune
