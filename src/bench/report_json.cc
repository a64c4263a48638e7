#include <chrono>

#include "bench/report.h"
#include "runtime/session_options_json.h"

namespace hone::bench {
namespace {

double Ms(std::chrono::nanoseconds d) { return std::chrono::duration<double, std::milli>(d).count(); }
double Us(uint64_t ns) { return static_cast<double>(ns) / 1e3; }

nlohmann::json PointJson(const PointResult& p, const BenchReport& report) {
  const LatencyHistogram& h = p.latency;
  const uint64_t inputs = report.input_pool_bytes + p.request_bytes;
  nlohmann::json j = {
      {"label", p.point.Label()},
      {"session_index", p.point.session_index},
      {"session_options", report.SessionLabel(p.point.session_index)},
      {"mode", LoadModeName(p.point.load.mode)},
      {"batch", p.point.batch},
      {"latency_us",
       {{"p50", Us(h.Percentile(50))}, {"p90", Us(h.Percentile(90))}, {"p95", Us(h.Percentile(95))},
        {"p99", Us(h.Percentile(99))}, {"p99_9", Us(h.Percentile(99.9))}, {"max", Us(h.max())},
        {"min", Us(h.min())}, {"mean", h.mean() / 1e3}, {"histogram_max_relative_error",
                                                          LatencyHistogram::kMaxRelativeError}}},
      {"throughput", {{"requests_per_s", p.throughput_rps()}, {"samples_per_s", p.throughput_sps()}}},
      {"requests", p.requests},
      {"errors", p.errors},
      {"error_rate", p.error_rate()},
      {"first_error", p.first_error},
      {"errors_including_warmup_and_all_windows", p.errors_anywhere},
      {"duration_s", p.duration_s},
      {"cpu", {{"cores_used", p.cpu_cores_used()},
               {"machine_utilization", report.system.logical_cores ? p.cpu_cores_used() / report.system.logical_cores
                                                                   : 0.0}}},
      {"peak_rss_bytes", p.peak_rss_bytes},
      {"memory",
       {{"peak_rss_bytes", p.peak_rss_bytes},
        {"hone_inputs_bytes", inputs},
        {"input_pool_bytes", report.input_pool_bytes},
        {"request_bytes", p.request_bytes},
        {"peak_rss_without_hone_inputs_bytes", p.peak_rss_bytes > inputs ? p.peak_rss_bytes - inputs : 0}}},
      {"window_s", p.window_s},
      {"warmup", {{"completed", p.warmup_completed},
                  {"mean_latency_us", p.warmup_completed ? nlohmann::json(p.warmup_mean_latency_ns / 1e3)
                                                         : nlohmann::json(nullptr)}}},
      {"completed_any", p.completed_any()},
      {"stable", p.stable()},
  };
  if (!p.completed_any()) {
    // No request completed in the reported windows: no latency or throughput was measured, so none is given.
    j["latency_us"] = nullptr;
    j["throughput"] = nullptr;
    j["note"] = "no request completed in the reported windows";
  }
  if (p.point.load.mode == LoadMode::kOpenLoop)
    j["rate"] = {{"target_per_s", p.point.load.rate}, {"achieved_per_s", p.achieved_rate()}};
  else
    j["concurrency"] = p.point.load.concurrency;
  if (auto cost = p.CostPer1000(report.cost_per_hour)) j["cost_per_1000_predictions"] = *cost;
  if (p.server) {
    const ServerBreakdown& s = *p.server;
    j["server"] = {{"requests", s.requests},           {"failures", s.failures},
                   {"inferences", s.inferences},       {"executions", s.executions},
                   {"average_batch", s.average_batch()}, {"request_us", s.request_us},
                   {"queue_us", s.queue_us},           {"compute_input_us", s.compute_input_us},
                   {"compute_infer_us", s.compute_infer_us}, {"compute_output_us", s.compute_output_us},
                   {"overhead_us", s.overhead_us()}};
  }
  if (!p.stages.empty()) {
    nlohmann::json stages = nlohmann::json::array();
    for (const StageBreakdown& stage : p.stages) {
      const ServerBreakdown& t = stage.server;
      stages.push_back({{"model", stage.model},
                        {"share", stage.share},
                        {"server",
                         {{"requests", t.requests}, {"failures", t.failures}, {"inferences", t.inferences},
                          {"executions", t.executions}, {"average_batch", t.average_batch()},
                          {"request_us", t.request_us}, {"queue_us", t.queue_us},
                          {"compute_input_us", t.compute_input_us}, {"compute_infer_us", t.compute_infer_us},
                          {"compute_output_us", t.compute_output_us}, {"overhead_us", t.overhead_us()}}}});
    }
    j["stages"] = stages;
  }
  if (p.client)
    j["client"] = {{"requests", p.client->requests}, {"send_us", p.client->send_us}, {"recv_us", p.client->recv_us}};
  nlohmann::json windows = nlohmann::json::array();
  for (const auto& w : p.windows)
    windows.push_back({{"requests_per_s", w.throughput_per_s},
                       {"p99_us", w.requests ? nlohmann::json(Us(w.p99_ns)) : nlohmann::json(nullptr)},
                       {"requests", w.requests},
                       {"errors", w.errors},
                       {"in_flight_at_end", w.in_flight},
                       {"duration_s", w.duration_s}});
  j["windows"] = windows;
  nlohmann::json verdicts = nlohmann::json::array();
  for (const auto& v : p.verdicts)
    verdicts.push_back({{"met", v.met}, {"detail", v.detail}, {"recommendation", v.recommendation}});
  j["verdicts"] = verdicts;
  return j;
}

}  // namespace

nlohmann::json ReportToJson(const BenchReport& r) {
  nlohmann::json j;
  // The tool, the machine and the model are the envelope's (report/report_envelope.h).
  j["input_source"] = r.input_source;
  j["inputs"] = {{"batched", r.inputs_batched}, {"mode", r.input_mode}, {"pool_bytes", r.input_pool_bytes}};
  j["target"] = r.target;
  if (!r.arrival.empty()) j["arrival"] = r.arrival;
  j["run"] = {{"warmup_requests", r.run.warmup_requests},
              {"warmup_s", r.run.warmup_s},
              {"window_s", r.run.window_s},
              {"max_window_s", r.run.max_window_s},
              {"stability",
               {{"windows", r.run.stability.windows}, {"tolerance", r.run.stability.tolerance},
                {"max_windows", r.run.stability.max_windows}, {"min_duration_s", r.run.stability.min_duration_s},
                {"min_requests", r.run.stability.min_requests}}}};
  j["cold_start"] = {{"process_to_session_ready_ms", Ms(r.cold_start.to_session_ready)},
                     {"process_to_first_result_ms", Ms(r.cold_start.to_first_result)},
                     {"resolution_ms", Ms(r.cold_start.resolution)}};
  if (r.cost_per_hour > 0) j["cost_per_hour"] = r.cost_per_hour;
  nlohmann::json sessions = nlohmann::json::array();
  for (const auto& rec : r.sessions)
    sessions.push_back({{"options", runtime::SessionOptionsToJson(rec.options)},
                        {"load_ms", Ms(rec.load_time)},
                        {"load_rss_delta_bytes", rec.load_rss_delta_bytes},
                        {"first_run_ms", Ms(rec.first_run_time)},
                        {"process_threads", rec.process_threads}});
  j["sessions"] = sessions;
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points) points.push_back(PointJson(p, r));
  j["points"] = points;
  j["interrupted"] = r.interrupted;
  nlohmann::json not_run = nlohmann::json::array();
  for (const BenchPoint& p : r.points_not_run) not_run.push_back(p.Label());
  j["points_not_run"] = not_run;
  j["all_stable"] = r.all_stable();
  j["total_errors"] = r.total_errors();
  return j;
}

}  // namespace hone::bench
