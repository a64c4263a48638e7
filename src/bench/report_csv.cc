#include <fmt/format.h>

#include <optional>

#include "bench/report.h"

namespace hone::bench {
namespace {

// perf_analyzer's own columns, spelled and ordered as perf_analyzer 2.41 writes them with -f and --verbose-csv
// (the load column, "Concurrency" or "Request Rate", comes first). Tools that read perf_analyzer's CSV (Model
// Analyzer, scripts) look columns up by these names, so they must not change.
constexpr const char* kPerfAnalyzerColumns =
    "Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,Server Compute Infer,"
    "Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency,Avg latency,"
    "request/response,response wait";

// hone's own columns, after perf_analyzer's so that a reader that knows only those still finds them in place.
constexpr const char* kHoneColumns =
    "Batch,Achieved Rate,Requests/Second,p99.9 latency,Max latency,Requests,Errors,Error Rate,CPU Cores Used,"
    "Peak RSS Bytes,Cost per 1000 Predictions,Stable,Mode,Session Options,Server Overhead,Server Average Batch";

// perf_analyzer writes whole microseconds; an empty cell is a figure hone could not measure, never a zero.
std::string Us(std::optional<double> us) { return us ? fmt::format("{:.0f}", *us) : std::string(); }

// The perf_analyzer latency breakdown of one point, each in microseconds per request, or nullopt where a part is
// not known (see the column comments in report.h).
struct Breakdown {
  std::optional<double> client_send, network_server, client_recv, request_response, response_wait;
};

Breakdown BreakdownOf(const PointResult& p) {
  Breakdown b;
  if (!p.completed_any()) return b;
  const double avg_us = p.latency.mean() / 1e3;
  double client_us = 0;  // send + receive, where the client timed them
  if (p.client) {
    b.client_send = p.client->send_us;
    b.client_recv = p.client->recv_us;
    client_us = p.client->send_us + p.client->recv_us;
    b.request_response = client_us;
  }
  // What the client waited for the response: the round trip less its own send and receive work.
  const double wait_us = avg_us > client_us ? avg_us - client_us : 0;
  if (p.client || p.server) b.response_wait = wait_us;
  if (p.server) {
    // As perf_analyzer does: the wait less the server's queue and compute; capped at 0 because the two sides are
    // measured by different clocks over slightly different requests (the server's figures include warm-up).
    const ServerBreakdown& s = *p.server;
    const double server_us = s.queue_us + s.compute_input_us + s.compute_infer_us + s.compute_output_us;
    b.network_server = wait_us > server_us ? wait_us - server_us : 0;
  }
  return b;
}

}  // namespace

std::string CsvHeader(bool open_loop) {
  return fmt::format("{},{},{}", open_loop ? "Request Rate" : "Concurrency", kPerfAnalyzerColumns, kHoneColumns);
}

std::string ReportToCsv(const BenchReport& r) {
  const bool open_loop = !r.points.empty() && r.points.front().point.load.mode == LoadMode::kOpenLoop;
  std::string out = CsvHeader(open_loop) + "\n";
  for (const PointResult& p : r.points) {
    const LatencyHistogram& h = p.latency;
    // Without a completed request nothing was measured: leave the latency and throughput cells empty.
    const bool measured = p.completed_any();
    auto lat = [&](std::optional<uint64_t> ns) { return measured && ns ? Us(*ns / 1e3) : std::string(); };
    auto rate = [measured](double v) { return measured ? fmt::format("{:.2f}", v) : std::string(); };
    const std::optional<ServerBreakdown>& s = p.server;
    const Breakdown b = BreakdownOf(p);

    out += open_loop ? fmt::format("{:g}", p.point.load.rate) : fmt::format("{}", p.point.load.concurrency);
    out += fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", rate(p.throughput_sps()), Us(b.client_send),
                       Us(b.network_server), Us(s ? std::optional(s->queue_us) : std::nullopt),
                       Us(s ? std::optional(s->compute_input_us) : std::nullopt),
                       Us(s ? std::optional(s->compute_infer_us) : std::nullopt),
                       Us(s ? std::optional(s->compute_output_us) : std::nullopt), Us(b.client_recv),
                       lat(h.Percentile(50)), lat(h.Percentile(90)), lat(h.Percentile(95)), lat(h.Percentile(99)),
                       measured ? Us(h.mean() / 1e3) : std::string(), Us(b.request_response), Us(b.response_wait));

    auto cost = p.CostPer1000(r.cost_per_hour);
    out += fmt::format(",{},{},{},{},{},{},{},{:.6f},{:.3f},{},{},{},{},\"{}\"", p.point.batch,
                       open_loop ? fmt::format("{:.2f}", p.achieved_rate()) : std::string(), rate(p.throughput_rps()),
                       lat(h.Percentile(99.9)), lat(h.max()), p.requests, p.errors, p.error_rate(),
                       p.cpu_cores_used(), p.peak_rss_bytes, cost ? fmt::format("{:.8f}", *cost) : "",
                       p.stable() ? "yes" : "no", LoadModeName(p.point.load.mode), r.SessionLabel(p.point.session_index));
    if (s)
      out += fmt::format(",{},{:.2f}\n", Us(s->overhead_us()), s->average_batch());
    else
      out += ",,\n";
  }
  return out;
}

}  // namespace hone::bench
