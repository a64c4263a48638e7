// `hone bench MODEL --url HOST:PORT --protocol openai`: an LLM server measured as its users see it, through
// streamed completions (client/openai_client.h).
//
// Definitions (stated in every report, since tools disagree on them):
//   TTFT   time to first token: from sending the request (open loop: from its intended send time, so queueing
//          behind a slow server counts) to the first streamed event that carries generated text.
//   ITL    inter-token latency: the gaps between consecutive text-carrying events of a request, pooled over all
//          requests. A server that sends several tokens per event shows fewer, longer gaps.
//   TPOT   time per output token, per request: (end-to-end latency - TTFT) / (completion tokens - 1), tokens from
//          the server's `usage` (never re-tokenized here).
//   e2e    end-to-end latency: send to the stream's end.
//   output tokens/s  completion tokens of the measured requests / the measured span (the first measured send to
//          the last measured end); requests/s likewise; goodput: requests/s that met every --slo bound.
// Warm-up requests are sent first and not measured. The measured requests' span is cut into windows by completion
// time; the point is stable when the last three windows' output tokens/s agree within the tolerance.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "base/result.h"
#include "bench/arrival_schedule.h"
#include "report/system_info.h"

namespace hone::bench {

struct LlmBenchSettings {
  std::string host;
  int port = 0;
  std::string model;
  bool chat = false;                  // /v1/chat/completions (the prompt as one user message)
  std::vector<int64_t> concurrency;   // closed loop points
  std::vector<double> rates;          // open loop points, requests/s
  ArrivalProcess arrival = ArrivalProcess::kPoisson;
  uint64_t seed = 1;                  // prompts and arrivals
  int64_t input_tokens = 128;         // synthetic prompts' length
  int64_t output_tokens = 64;         // max_tokens, with ignore_eos so that every request generates them
  std::string tokenizer_path;         // makes synthetic prompts exactly input_tokens long (else ~0.75 words/token)
  std::string prompts_path;           // .txt (one per line) or .jsonl (one JSON string per line): used in turn
  int64_t requests = 0;               // measured requests per point; 0: max(16, 4 x concurrency)
  int64_t warmup_requests = -1;       // -1: the point's concurrency (at least 2)
  double slo_ttft_ms = 0;             // 0: no bound
  double slo_tpot_ms = 0;
  double tolerance = 0.10;

  Status Validate() const;
};

struct LatencySummary {
  int64_t count = 0;
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;  // milliseconds
};

struct LlmPointResult {
  std::string label;  // "concurrency 4" / "rate 2/s"
  int64_t concurrency = 0;
  double rate = 0;
  int64_t requests = 0;  // measured and completed
  int64_t errors = 0;
  std::string first_error;
  double span_s = 0;
  LatencySummary ttft, itl, tpot, e2e;
  double output_tokens_per_s = 0;
  double requests_per_s = 0;
  double goodput_requests_per_s = 0;  // == requests_per_s without --slo
  double prompt_tokens_mean = 0;
  double completion_tokens_mean = 0;
  bool tokens_from_usage = true;      // false: the server sent no usage; chunks were counted instead
  std::vector<double> window_tokens_per_s;
  bool stable = false;
};

struct LlmBenchReport {
  LlmBenchSettings settings;
  report::SystemInfo system;
  std::string prompt_source;  // how the prompts were made
  std::vector<LlmPointResult> points;
  bool interrupted = false;
};

// Runs every point in turn. Unavailable when nothing answers at the URL; NotFound when the server does not list
// the model in /v1/models. `stop`, when it becomes true, ends the sweep after the current point.
Result<LlmBenchReport> RunLlmBench(const LlmBenchSettings& settings, const std::atomic<bool>* stop = nullptr,
                                   std::function<void(const std::string&)> status = {});

std::string LlmReportToText(const LlmBenchReport& report);
nlohmann::json LlmReportToJson(const LlmBenchReport& report);  // the body of hone's JSON report

}  // namespace hone::bench
