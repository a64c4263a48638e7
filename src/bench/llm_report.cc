// The LLM benchmark's reports: a table for people, JSON for tools (hone's report envelope adds the model and the
// machine around LlmReportToJson's object).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/llm_bench.h"

namespace hone::bench {
namespace {

constexpr const char* kDefinitions =
    "TTFT: send (open loop: intended send) to the first streamed text; ITL: gaps between consecutive streamed text "
    "events of a request, pooled; TPOT: (e2e - TTFT) / (completion tokens - 1) per request, tokens from the "
    "server's usage; e2e: send to the end of the stream; tokens/s and requests/s over the measured span (first "
    "measured send to last measured end); goodput: requests/s that met every --slo bound.";

std::string Triple(const LatencySummary& s) {
  if (s.count == 0) return "-";
  return fmt::format("{:.1f} / {:.1f} / {:.1f}", s.p50, s.p95, s.p99);
}

nlohmann::json SummaryJson(const LatencySummary& s) {
  return {{"count", s.count}, {"mean", s.mean}, {"p50", s.p50}, {"p95", s.p95}, {"p99", s.p99}, {"max", s.max}};
}

}  // namespace

std::string LlmReportToText(const LlmBenchReport& r) {
  const LlmBenchSettings& s = r.settings;
  std::string out;
  out += fmt::format("hone bench {} at {}:{} over OpenAI {} (streamed, temperature 0, max_tokens {} with "
                     "ignore_eos)\n",
                     s.model, s.host, s.port, s.chat ? "/v1/chat/completions" : "/v1/completions", s.output_tokens);
  out += fmt::format("prompts: {}\n", r.prompt_source);
  out += fmt::format("client machine: {}, {} logical cores\n", r.system.cpu_model, r.system.logical_cores);
  if (s.slo_ttft_ms > 0 || s.slo_tpot_ms > 0)
    out += fmt::format("SLO: {}{}\n", s.slo_ttft_ms > 0 ? fmt::format("TTFT <= {:g} ms ", s.slo_ttft_ms) : "",
                       s.slo_tpot_ms > 0 ? fmt::format("TPOT <= {:g} ms", s.slo_tpot_ms) : "");
  out += fmt::format("{:<16} {:>5} {:>4} {:>24} {:>20} {:>20} {:>10} {:>9} {:>7} {:>8} {:>7} {:>6}\n", "point", "reqs",
                     "err", "TTFT p50/p95/p99 ms", "ITL p50/p95/p99 ms", "TPOT p50/p95/p99 ms", "e2e p50 ms",
                     "out tok/s", "req/s", "goodput", "in/out", "stable");
  for (const LlmPointResult& p : r.points) {
    out += fmt::format("{:<16} {:>5} {:>4} {:>24} {:>20} {:>20} {:>10.0f} {:>9.1f} {:>7.2f} {:>8.2f} {:>7} {:>6}\n",
                       p.label, p.requests, p.errors, Triple(p.ttft), Triple(p.itl), Triple(p.tpot), p.e2e.p50,
                       p.output_tokens_per_s, p.requests_per_s, p.goodput_requests_per_s,
                       fmt::format("{:.0f}/{:.0f}", p.prompt_tokens_mean, p.completion_tokens_mean),
                       p.stable ? "yes" : "no");
    if (!p.first_error.empty()) out += fmt::format("  first error: {}\n", p.first_error);
    if (!p.tokens_from_usage) out += "  the server sent no usage: completion tokens counted as streamed events\n";
  }
  out += fmt::format("Definitions: {}\n", kDefinitions);
  if (r.interrupted) out += "interrupted: the points above finished; the rest did not run\n";
  return out;
}

nlohmann::json LlmReportToJson(const LlmBenchReport& r) {
  const LlmBenchSettings& s = r.settings;
  nlohmann::json j;
  j["protocol"] = "openai";
  j["endpoint"] = s.chat ? "/v1/chat/completions" : "/v1/completions";
  j["url"] = fmt::format("{}:{}", s.host, s.port);
  j["model"] = s.model;
  j["input_tokens"] = s.input_tokens;
  j["output_tokens"] = s.output_tokens;
  j["prompts"] = r.prompt_source;
  j["slo"] = {{"ttft_ms", s.slo_ttft_ms}, {"tpot_ms", s.slo_tpot_ms}};
  j["definitions"] = kDefinitions;
  j["system"] = {{"cpu_model", r.system.cpu_model}, {"logical_cores", r.system.logical_cores},
                 {"cpu_features", r.system.cpu_features}, {"hone_version", r.system.hone_version}};
  j["interrupted"] = r.interrupted;
  nlohmann::json points = nlohmann::json::array();
  for (const LlmPointResult& p : r.points) {
    nlohmann::json q = {{"label", p.label},
                        {"requests", p.requests},
                        {"errors", p.errors},
                        {"first_error", p.first_error},
                        {"span_s", p.span_s},
                        {"ttft_ms", SummaryJson(p.ttft)},
                        {"itl_ms", SummaryJson(p.itl)},
                        {"tpot_ms", SummaryJson(p.tpot)},
                        {"e2e_ms", SummaryJson(p.e2e)},
                        {"output_tokens_per_s", p.output_tokens_per_s},
                        {"requests_per_s", p.requests_per_s},
                        {"goodput_requests_per_s", p.goodput_requests_per_s},
                        {"prompt_tokens_mean", p.prompt_tokens_mean},
                        {"completion_tokens_mean", p.completion_tokens_mean},
                        {"tokens_from_usage", p.tokens_from_usage},
                        {"window_output_tokens_per_s", p.window_tokens_per_s},
                        {"stable", p.stable}};
    if (p.concurrency > 0)
      q["concurrency"] = p.concurrency;
    else
      q["rate_per_s"] = p.rate;
    points.push_back(std::move(q));
  }
  j["points"] = std::move(points);
  return j;
}

}  // namespace hone::bench
