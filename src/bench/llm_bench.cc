#include "bench/llm_bench.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "bench/llm_prompts.h"
#include "client/openai_client.h"

namespace hone::bench {
namespace {

using Clock = client::StreamedCompletion::Clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

LatencySummary Summarize(std::vector<double> v) {
  LatencySummary s;
  s.count = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / v.size();
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  auto at = [&](double p) { return v[std::min(v.size() - 1, static_cast<size_t>(std::ceil(p / 100 * v.size())) - 1)]; };
  s.p50 = at(50);
  s.p95 = at(95);
  s.p99 = at(99);
  s.max = v.back();
  return s;
}

// One finished request as the point needs it.
struct Sample {
  Clock::time_point start;  // sent (closed loop) or intended (open loop)
  client::StreamedCompletion c;
};

struct PointRun {
  std::mutex mu;
  std::vector<Sample> samples;  // measured ones
  int64_t errors = 0;
  std::string first_error;

  void Done(int64_t index, int64_t warmup, Clock::time_point start, Result<client::StreamedCompletion> r) {
    std::lock_guard lock(mu);
    if (!r.ok()) {
      ++errors;
      if (first_error.empty()) first_error = r.status().message();
      return;
    }
    if (index >= warmup) samples.push_back({start, std::move(*r)});
  }
};

LlmPointResult Analyse(const LlmBenchSettings& s, PointRun& run) {
  LlmPointResult p;
  p.errors = run.errors;
  p.first_error = run.first_error;
  p.requests = static_cast<int64_t>(run.samples.size());
  if (run.samples.empty()) return p;
  std::vector<double> ttft, itl, tpot, e2e;
  Clock::time_point first = Clock::time_point::max(), last = Clock::time_point::min();
  double completion = 0, prompt = 0;
  int64_t good = 0;
  for (const Sample& x : run.samples) {
    const auto& c = x.c;
    first = std::min(first, x.start);
    last = std::max(last, c.done);
    int64_t tokens = c.completion_tokens;
    if (tokens < 0) {
      tokens = static_cast<int64_t>(c.chunks.size());
      p.tokens_from_usage = false;
    }
    completion += static_cast<double>(tokens);
    prompt += static_cast<double>(std::max<int64_t>(c.prompt_tokens, 0));
    const double e = Ms(c.done - x.start);
    e2e.push_back(e);
    if (c.chunks.empty()) continue;
    const double t = Ms(c.chunks.front() - x.start);
    ttft.push_back(t);
    for (size_t i = 1; i < c.chunks.size(); ++i) itl.push_back(Ms(c.chunks[i] - c.chunks[i - 1]));
    double per_token = 0;
    if (tokens > 1) {
      per_token = (e - t) / static_cast<double>(tokens - 1);
      tpot.push_back(per_token);
    }
    if ((s.slo_ttft_ms <= 0 || t <= s.slo_ttft_ms) && (s.slo_tpot_ms <= 0 || per_token <= s.slo_tpot_ms)) ++good;
  }
  p.ttft = Summarize(ttft);
  p.itl = Summarize(itl);
  p.tpot = Summarize(tpot);
  p.e2e = Summarize(e2e);
  p.span_s = std::chrono::duration<double>(last - first).count();
  if (p.span_s > 0) {
    p.output_tokens_per_s = completion / p.span_s;
    p.requests_per_s = p.requests / p.span_s;
    p.goodput_requests_per_s = good / p.span_s;
  }
  p.prompt_tokens_mean = prompt / p.requests;
  p.completion_tokens_mean = completion / p.requests;
  // Windows by completion time: tokens of the requests that ended in each.
  const int windows = static_cast<int>(std::clamp<int64_t>(p.requests / 4, 3, 10));
  if (p.requests >= 6 && p.span_s > 0) {
    std::vector<double> tokens(windows, 0);
    const double width = p.span_s / windows;
    for (const Sample& x : run.samples) {
      const double at = std::chrono::duration<double>(x.c.done - first).count();
      const int w = std::min(windows - 1, static_cast<int>(at / width));
      tokens[w] += static_cast<double>(x.c.completion_tokens >= 0 ? x.c.completion_tokens : x.c.chunks.size());
    }
    for (double t : tokens) p.window_tokens_per_s.push_back(t / width);
    // The first window fills while the batch ramps up; the last three decide.
    const auto tail = std::vector<double>(p.window_tokens_per_s.end() - 3, p.window_tokens_per_s.end());
    const double mean = (tail[0] + tail[1] + tail[2]) / 3;
    p.stable = mean > 0;
    for (double t : tail) p.stable = p.stable && std::abs(t - mean) <= s.tolerance * mean;
  }
  return p;
}

Result<LlmPointResult> RunPoint(const LlmBenchSettings& s, const LlmPrompts& prompts, int64_t concurrency,
                                double rate, int64_t* prompt_index) {
  const int64_t load = concurrency > 0 ? concurrency : std::max<int64_t>(2, static_cast<int64_t>(std::ceil(rate * 8)));
  const int64_t measured = s.requests > 0 ? s.requests : std::max<int64_t>(16, 4 * load);
  const int64_t warmup = s.warmup_requests >= 0 ? s.warmup_requests : std::max<int64_t>(2, concurrency > 0 ? concurrency : 2);
  const int64_t total = warmup + measured;
  const int64_t base = *prompt_index;
  *prompt_index += total;

  // Every worker has its own connection, made before the clock starts.
  const int workers = static_cast<int>(concurrency > 0 ? concurrency : std::min<int64_t>(64, std::max<int64_t>(load, 4)));
  std::vector<std::unique_ptr<client::OpenAiClient>> clients;
  for (int i = 0; i < workers; ++i) {
    HONE_ASSIGN_OR_RETURN(auto c, client::OpenAiClient::Connect(s.host, static_cast<uint16_t>(s.port)));
    clients.push_back(std::move(c));
  }
  auto call_for = [&](int64_t i) {
    client::CompletionCall call;
    call.model = s.model;
    call.chat = s.chat;
    call.prompt = prompts.Get(base + i);
    call.max_tokens = s.output_tokens;
    call.ignore_eos = true;
    call.temperature = 0;
    return call;
  };
  PointRun run;
  std::atomic<int64_t> next{0};
  // The open loop's arrival times: declared here, not in its branch, since the workers read them until they are
  // joined below (in the branch they died with it, and a worker slept until a time read from freed memory: a
  // rate-0.5 run against llama-server waited 19 years for its last request).
  std::vector<Clock::duration> due;
  Clock::time_point t0;
  std::vector<std::thread> threads;
  if (concurrency > 0) {
    // Closed loop: each worker sends its next request when the last one ended. Warm-up requests are the first
    // ones, so the measured ones start with the server already loaded to this concurrency.
    for (int w = 0; w < workers; ++w)
      threads.emplace_back([&, w] {
        for (int64_t i; (i = next.fetch_add(1)) < total;) {
          const Clock::time_point start = Clock::now();
          auto r = clients[w]->Stream(call_for(i));
          run.Done(i, warmup, r.ok() ? r->sent : start, std::move(r));
        }
      });
  } else {
    // Open loop: request i is due at its arrival time whatever the server does; latency counts from then.
    HONE_ASSIGN_OR_RETURN(ArrivalSchedule schedule, ArrivalSchedule::Create(rate, s.arrival, s.seed));
    for (int64_t i = 0; i < total; ++i) due.push_back(schedule.Next());
    t0 = Clock::now();
    for (int w = 0; w < workers; ++w)
      threads.emplace_back([&, w] {
        for (int64_t i; (i = next.fetch_add(1)) < total;) {
          const Clock::time_point intended = t0 + due[i];
          std::this_thread::sleep_until(intended);
          run.Done(i, warmup, intended, clients[w]->Stream(call_for(i)));
        }
      });
  }
  for (auto& t : threads) t.join();
  LlmPointResult p = Analyse(s, run);
  p.concurrency = concurrency;
  p.rate = rate;
  p.label = concurrency > 0 ? fmt::format("concurrency {}", concurrency) : fmt::format("rate {:g}/s", rate);
  return p;
}

}  // namespace

Status LlmBenchSettings::Validate() const {
  if (concurrency.empty() && rates.empty()) return Status::InvalidArgument("give --concurrency or --rate");
  for (int64_t c : concurrency)
    if (c < 1 || c > 1024) return Status::InvalidArgument(fmt::format("--concurrency {}: expected 1 to 1024", c));
  for (double r : rates)
    if (!(r > 0)) return Status::InvalidArgument(fmt::format("--rate {}: expected > 0", r));
  if (input_tokens < 1) return Status::InvalidArgument("--input-tokens must be >= 1");
  if (output_tokens < 1) return Status::InvalidArgument("--output-tokens must be >= 1");
  if (requests < 0) return Status::InvalidArgument("--requests must be >= 0");
  if (slo_ttft_ms < 0 || slo_tpot_ms < 0) return Status::InvalidArgument("--slo bounds must be positive");
  return Status::Ok();
}

Result<LlmBenchReport> RunLlmBench(const LlmBenchSettings& settings, const std::atomic<bool>* stop,
                                   std::function<void(const std::string&)> status) {
  HONE_RETURN_IF_ERROR(settings.Validate());
  LlmBenchReport report;
  report.settings = settings;
  report.system = report::ReadSystemInfo();
  HONE_ASSIGN_OR_RETURN(auto control, client::OpenAiClient::Connect(settings.host, static_cast<uint16_t>(settings.port)));
  HONE_ASSIGN_OR_RETURN(std::vector<std::string> models, control->Models());
  if (std::find(models.begin(), models.end(), settings.model) == models.end())
    return Status::NotFound(fmt::format("the server at {}:{} does not list model '{}' in /v1/models (it lists: {})",
                                        settings.host, settings.port, settings.model, fmt::join(models, ", ")));
  HONE_ASSIGN_OR_RETURN(auto prompts, LlmPrompts::Create(settings.prompts_path, settings.tokenizer_path,
                                                         settings.input_tokens, settings.seed));
  report.prompt_source = prompts->description();
  int64_t prompt_index = 0;
  std::vector<std::pair<int64_t, double>> points;
  for (int64_t c : settings.concurrency) points.emplace_back(c, 0);
  for (double r : settings.rates) points.emplace_back(0, r);
  for (const auto& [c, r] : points) {
    if (stop && stop->load()) {
      report.interrupted = true;
      break;
    }
    if (status) status(c > 0 ? fmt::format("concurrency {}", c) : fmt::format("rate {:g}/s", r));
    HONE_ASSIGN_OR_RETURN(LlmPointResult p, RunPoint(settings, *prompts, c, r, &prompt_index));
    report.points.push_back(std::move(p));
  }
  return report;
}

}  // namespace hone::bench
