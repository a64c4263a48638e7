#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "bench/report.h"

namespace hone::bench {
namespace {

double Ns(std::chrono::nanoseconds d) { return static_cast<double>(d.count()); }

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}

void AppendHeader(std::string& out, const BenchReport& r) {
  const report::SystemInfo& s = r.system;
  out += fmt::format("model      {}\n", r.model_path);
  for (const auto& in : r.model_inputs) out += fmt::format("  input    {}\n", in);
  for (const auto& o : r.model_outputs) out += fmt::format("  output   {}\n", o);
  out += fmt::format("inputs     {}\n", r.input_source);
  if (!r.input_mode.empty()) out += fmt::format("batching   {}\n", r.input_mode);
  out += fmt::format("target     {}{}\n", r.target, r.arrival.empty() ? "" : ", " + r.arrival + " arrivals");
  out += fmt::format("machine    {}, {} logical cores, {}, {}\n", s.cpu_model, s.logical_cores,
                     FormatBytes(static_cast<double>(s.memory_bytes)), s.kernel);
  out += fmt::format("features   {}\n", Join(s.cpu_features, " "));
  out += fmt::format("software   hone {}, ONNX Runtime {}, {}\n", s.hone_version, s.onnxruntime_version, s.compiler);
  const RunLength& run = r.run;
  out += fmt::format(
      "run        warm-up {} requests and {:g} s; windows of {:g} s (longer for a slow target, up to {:g} s) until "
      "the last {} agree within ±{:g}% on throughput and p99 (at most {} windows, at least {:g} s and {} "
      "requests)\n",
      run.warmup_requests, run.warmup_s, run.window_s, std::max(run.window_s, run.max_window_s),
      run.stability.windows, run.stability.tolerance * 100, run.stability.max_windows,
      run.stability.min_duration_s, run.stability.min_requests);
}

void AppendSessions(std::string& out, const BenchReport& r) {
  if (r.sessions.empty()) return;  // a remote target: the server loaded the model, not this process
  out += "\nsessions (load: wall time; memory: RSS added by loading; first: the first request after load; "
         "threads: in the process once loaded)\n";
  for (size_t i = 0; i < r.sessions.size(); ++i) {
    const SessionRecord& s = r.sessions[i];
    out += fmt::format("  [{}] {:<52} load {:>9}  memory {:>10}  first {:>9}  threads {}\n", i,
                       s.options.ToString(), FormatDuration(Ns(s.load_time)),
                       FormatBytes(static_cast<double>(s.load_rss_delta_bytes)), FormatDuration(Ns(s.first_run_time)),
                       s.process_threads);
  }
  out += fmt::format("cold start process start -> session ready {}, -> first result {} (±{}, the kernel's clock tick; "
                     "dataset loading excluded)\n",
                     FormatDuration(Ns(r.cold_start.to_session_ready)),
                     FormatDuration(Ns(r.cold_start.to_first_result)), FormatDuration(Ns(r.cold_start.resolution)));
}

// A sweep stopped by Ctrl-C: what the table above covers, and what it does not.
void AppendInterrupted(std::string& out, const BenchReport& r) {
  if (!r.interrupted) return;
  const size_t total = r.points.size() + r.points_not_run.size();
  out += fmt::format("\nINTERRUPTED (Ctrl-C): {} of {} points finished and are reported above; not run:\n",
                     r.points.size(), total);
  for (const BenchPoint& p : r.points_not_run)
    // A session not yet loaded has no record: name it by its place in the runtime sweep, as the table does.
    out += fmt::format("  - {}{}\n", p.Label(),
                       r.sessions.size() > 1 || p.session_index > 0 ? fmt::format(", session [{}]", p.session_index)
                                                                   : std::string());
}

// Points whose windows grew past --window-ms for a slow target: how long they lasted and why.
void AppendWindowNotes(std::string& out, const BenchReport& r) {
  for (const PointResult& p : r.points) {
    if (!(p.window_s > r.run.window_s)) continue;
    if (p.warmup_completed == 0)
      out += fmt::format("windows at '{}' lasted {:.2f} s, the longest allowed (--max-window-ms): warm-up completed "
                         "no request\n",
                         p.point.Label(), p.window_s);
    else
      out += fmt::format("windows at '{}' lasted {:.2f} s, not {:g} s: warm-up requests took {} on average, so "
                         "that each window holds a handful of requests or more (up to --max-window-ms)\n",
                         p.point.Label(), p.window_s, r.run.window_s, FormatDuration(p.warmup_mean_latency_ns));
  }
}

}  // namespace

std::string ReportToText(const BenchReport& r) {
  std::string out;
  AppendHeader(out, r);
  AppendSessions(out, r);
  bool open_loop = !r.points.empty() && r.points.front().point.load.mode == LoadMode::kOpenLoop;
  bool with_cost = r.cost_per_hour > 0;
  out += fmt::format("\n{:<4}{:<34}{:>10}{:>11}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}{:>8}{:>7}{:>11}{:>10}{}{}  {}\n",
                     "ses", "point", "req/s", "samples/s", "p50", "p90", "p95", "p99", "p99.9", "max", "mean",
                     "errors", "cpu", "peak RSS", "inputs", open_loop ? "   achieved" : "",
                     with_cost ? "  $/1k pred" : "", "stable");
  for (const PointResult& p : r.points) {
    const LatencyHistogram& h = p.latency;
    auto d = [](uint64_t ns) { return FormatDuration(static_cast<double>(ns)); };
    const std::string inputs = FormatBytes(static_cast<double>(r.input_pool_bytes + p.request_bytes));
    if (!p.completed_any()) {
      // Nothing to measure latency or throughput from: say so rather than print zeros as if measured.
      out += fmt::format("{:<4}{:<34}{:<91}{:>7.2f}%{:>7.2f}{:>11}{:>10}", p.point.session_index, p.point.Label(),
                         fmt::format("  no request completed in {:.2f} s", p.duration_s), p.error_rate() * 100,
                         p.cpu_cores_used(), FormatBytes(static_cast<double>(p.peak_rss_bytes)), inputs);
      if (open_loop) out += fmt::format("{:>9.1f}/s", p.achieved_rate());
      if (with_cost) out += fmt::format("{:>11}", "-");
      out += p.stable() ? "  yes\n" : "  NO\n";
      continue;
    }
    out += fmt::format("{:<4}{:<34}{:>10.1f}{:>11.1f}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}{:>7.2f}%{:>7.2f}{:>11}{:>10}",
                       p.point.session_index, p.point.Label(), p.throughput_rps(), p.throughput_sps(),
                       d(h.Percentile(50)), d(h.Percentile(90)), d(h.Percentile(95)), d(h.Percentile(99)),
                       d(h.Percentile(99.9)), d(h.max()), FormatDuration(h.mean()), p.error_rate() * 100,
                       p.cpu_cores_used(), FormatBytes(static_cast<double>(p.peak_rss_bytes)), inputs);
    if (open_loop) out += fmt::format("{:>9.1f}/s", p.achieved_rate());
    if (with_cost) {
      auto cost = p.CostPer1000(r.cost_per_hour);
      out += cost ? fmt::format("{:>11.3g}", *cost) : fmt::format("{:>11}", "-");
    }
    out += p.stable() ? "  yes\n" : "  NO\n";
  }
  out += "latency per request (batch) from send to result; cpu: process CPU time / wall time, in cores; "
         "histogram error <= 0.4%\n";
  out += fmt::format("peak RSS: the whole process; inputs: hone's own share of it (the input pool {}, plus each "
                     "point's ready-made requests); the model's share is what loading added{}\n",
                     FormatBytes(static_cast<double>(r.input_pool_bytes)),
                     r.sessions.empty() ? " (on the server, not here)" : " (sessions above)");
  AppendWindowNotes(out, r);
  bool remote = false;
  for (const PointResult& p : r.points) remote = remote || p.server.has_value();
  if (remote) {
    out += "\nserver side, per request (the server's statistics over each point, warm-up included): queue, "
           "compute input / infer / output, and the rest (parsing, scheduling, serialization)\n";
    for (const PointResult& p : r.points) {
      if (!p.server) continue;
      const ServerBreakdown& s = *p.server;
      auto us = [](double v) { return FormatDuration(v * 1e3); };
      out += fmt::format("  {:<34} request {:>9} = queue {:>9} + input {:>9} + infer {:>9} + output {:>9} + other "
                         "{:>9}; {} requests, {} failed, {:.2f} rows per execution\n",
                         p.point.Label(), us(s.request_us), us(s.queue_us), us(s.compute_input_us),
                         us(s.compute_infer_us), us(s.compute_output_us), us(s.overhead_us()), s.requests,
                         s.failures, s.average_batch());
      for (const StageBreakdown& stage : p.stages) {
        const ServerBreakdown& t = stage.server;
        out += fmt::format("    step {:<29} {:>5.1f}% of it: request {:>9} = queue {:>9} + compute {:>9} + other "
                           "{:>9}; {} requests, {:.2f} rows per execution\n",
                           stage.model, 100 * stage.share, us(t.request_us), us(t.queue_us),
                           us(t.compute_input_us + t.compute_infer_us + t.compute_output_us), us(t.overhead_us()),
                           t.requests, t.average_batch());
      }
    }
    if (std::any_of(r.points.begin(), r.points.end(), [](const PointResult& p) { return !p.stages.empty(); }))
      out += "  (step: each of the ensemble's models, per request of that model; its share is its requests' time "
             "inside the server over the ensemble's: the steps' shares add up to less than 100% by the time the "
             "ensemble spends between steps)\n";
  }
  AppendInterrupted(out, r);
  for (const PointResult& p : r.points) {
    if (p.errors_anywhere > 0)
      out += fmt::format("errors at '{}': {} in the whole point ({} of {} in the reported windows), first: {}\n",
                         p.point.Label(), p.errors_anywhere, p.errors, p.errors + p.requests,
                         p.first_error_anywhere);
    if (p.stable()) continue;
    out += fmt::format("UNSTABLE '{}' after {} windows:\n", p.point.Label(), p.windows.size());
    for (const Verdict& v : p.verdicts)
      if (!v.met) out += fmt::format("  - {}; {}\n", v.detail, v.recommendation);
  }
  return out;
}

}  // namespace hone::bench
