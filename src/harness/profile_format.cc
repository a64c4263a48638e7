// The profile and the served split as JSON (the report body of `hone profile`) and as text for the terminal.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/units.h"
#include "harness/profile.h"
#include "runtime/session_options_json.h"

namespace hone::harness {
namespace {

constexpr int kBarWidth = 30;

std::string Bar(double share) {
  const int n = static_cast<int>(std::lround(std::clamp(share, 0.0, 1.0) * kBarWidth));
  return std::string(static_cast<size_t>(n), '#');
}

std::string Us(double us) { return FormatDuration(us * 1000.0); }

}  // namespace

nlohmann::json ProfileToJson(const ModelProfile& p) {
  nlohmann::json op_types = nlohmann::json::array();
  for (const OpTypeTime& t : p.op_types)
    op_types.push_back({{"op_type", t.op_type},
                        {"total_us", t.total_us},
                        {"mean_us_per_run", t.mean_us_per_run},
                        {"share", t.share},
                        {"nodes", t.nodes}});
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeTime& n : p.top_nodes)
    nodes.push_back({{"node", n.node}, {"op_type", n.op_type}, {"mean_us", n.mean_us}, {"share", n.share}});
  return {{"summary", p.summary},
          {"run_mean_us", p.run_mean_us},
          {"kernel_total_us_per_run", p.kernel_total_us_per_run},
          {"batch", p.batch},
          {"runs", p.runs},
          {"warmup_runs", p.warmup_runs},
          {"input_source", p.input_source},
          {"session", runtime::SessionOptionsToJson(p.session)},
          {"op_types", std::move(op_types)},
          {"top_nodes", std::move(nodes)},
          {"process_threads", p.process_threads},
          {"cpu_cores_used", p.cpu_cores_used},
          {"peak_rss_bytes", p.peak_rss_bytes},
          {"compute_share", p.compute_share},
          {"matmul_share", p.matmul_share},
          {"matmul_dominated", p.matmul_dominated()}};
}

nlohmann::json ServedSplitToJson(const ServedSplit& s) {
  return {{"summary", s.summary},
          {"dominant", s.dominant},
          {"total_us", s.total_us},
          {"client_send_us", s.client_send_us},
          {"client_recv_us", s.client_recv_us},
          {"queue_us", s.queue_us},
          {"compute_input_us", s.compute_input_us},
          {"compute_infer_us", s.compute_infer_us},
          {"compute_output_us", s.compute_output_us},
          {"server_overhead_us", s.server_overhead_us},
          {"other_us", s.other_us},
          {"average_batch", s.average_batch},
          {"has_server", s.has_server},
          {"has_client", s.has_client},
          {"queue_dominated", s.queue_dominated()}};
}

std::string ProfileToText(const ModelProfile& p) {
  std::string out;
  out += fmt::format("model       {}\n", p.model_path);
  out += fmt::format("inputs      {}, batch {}\n", p.input_source, p.batch);
  out += fmt::format("runtime     {} (ONNX Runtime's profiler on)\n", p.session.ToString());
  out += fmt::format("runs        {} profiled after {} warm-up\n", p.runs, p.warmup_runs);
  out += fmt::format("per run     {} (model_run), of it {} in operator kernels\n", Us(p.run_mean_us),
                     Us(p.kernel_total_us_per_run));
  out += fmt::format("process     {} threads, {:.2f} CPU cores busy, peak RSS {}\n", p.process_threads,
                     p.cpu_cores_used, FormatBytes(static_cast<double>(p.peak_rss_bytes)));
  out += fmt::format("compute     {:.0f}% of kernel time in convolutions, matrix products and attention; "
                     "{:.0f}% in MatMul/Gemm\n",
                     100 * p.compute_share, 100 * p.matmul_share);
  out += "\n" + p.summary + ".\n";
  if (p.op_types.empty()) return out;

  size_t type_width = 7;
  for (const OpTypeTime& t : p.op_types) type_width = std::max(type_width, t.op_type.size());
  out += fmt::format("\noperator types ({})\n", p.op_types.size());
  out += fmt::format("  {:<{}}  {:>5}  {:>10}  {:>6}\n", "op type", type_width, "nodes", "per run", "share");
  for (const OpTypeTime& t : p.op_types)
    out += fmt::format("  {:<{}}  {:>5}  {:>10}  {:>5.1f}%  {}\n", t.op_type, type_width, t.nodes,
                       Us(t.mean_us_per_run), 100 * t.share, Bar(t.share));

  size_t node_width = 4;
  for (const NodeTime& n : p.top_nodes) node_width = std::max(node_width, n.node.size());
  node_width = std::min<size_t>(node_width, 48);
  out += fmt::format("\nslowest nodes ({})\n", p.top_nodes.size());
  out += fmt::format("  {:<{}}  {:<{}}  {:>10}  {:>6}\n", "node", node_width, "op type", type_width, "per run",
                     "share");
  for (const NodeTime& n : p.top_nodes)
    out += fmt::format("  {:<{}}  {:<{}}  {:>10}  {:>5.1f}%\n", n.node, node_width, n.op_type, type_width,
                       Us(n.mean_us), 100 * n.share);
  return out;
}

std::string ServedSplitToText(const ServedSplit& s) {
  std::string out = s.summary + ".\n";
  if (s.total_us <= 0) return out;
  auto row = [&](const char* name, double us, bool known) {
    if (!known) return fmt::format("  {:<32}  {:>10}\n", name, "not timed");
    const double share = us / s.total_us;
    return fmt::format("  {:<32}  {:>10}  {:>5.1f}%  {}\n", name, Us(us), 100 * share, Bar(share));
  };
  out += fmt::format("\nper request (mean){}\n", s.has_server ? fmt::format(", server batches of {:.1f} on average",
                                                                            s.average_batch)
                                                              : std::string());
  out += row("client: serialise request", s.client_send_us, s.has_client);
  out += row("server: queue", s.queue_us, s.has_server);
  out += row("server: compute input", s.compute_input_us, s.has_server);
  out += row("server: compute infer", s.compute_infer_us, s.has_server);
  out += row("server: compute output", s.compute_output_us, s.has_server);
  out += row("server: parsing, serialisation", s.server_overhead_us, s.has_server);
  out += row("network and hand-offs", std::max(0.0, s.other_us - s.server_overhead_us), true);
  out += row("client: parse response", s.client_recv_us, s.has_client);
  out += fmt::format("  {:<32}  {:>10}\n", "total (client-observed)", Us(s.total_us));
  return out;
}

nlohmann::json ServedProfileToJson(const ServedProfile& p) {
  return {{"target", p.target},
          {"point", p.point},
          {"requests", p.requests},
          {"errors", p.errors},
          {"duration_s", p.duration_s},
          {"split", ServedSplitToJson(p.split)}};
}

std::string ServedProfileToText(const ServedProfile& p) {
  std::string out = fmt::format("target      {}\n", p.target);
  out += fmt::format("load        closed loop, {}: {} requests in {:.2f} s{}\n", p.point, p.requests, p.duration_s,
                     p.errors ? fmt::format(", {} failed", p.errors) : std::string());
  return out + "\n" + ServedSplitToText(p.split);
}

}  // namespace hone::harness
