#include <fmt/format.h>

#include "bench/report.h"

namespace hone::bench {

std::string ReportToCsv(const BenchReport& r) {
  bool open_loop = !r.points.empty() && r.points.front().point.mode == LoadMode::kOpenLoop;
  std::string out = open_loop ? "Request Rate,Achieved Rate," : "Concurrency,";
  out +=
      "Batch,Inferences/Second,Requests/Second,p50 latency,p90 latency,p95 latency,p99 latency,p99.9 latency,"
      "Max latency,Avg latency,Requests,Errors,Error Rate,CPU Cores Used,Peak RSS Bytes,Cost per 1000 Predictions,"
      "Stable,Mode,Session Options,Server Queue,Server Compute Input,Server Compute Infer,Server Compute Output,"
      "Server Overhead,Server Average Batch\n";
  for (const PointResult& p : r.points) {
    const LatencyHistogram& h = p.latency;
    // Without a completed request nothing was measured: leave the latency and throughput cells empty.
    const bool measured = p.completed_any();
    auto us = [measured](uint64_t ns) { return measured ? fmt::format("{:.1f}", ns / 1e3) : std::string(); };
    auto rate = [measured](double v) { return measured ? fmt::format("{:.2f}", v) : std::string(); };
    if (open_loop)
      out += fmt::format("{:g},{:.2f},", p.point.rate, p.achieved_rate());
    else
      out += fmt::format("{},", p.point.concurrency);
    auto cost = p.CostPer1000(r.cost_per_hour);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{:.6f},{:.3f},{},{},{},{},\"{}\"", p.point.batch,
                       rate(p.throughput_sps()), rate(p.throughput_rps()), us(h.Percentile(50)), us(h.Percentile(90)),
                       us(h.Percentile(95)), us(h.Percentile(99)), us(h.Percentile(99.9)), us(h.max()),
                       measured ? fmt::format("{:.1f}", h.mean() / 1e3) : std::string(), p.requests, p.errors, p.error_rate(), p.cpu_cores_used(), p.peak_rss_bytes,
                       cost ? fmt::format("{:.8f}", *cost) : "", p.stable() ? "yes" : "no",
                       LoadModeName(p.point.mode), r.SessionLabel(p.point.session_index));
    // perf_analyzer's server columns are microseconds per request; empty for an in-process target.
    if (p.server) {
      const ServerBreakdown& s = *p.server;
      out += fmt::format(",{:.1f},{:.1f},{:.1f},{:.1f},{:.1f},{:.2f}\n", s.queue_us, s.compute_input_us,
                         s.compute_infer_us, s.compute_output_us, s.overhead_us(), s.average_batch());
    } else {
      out += ",,,,,,\n";
    }
  }
  return out;
}

}  // namespace hone::bench
