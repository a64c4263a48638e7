// The served path's latency split, from one remote bench point: what the client timed (send, receive), what the
// server's statistics extension says (queue, compute input, infer, output, and its own request time), and the rest.
#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "bench/remote_runner.h"
#include "harness/profile.h"

namespace hone::harness {
namespace {

double NonNegative(double v) { return v > 0 ? v : 0; }

}  // namespace

bool ServedSplit::queue_dominated() const {
  if (!has_server || total_us <= 0) return false;
  const double largest_other =
      std::max({compute_input_us, compute_infer_us, compute_output_us, server_overhead_us});
  return queue_us >= largest_other && queue_us >= 0.3 * total_us;
}

ServedSplit ServedSplitFrom(const bench::PointResult& point) {
  ServedSplit s;
  s.total_us = point.latency.count() ? point.latency.mean() / 1000.0 : 0;
  if (point.client && point.client->requests > 0) {
    s.has_client = true;
    s.client_send_us = point.client->send_us;
    s.client_recv_us = point.client->recv_us;
  }
  if (point.server && point.server->requests > 0) {
    const bench::ServerBreakdown& b = *point.server;
    s.has_server = true;
    s.queue_us = b.queue_us;
    s.compute_input_us = b.compute_input_us;
    s.compute_infer_us = b.compute_infer_us;
    s.compute_output_us = b.compute_output_us;
    s.server_overhead_us = b.overhead_us();
    s.average_batch = b.average_batch();
  }
  const double accounted = s.client_send_us + s.client_recv_us + s.queue_us + s.compute_input_us +
                           s.compute_infer_us + s.compute_output_us;
  s.other_us = NonNegative(s.total_us - accounted);
  // The server's own overhead cannot exceed the rest (the server's averages include the warm-up, the client's
  // latency does not, so the two can disagree a little).
  s.server_overhead_us = std::min(s.server_overhead_us, s.other_us);
  const double network_us = NonNegative(s.other_us - s.server_overhead_us);

  if (s.total_us <= 0) {
    s.dominant = "unknown";
    s.summary = "No request completed, so there is no latency to split";
    return s;
  }
  const double compute_us = s.compute_input_us + s.compute_infer_us + s.compute_output_us;
  const double parsing_us = s.client_send_us + s.client_recv_us + s.server_overhead_us;
  const std::array<std::pair<const char*, double>, 4> parts = {{{"queueing", s.queue_us},
                                                                 {"compute", compute_us},
                                                                 {"parsing and serialisation", parsing_us},
                                                                 {"network and hand-offs", network_us}}};
  auto pct = [&](double us) { return fmt::format("{:.0f}%", 100 * us / s.total_us); };
  if (!s.has_server) {
    s.dominant = "unknown";
    s.summary = fmt::format("A request takes {:.1f} us at the client; the server reported no statistics, so the "
                            "split into queueing and compute is unknown{}",
                            s.total_us,
                            s.has_client ? fmt::format(" (client send and receive take {})", pct(parsing_us))
                                         : std::string());
    return s;
  }
  auto top = std::max_element(parts.begin(), parts.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  s.dominant = top->first;
  std::string rest;
  for (const auto& [name, us] : parts)
    if (name != top->first) rest += fmt::format(", {} {}", name, pct(us));
  s.summary = fmt::format("Of {:.1f} us a request takes, {} is {}{}; the server ran batches of {:.1f} on average",
                          s.total_us, top->first, pct(top->second), rest, s.average_batch);
  if (s.queue_dominated()) s.summary += ", so batching comes first";
  return s;
}

Result<ServedProfile> ProfileServed(const ServedProfileSettings& settings) {
  if (settings.concurrency < 1 || settings.concurrency > 4096)
    return Status::InvalidArgument("--concurrency " + std::to_string(settings.concurrency) + ": expected 1..4096");
  if (settings.batch < 0) return Status::InvalidArgument("--batch " + std::to_string(settings.batch) + ": expected >= 1");
  if (!(settings.duration_s > 0 && settings.duration_s <= 3600))
    return Status::InvalidArgument(fmt::format("profile duration {:g} s: expected more than 0, at most 3600",
                                               settings.duration_s));
  bench::BenchSettings bench;
  bench.model_path = settings.remote.model;
  bench.inputs = settings.inputs;
  bench.mode = bench::LoadMode::kClosedLoop;
  bench.concurrency = {settings.concurrency};
  if (settings.batch > 0) bench.batch_sizes = {settings.batch};
  // One short point: a split needs means, not a stable p99, so the windows are few and it never waits long.
  bench.run.warmup_requests = 10;
  bench.run.warmup_s = 0.5;
  bench.run.window_s = settings.duration_s / 4;
  bench.run.max_window_s = std::max(bench.run.window_s, 10.0);
  bench.run.stability.windows = 4;
  bench.run.stability.max_windows = 4;
  bench.run.stability.min_duration_s = settings.duration_s;
  bench.run.stability.min_requests = 1;
  HONE_ASSIGN_OR_RETURN(bench::BenchReport report, bench::RunRemoteBench(bench, settings.remote));
  if (report.points.empty()) return Status::Internal("the served profile measured no point");
  const bench::PointResult& point = report.points.front();
  ServedProfile out;
  out.split = ServedSplitFrom(point);
  out.target = report.target;
  out.point = point.point.Label();
  out.requests = point.requests;
  out.errors = point.errors;
  out.duration_s = point.duration_s;
  out.metadata = report.model_metadata;
  if (point.requests == 0 && point.errors > 0)
    return Status::Unavailable("every request to " + out.target + " failed: " + point.first_error);
  return out;
}

}  // namespace hone::harness
